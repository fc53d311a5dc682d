use std::collections::BTreeMap;

use protocol::{Action, BrowserOp, ChatView, Mode};

use crate::address;
use crate::policy::Policy;
use crate::protect::{powers_in, Protected};
use crate::rules::Rule;
use crate::words;

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

pub fn decide(call: Call<'_>, chat: &ChatView, settings: &Settings) -> Decision {
    let tool = name_of(&call);
    let policy = settings.policy_of(&call);
    if policy == Policy::Off {
        return Decision::Deny {
            why: vec![Rule::PolicyOff],
            sentence: words::turned_off(tool),
        };
    }
    if policy == Policy::Changed {
        return Decision::Deny {
            why: vec![Rule::PolicyChanged],
            sentence: words::changed(tool),
        };
    }
    // A command is read once, as the shell will read it, for every check.
    let mut signature = None;
    let touched = if let Action::Command { command, .. } = call.action {
        let reading = protocol::shell::read(command, &settings.protected.context());
        if powers_in(&reading) {
            return Decision::Deny {
                why: vec![Rule::ProtectedPower],
                sentence: words::protected_power(command),
            };
        }
        signature = crate::always::signature(&reading);
        settings.protected.command_touches(command, &reading)
    } else {
        settings.protected.touched_by(call.action)
    };
    if touched {
        return Decision::Deny {
            why: vec![Rule::ProtectedPath],
            sentence: words::protected_path(),
        };
    }
    if policy == Policy::ReadOnly && !reads_only(call.action) {
        return Decision::Deny {
            why: vec![Rule::PolicyReadOnly],
            sentence: words::read_only(tool),
        };
    }

    let mode = settings.mode;
    let careful = matches!(mode, Mode::Ask | Mode::Edits | Mode::Auto);
    let plain = || tool.to_owned();
    let read = || format!("read:{tool}");
    let mut reasons: Vec<Reason> = Vec::new();
    // A question the mode (or the tool's policy) asks takes the tool's own
    // "always", and an "always" given after reading covers it too.
    let by_mode = |rule: Rule| Reason {
        rule,
        offers: Some(plain()),
        satisfied_by: vec![plain(), read()],
    };

    if policy == Policy::Ask {
        reasons.push(by_mode(Rule::PolicyAsk));
    }
    match call.action {
        Action::Command {
            unsealed,
            leaves_box,
            ..
        } => {
            if careful {
                reasons.push(by_mode(Rule::ModeAskCommand));
            }
            // Leaving the box asks in every mode but Full trust in a chat
            // someone is in.
            let full_and_there = mode == Mode::Full && chat.someone_there();
            if (*unsealed || *leaves_box) && !full_and_there {
                let key = format!("box:{tool}");
                reasons.push(Reason {
                    rule: if *leaves_box {
                        Rule::BoxLeave
                    } else {
                        Rule::BoxUnavailable
                    },
                    offers: Some(key.clone()),
                    satisfied_by: vec![key],
                });
            }
        }
        Action::FileChange { inside: true, .. } if mode == Mode::Ask => {
            reasons.push(by_mode(Rule::ModeAskEdit));
        }
        Action::FileChange { inside: false, .. } if careful => {
            reasons.push(by_mode(Rule::ModeEditsOutside));
        }
        Action::Integration {
            read_only: false, ..
        }
        | Action::FetchSends { .. }
            if careful =>
        {
            reasons.push(by_mode(Rule::ModeAskIntegration));
        }
        // A click that sends asks as an integration that writes does, but
        // each time: the browser keeps its own "always" (per site, below).
        // So does typing that the page's own script reads as it is typed.
        Action::Browser(b) if careful && b.sends.is_some() => {
            reasons.push(Reason {
                rule: Rule::ModeAskBrowserSend,
                offers: None,
                satisfied_by: Vec::new(),
            });
        }
        _ => {}
    }

    // A password typed into a page is asked about every time, in every
    // mode, and never remembered.
    if let Action::Browser(b) = call.action {
        if b.op == BrowserOp::Type && b.password {
            reasons.push(Reason {
                rule: Rule::BrowserPassword,
                offers: None,
                satisfied_by: Vec::new(),
            });
        }
    }

    // What runs later by itself is a change a person should see, in every
    // mode, each time.
    if let Action::FileChange {
        runs_later: Some(_),
        ..
    } = call.action
    {
        reasons.push(Reason {
            rule: Rule::RunsLater,
            offers: None,
            satisfied_by: Vec::new(),
        });
    }

    // A routine runs later by itself with nobody there: persistence,
    // asked in every mode, each time.
    if let Action::Routine { .. } = call.action {
        reasons.push(Reason {
            rule: Rule::RunsLaterRoutine,
            offers: None,
            satisfied_by: Vec::new(),
        });
    }

    // Check before acting on what it read (ADR 0028 §1 and its updates).
    let mut note = None;
    let mut told = None;
    if settings.check_after_reading {
        if let (Some(rule), Some(mark)) = (
            after_reading_rule(call.action, chat),
            chat.held_taints().last(),
        ) {
            let others = chat.others_words();
            let there = chat.someone_there();
            // Full trust, in a chat someone is in with nobody else's words:
            // it still records the mark, but doesn't ask.
            if !full_trust_skips(mode, chat) {
                let held = chat.held_taints().count();
                note = Some(words::guard_note(mark, held - 1, tool, call.action));
                // The browser keeps its own "always" (per site, below).
                let browser = matches!(call.action, Action::Browser(_));
                if others || !there || browser {
                    // "Always" would be untrue here: none is offered, and none
                    // given before counts.
                    reasons.push(Reason {
                        rule,
                        offers: None,
                        satisfied_by: Vec::new(),
                    });
                    if others && !browser {
                        reasons.push(Reason {
                            rule: Rule::OthersWords,
                            offers: None,
                            satisfied_by: Vec::new(),
                        });
                        told = Some(words::told(&settings.owner_name));
                    }
                    if !there && !browser {
                        reasons.push(Reason {
                            rule: Rule::NobodyThere,
                            offers: None,
                            satisfied_by: Vec::new(),
                        });
                    }
                } else {
                    reasons.push(Reason {
                        rule,
                        offers: Some(read()),
                        satisfied_by: vec![read()],
                    });
                }
            }
        }
    }

    // What it reads goes back to someone else here: the owner's private
    // things ask the owner first, in every mode, each time.
    if let (Some(what), false) = (
        crate::private::private_read(call.action),
        chat.audience().is_empty(),
    ) {
        reasons.push(Reason {
            rule: Rule::OthersSee,
            offers: None,
            satisfied_by: Vec::new(),
        });
        let line = words::others_see(chat.audience(), what);
        note = Some(match note {
            Some(n) => format!("{line} {n}"),
            None => line,
        });
        told.get_or_insert_with(|| words::told(&settings.owner_name));
    }

    // The browser asks once per site in a marked chat, even for a site the
    // owner trusts and in Full trust (ADR 0028 §1): the first action on
    // each site it acts on (the page's, and where a click sends).
    let mut browser_sites: Vec<String> = Vec::new();
    if let (true, Action::Browser(b), Some(mark)) = (
        settings.check_after_reading,
        call.action,
        chat.held_taints().last(),
    ) {
        let others = chat.others_words();
        let there = chat.someone_there();
        // "Always" would be untrue where someone else's words are in the
        // chat or nobody is there: none is offered, and none given counts.
        let honest = there && !others;
        for site in b.sites() {
            let key = crate::site::key(site);
            if honest && chat.always.contains(&key) {
                continue;
            }
            browser_sites.push(site.to_owned());
            reasons.push(Reason {
                rule: Rule::AfterReadingBrowserSite,
                offers: honest.then(|| key.clone()),
                satisfied_by: if honest { vec![key] } else { Vec::new() },
            });
        }
        if !browser_sites.is_empty() {
            let held = chat.held_taints().count();
            note.get_or_insert_with(|| words::guard_note(mark, held - 1, tool, call.action));
            if others {
                reasons.push(Reason {
                    rule: Rule::OthersWords,
                    offers: None,
                    satisfied_by: Vec::new(),
                });
                told = Some(words::told(&settings.owner_name));
            }
            if !there {
                reasons.push(Reason {
                    rule: Rule::NobodyThere,
                    offers: None,
                    satisfied_by: Vec::new(),
                });
            }
        }
    }

    // Skill holds: whatever the mode, with no "always".
    let held = crate::hold::off_list(call.action, chat, &settings.skill_lists);
    if !held.is_empty() {
        reasons.push(Reason {
            rule: Rule::HoldOffList,
            offers: None,
            satisfied_by: Vec::new(),
        });
        let line = crate::hold::question_note(&held, chat, tool, call.action);
        note = Some(match note {
            Some(n) => format!("{line} {n}"),
            None => line,
        });
    }

    if let Action::Routine { .. } = call.action {
        let line = words::routine_note();
        note = Some(match note {
            Some(n) => format!("{line} {n}"),
            None => line.to_owned(),
        });
    }

    // A narrower answer covers what its wider key covers, for a command
    // with exactly its signature.
    let covered = |key: &String| {
        chat.always.contains(key)
            || signature
                .as_deref()
                .is_some_and(|sig| chat.always.contains(&crate::always::narrow_key(key, sig)))
    };
    reasons.retain(|r| !r.satisfied_by.iter().any(covered));
    if reasons.is_empty() {
        return Decision::Allow;
    }
    let always = if reasons.iter().all(|r| r.offers.is_some()) {
        let mut keys: Vec<String> = Vec::new();
        for key in reasons.iter().filter_map(|r| r.offers.clone()) {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        // An "always" given after reading covers the tool's own question.
        if keys.contains(&read()) {
            keys.retain(|k| *k != plain());
        }
        Some(keys)
    } else {
        None
    };
    let narrow = match (&always, &signature) {
        (Some(keys), Some(sig)) => Some(
            keys.iter()
                .map(|k| crate::always::narrow_key(k, sig))
                .collect(),
        ),
        _ => None,
    };
    if reasons.iter().any(|r| r.rule == Rule::NobodyThere) {
        note = Some(match note {
            Some(n) => format!("{n} {}", words::nobody_there()),
            None => words::nobody_there().to_owned(),
        });
    }
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
        why,
        question,
        note,
        always,
        narrow,
        told,
    }
}

#[cfg(test)]
mod tests;
