//! Turns through the real log, with the scripted and mock engines.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::sync::Arc;
use std::time::Duration;

use conversations::{Chats, ChatsConfig, Durability, Home, Live, NewChat, NoTools};
use engines::{Chunk, Engine, MockEngine, ScriptedEngine};
use protocol::{Body, EndReason, Event};

fn chats(engine: Arc<dyn Engine>) -> (tempfile::TempDir, Arc<Chats>) {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::open(&dir.path().join("home")).unwrap();
    let chats = Chats::new(
        home,
        engine,
        Arc::new(NoTools),
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
    (dir, chats)
}

/// Waits until the chat has ended `n` turns, and returns its events.
async fn after_turns(chat: &conversations::Chat, n: usize) -> Vec<Event> {
    let mut follow = chat.log.follow();
    loop {
        let events = chat.log.events_after(0).unwrap();
        let ended = events
            .iter()
            .filter(|e| matches!(e.body, Body::TurnEnded(_)))
            .count();
        if ended >= n {
            return events;
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), follow.recv())
            .await
            .expect("the turn ends");
    }
}

fn kinds(events: &[Event]) -> Vec<&str> {
    events.iter().map(|e| e.body.kind()).collect()
}

#[tokio::test]
async fn a_turn_logs_its_reply_and_tool_calls() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![
            Chunk::Text("Let me look. ".into()),
            Chunk::ToolCall {
                id: "t1".into(),
                name: "read_file".into(),
                input: serde_json::json!({"path": "a.txt"}),
            },
        ],
        vec![Chunk::Text("Done.".into())],
    ]));
    let (_dir, chats) = chats(engine.clone());
    let chat = chats.create(NewChat::default()).await.unwrap();
    let posted = chat.post("look at a.txt").await.unwrap();
    assert!(!posted.queued);
    let events = after_turns(&chat, 1).await;
    assert_eq!(
        kinds(&events),
        [
            "chat.created",
            "message",
            "turn.started",
            "reply",
            "tool.called",
            "tool.finished",
            "reply",
            "turn.ended"
        ]
    );
    let Body::ToolFinished(finished) = &events[5].body else {
        panic!()
    };
    assert!(!finished.ok);
    assert!(
        finished.output.contains("no tool named \"read_file\""),
        "{}",
        finished.output
    );
    let Body::TurnEnded(ended) = &events[7].body else {
        panic!()
    };
    assert_eq!((ended.turn, ended.reason), (3, EndReason::Done));
    // The second step saw the tool's result.
    let requests = engine.requests();
    assert_eq!(requests.len(), 2);
    assert!(matches!(
        requests[1].items.last(),
        Some(engines::Item::ToolResult { ok: false, .. })
    ));
}

#[tokio::test]
async fn a_message_during_a_turn_waits_for_the_next_one() {
    let (_dir, chats) = chats(Arc::new(MockEngine::new(Duration::from_millis(5))));
    let chat = chats.create(NewChat::default()).await.unwrap();
    let mut follow = chat.log.follow();
    chat.post("hello").await.unwrap();
    // Once the first reply is streaming, the turn is under way.
    loop {
        if let Ok(Live::Delta { .. }) = follow.recv().await {
            break;
        }
    }
    let second = chat.post("and again").await.unwrap();
    assert!(second.queued);
    let events = after_turns(&chat, 2).await;
    assert_eq!(
        kinds(&events),
        [
            "chat.created",
            "message",
            "turn.started",
            "message",
            "reply",
            "turn.ended",
            "turn.started",
            "reply",
            "turn.ended"
        ]
    );
    let Body::Reply(last) = &events[7].body else {
        panic!()
    };
    assert!(last.text.contains("and again"), "{}", last.text);
}

#[tokio::test]
async fn followers_see_the_reply_stream_before_it_is_stored() {
    let (_dir, chats) = chats(Arc::new(MockEngine::new(Duration::ZERO)));
    let chat = chats.create(NewChat::default()).await.unwrap();
    let mut follow = chat.log.follow();
    chat.post("hi").await.unwrap();
    let mut streamed = String::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(5), follow.recv()).await {
            Ok(Ok(Live::Delta { text, .. })) => streamed.push_str(&text),
            Ok(Ok(Live::Event(c))) => {
                if let Body::Reply(r) = &c.event.body {
                    assert_eq!(r.text, streamed);
                    return;
                }
            }
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test]
async fn an_engine_error_ends_the_turn_with_its_sentence() {
    struct Broken;
    impl Engine for Broken {
        fn name(&self) -> &str {
            "broken"
        }
        fn step<'a>(
            &'a self,
            _: engines::StepRequest,
            out: tokio::sync::mpsc::Sender<Chunk>,
        ) -> engines::BoxFuture<'a, Result<(), engines::EngineError>> {
            Box::pin(async move {
                let _ = out.send(Chunk::Text("Half a".into())).await;
                Err(engines::EngineError::Unavailable(
                    "The provider didn't answer. Try again in a minute.".into(),
                ))
            })
        }
    }
    let (_dir, chats) = chats(Arc::new(Broken));
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("hi").await.unwrap();
    let events = after_turns(&chat, 1).await;
    assert_eq!(kinds(&events)[2..], ["turn.started", "reply", "turn.ended"]);
    let Body::TurnEnded(ended) = &events[4].body else {
        panic!()
    };
    assert_eq!(ended.reason, EndReason::Error);
    assert_eq!(
        ended.error.as_deref(),
        Some("The provider didn't answer. Try again in a minute.")
    );
}

#[tokio::test]
async fn a_turn_cut_off_by_a_restart_is_ended_when_the_chat_opens() {
    let dir = tempfile::tempdir().unwrap();
    let make = || {
        Chats::new(
            Home::open(&dir.path().join("home")).unwrap(),
            Arc::new(MockEngine::new(Duration::ZERO)),
            Arc::new(NoTools),
            ChatsConfig {
                durability: Durability::Group,
                default_work: dir.path().to_path_buf(),
                default_mode: protocol::Mode::Ask,
                policies: Default::default(),
                guard: Default::default(),
                skills: None,
                max_steps: None,
            },
        )
    };
    let id = {
        let chats = make();
        let chat = chats.create(NewChat::default()).await.unwrap();
        chat.log
            .append(Body::TurnStarted(protocol::TurnStarted {
                engine: "mock".into(),
                model: None,
                not_ready: Vec::new(),
            }))
            .await
            .unwrap();
        chat.id.clone()
    };
    let chats = make();
    let chat = tokio::task::spawn_blocking(move || chats.get(&id))
        .await
        .unwrap()
        .unwrap();
    let events = chat.log.events_after(0).unwrap();
    let Body::TurnEnded(ended) = &events.last().unwrap().body else {
        panic!("{:?}", kinds(&events))
    };
    assert_eq!((ended.turn, ended.reason), (2, EndReason::Interrupted));
}

#[tokio::test]
async fn bad_requests_get_sentences() {
    let (dir, chats) = chats(Arc::new(MockEngine::new(Duration::ZERO)));
    let err = chats
        .create(NewChat {
            work: Some("relative/path".into()),
            ..NewChat::default()
        })
        .await
        .err()
        .unwrap();
    assert!(err.to_string().contains("isn't a full path"), "{err}");
    let missing = dir.path().join("nope").to_string_lossy().into_owned();
    let err = chats
        .create(NewChat {
            work: Some(missing),
            ..NewChat::default()
        })
        .await
        .err()
        .unwrap();
    assert!(err.to_string().contains("doesn't exist"), "{err}");
    for id in ["../../etc", "nope", ""] {
        let err = chats.get(id).err().unwrap();
        assert!(err.to_string().starts_with("There's no chat"), "{err}");
    }
    let chat = chats.create(NewChat::default()).await.unwrap();
    assert!(chat.post("   ").await.is_err());
    assert!(chat.post(&"x".repeat(100_001)).await.is_err());
    assert_eq!(chat.log.last_seq(), 1, "nothing was written");
}

#[tokio::test]
async fn chats_are_listed_newest_first_with_titles() {
    let (_dir, chats) = chats(Arc::new(MockEngine::new(Duration::ZERO)));
    let a = chats.create(NewChat::default()).await.unwrap();
    a.post("first chat").await.unwrap();
    after_turns(&a, 1).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let b = chats.create(NewChat::default()).await.unwrap();
    b.post("second chat").await.unwrap();
    after_turns(&b, 1).await;
    let list = chats.list();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].id, b.id);
    assert_eq!(list[0].title.as_deref(), Some("second chat"));
    assert_eq!(list[1].title.as_deref(), Some("first chat"));
}

#[tokio::test]
async fn a_turn_that_reaches_max_steps_ends_and_says_so() {
    // A model that calls a tool on every step, forever.
    let steps: Vec<Vec<Chunk>> = (0..10)
        .map(|i| {
            vec![Chunk::ToolCall {
                id: format!("t{i}"),
                name: "read_file".into(),
                input: serde_json::json!({"path": "a.txt"}),
            }]
        })
        .collect();
    let engine = Arc::new(ScriptedEngine::new(steps));
    let dir = tempfile::tempdir().unwrap();
    let chats = Chats::new(
        Home::open(&dir.path().join("home")).unwrap(),
        engine,
        Arc::new(NoTools),
        ChatsConfig {
            durability: Durability::Group,
            default_work: dir.path().to_path_buf(),
            default_mode: protocol::Mode::Ask,
            policies: Default::default(),
            guard: Default::default(),
            skills: None,
            max_steps: Some(3),
        },
    );
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("go").await.unwrap();
    let events = after_turns(&chat, 1).await;
    let calls = events
        .iter()
        .filter(|e| matches!(e.body, Body::ToolCalled(_)))
        .count();
    assert_eq!(calls, 3, "{:?}", kinds(&events));
    let Body::TurnEnded(ended) = &events.last().unwrap().body else {
        panic!("{:?}", kinds(&events))
    };
    assert_eq!(ended.reason, EndReason::Error);
    let said = ended.error.clone().unwrap_or_default();
    assert!(
        said.contains("3 steps") && said.contains("maxSteps"),
        "{said}"
    );
    assert_eq!(conversations::DEFAULT_MAX_STEPS, 200);
}
