//! The chat's basic state, folded from its log one event at a time.
//!
//! `apply` is O(1) per event, so a reader that keeps a view up to date as the
//! log grows pays only for the new events, and one that opens a chat pays one
//! pass.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::Hasher;

use crate::action::Action;
use crate::body::{Answer, Body, ChatCreated, EndReason, MarkSource, Mode, Origin, Speaker};
use crate::event::Event;

/// The chat is held to a skill's list: its instructions are in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Hold {
    pub skill: String,
    pub source: String,
    /// The list as it was when the skill came in; None in older logs (the
    /// reader falls back to the skill's list now, or the usual one).
    pub permissions: Option<crate::skill::SkillPermissions>,
    /// The `seq` of the `skill.used` that started it.
    pub seq: u64,
    /// The turn it came in with: the one running then, or the one its
    /// message started.
    pub turn: Option<u64>,
    pub by: crate::skill::SkillBy,
    pub from: Option<String>,
}

/// The holds on a chat, from its events: every skill used and not stopped
/// by a person. Compaction, summaries and trimming never end a hold.
///
/// Only the events that start, end or date a hold are looked at, so a
/// reader that needs the holds alone doesn't pay for the whole view.
pub fn skill_holds<'a>(events: impl IntoIterator<Item = &'a Event>) -> Vec<Hold> {
    let mut holds = Vec::new();
    let mut open_turn = None;
    for event in events {
        apply_hold(&mut holds, open_turn, event);
        match &event.body {
            Body::TurnStarted(_) => open_turn = Some(event.seq),
            Body::TurnEnded(ended) if open_turn == Some(ended.turn) => open_turn = None,
            _ => {}
        }
    }
    holds
}

/// One event's effect on the holds, given the turn open before it; shared by
/// [`skill_holds`] and [`ChatView::apply`] so the two can't drift apart.
fn apply_hold(holds: &mut Vec<Hold>, open_turn: Option<u64>, event: &Event) {
    match &event.body {
        Body::SkillUsed(used) => holds.push(Hold {
            skill: used.skill.clone(),
            source: used.source.clone(),
            permissions: used.permissions.clone(),
            seq: event.seq,
            turn: open_turn,
            by: used.by,
            from: used.from.clone(),
        }),
        Body::SkillHoldEnded(ended) => holds.retain(|h| h.skill != ended.skill),
        // A skill typed with the message that starts this turn came in
        // with it.
        Body::TurnStarted(_) => {
            for hold in holds.iter_mut().filter(|h| h.turn.is_none()) {
                hold.turn = Some(event.seq);
            }
        }
        _ => {}
    }
}

/// The chat took in something from outside (a `taint` event).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub seq: u64,
    pub source: MarkSource,
    pub what: String,
    /// The call that made it: named by the mark, or (older logs) the call
    /// that finished right after it.
    pub call: Option<String>,
    /// For a download: the command of that call, started last before the
    /// mark (ids can repeat).
    pub command: Option<String>,
    /// For a download: whether the box watched that call's network (its
    /// `tool.finished` says `network_observed`). What the box saw holds
    /// whatever the words were.
    pub observed: bool,
    /// Whether it holds under this version's rules, judged when the mark is
    /// folded (see [`Mark::judge`]).
    held: bool,
}

impl Mark {
    /// Whether the mark holds under today's rules. Only marks made by a
    /// command are looked at again (the download rule changed on
    /// 2026-10-04); pages, apps, people and carried marks always hold. A
    /// command mark whose command can't be found holds.
    ///
    /// The rule can only change with Conch's version, and every process
    /// folds a chat's log afresh when it opens it, so judging once per fold
    /// is judging each time the marks are read, at a cost that doesn't grow
    /// with every question.
    fn judge(&mut self) {
        self.held = match (&self.source, &self.command) {
            (MarkSource::Download, Some(_)) if self.observed => true,
            (MarkSource::Download, Some(command)) => crate::download::is_download(command),
            _ => true,
        };
    }

    pub fn holds(&self) -> bool {
        self.held
    }
}

/// An "always" in force: the answer that gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The `permission.answered` event's `seq` and `at`.
    pub seq: u64,
    pub at: String,
    /// Who answered: `owner`, `key:<name>`, or a chat app's owner.
    pub by: String,
}

/// A question asked and not yet answered or ended.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingAsk {
    pub ask: String,
    /// The `seq` of its `permission.requested`.
    pub seq: u64,
    pub turn: u64,
    pub call: String,
    pub tool: String,
    pub action: Action,
    pub always: Option<Vec<String>>,
    /// The narrower choice, for a command (see `PermissionRequested::narrow`).
    pub narrow: Option<Vec<String>>,
}

/// A turn that has started and not ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenTurn {
    /// The `seq` of its `turn.started`.
    pub seq: u64,
}

/// What every reader agrees a chat is, from its log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatView {
    pub created: Option<ChatCreated>,
    /// The mode now: the last `mode.changed`, else the one it was created with.
    pub mode: Option<Mode>,
    pub last_seq: u64,
    pub open_turn: Option<OpenTurn>,
    /// What a list of chats shows, as plain text: the name the owner gave
    /// it (`chat.renamed`), else their first message, shortened.
    pub title: Option<String>,
    /// The owner named it: its first message no longer does.
    pub renamed: bool,
    /// The owner archived it (`chat.archived`).
    pub archived: bool,
    /// The provider the owner picked for its turns (`model.changed`).
    pub provider: Option<String>,
    /// The `seq` of the owner's latest message, and its text.
    pub last_owner: Option<(u64, String)>,
    /// How the latest turn ended (None while it runs, or before any ended).
    pub last_end: Option<EndReason>,
    pub messages: u64,
    pub turns: u64,
    /// Questions waiting for an answer, oldest first.
    pub pending: Vec<PendingAsk>,
    /// What "Always allow" answers let through for the rest of the chat:
    /// the `always` of every question answered `always`, but those taken
    /// back (`grant.revoked`).
    pub always: BTreeSet<String>,
    /// Who gave each of those, and when (the answer's `seq`, `at` and `by`).
    pub grants: BTreeMap<String, Grant>,
    /// Every mark, held or not; see [`ChatView::held_taints`].
    pub marks: Vec<Mark>,
    /// The skills this chat is held to, in the order they came in.
    pub holds: Vec<Hold>,
    /// Who other than the owner has written in the chat (name, and app).
    pub others: Vec<String>,
    /// What the owner wrote and the chat read, in words: see [`Seen`].
    pub seen: crate::seen::Seen,
    /// The last few calls' outputs, until a mark says whether they were read
    /// from outside.
    outputs: std::collections::VecDeque<(u64, Box<str>)>,
    /// The most recent commands: (seq, call id, the command if it could be a
    /// download, whether the box watched its network). A mark names a call
    /// that has just finished, so a short memory is enough; a mark whose call
    /// has been forgotten holds.
    commands: std::collections::VecDeque<(u64, u64, Option<Box<str>>, bool)>,
    /// Marks from older logs that name no call, waiting for the next finish.
    unbound: Vec<usize>,
    last_message: u64,
    /// Messages up to here have had their turn (it started after them, or
    /// the owner stopped the turn they were waiting on).
    handled_until: u64,
}

/// How many recent outputs a fold keeps for the mark that may follow them.
const RECENT_OUTPUTS: usize = 8;

/// How many recent commands a fold remembers for binding marks to calls.
const RECENT_COMMANDS: usize = 256;

/// A cheap first look: the download rule can only match a command holding
/// one of these (in any case).
fn could_be_download(command: &str) -> bool {
    let has = |needle: &[u8]| {
        command
            .as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
    };
    has(b"://") || has(b"curl") || has(b"wget") || has(b"fetch")
}

impl ChatView {
    pub fn fold<'a>(events: impl IntoIterator<Item = &'a Event>) -> ChatView {
        let mut view = ChatView::default();
        for event in events {
            view.apply(event);
        }
        view
    }

    pub fn apply(&mut self, event: &Event) {
        self.last_seq = self.last_seq.max(event.seq);
        match &event.body {
            Body::ChatCreated(created) => {
                self.mode.get_or_insert(created.mode);
                self.created = Some(created.clone());
            }
            Body::ModeChanged(changed) => self.mode = Some(changed.mode),
            Body::ChatRenamed(renamed) => {
                self.title = Some(crate::title::plain(&renamed.title));
                self.renamed = true;
            }
            Body::ChatArchived(archived) => self.archived = archived.archived,
            Body::ModelChanged(changed) => self.provider = changed.provider.clone(),
            Body::Message(message) => {
                self.messages += 1;
                self.last_message = event.seq;
                match message.from {
                    Speaker::Owner => {
                        if self.title.is_none() {
                            self.title = Some(crate::title::plain(&message.text));
                        }
                        self.last_owner = Some((event.seq, message.text.clone()));
                        self.seen.owner(&message.text);
                    }
                    Speaker::Person => {
                        let who = match (&message.name, &message.app) {
                            (Some(n), Some(a)) => format!("{n} on {a}"),
                            (Some(n), None) => n.clone(),
                            _ => "someone".to_owned(),
                        };
                        if !self.others.contains(&who) {
                            self.others.push(who);
                        }
                        self.seen.read(&message.text);
                    }
                    // A routine's run is titled by what it was asked.
                    Speaker::Routine => {
                        if self.title.is_none() {
                            self.title = Some(crate::title::plain(&message.text));
                        }
                    }
                    Speaker::Task => {}
                }
            }
            Body::ToolCalled(called) => {
                if let Some(command) = called.input.get("command").and_then(|c| c.as_str()) {
                    if self.commands.len() == RECENT_COMMANDS {
                        self.commands.pop_front();
                    }
                    // Only a command that could be a download needs its text
                    // kept; for the rest, "not a download" is the verdict.
                    let kept = could_be_download(command).then(|| command.into());
                    self.commands
                        .push_back((event.seq, digest(&called.call), kept, false));
                }
            }
            Body::ToolFinished(finished) => {
                if self.outputs.len() == RECENT_OUTPUTS {
                    self.outputs.pop_front();
                }
                self.outputs
                    .push_back((digest(&finished.call), finished.output.as_str().into()));
                let observed = finished
                    .detail
                    .as_ref()
                    .and_then(|d| d.get("network_observed"))
                    .and_then(serde_json::Value::as_bool)
                    == Some(true);
                if observed {
                    let call = digest(&finished.call);
                    if let Some(c) = self.commands.iter_mut().rev().find(|c| c.1 == call) {
                        c.3 = true;
                    }
                }
                for at in std::mem::take(&mut self.unbound) {
                    let seq = self.marks[at].seq;
                    let before = self.command_before(&finished.call, seq);
                    self.marks[at].observed = before.as_ref().is_some_and(|b| b.1);
                    self.marks[at].command = before.map(|b| b.0);
                    self.marks[at].call = Some(finished.call.clone());
                    self.marks[at].judge();
                }
            }
            Body::SkillUsed(_) | Body::SkillHoldEnded(_) => {
                apply_hold(&mut self.holds, self.open_turn.map(|t| t.seq), event)
            }
            Body::Taint(taint) => {
                // What the marking call brought in was read from outside.
                if let Some(call) = taint.call.as_deref() {
                    let d = digest(call);
                    if let Some((_, output)) = self.outputs.iter().rev().find(|(c, _)| *c == d) {
                        let output = output.clone();
                        self.seen.read(&output);
                    }
                }
                let before = taint
                    .call
                    .as_deref()
                    .and_then(|c| self.command_before(c, event.seq));
                let mut mark = Mark {
                    seq: event.seq,
                    source: taint.source,
                    what: taint.what.clone(),
                    call: taint.call.clone(),
                    observed: before.as_ref().is_some_and(|b| b.1),
                    command: before.map(|b| b.0),
                    held: true,
                };
                mark.judge();
                self.marks.push(mark);
                if taint.call.is_none() && taint.source == MarkSource::Download {
                    self.unbound.push(self.marks.len() - 1);
                }
            }
            Body::TurnStarted(_) => {
                apply_hold(&mut self.holds, self.open_turn.map(|t| t.seq), event);
                self.turns += 1;
                self.last_end = None;
                self.handled_until = event.seq;
                self.open_turn = Some(OpenTurn { seq: event.seq });
            }
            Body::TurnEnded(ended) => {
                if self.open_turn.map(|t| t.seq) == Some(ended.turn) {
                    self.open_turn = None;
                }
                self.last_end = Some(ended.reason);
                // Stop means stop: what was queued behind the turn doesn't
                // start another one by itself.
                if ended.reason == EndReason::Stopped {
                    self.handled_until = event.seq;
                }
            }
            Body::PermissionRequested(asked) => self.pending.push(PendingAsk {
                ask: asked.ask.clone(),
                seq: event.seq,
                turn: asked.turn,
                call: asked.call.clone(),
                tool: asked.tool.clone(),
                action: asked.action.clone(),
                always: asked.always.clone(),
                narrow: asked.narrow.clone(),
            }),
            Body::PermissionAnswered(answered) => {
                if let Some(at) = self.pending.iter().position(|p| p.ask == answered.ask) {
                    let asked = self.pending.remove(at);
                    // An "always" to a question that didn't offer it counts
                    // as once; so does a narrower one it didn't offer.
                    if answered.answer == Answer::Always {
                        let keys = if answered.narrow {
                            asked.narrow
                        } else {
                            asked.always
                        };
                        for key in keys.unwrap_or_default() {
                            self.grants.insert(
                                key.clone(),
                                Grant {
                                    seq: event.seq,
                                    at: event.at.clone(),
                                    by: answered.by.clone(),
                                },
                            );
                            self.always.insert(key);
                        }
                    }
                }
            }
            Body::PermissionEnded(ended) => self.pending.retain(|p| p.ask != ended.ask),
            Body::GrantRevoked(revoked) => {
                self.always.remove(&revoked.key);
                self.grants.remove(&revoked.key);
            }
            _ => {}
        }
    }

    /// A message arrived after the last turn started: a turn should run for it.
    pub fn waiting_for_turn(&self) -> bool {
        self.open_turn.is_none() && self.last_message > self.handled_until
    }

    pub fn pending_ask(&self, ask: &str) -> Option<&PendingAsk> {
        self.pending.iter().find(|p| p.ask == ask)
    }

    /// The marks that hold now (`held_taints`): every mark, with command
    /// marks checked again under today's download rule.
    pub fn held_taints(&self) -> impl Iterator<Item = &Mark> {
        self.marks.iter().filter(|m| m.holds())
    }

    pub fn is_marked(&self) -> bool {
        self.held_taints().next().is_some()
    }

    /// Someone is there to choose: the owner started the chat (not a
    /// routine, a task, or a chat app).
    pub fn someone_there(&self) -> bool {
        self.created
            .as_ref()
            .is_none_or(|c| c.origin == Origin::Owner)
    }

    /// A hold that allows no command stands: an engine that can't be asked
    /// mid-step (Codex) runs tighter while it does.
    pub fn held_without_commands(&self) -> bool {
        self.holds.iter().any(|h| {
            h.permissions
                .as_ref()
                .is_some_and(|p| p.commands.is_empty())
                || h.permissions.is_none()
        })
    }

    /// Someone other than the owner has written in the chat.
    pub fn others_words(&self) -> bool {
        !self.others.is_empty()
    }

    /// Who sees what the assistant says here besides the owner: the people
    /// who wrote in a chat a chat app started (its replies go back to that
    /// app chat). Empty in the owner's own chats.
    pub fn audience(&self) -> &[String] {
        let from_app = self
            .created
            .as_ref()
            .is_some_and(|c| c.origin == Origin::App);
        if from_app {
            &self.others
        } else {
            &[]
        }
    }

    /// Whether the address `url` appears word for word in the owner's own
    /// messages (a trailing `/` and the fragment aside).
    pub fn owner_said(&self, url: &str) -> bool {
        self.seen.owner_said(url)
    }

    /// The command of `call` started last before `seq`, and whether the
    /// box watched its network.
    fn command_before(&self, call: &str, seq: u64) -> Option<(String, bool)> {
        let call = digest(call);
        self.commands
            .iter()
            .rev()
            .find(|(at, id, _, _)| *at < seq && *id == call)
            .map(|(_, _, c, observed)| (c.as_deref().unwrap_or("").to_owned(), *observed))
    }
}

/// Sets of digests hold digests already: hashing them again would only
/// double the cost of a long chat's fold.
#[derive(Default)]
pub(crate) struct Digested(u64);

impl Hasher for Digested {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only u64s are put in the set; this is here for completeness.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// SipHash of a string with fixed keys: the same in every process, so folds
/// agree.
pub(crate) fn digest(text: &str) -> u64 {
    use std::hash::Hash;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::*;

    fn ev(seq: u64, body: Body) -> Event {
        Event {
            seq,
            id: format!("e{seq}"),
            at: "t".into(),
            body,
        }
    }

    fn msg(text: &str, from: Speaker) -> Body {
        Body::Message(Message {
            from,
            text: text.into(),
            name: None,
            app: None,
            replaces: None,
        })
    }

    fn used(skill: &str) -> Body {
        Body::SkillUsed(crate::skill::SkillUsed {
            skill: skill.into(),
            source: "conch".into(),
            fingerprint: "f".into(),
            permissions: None,
            by: crate::skill::SkillBy::Typed,
            from: None,
            instructions: "Do it.".into(),
            says: None,
        })
    }

    #[test]
    fn holds_alone_match_the_whole_view() {
        let started = || {
            Body::TurnStarted(TurnStarted {
                engine: "mock".into(),
                model: None,
                not_ready: Vec::new(),
            })
        };
        let ended = |turn| {
            Body::TurnEnded(TurnEnded {
                turn,
                reason: EndReason::Done,
                error: None,
            })
        };
        let log = vec![
            ev(1, msg("/a do it", Speaker::Owner)),
            ev(2, used("a")),
            ev(3, started()),
            ev(4, used("b")),
            ev(5, ended(3)),
            ev(6, used("c")),
            ev(
                7,
                Body::SkillHoldEnded(crate::skill::SkillHoldEnded {
                    skill: "b".into(),
                    reason: "you".into(),
                }),
            ),
            ev(8, started()),
            ev(9, ended(8)),
        ];
        let alone = skill_holds(&log);
        assert_eq!(alone, ChatView::fold(&log).holds);
        let seen: Vec<_> = alone.iter().map(|h| (h.skill.as_str(), h.turn)).collect();
        assert_eq!(seen, [("a", Some(3)), ("c", Some(8))]);
    }

    #[test]
    fn tracks_mode_turns_and_waiting_messages() {
        let log = vec![
            ev(
                1,
                Body::ChatCreated(ChatCreated {
                    work: "/w".into(),
                    mode: Mode::Ask,
                    origin: Origin::Owner,
                    parent: None,
                    artifact: None,
                    routine: None,
                }),
            ),
            ev(2, msg("hello   there\nfriend", Speaker::Owner)),
        ];
        let mut view = ChatView::fold(&log);
        assert_eq!(view.mode, Some(Mode::Ask));
        assert_eq!(view.title.as_deref(), Some("hello there friend"));
        assert!(view.waiting_for_turn());

        view.apply(&ev(
            3,
            Body::TurnStarted(TurnStarted {
                engine: "mock".into(),
                model: None,
                not_ready: Vec::new(),
            }),
        ));
        assert_eq!(view.open_turn, Some(OpenTurn { seq: 3 }));
        assert!(!view.waiting_for_turn());
        view.apply(&ev(4, msg("queued", Speaker::Owner)));
        assert!(!view.waiting_for_turn(), "a turn is still running");
        view.apply(&ev(
            5,
            Body::TurnEnded(TurnEnded {
                turn: 3,
                reason: EndReason::Done,
                error: None,
            }),
        ));
        assert_eq!(view.open_turn, None);
        assert!(view.waiting_for_turn(), "the queued message wants a turn");
        view.apply(&ev(6, Body::ModeChanged(ModeChanged { mode: Mode::Full })));
        assert_eq!(view.mode, Some(Mode::Full));
        assert_eq!(view.last_seq, 6);
        assert_eq!(view.title.as_deref(), Some("hello there friend"));
    }

    fn asked(seq: u64, ask: &str, always: Option<Vec<&str>>) -> Event {
        ev(
            seq,
            Body::PermissionRequested(crate::PermissionRequested {
                turn: 1,
                ask: ask.into(),
                call: "c".into(),
                tool: "run_command".into(),
                action: Action::Command {
                    command: "ls".into(),
                    programs: vec!["ls".into()],
                    unsealed: true,
                    leaves_box: false,
                },
                why: vec!["mode.ask-command".into()],
                question: "q".into(),
                note: None,
                always: always.map(|a| a.into_iter().map(String::from).collect()),
                provenance: vec![],
                told: None,
                after_reading: false,
                narrow: None,
            }),
        )
    }

    fn answered(seq: u64, ask: &str, answer: Answer) -> Event {
        ev(
            seq,
            Body::PermissionAnswered(crate::PermissionAnswered {
                ask: ask.into(),
                answer,
                by: "owner".into(),
                narrow: false,
            }),
        )
    }

    #[test]
    fn questions_wait_until_answered_and_always_is_remembered() {
        let mut view = ChatView::default();
        view.apply(&asked(
            1,
            "a1",
            Some(vec!["run_command", "box:run_command"]),
        ));
        view.apply(&asked(2, "a2", None));
        assert_eq!(view.pending.len(), 2);
        view.apply(&answered(3, "a1", Answer::Always));
        view.apply(&answered(4, "a2", Answer::Always));
        assert!(view.pending.is_empty());
        let always: Vec<&str> = view.always.iter().map(String::as_str).collect();
        assert_eq!(
            always,
            ["box:run_command", "run_command"],
            "a2 offered nothing"
        );
        // An answer to a question that isn't waiting changes nothing.
        view.apply(&answered(5, "a9", Answer::Always));
        assert_eq!(view.always.len(), 2);
    }

    #[test]
    fn once_and_deny_remember_nothing_and_ended_questions_stop_waiting() {
        let mut view = ChatView::default();
        view.apply(&asked(1, "a1", Some(vec!["run_command"])));
        view.apply(&answered(2, "a1", Answer::Once));
        view.apply(&asked(3, "a2", Some(vec!["run_command"])));
        view.apply(&answered(4, "a2", Answer::Deny));
        view.apply(&asked(5, "a3", Some(vec!["run_command"])));
        view.apply(&ev(
            6,
            Body::PermissionEnded(crate::PermissionEnded {
                ask: "a3".into(),
                reason: "stopped".into(),
            }),
        ));
        assert!(view.always.is_empty());
        assert!(view.pending.is_empty());
    }

    #[test]
    fn a_stopped_turn_takes_its_queued_messages_with_it() {
        let mut view = ChatView::default();
        view.apply(&ev(1, msg("go", Speaker::Owner)));
        view.apply(&ev(
            2,
            Body::TurnStarted(TurnStarted {
                engine: "m".into(),
                model: None,
                not_ready: Vec::new(),
            }),
        ));
        view.apply(&ev(3, msg("and this", Speaker::Owner)));
        view.apply(&ev(
            4,
            Body::TurnEnded(TurnEnded {
                turn: 2,
                reason: EndReason::Stopped,
                error: None,
            }),
        ));
        assert!(!view.waiting_for_turn());
    }

    fn taint(seq: u64, source: MarkSource, call: Option<&str>) -> Event {
        ev(
            seq,
            Body::Taint(crate::Taint {
                source,
                what: "x".into(),
                call: call.map(String::from),
                says: None,
                from: None,
                path: None,
            }),
        )
    }

    fn called(seq: u64, call: &str, command: &str) -> Event {
        ev(
            seq,
            Body::ToolCalled(crate::ToolCalled {
                turn: 1,
                call: call.into(),
                tool: "run_command".into(),
                input: serde_json::json!({ "command": command }),
            }),
        )
    }

    fn finished(seq: u64, call: &str) -> Event {
        ev(
            seq,
            Body::ToolFinished(crate::ToolFinished {
                turn: 1,
                call: call.into(),
                ok: true,
                output: String::new(),
                detail: None,
            }),
        )
    }

    #[test]
    fn a_mark_made_by_git_fetch_under_the_old_rule_comes_free() {
        let view = ChatView::fold(&[
            called(1, "c1", "git fetch origin"),
            taint(2, MarkSource::Download, Some("c1")),
            finished(3, "c1"),
        ]);
        assert_eq!(view.marks.len(), 1, "the mark is kept");
        assert!(!view.is_marked(), "but it doesn't hold");
    }

    #[test]
    fn older_marks_without_a_call_use_the_call_that_finishes_right_after() {
        let view = ChatView::fold(&[
            called(1, "c1", "git fetch"),
            taint(2, MarkSource::Download, None),
            finished(3, "c1"),
        ]);
        assert_eq!(view.marks[0].call.as_deref(), Some("c1"));
        assert!(!view.is_marked());
        let view = ChatView::fold(&[
            called(1, "c1", "curl https://x.example"),
            taint(2, MarkSource::Download, None),
            finished(3, "c1"),
        ]);
        assert!(view.is_marked());
    }

    #[test]
    fn a_repeated_call_id_means_the_one_started_last_before_the_mark() {
        let view = ChatView::fold(&[
            called(1, "c", "curl https://x.example"),
            finished(2, "c"),
            called(3, "c", "git fetch"),
            taint(4, MarkSource::Download, Some("c")),
            called(5, "c", "wget y"),
        ]);
        assert_eq!(view.marks[0].command.as_deref(), Some("git fetch"));
        assert!(!view.is_marked());
    }

    #[test]
    fn a_download_the_box_saw_holds_whatever_the_words() {
        let observed = |seq: u64, call: &str| {
            ev(
                seq,
                Body::ToolFinished(crate::ToolFinished {
                    turn: 1,
                    call: call.into(),
                    ok: true,
                    output: String::new(),
                    detail: Some(
                        serde_json::json!({
                            "network_observed": true,
                            "reached_hosts": ["files.example"]
                        })
                        .into(),
                    ),
                }),
            )
        };
        let command = "python3 -c 'import urllib.request as u; u.urlopen(\"ht\"+\"tp:/\"+\"/files.example/a\")'";
        let view = ChatView::fold(&[
            called(1, "c1", command),
            observed(2, "c1"),
            taint(3, MarkSource::Download, Some("c1")),
        ]);
        assert!(view.marks[0].observed);
        assert!(view.is_marked());
        // The same words, unwatched, are judged by the word rule.
        let view = ChatView::fold(&[
            called(1, "c1", "python3 build.py"),
            finished(2, "c1"),
            taint(3, MarkSource::Download, Some("c1")),
        ]);
        assert!(!view.is_marked());
    }

    #[test]
    fn pages_people_and_unknown_commands_always_hold() {
        for source in [
            MarkSource::Page,
            MarkSource::Search,
            MarkSource::Integration,
            MarkSource::Person,
            MarkSource::Carried,
        ] {
            assert!(ChatView::fold(&[taint(1, source, Some("c"))]).is_marked());
        }
        assert!(ChatView::fold(&[taint(1, MarkSource::Download, Some("nope"))]).is_marked());
    }

    #[test]
    fn others_words_and_the_owners_words() {
        let view = ChatView::fold(&[
            ev(
                1,
                msg(
                    "Please read https://docs.example/a/b/, thanks.",
                    Speaker::Owner,
                ),
            ),
            ev(
                2,
                Body::Message(Message {
                    from: Speaker::Person,
                    text: "hi".into(),
                    name: Some("Eve".into()),
                    app: Some("telegram".into()),
                    replaces: None,
                }),
            ),
        ]);
        assert!(view.owner_said("https://docs.example/a/b/"));
        assert!(view.owner_said("https://docs.example/a/b"));
        assert!(!view.owner_said("https://docs.example/a"));
        assert_eq!(view.others, ["Eve on telegram"]);
        assert!(view.someone_there());
    }

    #[test]
    fn unknown_events_are_skipped() {
        let mut view = ChatView::default();
        view.apply(&ev(
            1,
            Body::Unknown {
                kind: "future.thing".into(),
            },
        ));
        assert_eq!(view.last_seq, 1);
        assert_eq!(view.messages, 0);
    }

    #[test]
    fn long_titles_are_shortened() {
        let view = ChatView::fold(&[ev(1, msg(&"word ".repeat(40), Speaker::Owner))]);
        let title = view.title.unwrap();
        assert_eq!(title.chars().count(), crate::title::TITLE_CHARS);
        assert!(title.ends_with('…'));
    }
}
