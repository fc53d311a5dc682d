//! What the mode asks (and a tool's own policy), the box's fence, and what
//! asks in every mode whatever was read: a password typed into a page, a
//! change that runs later by itself, a routine.

use protocol::{Action, BrowserOp, ChatView, Mode};

use super::{Call, Found, Reason};
use crate::policy::Policy;
use crate::rules::Rule;
use crate::words;

/// Ask, Accept edits and Auto ask before what changes things; Ask before
/// any edit; a tool set to Ask asks in every mode.
pub(super) fn by_mode(call: &Call<'_>, tool: &str, policy: Policy, mode: Mode, found: &mut Found) {
    let careful = matches!(mode, Mode::Ask | Mode::Edits | Mode::Auto);
    let reasons = &mut found.reasons;
    if policy == Policy::Ask {
        reasons.push(Reason::by_mode(Rule::PolicyAsk, tool));
    }
    let rule = match call.action {
        Action::Command { .. } if careful => Some(Rule::ModeAskCommand),
        Action::FileChange { inside: true, .. } if mode == Mode::Ask => Some(Rule::ModeAskEdit),
        Action::FileChange { inside: false, .. } if careful => Some(Rule::ModeEditsOutside),
        Action::Integration {
            read_only: false, ..
        }
        | Action::FetchSends { .. }
            if careful =>
        {
            Some(Rule::ModeAskIntegration)
        }
        // A click that sends asks as an integration that writes does, but
        // each time: the browser keeps its own "always" (per site). So
        // does typing that the page's own script reads as it is typed.
        Action::Browser(b) if careful && b.sends.is_some() => {
            reasons.push(Reason::each_time(Rule::ModeAskBrowserSend));
            None
        }
        _ => None,
    };
    if let Some(rule) = rule {
        reasons.push(Reason::by_mode(rule, tool));
    }
}

/// Leaving the box, or running where there is none, asks in every mode
/// but Full trust in a chat someone is in.
pub(super) fn fence(call: &Call<'_>, tool: &str, chat: &ChatView, mode: Mode, found: &mut Found) {
    let Action::Command {
        unsealed,
        leaves_box,
        ..
    } = call.action
    else {
        return;
    };
    let full_and_there = mode == Mode::Full && chat.someone_there();
    if (*unsealed || *leaves_box) && !full_and_there {
        let key = format!("box:{tool}");
        found.reasons.push(Reason {
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

/// What a person should see each time, in every mode: a password typed
/// into a page (never remembered), a change that runs later by itself, a
/// routine (persistence, with nobody there when it runs).
pub(super) fn always_asks(call: &Call<'_>, found: &mut Found) {
    match call.action {
        Action::Browser(b) if b.op == BrowserOp::Type && b.password => {
            found.reasons.push(Reason::each_time(Rule::BrowserPassword));
        }
        Action::FileChange {
            runs_later: Some(_),
            ..
        } => found.reasons.push(Reason::each_time(Rule::RunsLater)),
        Action::Routine { .. } => {
            found
                .reasons
                .push(Reason::each_time(Rule::RunsLaterRoutine));
            found.note.routine = Some(words::routine_note().to_owned());
        }
        _ => {}
    }
}
