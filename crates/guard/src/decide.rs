use std::collections::BTreeMap;

use protocol::{Action, ChatView, Mode};

use crate::policy::Policy;
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
}

impl Settings {
    pub fn new(mode: Mode) -> Settings {
        Settings {
            mode,
            policies: BTreeMap::new(),
        }
    }

    fn policy(&self, tool: &str) -> Policy {
        self.policies.get(tool).copied().unwrap_or_default()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Allow,
    Ask {
        why: Vec<Rule>,
        question: String,
        note: Option<String>,
        /// What Always allow would let through for the rest of the chat;
        /// None when it isn't offered.
        always: Option<Vec<String>>,
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
        Action::LookAround { .. } | Action::PageRead { .. } | Action::Search { .. } => true,
        Action::Integration { read_only, .. } => *read_only,
        Action::FileChange { .. } | Action::Command { .. } | Action::FetchSends { .. } => false,
    }
}

/// A reason to ask, and the Always-allow key that satisfies it.
struct Reason {
    rule: Rule,
    always: String,
}

pub fn decide(call: Call<'_>, chat: &ChatView, settings: &Settings) -> Decision {
    let policy = settings.policy(call.tool);
    if policy == Policy::Off {
        return Decision::Deny {
            why: vec![Rule::PolicyOff],
            sentence: words::turned_off(call.tool),
        };
    }
    if policy == Policy::ReadOnly && !reads_only(call.action) {
        return Decision::Deny {
            why: vec![Rule::PolicyReadOnly],
            sentence: words::read_only(call.tool),
        };
    }

    let mode = settings.mode;
    let careful = matches!(mode, Mode::Ask | Mode::Edits | Mode::Auto);
    let tool_key = call.tool.to_owned();
    let mut reasons: Vec<Reason> = Vec::new();
    let mut ask = |rule: Rule, always: String| reasons.push(Reason { rule, always });

    if policy == Policy::Ask {
        ask(Rule::PolicyAsk, tool_key.clone());
    }
    match call.action {
        Action::Command {
            unsealed,
            leaves_box,
            ..
        } => {
            if careful {
                ask(Rule::ModeAskCommand, tool_key.clone());
            }
            // Leaving the box asks in every mode but Full trust.
            if (*unsealed || *leaves_box) && mode != Mode::Full {
                let rule = if *leaves_box {
                    Rule::BoxLeave
                } else {
                    Rule::BoxUnavailable
                };
                ask(rule, format!("box:{}", call.tool));
            }
        }
        Action::FileChange { inside: true, .. } => {
            if mode == Mode::Ask {
                ask(Rule::ModeAskEdit, tool_key.clone());
            }
        }
        Action::FileChange { inside: false, .. } => {
            if careful {
                ask(Rule::ModeEditsOutside, tool_key.clone());
            }
        }
        Action::Integration {
            read_only: false, ..
        }
        | Action::FetchSends { .. } => {
            if careful {
                ask(Rule::ModeAskIntegration, tool_key.clone());
            }
        }
        Action::Integration {
            read_only: true, ..
        }
        | Action::LookAround { .. }
        | Action::PageRead { .. }
        | Action::Search { .. } => {}
    }

    // Earlier "Always allow" answers satisfy the reasons they covered.
    reasons.retain(|r| !chat.always.contains(&r.always));
    if reasons.is_empty() {
        return Decision::Allow;
    }
    let mut always: Vec<String> = Vec::new();
    for r in &reasons {
        if !always.contains(&r.always) {
            always.push(r.always.clone());
        }
    }
    Decision::Ask {
        why: reasons.iter().map(|r| r.rule).collect(),
        question: words::question(call.tool, call.action),
        note: None,
        always: Some(always),
    }
}

#[cfg(test)]
mod tests;
