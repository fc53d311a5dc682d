//! Putting a turn's files back (or an undo's), each only if it still holds
//! what the turn (or the undo) left in it.

use std::collections::BTreeMap;
use std::path::Path;

use protocol::{Body, Event, FilesRestored, LeftAlone, Restored};

use super::{store, UndoError};
use crate::log::ChatLog;

/// What to undo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The last turn that changed a file.
    Last,
    /// The turn that started with this event's seq.
    Turn(u64),
    /// An earlier undo, by its event's seq.
    Undo(u64),
}

/// One file to put back: what to put there, and what it must hold now.
struct Step {
    put: Option<String>,
    /// None: not known (the turn never ended).
    expect: Option<Option<String>>,
    not_kept: Option<String>,
}

const CHANGED: &str =
    "It changed after this turn (by you, or by a later turn), so it was left as it is.";
const UNKNOWN: &str = "Conch stopped before this turn ended, so it can't tell whether the file changed since; it was left as it is.";

/// Undoes `target` in the chat whose log is `log`, and logs what it did.
pub fn undo(log: &ChatLog, target: Target, by: &str) -> Result<FilesRestored, UndoError> {
    let events = log.events_after(0)?;
    let dir = log.path().parent().unwrap_or(Path::new("."));
    let (turn, undo_of, steps) = steps(&events, target)?;
    let mut left = Vec::new();
    let mut planned: Vec<(Restored, super::batch::Change)> = Vec::new();
    for (path, step) in steps {
        let leave = |why: String| LeftAlone {
            path: path.clone(),
            why,
        };
        if let Some(why) = step.not_kept {
            left.push(leave(format!("Conch didn't keep a copy: {why}.")));
            continue;
        }
        let now = match store::now(Path::new(&path)) {
            Ok(now) => now,
            Err(why) => {
                left.push(leave(format!("It can't be put back: {why}.")));
                continue;
            }
        };
        let now_hash = now.as_deref().map(store::hash);
        match &step.expect {
            None => {
                left.push(leave(UNKNOWN.to_owned()));
                continue;
            }
            Some(expect) if *expect != now_hash => {
                left.push(leave(CHANGED.to_owned()));
                continue;
            }
            Some(_) => {}
        }
        let content = match step.put.as_deref().map(|h| store::get(dir, h)).transpose() {
            Ok(c) => c,
            Err(e) => {
                left.push(leave(e.to_string()));
                continue;
            }
        };
        // What it holds now is kept too, so this undo can be undone (on
        // disk with the rest, before any file changes).
        if let Some(bytes) = &now {
            if let Err(e) = store::put_unflushed(dir, bytes) {
                left.push(leave(e.to_string()));
                continue;
            }
        }
        planned.push((
            Restored {
                path: path.clone(),
                before: now_hash,
                after: step.put,
            },
            super::batch::Change {
                path: path.into(),
                content,
            },
        ));
    }
    let (plans, changes): (Vec<Restored>, Vec<super::batch::Change>) = planned.into_iter().unzip();
    let outcomes = super::batch::apply(&changes, &[dir.join(store::KEPT_DIR)]);
    let mut restored = Vec::new();
    for (plan, outcome) in plans.into_iter().zip(outcomes) {
        match outcome {
            Ok(()) => restored.push(plan),
            Err(e) => left.push(LeftAlone {
                path: plan.path,
                why: format!("It couldn't be written ({e})."),
            }),
        }
    }
    let done = FilesRestored {
        turn,
        undo_of,
        restored,
        left,
        by: by.to_owned(),
    };
    log.append_blocking(Body::FilesRestored(done.clone()))?;
    Ok(done)
}

type Steps = (u64, Option<u64>, BTreeMap<String, Step>);

fn steps(events: &[Event], target: Target) -> Result<Steps, UndoError> {
    let turn = match target {
        Target::Undo(seq) => return undo_steps(events, seq),
        Target::Turn(turn) => turn,
        Target::Last => events
            .iter()
            .rev()
            .find_map(|e| match &e.body {
                Body::FileKept(k) => Some(k.turn),
                _ => None,
            })
            .ok_or(UndoError::NoChanges)?,
    };
    let mut steps: BTreeMap<String, Step> = BTreeMap::new();
    for e in events {
        if let Body::FileKept(k) = &e.body {
            if k.turn == turn && !steps.contains_key(&k.path) {
                steps.insert(
                    k.path.clone(),
                    Step {
                        put: k.before.clone(),
                        expect: None,
                        not_kept: k.not_kept.clone(),
                    },
                );
            }
        }
    }
    if steps.is_empty() {
        return Err(UndoError::Nothing(turn));
    }
    for e in events {
        if let Body::FilesLeft(l) = &e.body {
            if l.turn == turn {
                for f in &l.files {
                    if let Some(step) = steps.get_mut(&f.path) {
                        step.expect = Some(f.content.clone());
                    }
                }
            }
        }
    }
    Ok((turn, None, steps))
}

fn undo_steps(events: &[Event], seq: u64) -> Result<Steps, UndoError> {
    let Some(Body::FilesRestored(r)) = events.iter().find(|e| e.seq == seq).map(|e| &e.body) else {
        return Err(UndoError::NotAnUndo(seq));
    };
    let steps = r
        .restored
        .iter()
        .map(|f| {
            (
                f.path.clone(),
                Step {
                    put: f.before.clone(),
                    expect: Some(f.after.clone()),
                    not_kept: None,
                },
            )
        })
        .collect();
    Ok((r.turn, Some(seq), steps))
}
