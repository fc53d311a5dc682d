//! `routine_create` from a chat: making a routine is persistence, so it
//! asks in every mode (Full trust too, in a chat the owner is in and that
//! read nothing), offers no Always, and a yes makes exactly the routine
//! that was asked about.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::sync::Arc;
use std::time::Duration;

use conversations::{Chat, Chats, ChatsConfig, Durability, Home, NewChat};
use engines::{Chunk, ScriptedEngine};
use protocol::{Answer, Body, Mode};
use serde_json::json;
use tools::{Tools, ToolsConfig};

fn make(id: &str, schedule: &str, task: &str) -> Chunk {
    Chunk::ToolCall {
        id: id.into(),
        name: "routine_create".into(),
        input: json!({ "schedule": schedule, "task": task, "name": format!("r-{id}") }),
    }
}

async fn asked(chat: &Chat, n: usize) -> protocol::PermissionRequested {
    for _ in 0..500 {
        let asks: Vec<_> = chat
            .log
            .events_after(0)
            .unwrap()
            .into_iter()
            .filter_map(|e| match e.body {
                Body::PermissionRequested(p) => Some(p),
                _ => None,
            })
            .collect();
        if let Some(p) = asks.get(n) {
            return p.clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no question {n}");
}

#[tokio::test]
async fn making_a_routine_from_a_chat_asks_in_full_trust_and_a_yes_makes_that_one() {
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = (dir.path().join("home"), dir.path().join("work"));
    std::fs::create_dir(&work).unwrap();
    let engine = Arc::new(ScriptedEngine::new([
        vec![make(
            "a",
            "every weekday at 8:00",
            "Résumé de ma boîte — 要約",
        )],
        vec![make("b", "*/5 * * * *", "again")],
        vec![make("c", "every fortnight-ish", "bad schedule")],
        vec![Chunk::Text("done".into())],
    ]));
    let chats = Chats::new(
        Home::open(&home).unwrap(),
        engine,
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work,
            default_mode: Mode::Full,
            policies: Default::default(),
            guard: Default::default(),
            skills: None,
            max_steps: None,
        },
    );
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("make me a morning routine").await.unwrap();
    let first = asked(&chat, 0).await;
    assert_eq!(first.why, ["runs-later.routine"]);
    assert_eq!(first.always, None);
    assert!(
        first.question.contains("every weekday at 8:00"),
        "{}",
        first.question
    );
    assert!(first.question.contains("Résumé de ma boîte — 要約"));
    // Even an "always" is this once.
    chat.answer(&first.ask, Answer::Always, "owner".into())
        .await
        .unwrap();
    let second = asked(&chat, 1).await;
    assert_eq!(second.why, ["runs-later.routine"]);
    chat.answer(&second.ask, Answer::Deny, "owner".into())
        .await
        .unwrap();
    // A schedule that doesn't read is the model's to fix: nothing asked.
    for _ in 0..500 {
        if chat.log.with_view(|v| v.open_turn.is_none()) && !chat.is_running() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let events = chat.log.events_after(0).unwrap();
    let asks = events
        .iter()
        .filter(|e| matches!(e.body, Body::PermissionRequested(_)))
        .count();
    assert_eq!(asks, 2);
    let bad = events
        .iter()
        .find_map(|e| match &e.body {
            Body::ToolFinished(f) if f.call == "c" => Some(f.clone()),
            _ => None,
        })
        .unwrap();
    assert!(!bad.ok);
    let made = routines::Store::new(&home).list().unwrap();
    assert_eq!(made.len(), 1, "{made:?}");
    assert_eq!(made[0].name, "r-a");
    assert_eq!(made[0].task, "Résumé de ma boîte — 要約");
    assert_eq!(
        made[0].made_in.as_deref(),
        Some(format!("chat:{}", chat.id).as_str())
    );
}
