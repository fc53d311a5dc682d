//! The permission broker with the real tools: ask → once / always / deny,
//! "always" surviving a restart, Stop while waiting, a mode change mid-turn,
//! and a question cut off by a restart.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use conversations::{Chat, Chats, ChatsConfig, Durability, Home, NewChat};
use engines::{Chunk, ScriptedEngine};
use protocol::{Answer, Body, EndReason, Event, Mode};
use serde_json::json;
use tools::{Tools, ToolsConfig};

fn chats_at(
    home: &Path,
    work: &Path,
    engine: Arc<ScriptedEngine>,
    policies: &[(&str, guard::Policy)],
) -> Arc<Chats> {
    Chats::new(
        Home::open(home).unwrap(),
        engine,
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.to_path_buf(),
            default_mode: Mode::Ask,
            policies: policies.iter().map(|(t, p)| (t.to_string(), *p)).collect(),
            guard: Default::default(),
            skills: None,
            max_steps: None,
        },
    )
}

fn command(id: &str, command: &str) -> Chunk {
    Chunk::ToolCall {
        id: id.into(),
        name: "run_command".into(),
        input: json!({ "command": command }),
    }
}

/// Waits until an event satisfies `want`; returns every event so far.
async fn until(chat: &Chat, want: impl Fn(&Event) -> bool) -> Vec<Event> {
    let mut follow = chat.log.follow();
    loop {
        let events = chat.log.events_after(0).unwrap();
        if events.iter().any(&want) {
            return events;
        }
        tokio::time::timeout(Duration::from_secs(10), follow.recv())
            .await
            .expect("the event comes")
            .ok();
    }
}

fn ended(e: &Event) -> bool {
    matches!(e.body, Body::TurnEnded(_))
}

fn nth_ask(events: &[Event], n: usize) -> Option<protocol::PermissionRequested> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            Body::PermissionRequested(p) => Some(p.clone()),
            _ => None,
        })
        .nth(n)
}

fn finished(events: &[Event]) -> Vec<protocol::ToolFinished> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            Body::ToolFinished(f) => Some(f.clone()),
            _ => None,
        })
        .collect()
}

/// Waits for the chat's `n`th question (0-based).
async fn asked(chat: &Chat, n: usize) -> protocol::PermissionRequested {
    let events = until(chat, |_| false_until(chat, n)).await;
    nth_ask(&events, n).unwrap()
}

fn false_until(chat: &Chat, n: usize) -> bool {
    nth_ask(&chat.log.events_after(0).unwrap(), n).is_some()
}

#[tokio::test]
async fn once_runs_it_always_remembers_it_across_a_restart_deny_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = (dir.path().join("home"), dir.path().join("work"));
    std::fs::create_dir(&work).unwrap();
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "echo first")],
        vec![command("c2", "echo second")],
        vec![command("c3", "echo third")],
        vec![Chunk::Text("done".into())],
    ]));
    let chats = chats_at(&home, &work, engine.clone(), &[]);
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("run things").await.unwrap();

    let first = asked(&chat, 0).await;
    assert_eq!(first.why, ["mode.ask-command", "box.unavailable"]);
    assert_eq!(
        first.always.as_deref(),
        Some(&["run_command".to_string(), "box:run_command".to_string()][..])
    );
    assert!(first.question.contains("echo first"));
    chat.answer(&first.ask, Answer::Once, "owner".into())
        .await
        .unwrap();

    let second = asked(&chat, 1).await;
    chat.answer(&second.ask, Answer::Always, "owner".into())
        .await
        .unwrap();
    // c3 runs without asking: "always" covers run_command for the rest of the chat.
    let events = until(&chat, ended).await;
    assert!(
        nth_ask(&events, 2).is_none(),
        "the third command didn't ask"
    );
    let outs: Vec<String> = finished(&events).iter().map(|f| f.output.clone()).collect();
    assert!(
        outs[0].starts_with("first\n")
            && outs[1].starts_with("second\n")
            && outs[2].starts_with("third\n"),
        "{outs:?}"
    );

    // After a restart, "always" still holds: it is a fold over the log.
    let id = chat.id.clone();
    while chat.is_running() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    drop(chat);
    drop(chats);
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c4", "echo fourth")],
        vec![],
    ]));
    let chats = chats_at(&home, &work, engine, &[]);
    // The old runner task may hold the log for a moment after its turn
    // ended; a new process would find it free at once.
    let chat = loop {
        let got = tokio::task::spawn_blocking({
            let (chats, id) = (chats.clone(), id.clone());
            move || chats.get(&id)
        })
        .await
        .unwrap();
        match got {
            Ok(c) => break c,
            Err(conversations::ChatError::Log(conversations::LogError::Busy(_))) => {
                tokio::time::sleep(Duration::from_millis(10)).await
            }
            Err(e) => panic!("{e}"),
        }
    };
    assert!(chat.log.view().always.contains("run_command"));
    chat.post("again").await.unwrap();
    let events = until(
        &chat,
        |e| matches!(&e.body, Body::TurnEnded(t) if t.turn > 10),
    )
    .await;
    assert!(nth_ask(&events, 2).is_none());
    assert!(finished(&events)
        .last()
        .unwrap()
        .output
        .starts_with("fourth"));
}

#[tokio::test]
async fn deny_refuses_and_the_turn_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::ToolCall {
            id: "w".into(),
            name: "write_file".into(),
            input: json!({ "path": "a.txt", "content": "x" }),
        }],
        vec![Chunk::Text("Understood.".into())],
    ]));
    let chats = chats_at(&dir.path().join("home"), &work, engine.clone(), &[]);
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("write a file").await.unwrap();
    let ask = asked(&chat, 0).await;
    assert_eq!(ask.why, ["mode.ask-edit"]);
    chat.answer(&ask.ask, Answer::Deny, "owner".into())
        .await
        .unwrap();
    let events = until(&chat, ended).await;
    let f = &finished(&events)[0];
    assert!(!f.ok && f.output.contains("The owner said no"));
    assert!(!work.join("a.txt").exists());
    let Body::TurnEnded(t) = &events.last().unwrap().body else {
        panic!()
    };
    assert_eq!(t.reason, EndReason::Done);
    // A second answer to the same question is refused with a sentence.
    let again = chat
        .answer(&ask.ask, Answer::Once, "owner".into())
        .await
        .unwrap_err();
    assert!(again.to_string().contains("isn't waiting any more"));
}

#[tokio::test]
async fn stop_while_waiting_ends_the_question_and_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "touch should-not-exist")],
        vec![],
    ]));
    let chats = chats_at(&dir.path().join("home"), &work, engine, &[]);
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("go").await.unwrap();
    let ask = asked(&chat, 0).await;
    assert!(chat.stop());
    let events = until(&chat, ended).await;
    let kinds: Vec<&str> = events.iter().map(|e| e.body.kind()).collect();
    assert_eq!(
        kinds[kinds.len() - 3..],
        ["permission.ended", "tool.finished", "turn.ended"]
    );
    let Body::PermissionEnded(pe) = &events[events.len() - 3].body else {
        panic!()
    };
    assert_eq!(
        (pe.ask.as_str(), pe.reason.as_str()),
        (ask.ask.as_str(), "stopped")
    );
    let Body::TurnEnded(t) = &events.last().unwrap().body else {
        panic!()
    };
    assert_eq!(t.reason, EndReason::Stopped);
    assert!(!work.join("should-not-exist").exists());
    assert!(chat.log.view().pending.is_empty());
    assert!(!chat.stop(), "nothing left to stop");
}

#[tokio::test]
async fn stop_kills_a_running_command() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "sleep 300")],
        vec![],
    ]));
    let chats = chats_at(&dir.path().join("home"), &work, engine, &[]);
    let chat = chats
        .create(NewChat {
            mode: Some(Mode::Full),
            ..NewChat::default()
        })
        .await
        .unwrap();
    chat.post("go").await.unwrap();
    until(&chat, |e| matches!(e.body, Body::ToolCalled(_))).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = std::time::Instant::now();
    assert!(chat.stop());
    let events = until(&chat, ended).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(finished(&events)[0].output.contains("stopped by the owner"));
}

#[tokio::test]
async fn a_mode_picked_mid_turn_allows_what_it_would_allow() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::ToolCall {
            id: "w".into(),
            name: "write_file".into(),
            input: json!({ "path": "a.txt", "content": "hello" }),
        }],
        vec![Chunk::ToolCall {
            id: "w2".into(),
            name: "write_file".into(),
            input: json!({ "path": "b.txt", "content": "again" }),
        }],
        vec![command("c", "echo still asks")],
        vec![],
    ]));
    let chats = chats_at(&dir.path().join("home"), &work, engine, &[]);
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("write").await.unwrap();
    let ask = asked(&chat, 0).await;
    chat.set_mode(Mode::Edits).await.unwrap();
    // The waiting write is allowed by the mode, b.txt doesn't ask, the command still does.
    let command_ask = asked(&chat, 1).await;
    assert_eq!(command_ask.tool, "run_command");
    let events = chat.log.events_after(0).unwrap();
    let answered = events.iter().find_map(|e| match &e.body {
        Body::PermissionAnswered(a) if a.ask == ask.ask => Some(a.clone()),
        _ => None,
    });
    assert_eq!(
        answered.map(|a| (a.answer, a.by)),
        Some((Answer::Once, "mode".to_string()))
    );
    assert_eq!(
        std::fs::read_to_string(work.join("a.txt")).unwrap(),
        "hello"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("b.txt")).unwrap(),
        "again"
    );
    chat.answer(&command_ask.ask, Answer::Deny, "owner".into())
        .await
        .unwrap();
    until(&chat, ended).await;
}

/// A question still waiting when Conch stopped: the old one ends (its
/// step is gone with the process, so a yes to it runs nothing), and the
/// call is asked again at once in a turn of its own, without anyone
/// opening the chat; answered, it runs and the model goes on.
#[tokio::test]
async fn a_question_cut_off_by_a_restart_is_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "echo hi > ran.txt")],
        vec![],
    ]));
    let chats = chats_at(&dir.path().join("home"), &work, engine, &[]);
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("go").await.unwrap();
    let ask = asked(&chat, 0).await;
    // What a crash leaves: the log as it is now, opened by a new process.
    let copy = dir.path().join("copy");
    let chat_dir = copy.join("chats").join(&chat.id);
    std::fs::create_dir_all(&chat_dir).unwrap();
    std::fs::copy(chat.log.path(), chat_dir.join("log.jsonl")).unwrap();
    let engine = Arc::new(ScriptedEngine::new([vec![Chunk::Text("Done.".into())]]));
    let reopened = chats_at(&copy, &work, engine, &[]);
    reopened.ask_again_after_restart();
    let mut again = None;
    for _ in 0..500 {
        if let Some(c) = reopened.already_open(&chat.id) {
            if c.log.view().pending.len() == 1 {
                again = Some(c);
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let again = again.expect("the chat was opened and its question asked again");
    let events = again.log.events_after(0).unwrap();
    let ended_old = events.iter().find_map(|e| match &e.body {
        Body::PermissionEnded(pe) => Some(pe.clone()),
        _ => None,
    });
    assert_eq!(
        ended_old.map(|pe| (pe.ask, pe.reason)),
        Some((ask.ask.clone(), "restart".to_owned()))
    );
    let err = again
        .answer(&ask.ask, Answer::Once, "owner".into())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("isn't waiting"));
    let new = again.log.view().pending[0].clone();
    assert_ne!(new.ask, ask.ask);
    assert_eq!(new.call, "c1");
    again
        .answer(&new.ask, Answer::Once, "owner".into())
        .await
        .unwrap();
    let events = until(
        &again,
        |e| matches!(&e.body, Body::Reply(r) if r.text == "Done."),
    )
    .await;
    assert!(finished(&events).iter().any(|f| f.call == "c1" && f.ok));
    assert_eq!(
        std::fs::read_to_string(work.join("ran.txt")).unwrap(),
        "hi\n"
    );
    chat.stop();
}

#[tokio::test]
async fn a_tool_turned_off_is_refused_even_in_full_trust() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "echo hi")],
        vec![],
    ]));
    let chats = chats_at(
        &dir.path().join("home"),
        &work,
        engine,
        &[("run_command", guard::Policy::Off)],
    );
    let chat = chats
        .create(NewChat {
            mode: Some(Mode::Full),
            ..NewChat::default()
        })
        .await
        .unwrap();
    chat.post("go").await.unwrap();
    let events = until(&chat, ended).await;
    let f = &finished(&events)[0];
    assert!(
        !f.ok && f.output.contains("turned run_command off"),
        "{}",
        f.output
    );
    assert_eq!(f.detail.as_ref().unwrap()["denied"], json!(["policy.off"]));
}
