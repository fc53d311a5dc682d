use std::collections::BTreeMap;

use protocol::{Action, BrowserOp, ChatView, Mode};

use crate::address;
use crate::policy::Policy;
use crate::protect::Protected;
use crate::rules::Rule;
use crate::words;

mod marks;
mod mode;
mod people;
mod refuse;

/// The call being judged.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub tool: &'a str,
    pub action: &'a Action,
}

/// What the guard needs besides the chat.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The chat's mode now.
    pub mode: Mode,
    /// Per-tool policies; a tool not named follows the mode.
    pub policies: BTreeMap<String, Policy>,
    /// Safety → "Check before acting on what it read".
    pub check_after_reading: bool,
    pub protected: std::sync::Arc<Protected>,
    /// Who the owner is, in "I've asked Ada to OK it."
    pub owner_name: String,
    /// Each skill's list as it is now, for holds recorded without one.
    pub skill_lists: BTreeMap<String, protocol::SkillPermissions>,
}

impl Settings {
    pub fn new(mode: Mode) -> Settings {
        Settings {
            mode,
            policies: BTreeMap::new(),
            check_after_reading: true,
            protected: Default::default(),
            owner_name: "the owner".to_owned(),
            skill_lists: BTreeMap::new(),
        }
    }

    fn policy(&self, tool: &str) -> Policy {
        self.policies.get(tool).copied().unwrap_or_default()
    }

    /// The policy a call is judged under. An app's tool goes by its one
    /// name (`mail.send`) whatever an engine calls it (`mcp__mail__send`);
    /// a policy set under the engine's name still refuses it.
    fn policy_of(&self, call: &Call<'_>) -> Policy {
        let name = name_of(call);
        let own = self.policy(name);
        if name == call.tool || own.refuses_all() {
            return own;
        }
        match self.policy(call.tool) {
            p if p.refuses_all() => p,
            p if own == Policy::Mode => p,
            _ => own,
        }
    }
}

/// What a call's policy, "always" answers and words go by: an app's tool's
/// one name (`server.tool`), else the tool's own.
fn name_of<'a>(call: &Call<'a>) -> &'a str {
    match call.action {
        Action::Integration { tool, .. } => tool,
        _ => call.tool,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Allow,
    Ask {
        why: Vec<Rule>,
        question: String,
        /// Why it is checking, when a mark is behind it (the GuardNote).
        note: Option<String>,
        /// What Always allow would let through for the rest of the chat;
        /// None when it isn't offered.
        always: Option<Vec<String>>,
        /// The narrower choice for a command: the same keys, each for this
        /// command's program (and subcommand) only (`run_command@git push`;
        /// see [`crate::always`]). None when it isn't offered.
        narrow: Option<Vec<String>>,
        /// What the chat is told when someone else's words are in it.
        told: Option<String>,
    },
    Deny {
        why: Vec<Rule>,
        /// What the model is told.
        sentence: String,
    },
}

impl Decision {
    pub fn rule_ids(&self) -> Vec<&'static str> {
        match self {
            Decision::Allow => Vec::new(),
            Decision::Ask { why, .. } | Decision::Deny { why, .. } => {
                why.iter().map(|r| r.id()).collect()
            }
        }
    }
}

/// Whether the call only reads.
fn reads_only(action: &Action) -> bool {
    match action {
        Action::LookAround { .. }
        | Action::PageRead { .. }
        | Action::Search { .. }
        | Action::UseSkill { .. }
        | Action::Delegate { .. }
        | Action::Artifact { .. } => true,
        Action::Integration { read_only, .. } => *read_only,
        Action::Memory { op, .. } => op.reads_only(),
        Action::Browser(b) => b.op.reads_only(),
        Action::FileChange { .. }
        | Action::Command { .. }
        | Action::FetchSends { .. }
        | Action::Routine { .. } => false,
    }
}

/// A reason to ask: the Always-allow key it offers (None: it offers none),
/// and the earlier answers that satisfy it.
struct Reason {
    rule: Rule,
    offers: Option<String>,
    satisfied_by: Vec<String>,
}

impl Reason {
    /// A reason no "always" answers: asked each time.
    fn each_time(rule: Rule) -> Reason {
        Reason {
            rule,
            offers: None,
            satisfied_by: Vec::new(),
        }
    }

    /// A question the mode (or the tool's policy) asks takes the tool's
    /// own "always", and an "always" given after reading covers it too.
    fn by_mode(rule: Rule, tool: &str) -> Reason {
        Reason {
            rule,
            offers: Some(tool.to_owned()),
            satisfied_by: vec![tool.to_owned(), format!("read:{tool}")],
        }
    }
}

/// The after-reading rule a marked chat applies to this action, if any.
fn after_reading_rule(action: &Action, chat: &ChatView) -> Option<Rule> {
    match action {
        Action::Command { .. } => Some(Rule::AfterReadingCommand),
        Action::FileChange { inside: false, .. } => Some(Rule::AfterReadingOutsideWrite),
        Action::FetchSends { .. } => Some(Rule::AfterReadingDataFetch),
        Action::PageRead { url, .. } => {
            address::carries_data(url, chat).map(|_| Rule::AfterReadingDataFetch)
        }
        Action::Browser(b) if b.op == BrowserOp::Open => {
            address::carries_data(&b.url, chat).map(|_| Rule::AfterReadingDataFetch)
        }
        Action::Integration {
            read_only: false, ..
        } => Some(Rule::AfterReadingIntegrationWrite),
        Action::Memory {
            op: protocol::MemoryOp::Forget,
            ..
        } => Some(Rule::AfterReadingForget),
        _ => None,
    }
}

/// What a mark does to the questions in this chat now: the decision below
/// and the first mark's words both read it.
pub fn after_reading(
    mode: Mode,
    chat: &ChatView,
    check_after_reading: bool,
) -> words::AfterReading {
    if !check_after_reading {
        words::AfterReading::Off
    } else if full_trust_skips(mode, chat) {
        words::AfterReading::FullTrust
    } else {
        words::AfterReading::Checks
    }
}

/// Full trust, in a chat someone is in with nobody else's words: the mark
/// is recorded, but nothing asks because of it.
fn full_trust_skips(mode: Mode, chat: &ChatView) -> bool {
    mode == Mode::Full && chat.someone_there() && !chat.others_words()
}

/// Judges one call, once: each family of rules looks in turn (protected
/// places and policies refuse; the mode, the box, runs-later, the browser,
/// after reading, people and skill holds give reasons to ask), and the
/// question, its note and what "always" would cover are made in one place.
pub fn decide(call: Call<'_>, chat: &ChatView, settings: &Settings) -> Decision {
    let tool = name_of(&call);
    let policy = settings.policy_of(&call);
    let signature = match refuse::refusal(&call, tool, policy, settings) {
        Ok(signature) => signature,
        Err(refused) => return *refused,
    };
    let mut found = Found::default();
    mode::by_mode(&call, tool, policy, settings.mode, &mut found);
    mode::fence(&call, tool, chat, settings.mode, &mut found);
    mode::always_asks(&call, &mut found);
    marks::after_reading(&call, tool, chat, settings, &mut found);
    people::others_see(&call, chat, settings, &mut found);
    marks::browser_sites(&call, tool, chat, settings, &mut found);
    people::holds(&call, tool, chat, settings, &mut found);
    finish(found, &call, tool, signature.as_deref(), chat)
}

/// What the families found.
#[derive(Default)]
struct Found {
    reasons: Vec<Reason>,
    /// The note's parts, each family's own: why it is checking.
    note: Note,
    /// What the chat is told when someone else's words are in it.
    told: Option<String>,
    /// The browser sites this call asks about.
    browser_sites: Vec<String>,
}

/// The note, in the order a person reads it: what runs later by itself,
/// the skill's list, who sees the answer, then the mark behind the
/// question.
#[derive(Default)]
struct Note {
    routine: Option<String>,
    hold: Option<String>,
    others_see: Option<String>,
    mark: Option<String>,
}

impl Note {
    fn line(self, nobody_there: bool) -> Option<String> {
        let nobody = nobody_there.then(|| words::nobody_there().to_owned());
        let parts: Vec<String> = [self.routine, self.hold, self.others_see, self.mark, nobody]
            .into_iter()
            .flatten()
            .collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    }
}

/// What Always allow would cover: every key the reasons offer, once; none
/// when any reason offers none.
fn always_keys(reasons: &[Reason], tool: &str) -> Option<Vec<String>> {
    if !reasons.iter().all(|r| r.offers.is_some()) {
        return None;
    }
    let mut keys: Vec<String> = Vec::new();
    for key in reasons.iter().filter_map(|r| r.offers.clone()) {
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    // An "always" given after reading covers the tool's own question.
    if keys.contains(&format!("read:{tool}")) {
        keys.retain(|k| k != tool);
    }
    Some(keys)
}

/// The decision from the reasons found: what earlier answers cover is
/// dropped, and what is left asks once, with every key it needs.
fn finish(
    found: Found,
    call: &Call<'_>,
    tool: &str,
    signature: Option<&str>,
    chat: &ChatView,
) -> Decision {
    let Found {
        mut reasons,
        note,
        told,
        browser_sites,
    } = found;
    // A narrower answer covers what its wider key covers, for a command
    // with exactly its signature.
    let covered = |key: &String| {
        chat.always.contains(key)
            || signature
                .is_some_and(|sig| chat.always.contains(&crate::always::narrow_key(key, sig)))
    };
    reasons.retain(|r| !r.satisfied_by.iter().any(covered));
    if reasons.is_empty() {
        return Decision::Allow;
    }
    let always = always_keys(&reasons, tool);
    let narrow = match (&always, signature) {
        (Some(keys), Some(sig)) => Some(
            keys.iter()
                .map(|k| crate::always::narrow_key(k, sig))
                .collect(),
        ),
        _ => None,
    };
    let mut why: Vec<Rule> = Vec::new();
    for rule in reasons.iter().map(|r| r.rule) {
        if !why.contains(&rule) {
            why.push(rule);
        }
    }
    let question = match chat.held_taints().last() {
        Some(mark) if why.contains(&Rule::AfterReadingBrowserSite) => {
            let held = chat.held_taints().count();
            words::browser_site_question(mark, held - 1, &browser_sites, call.action)
        }
        _ => words::question(tool, call.action),
    };
    Decision::Ask {
        note: note.line(why.contains(&Rule::NobodyThere)),
        why,
        question,
        always,
        narrow,
        told,
    }
}

#[cfg(test)]
mod tests;
