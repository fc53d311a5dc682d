//! Where a question in Auto mode goes: the fast path, the reviewer, or the
//! owner. Only questions the mode itself asks can be reviewed; anything the
//! guard asks for its own reasons (marks, holds, the box, a tool set to
//! Ask) goes to the owner as in every other mode.

use guard::{Decision, Rule};
use protocol::Action;

use crate::fast::fast_path;
use crate::hard::{never_waivable, Facts, Hard};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Triage {
    /// The guard allowed or denied it: its answer stands.
    Guard,
    /// Sealed and on the reviewed table: it runs without a model call.
    FastPath,
    /// The reviewer looks before anyone is asked.
    Review,
    /// The owner is asked: for a category review can never waive, or (None)
    /// because the guard asks for its own reasons.
    Owner(Option<Hard>),
}

/// The rules that are only the mode asking.
const MODE_RULES: [Rule; 4] = [
    Rule::ModeAskCommand,
    Rule::ModeEditsOutside,
    Rule::ModeAskIntegration,
    Rule::ModeAskBrowserSend,
];

/// Where `decision` on `action` goes in Auto mode.
pub fn triage(action: &Action, decision: &Decision, facts: &Facts<'_>) -> Triage {
    let Decision::Ask { why, .. } = decision else {
        return Triage::Guard;
    };
    if why.contains(&Rule::PolicyAsk) {
        return Triage::Owner(Some(Hard::ToolAsk));
    }
    // After reading, an integration write of a common kind is judged by
    // where its values came from (`hard::writes`), not only by the mark:
    // one whose every destination and identifier is the owner's goes to
    // review; the rest stay with the owner, never waivable.
    let write_by_provenance = |r: &Rule| {
        *r == Rule::AfterReadingIntegrationWrite
            && matches!(action, Action::Integration { tool, read_only: false } if crate::hard::writes::kind_of(tool).is_some())
    };
    if why
        .iter()
        .any(|r| !MODE_RULES.contains(r) && !write_by_provenance(r))
    {
        return Triage::Owner(None);
    }
    if let Some(hard) = never_waivable(action, facts) {
        return Triage::Owner(Some(hard));
    }
    if fast_path(action) {
        return Triage::FastPath;
    }
    Triage::Review
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(why: Vec<Rule>) -> Decision {
        Decision::Ask {
            why,
            question: String::new(),
            note: None,
            always: None,
            narrow: None,
            told: None,
        }
    }

    fn command(text: &str) -> Action {
        Action::command(text, false, false)
    }

    #[test]
    fn where_each_question_goes() {
        let mode = || ask(vec![Rule::ModeAskCommand]);
        assert_eq!(
            triage(&command("git status"), &mode(), &Facts::none()),
            Triage::FastPath
        );
        assert_eq!(
            triage(&command("git push"), &mode(), &Facts::none()),
            Triage::Review
        );
        assert_eq!(
            triage(&command("curl x | sh"), &mode(), &Facts::none()),
            Triage::Owner(Some(Hard::RemoteCode))
        );
        assert_eq!(
            triage(
                &command("git status"),
                &ask(vec![Rule::ModeAskCommand, Rule::AfterReadingCommand]),
                &Facts::none()
            ),
            Triage::Owner(None)
        );
        assert_eq!(
            triage(
                &command("git push"),
                &ask(vec![Rule::PolicyAsk, Rule::ModeAskCommand]),
                &Facts::none()
            ),
            Triage::Owner(Some(Hard::ToolAsk))
        );
        assert_eq!(
            triage(
                &command("git push"),
                &ask(vec![Rule::ModeAskCommand, Rule::BoxLeave]),
                &Facts::none()
            ),
            Triage::Owner(None)
        );
        assert_eq!(
            triage(
                &command("git push"),
                &ask(vec![Rule::HoldOffList]),
                &Facts::none()
            ),
            Triage::Owner(None)
        );
        assert_eq!(
            triage(&command("ls"), &Decision::Allow, &Facts::none()),
            Triage::Guard
        );
        let outside = Action::FileChange {
            path: "/home/a/notes.md".into(),
            inside: false,
            runs_later: None,
        };
        assert_eq!(
            triage(&outside, &ask(vec![Rule::ModeEditsOutside]), &Facts::none()),
            Triage::Review
        );
        let click = |spends: bool| {
            Action::Browser(protocol::BrowserAction {
                op: protocol::BrowserOp::Click,
                url: "https://shop.example/".into(),
                site: "shop.example".into(),
                element: Some("button \"Send\"".into()),
                sends: Some(Box::new(protocol::BrowserSend {
                    to: "https://shop.example/send".into(),
                    site: "shop.example".into(),
                    spends,
                    reaches: Vec::new(),
                })),
                password: false,
                typed: false,
            })
        };
        let sends = || ask(vec![Rule::ModeAskBrowserSend]);
        assert_eq!(
            triage(&click(false), &sends(), &Facts::none()),
            Triage::Review
        );
        assert_eq!(
            triage(&click(true), &sends(), &Facts::none()),
            Triage::Owner(Some(Hard::Spending))
        );
        assert_eq!(
            triage(
                &click(false),
                &ask(vec![
                    Rule::ModeAskBrowserSend,
                    Rule::AfterReadingBrowserSite
                ]),
                &Facts::none()
            ),
            Triage::Owner(None),
            "the site rule is the guard's own: the owner decides"
        );
    }
}
