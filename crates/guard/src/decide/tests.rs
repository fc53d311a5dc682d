//! One row per rule: mode × action × policy × earlier answers → outcome.

use super::*;

fn command(unsealed: bool, leaves_box: bool) -> Action {
    Action::Command {
        command: "ls".into(),
        programs: vec!["ls".into()],
        unsealed,
        leaves_box,
    }
}

fn change(inside: bool) -> Action {
    Action::FileChange {
        path: "/w/a.txt".into(),
        inside,
    }
}

fn look() -> Action {
    Action::LookAround {
        paths: vec!["/w".into()],
    }
}

fn page() -> Action {
    Action::PageRead {
        url: "https://news.example/a".into(),
        host: "news.example".into(),
    }
}

fn integration(read_only: bool) -> Action {
    Action::Integration {
        tool: "bank.send".into(),
        read_only,
    }
}

#[derive(Debug)]
enum Want {
    Allow,
    Ask(&'static [&'static str]),
    Deny(&'static [&'static str]),
}

struct Row {
    name: &'static str,
    mode: Mode,
    action: Action,
    policy: Policy,
    always: &'static [&'static str],
    want: Want,
}

fn row(name: &'static str, mode: Mode, action: Action, want: Want) -> Row {
    Row {
        name,
        mode,
        action,
        policy: Policy::Mode,
        always: &[],
        want,
    }
}

#[test]
fn the_table() {
    use Mode::*;
    let rows = vec![
        // mode.ask-command
        row(
            "mode.ask-command: ask asks before a sealed command",
            Ask,
            command(false, false),
            Want::Ask(&["mode.ask-command"]),
        ),
        row(
            "mode.ask-command: edits asks before a sealed command",
            Edits,
            command(false, false),
            Want::Ask(&["mode.ask-command"]),
        ),
        row(
            "mode.ask-command: full runs a sealed command",
            Full,
            command(false, false),
            Want::Allow,
        ),
        // box.unavailable
        row(
            "box.unavailable: ask asks twice over for an unsealed command",
            Ask,
            command(true, false),
            Want::Ask(&["mode.ask-command", "box.unavailable"]),
        ),
        row(
            "box.unavailable: edits too",
            Edits,
            command(true, false),
            Want::Ask(&["mode.ask-command", "box.unavailable"]),
        ),
        row(
            "box.unavailable: full trust, someone there, just runs",
            Full,
            command(true, false),
            Want::Allow,
        ),
        // box.leave
        row(
            "box.leave: ask",
            Ask,
            command(false, true),
            Want::Ask(&["mode.ask-command", "box.leave"]),
        ),
        row(
            "box.leave: full trust just runs",
            Full,
            command(false, true),
            Want::Allow,
        ),
        // mode.ask-edit / mode.edits-outside
        row(
            "mode.ask-edit: ask asks before an edit inside",
            Ask,
            change(true),
            Want::Ask(&["mode.ask-edit"]),
        ),
        row(
            "mode.ask-edit: edits runs an edit inside",
            Edits,
            change(true),
            Want::Allow,
        ),
        row(
            "mode.ask-edit: full runs an edit inside",
            Full,
            change(true),
            Want::Allow,
        ),
        row(
            "mode.edits-outside: ask asks before an edit outside",
            Ask,
            change(false),
            Want::Ask(&["mode.edits-outside"]),
        ),
        row(
            "mode.edits-outside: edits asks before an edit outside",
            Edits,
            change(false),
            Want::Ask(&["mode.edits-outside"]),
        ),
        row(
            "mode.edits-outside: full runs an edit outside",
            Full,
            change(false),
            Want::Allow,
        ),
        // mode.ask-integration
        row(
            "mode.ask-integration: ask asks before a write",
            Ask,
            integration(false),
            Want::Ask(&["mode.ask-integration"]),
        ),
        row(
            "mode.ask-integration: edits asks before a write",
            Edits,
            integration(false),
            Want::Ask(&["mode.ask-integration"]),
        ),
        row(
            "mode.ask-integration: full runs a write",
            Full,
            integration(false),
            Want::Allow,
        ),
        row(
            "mode.ask-integration: a read runs in ask",
            Ask,
            integration(true),
            Want::Allow,
        ),
        // looking around and reading run in every mode
        row("looking around runs in ask", Ask, look(), Want::Allow),
        row("looking around runs in edits", Edits, look(), Want::Allow),
        row("reading a page runs in ask", Ask, page(), Want::Allow),
        row("reading a page runs in full", Full, page(), Want::Allow),
        // policies
        Row {
            policy: Policy::Off,
            ..row(
                "policy.off: denied in full trust",
                Full,
                look(),
                Want::Deny(&["policy.off"]),
            )
        },
        Row {
            policy: Policy::Off,
            ..row(
                "policy.off: denied in ask",
                Ask,
                page(),
                Want::Deny(&["policy.off"]),
            )
        },
        Row {
            policy: Policy::Off,
            always: &["run_command", "box:run_command"],
            ..row(
                "policy.off: always answers don't skip it",
                Full,
                command(true, false),
                Want::Deny(&["policy.off"]),
            )
        },
        Row {
            policy: Policy::Ask,
            ..row(
                "policy.ask: asks in full trust",
                Full,
                look(),
                Want::Ask(&["policy.ask"]),
            )
        },
        Row {
            policy: Policy::Ask,
            always: &["run_command"],
            ..row("policy.ask: takes always allow", Full, look(), Want::Allow)
        },
        Row {
            policy: Policy::ReadOnly,
            ..row(
                "policy.read-only: a write is refused",
                Full,
                change(true),
                Want::Deny(&["policy.read-only"]),
            )
        },
        Row {
            policy: Policy::ReadOnly,
            ..row("policy.read-only: a read runs", Ask, look(), Want::Allow)
        },
        Row {
            policy: Policy::ReadOnly,
            ..row(
                "policy.read-only: a read-only integration runs",
                Ask,
                integration(true),
                Want::Allow,
            )
        },
        // earlier always answers
        Row {
            always: &["run_command"],
            ..row(
                "always: run_command covers the mode's question",
                Ask,
                command(false, false),
                Want::Allow,
            )
        },
        Row {
            always: &["run_command"],
            ..row(
                "always: but not leaving the box",
                Ask,
                command(true, false),
                Want::Ask(&["box.unavailable"]),
            )
        },
        Row {
            always: &["run_command", "box:run_command"],
            ..row(
                "always: both cover an unsealed command",
                Edits,
                command(true, false),
                Want::Allow,
            )
        },
        Row {
            always: &["write_file"],
            ..row(
                "always: another tool's answer doesn't count",
                Ask,
                change(true),
                Want::Ask(&["mode.ask-edit"]),
            )
        },
    ];
    let mut failures = Vec::new();
    for r in rows {
        let tool = match &r.action {
            Action::Command { .. } => "run_command",
            Action::FileChange { .. } => "edit_file",
            Action::Integration { .. } => "bank.send",
            _ => "run_command",
        };
        let mut chat = ChatView::default();
        chat.always = r.always.iter().map(|s| s.to_string()).collect();
        let mut settings = Settings::new(r.mode);
        settings.policies.insert(tool.to_string(), r.policy);
        let got = decide(
            Call {
                tool,
                action: &r.action,
            },
            &chat,
            &settings,
        );
        let ok = match (&r.want, &got) {
            (Want::Allow, Decision::Allow) => true,
            (Want::Ask(ids), Decision::Ask { .. }) | (Want::Deny(ids), Decision::Deny { .. }) => {
                got.rule_ids() == *ids
            }
            _ => false,
        };
        if !ok {
            failures.push(format!("{}: wanted {:?}, got {:?}", r.name, r.want, got));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn a_question_offers_always_for_what_asked() {
    let chat = ChatView::default();
    let got = decide(
        Call {
            tool: "run_command",
            action: &command(true, false),
        },
        &chat,
        &Settings::new(Mode::Ask),
    );
    let Decision::Ask {
        always, question, ..
    } = got
    else {
        panic!()
    };
    assert_eq!(
        always,
        Some(vec![
            "run_command".to_string(),
            "box:run_command".to_string()
        ])
    );
    assert!(question.contains("outside the box"), "{question}");
}

#[test]
fn every_rule_id_is_distinct() {
    let all = [
        Rule::ModeAskCommand,
        Rule::ModeAskEdit,
        Rule::ModeEditsOutside,
        Rule::ModeAskIntegration,
        Rule::BoxUnavailable,
        Rule::BoxLeave,
        Rule::PolicyAsk,
        Rule::PolicyOff,
        Rule::PolicyReadOnly,
    ];
    let mut ids: Vec<&str> = all.iter().map(|r| r.id()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), all.len());
}
