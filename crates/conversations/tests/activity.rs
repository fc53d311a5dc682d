//! Activity over real logs: every kind of row, filters, paging across a
//! day boundary and through events in the same millisecond, and a chat
//! appended while the index is up.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::sync::Arc;
use std::time::Duration;

use conversations::activity::Activity;
use conversations::{Chats, ChatsConfig, Durability, Home, NewChat};
use engines::{Chunk, ScriptedEngine};
use protocol::{
    ActivityKind, Answer, Body, Event, PermissionAnswered, PermissionRequested, Taint, ToolCalled,
    ToolFinished,
};
use serde_json::json;
use tools::{Tools, ToolsConfig};

fn ev(seq: u64, at: &str, body: Body) -> Event {
    Event {
        seq,
        id: format!("ev{seq}"),
        at: at.into(),
        body,
    }
}

/// Writes a chat's log by hand, with the times given.
fn write_chat(chats: &std::path::Path, id: &str, events: &[Event]) {
    let dir = chats.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    let text: String = events.iter().map(|e| e.to_line() + "\n").collect();
    std::fs::write(dir.join("log.jsonl"), text).unwrap();
}

fn command(seq: u64, at: &str, call: &str, cmd: &str) -> Event {
    ev(
        seq,
        at,
        Body::ToolCalled(ToolCalled {
            turn: 1,
            call: call.into(),
            tool: "run_command".into(),
            input: json!({ "command": cmd }),
        }),
    )
}

#[test]
fn pages_go_back_in_time_without_skipping_or_repeating() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    // Two chats; the 29th and the 30th; three rows in one millisecond.
    write_chat(
        &chats,
        "aaaaaaaaaaaaaaaa",
        &[
            command(1, "2026-11-29T23:59:59.000Z", "c1", "echo one"),
            command(2, "2026-11-30T00:00:00.500Z", "c2", "echo two"),
            command(3, "2026-11-30T00:00:00.500Z", "c3", "echo three"),
        ],
    );
    write_chat(
        &chats,
        "bbbbbbbbbbbbbbbb",
        &[
            command(1, "2026-11-30T00:00:00.500Z", "c1", "echo four"),
            ev(
                2,
                "2026-11-30T00:00:01.000Z",
                Body::Taint(Taint {
                    source: protocol::MarkSource::Page,
                    what: "news.example".into(),
                    call: None,
                    says: None,
                    from: None,
                    path: None,
                }),
            ),
        ],
    );
    let activity = Activity::new(&chats);
    // Everything, one row a page.
    let mut seen = Vec::new();
    let mut before: Option<String> = None;
    loop {
        let page = activity.page(before.as_deref(), &[], false, 1);
        seen.extend(page.rows.iter().map(|r| r.row.says.clone()));
        match page.next {
            Some(n) => before = Some(n),
            None => break,
        }
    }
    assert_eq!(
        seen,
        [
            "Read a page from news.example",
            "Ran `echo four`",
            "Ran `echo three`",
            "Ran `echo two`",
            "Ran `echo one`",
        ]
    );
    // Two a page splits the day: the 30th's rows, then the 29th's.
    let first = activity.page(None, &[ActivityKind::Command], false, 2);
    assert_eq!(first.rows.len(), 2);
    let second = activity.page(first.next.as_deref(), &[ActivityKind::Command], false, 2);
    let third = activity.page(second.next.as_deref(), &[ActivityKind::Command], false, 2);
    let all: Vec<_> = [first.rows, second.rows, third.rows]
        .concat()
        .into_iter()
        .map(|r| r.row.says)
        .collect();
    assert_eq!(
        all,
        [
            "Ran `echo four`",
            "Ran `echo three`",
            "Ran `echo two`",
            "Ran `echo one`"
        ]
    );
    assert!(third.next.is_none());
    // Filters.
    let read = activity.page(None, &[ActivityKind::Read], false, 50);
    assert_eq!(read.rows.len(), 1);
    assert_eq!(read.rows[0].chat, "bbbbbbbbbbbbbbbb");
}

#[test]
fn questions_answered_and_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    let ask = |seq: u64, id: &str| {
        ev(
            seq,
            "2026-11-30T10:00:00.000Z",
            Body::PermissionRequested(PermissionRequested {
                turn: 1,
                ask: id.into(),
                call: "c".into(),
                tool: "run_command".into(),
                action: protocol::Action::Search { query: "q".into() },
                why: vec![],
                question: format!("Question {id}?"),
                note: None,
                always: None,
                provenance: vec![],
                told: None,
                after_reading: false,
                narrow: None,
            }),
        )
    };
    write_chat(
        &chats,
        "cccccccccccccccc",
        &[
            ask(1, "a1"),
            ev(
                2,
                "2026-11-30T10:00:01.000Z",
                Body::PermissionAnswered(PermissionAnswered {
                    ask: "a1".into(),
                    answer: Answer::Deny,
                    by: "owner".into(),
                    narrow: false,
                }),
            ),
            ask(3, "a2"),
            ev(
                4,
                "2026-11-30T10:00:02.000Z",
                Body::ToolFinished(ToolFinished {
                    turn: 1,
                    call: "zz".into(),
                    ok: true,
                    output: String::new(),
                    detail: None,
                }),
            ),
        ],
    );
    let activity = Activity::new(&chats);
    let waiting = activity.page(None, &[], true, 50);
    assert_eq!(waiting.rows.len(), 1);
    assert_eq!(waiting.rows[0].row.ask.as_deref(), Some("a2"));
    let questions = activity.page(None, &[ActivityKind::Question], false, 50);
    let states: Vec<_> = questions
        .rows
        .iter()
        .map(|r| r.row.state.clone().unwrap())
        .collect();
    assert_eq!(states, ["needs you", "you said no"]);
}

#[tokio::test]
async fn a_chat_appended_while_the_index_is_up_shows_up() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::ToolCall {
            id: "c1".into(),
            name: "web_fetch".into(),
            input: json!({ "url": "http://127.0.0.1:9/nothing" }),
        }],
        vec![Chunk::Text("It didn't load.".into())],
    ]));
    let dir = tempfile::tempdir().unwrap();
    let home = Home::open(&dir.path().join("home")).unwrap();
    let chats = Chats::new(
        home,
        engine,
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: dir.path().to_path_buf(),
            default_mode: protocol::Mode::Ask,
            policies: Default::default(),
            guard: Default::default(),
            skills: None,
            max_steps: None,
        },
    );
    // The index is built while nothing has happened yet.
    assert!(chats.activity().page(None, &[], false, 50).rows.is_empty());
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("read that page").await.unwrap();
    for _ in 0..200 {
        let page = chats
            .activity()
            .page(None, &[ActivityKind::Page], false, 50);
        if page
            .rows
            .first()
            .and_then(|r| r.row.state.clone())
            .is_some_and(|s| s != "running")
        {
            assert_eq!(page.rows[0].chat, chat.id);
            assert_eq!(page.rows[0].row.says, "Read http://127.0.0.1:9/nothing");
            assert_eq!(page.rows[0].chat_title.as_deref(), Some("read that page"));
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the page read never showed up in Activity");
}

/// Appends made while the index is being built are neither lost nor
/// counted twice, and don't wait for the build.
#[test]
fn appends_during_the_build_are_kept_once() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    // Enough logs that the build takes a while.
    for c in 0..60 {
        let id = format!("{c:016x}");
        let events: Vec<Event> = (1..=300)
            .map(|n| {
                command(
                    n,
                    "2026-11-29T09:00:00.000Z",
                    &format!("c{n}"),
                    "echo 𝔲𝔫𝔦𝔠𝔬𝔡𝔢",
                )
            })
            .collect();
        write_chat(&chats, &id, &events);
    }
    let live = "ffffffffffffffff";
    std::fs::create_dir_all(chats.join(live)).unwrap();
    let activity = Arc::new(Activity::new(&chats));
    let (log, _) =
        conversations::ChatLog::open(&chats.join(live), conversations::Durability::Group).unwrap();
    {
        let activity = activity.clone();
        log.observe(Box::new(move |event, _| activity.observe(live, event)));
    }
    let builder = {
        let activity = activity.clone();
        std::thread::spawn(move || activity.build())
    };
    for n in 1..=400u64 {
        log.append_blocking(Body::ToolCalled(ToolCalled {
            turn: 1,
            call: format!("live{n}"),
            tool: "run_command".into(),
            input: json!({ "command": format!("echo {n}") }),
        }))
        .unwrap();
    }
    builder.join().unwrap();
    let mut rows = 0;
    let mut before: Option<String> = None;
    loop {
        let page = activity.page(before.as_deref(), &[ActivityKind::Command], false, 500);
        rows += page.rows.iter().filter(|r| r.chat == live).count();
        match page.next {
            Some(n) => before = Some(n),
            None => break,
        }
    }
    assert_eq!(rows, 400);
}
