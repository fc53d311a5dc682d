//! Stop everything over HTTP (issue 37): every running command and waiting
//! question ends at once, nothing starts after (a message, a routine), it
//! holds across a restart, `conch stop` written while Conch runs is
//! followed, and Resume lets Conch act again.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{start_engine, Server, SseReader};
use engines::{Chunk, ScriptedEngine};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tools::{Tools, ToolsConfig};

fn command(id: &str, command: &str) -> Chunk {
    Chunk::ToolCall {
        id: id.into(),
        name: "run_command".into(),
        input: json!({ "command": command }),
    }
}

async fn chat_in(s: &Server, mode: &str) -> String {
    let res = s.post("/api/chats", &json!({ "mode": mode })).await;
    assert_eq!(res.status(), 201);
    res.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn turn_ended(s: &Server, id: &str) -> Option<String> {
    let events: Vec<Value> = s.get_json(format!("/api/chats/{id}/events")).await;
    events
        .iter()
        .rev()
        .find(|e| e["type"] == "turn.ended")
        .map(|e| e["reason"].as_str().unwrap_or("").to_owned())
}

#[tokio::test]
async fn stop_all_ends_every_turn_and_nothing_starts_until_resume() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "sleep 30")],
        vec![command("c2", "sleep 30")],
        vec![command("c3", "sleep 30")],
        vec![command("c4", "echo waiting")],
        vec![Chunk::Text("Back.".into())],
    ]));
    let s = start_engine(engine, Arc::new(Tools::new(ToolsConfig::default()))).await;
    let mut busy = Vec::new();
    for _ in 0..3 {
        let id = chat_in(&s, "full").await;
        let mut sse = SseReader::new(s.get(format!("/api/chats/{id}/stream")).await);
        s.post(
            format!("/api/chats/{id}/messages"),
            &json!({"text": "work"}),
        )
        .await;
        sse.until("tool.called").await;
        busy.push(id);
    }
    let asking = chat_in(&s, "ask").await;
    let mut sse = SseReader::new(s.get(format!("/api/chats/{asking}/stream")).await);
    s.post(
        format!("/api/chats/{asking}/messages"),
        &json!({"text": "ask me"}),
    )
    .await;
    sse.until("permission.requested").await;

    // An access key can't stop everything; the owner can.
    let (_, key) = gateway::auth::keys::create(&s.root(), "ci").unwrap();
    let by_key = s
        .anon
        .post(format!("{}/api/stop-all", s.url))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(by_key.status(), StatusCode::FORBIDDEN);
    let started = Instant::now();
    let res = s.post("/api/stop-all", &json!({})).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["ended"], 4, "{body}");
    assert_eq!(body["stopped"]["by"], "owner");
    for id in busy.iter().chain([&asking]) {
        loop {
            if turn_ended(&s, id).await.is_some() {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(2),
                "{id} still runs"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(turn_ended(&s, id).await.as_deref(), Some("stopped"));
    }
    eprintln!("stop all to every turn ended: {:?}", started.elapsed());
    // The waiting question ended, and says so.
    let events: Vec<Value> = s.get_json(format!("/api/chats/{asking}/events")).await;
    assert!(events
        .iter()
        .any(|e| e["type"] == "permission.ended" && e["reason"] == "stopped"));

    // Nothing starts: a message is refused with what to do; a routine
    // doesn't run.
    let refused = s
        .post(
            format!("/api/chats/{asking}/messages"),
            &json!({"text": "again"}),
        )
        .await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    let said: Value = refused.json().await.unwrap();
    assert!(
        said["error"].as_str().unwrap().contains("press Resume"),
        "{said}"
    );
    let routine: routines::Routine = serde_json::from_value(json!({
        "id": "r1", "name": "morning", "schedule": "every day at 9",
        "task": "say hi", "created": 0
    }))
    .unwrap();
    assert!(matches!(
        s.state.chats.run_routine(&routine).await,
        Err(conversations::ChatError::Halted)
    ));
    let state: Value = s.get_json("/api/stop-all").await;
    assert_eq!(state["stopped"]["by"], "owner");

    // A restart keeps it stopped.
    let again = conversations::halt::Halt::load(&s.root());
    assert!(again.get().is_some());

    // Resume: Conch acts again.
    let res = s.post("/api/resume", &json!({})).await;
    assert_eq!(res.status(), 200);
    let res = s
        .post(
            format!("/api/chats/{asking}/messages"),
            &json!({"text": "again"}),
        )
        .await;
    assert_eq!(res.status(), 202);
    assert!(!s.root().join("stopped.json").exists());
}

/// `conch stop` in a terminal writes the file; a running Conch follows it
/// within a second, and `conch resume` likewise.
#[tokio::test]
async fn a_stop_written_in_a_terminal_is_followed() {
    let engine = Arc::new(ScriptedEngine::new([vec![command("c1", "sleep 30")]]));
    let s = start_engine(engine, Arc::new(Tools::new(ToolsConfig::default()))).await;
    s.state.chats.follow_halt();
    let id = chat_in(&s, "full").await;
    let mut sse = SseReader::new(s.get(format!("/api/chats/{id}/stream")).await);
    s.post(
        format!("/api/chats/{id}/messages"),
        &json!({"text": "work"}),
    )
    .await;
    sse.until("tool.called").await;
    conversations::halt::write(&s.root(), "terminal").unwrap();
    let started = Instant::now();
    while turn_ended(&s, &id).await.is_none() {
        assert!(started.elapsed() < Duration::from_secs(2), "still running");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let state: Value = s.get_json("/api/stop-all").await;
    assert_eq!(state["stopped"]["by"], "terminal");
    conversations::halt::remove(&s.root()).unwrap();
    let started = Instant::now();
    loop {
        let state: Value = s.get_json("/api/stop-all").await;
        if state["stopped"].is_null() {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(2), "still stopped");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
