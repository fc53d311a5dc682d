//! The refusals: a tool turned off or changed since it was allowed, a
//! protected place or a Conch power, and a read-only tool that would
//! change something. Nothing asks past these.

use protocol::Action;

use super::{reads_only, Call, Decision, Settings};
use crate::policy::Policy;
use crate::protect::powers_in;
use crate::rules::Rule;
use crate::words;

/// A refusal, or the command's signature (for the narrow "always") when
/// nothing refuses. A command is read once, as the shell will read it, for
/// every check.
pub(super) fn refusal(
    call: &Call<'_>,
    tool: &str,
    policy: Policy,
    settings: &Settings,
) -> Result<Option<String>, Box<Decision>> {
    let deny = |rule: Rule, sentence: String| {
        Err(Box::new(Decision::Deny {
            why: vec![rule],
            sentence,
        }))
    };
    match policy {
        Policy::Off => return deny(Rule::PolicyOff, words::turned_off(tool)),
        Policy::Changed => return deny(Rule::PolicyChanged, words::changed(tool)),
        _ => {}
    }
    let mut signature = None;
    let touched = if let Action::Command { command, .. } = call.action {
        let reading = protocol::shell::read(command, &settings.protected.context());
        if powers_in(&reading) {
            return deny(Rule::ProtectedPower, words::protected_power(command));
        }
        signature = crate::always::signature(&reading);
        settings.protected.command_touches(command, &reading)
    } else {
        settings.protected.touched_by(call.action)
    };
    if touched {
        return deny(Rule::ProtectedPath, words::protected_path());
    }
    if policy == Policy::ReadOnly && !reads_only(call.action) {
        return deny(Rule::PolicyReadOnly, words::read_only(tool));
    }
    Ok(signature)
}
