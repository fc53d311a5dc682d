//! Someone trying to get in: `security.jsonl` in Conch's folder, one line
//! for each wrong password, wrong confirmation and wrong setup link the
//! gateway checked. Guesses that were slowed down before they were checked
//! aren't written: nothing was tried.
//!
//! Activity folds these lines into rows ("Someone tried 12 wrong
//! passwords", one per spell of tries with less than an hour between
//! them), and the security checkup counts the last week's. Like a chat's
//! log, the file is the record and everything else is read from it.
//!
//! Lines are whole or skipped: a line cut off by a crash isn't an attempt,
//! and the next append starts on a fresh line.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use protocol::{ActivityKind, ActivityRow};
use serde::{Deserialize, Serialize};

use crate::private_file::open_private_append;

pub const SECURITY_FILE: &str = "security.jsonl";

/// Tries with less than this between them are one spell (one row).
pub const SPELL_GAP_MS: i64 = 60 * 60 * 1000;

/// What was tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tried {
    /// A wrong password at sign-in.
    SignIn,
    /// A wrong password when confirming it again.
    Confirm,
    /// A wrong or expired setup link.
    SetupLink,
}

/// One failed try, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    pub seq: u64,
    pub at: String,
    /// Always `attempt.failed`, so the line reads like the chat logs' events.
    #[serde(rename = "type")]
    pub kind: String,
    /// The client's address.
    pub from: String,
    pub tried: Tried,
}

type Observer = Box<dyn Fn(&Attempt) + Send + Sync>;

/// The file, appended to by the gateway.
pub struct SecurityLog {
    path: PathBuf,
    writer: Mutex<Option<(File, u64)>>,
    observer: OnceLock<Observer>,
}

impl SecurityLog {
    pub fn new(home: &Path) -> SecurityLog {
        SecurityLog {
            path: home.join(SECURITY_FILE),
            writer: Mutex::new(None),
            observer: OnceLock::new(),
        }
    }

    /// Told of every attempt once it is on disk (Activity keeps up so).
    pub fn observe(&self, observer: Observer) {
        let _ = self.observer.set(observer);
    }

    /// Writes one failed try, on disk before it returns. Blocking.
    pub fn record(&self, tried: Tried, from: &str) -> std::io::Result<Attempt> {
        let mut writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        if writer.is_none() {
            *writer = Some(open(&self.path)?);
        }
        let Some((file, next_seq)) = writer.as_mut() else {
            return Err(std::io::Error::other("the security log isn't open"));
        };
        let attempt = Attempt {
            seq: *next_seq,
            at: protocol::format_rfc3339(SystemTime::now()),
            kind: "attempt.failed".to_owned(),
            from: from.chars().take(64).collect(),
            tried,
        };
        let mut line = serde_json::to_vec(&attempt).map_err(std::io::Error::other)?;
        line.push(b'\n');
        file.write_all(&line).and_then(|()| file.sync_data())?;
        *next_seq += 1;
        if let Some(observe) = self.observer.get() {
            observe(&attempt);
        }
        Ok(attempt)
    }
}

/// Opens the file for appending: the next `seq`, and a fresh line after
/// anything a crash cut off.
fn open(path: &Path) -> std::io::Result<(File, u64)> {
    let mut file = open_private_append(path)?;
    let mut bytes = Vec::new();
    File::open(path)?.read_to_end(&mut bytes)?;
    let next = parse(&bytes).last().map_or(1, |a| a.seq + 1);
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        file.seek(SeekFrom::End(0))?;
        file.write_all(b"\n")?;
    }
    Ok((file, next))
}

/// Every whole attempt in the file at `path`, in order.
pub fn read(path: &Path) -> Vec<Attempt> {
    std::fs::read(path).map(|b| parse(&b)).unwrap_or_default()
}

/// The attempts in `bytes`; lines that aren't one are skipped.
pub fn parse(bytes: &[u8]) -> Vec<Attempt> {
    bytes
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice::<Attempt>(line).ok())
        .collect()
}

/// Tries close together: one row of Activity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spell {
    /// The first try's `seq`: the row's identity.
    pub seq: u64,
    /// The latest try's time, where the row sits.
    pub at: String,
    pub at_ms: i64,
    pub passwords: u64,
    pub links: u64,
    /// Addresses seen (at most [`MAX_SHOWN`] kept; `more` counts the rest).
    pub from: BTreeSet<String>,
    pub more: u64,
}

const MAX_SHOWN: usize = 16;

impl Spell {
    /// "Someone tried 12 wrong passwords".
    pub fn says(&self) -> String {
        let n = |count: u64, one: &str, many: &str| {
            format!("{count} wrong {}", if count == 1 { one } else { many })
        };
        match (self.passwords, self.links) {
            (p, 0) => format!("Someone tried {}", n(p, "password", "passwords")),
            (0, l) => format!("Someone tried {}", n(l, "setup link", "setup links")),
            (p, l) => format!(
                "Someone tried {} and {}",
                n(p, "password", "passwords"),
                n(l, "setup link", "setup links")
            ),
        }
    }

    /// "from 127.0.0.1", or how many addresses.
    pub fn state(&self) -> String {
        let count = self.from.len() as u64 + self.more;
        match self.from.iter().next() {
            Some(one) if count == 1 => format!("from {one}"),
            _ => format!("from {count} addresses"),
        }
    }

    pub fn row(&self) -> ActivityRow {
        ActivityRow {
            seq: self.seq,
            event: format!("attempt-{}", self.seq),
            at: self.at.clone(),
            kind: ActivityKind::Security,
            says: self.says(),
            state: Some(self.state()),
            ask: None,
            memory: None,
        }
    }
}

/// Folds attempts into spells, one at a time.
#[derive(Debug, Default)]
pub struct SpellFold {
    current: Option<Spell>,
    last_seq: u64,
}

/// What one attempt did to the rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpellChange {
    /// A new spell began.
    New(Spell),
    /// The spell that began at `seq` grew; it moved from `was_ms`.
    Grew { was_ms: i64, spell: Spell },
}

impl SpellFold {
    /// Folds in one attempt; `None` for one already seen.
    pub fn apply(&mut self, attempt: &Attempt) -> Option<SpellChange> {
        if attempt.seq <= self.last_seq {
            return None;
        }
        self.last_seq = attempt.seq;
        let at_ms = protocol::parse_rfc3339(&attempt.at).unwrap_or(0);
        let (passwords, links) = match attempt.tried {
            Tried::SignIn | Tried::Confirm => (1, 0),
            Tried::SetupLink => (0, 1),
        };
        match self.current.as_mut() {
            Some(spell) if at_ms - spell.at_ms < SPELL_GAP_MS => {
                let was_ms = spell.at_ms;
                spell.at = attempt.at.clone();
                spell.at_ms = at_ms.max(spell.at_ms);
                spell.passwords += passwords;
                spell.links += links;
                note(spell, &attempt.from);
                Some(SpellChange::Grew {
                    was_ms,
                    spell: spell.clone(),
                })
            }
            _ => {
                let mut spell = Spell {
                    seq: attempt.seq,
                    at: attempt.at.clone(),
                    at_ms,
                    passwords,
                    links,
                    from: BTreeSet::new(),
                    more: 0,
                };
                note(&mut spell, &attempt.from);
                self.current = Some(spell.clone());
                Some(SpellChange::New(spell))
            }
        }
    }
}

fn note(spell: &mut Spell, from: &str) {
    if spell.from.contains(from) {
        return;
    }
    if spell.from.len() < MAX_SHOWN {
        spell.from.insert(from.to_owned());
    } else {
        spell.more += 1;
    }
}

/// Every spell in `attempts`, oldest first.
pub fn spells(attempts: &[Attempt]) -> Vec<Spell> {
    let mut fold = SpellFold::default();
    let mut out: Vec<Spell> = Vec::new();
    for attempt in attempts {
        match fold.apply(attempt) {
            Some(SpellChange::New(spell)) => out.push(spell),
            Some(SpellChange::Grew { spell, .. }) => {
                if let Some(last) = out.last_mut() {
                    *last = spell;
                }
            }
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(seq: u64, at: &str, from: &str, tried: Tried) -> Attempt {
        Attempt {
            seq,
            at: at.to_owned(),
            kind: "attempt.failed".to_owned(),
            from: from.to_owned(),
            tried,
        }
    }

    #[test]
    fn tries_close_together_are_one_row() {
        let list = [
            attempt(1, "2026-11-29T09:00:00.000Z", "127.0.0.1", Tried::SignIn),
            attempt(2, "2026-11-29T09:30:00.000Z", "127.0.0.1", Tried::SignIn),
            attempt(3, "2026-11-29T10:29:00.000Z", "127.0.0.1", Tried::Confirm),
            // More than an hour later: a new spell.
            attempt(4, "2026-11-29T11:30:00.000Z", "192.0.2.1", Tried::SetupLink),
            attempt(5, "2026-11-29T11:31:00.000Z", "192.0.2.2", Tried::SignIn),
        ];
        let found = spells(&list);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].seq, 1);
        assert_eq!(found[0].at, "2026-11-29T10:29:00.000Z");
        assert_eq!(found[0].says(), "Someone tried 3 wrong passwords");
        assert_eq!(found[0].state(), "from 127.0.0.1");
        assert_eq!(
            found[1].says(),
            "Someone tried 1 wrong password and 1 wrong setup link"
        );
        assert_eq!(found[1].state(), "from 2 addresses");
        assert_eq!(found[1].row().kind, ActivityKind::Security);
    }

    #[test]
    fn a_line_cut_off_is_skipped_and_appends_start_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let log = SecurityLog::new(dir.path());
        log.record(Tried::SignIn, "127.0.0.1").unwrap();
        drop(log);
        let path = dir.path().join(SECURITY_FILE);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(br#"{"seq":2,"at":"2026"#).unwrap();
        let log = SecurityLog::new(dir.path());
        let next = log.record(Tried::Confirm, "127.0.0.1").unwrap();
        assert_eq!(next.seq, 2);
        let read = read(&path);
        assert_eq!(read.iter().map(|a| a.seq).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(read[1].tried, Tried::Confirm);
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&path).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn many_addresses_are_counted_not_listed() {
        let list: Vec<Attempt> = (1..=40)
            .map(|i| {
                attempt(
                    i,
                    "2026-11-29T09:00:00.000Z",
                    &format!("192.0.2.{i}"),
                    Tried::SignIn,
                )
            })
            .collect();
        let spell = &spells(&list)[0];
        assert_eq!(spell.from.len(), MAX_SHOWN);
        assert_eq!(spell.state(), "from 40 addresses");
    }
}
