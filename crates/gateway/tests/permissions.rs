//! Questions over HTTP: the card's event, the answer route, mode and Stop.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use std::sync::Arc;

use common::{start_engine, SseReader};
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

#[tokio::test]
async fn a_question_is_answered_over_http_and_the_command_runs() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "echo from-the-tool")],
        vec![Chunk::Text("It printed it.".into())],
    ]));
    let s = start_engine(engine, Arc::new(Tools::new(ToolsConfig::default()))).await;
    let id = s.new_chat().await;
    let mut sse = SseReader::new(s.get(format!("/api/chats/{id}/stream")).await);
    s.post(
        format!("/api/chats/{id}/messages"),
        &json!({ "text": "echo something" }),
    )
    .await;
    let (events, _) = sse.until("permission.requested").await;
    let asked = events.last().unwrap().clone();
    assert_eq!(asked["tool"], "run_command");
    assert_eq!(asked["action"]["kind"], "command");
    assert_eq!(asked["action"]["programs"], json!(["echo"]));
    assert_eq!(asked["why"], json!(["mode.ask-command", "box.unavailable"]));
    assert_eq!(asked["always"], json!(["run_command", "box:run_command"]));
    let ask = asked["ask"].as_str().unwrap();

    let shown: Value = s.get_json(format!("/api/chats/{id}")).await;
    assert_eq!(shown["waiting"][0]["ask"], ask);

    let url = format!("{}/api/chats/{id}/permissions/{ask}", s.url);
    let bad = s
        .owner
        .post(&url)
        .json(&json!({ "answer": "sure" }))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    let res = s
        .owner
        .post(&url)
        .json(&json!({ "answer": "once" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let (events, _) = sse.until("turn.ended").await;
    let answered = events
        .iter()
        .find(|e| e["type"] == "permission.answered")
        .unwrap();
    assert_eq!(answered["answer"], "once");
    assert_eq!(answered["by"], "owner");
    let finished = events
        .iter()
        .find(|e| e["type"] == "tool.finished")
        .unwrap();
    assert_eq!(finished["ok"], true);
    assert!(finished["output"]
        .as_str()
        .unwrap()
        .starts_with("from-the-tool"));
    assert_eq!(finished["detail"]["exit_code"], 0);
    let again = s
        .owner
        .post(&url)
        .json(&json!({ "answer": "once" }))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::CONFLICT);
}

#[tokio::test]
async fn mode_and_stop_routes() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "sleep 30")],
        vec![],
    ]));
    let s = start_engine(engine, Arc::new(Tools::new(ToolsConfig::default()))).await;
    let id = s.new_chat().await;
    let mode = format!("{}/api/chats/{id}/mode", s.url);
    let res = s
        .owner
        .post(&mode)
        .json(&json!({ "mode": "turbo" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = s
        .owner
        .post(&mode)
        .json(&json!({ "mode": "full" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let stop = format!("{}/api/chats/{id}/stop", s.url);
    let idle: Value = s
        .owner
        .post(&stop)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(idle["stopped"], false);

    let mut sse = SseReader::new(s.get(format!("/api/chats/{id}/stream")).await);
    s.post(
        format!("/api/chats/{id}/messages"),
        &json!({ "text": "wait a while" }),
    )
    .await;
    // Full trust, someone there: the unsealed command runs without asking.
    let (events, _) = sse.until("tool.called").await;
    assert!(events.iter().all(|e| e["type"] != "permission.requested"));
    let stopped: Value = s
        .owner
        .post(&stop)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(stopped["stopped"], true);
    let (events, _) = sse.until("turn.ended").await;
    assert_eq!(events.last().unwrap()["reason"], "stopped");
    let events: Vec<Value> = s.get_json(format!("/api/chats/{id}/events")).await;
    assert!(events
        .iter()
        .any(|e| e["type"] == "mode.changed" && e["mode"] == "full"));
}

#[tokio::test]
async fn stopping_a_hold_is_for_a_person_and_not_during_a_turn() {
    let s = common::start_with(std::time::Duration::from_millis(30)).await;
    let dir = s.root().join("skills/quick-setup");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: quick-setup\ndescription: d\npermissions:\n  commands: [git]\n---\nSteps.\n",
    )
    .unwrap();
    let id = s.new_chat().await;
    let res = s
        .post(
            format!("/api/chats/{id}/messages"),
            &json!({ "text": "/quick-setup please" }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let url = format!("{}/api/chats/{id}/skills/quick-setup/stop-holding", s.url);
    // While the (slow) mock engine's turn runs: refused with a sentence.
    let res = s.owner.post(&url).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::CONFLICT);
    let said: Value = res.json().await.unwrap();
    assert!(said["error"]
        .as_str()
        .unwrap()
        .contains("A turn is running"));
    // Wait for the turn to end.
    for _ in 0..300 {
        let v: Value = s.get_json(format!("/api/chats/{id}")).await;
        if v["running"] == false && v["turnOpen"].is_null() {
            assert_eq!(v["holds"][0]["skill"], "quick-setup");
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let (_, key) = gateway::auth::keys::create(&s.root(), "script").unwrap();
    let res = s.anon.post(&url).bearer_auth(&key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN, "access keys can't");
    let res = s.owner.post(&url).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let v: Value = s.get_json(format!("/api/chats/{id}")).await;
    assert_eq!(v["holds"], json!([]));
    let events: Vec<Value> = s.get_json(format!("/api/chats/{id}/events")).await;
    assert!(events
        .iter()
        .any(|e| e["type"] == "skill.hold.ended" && e["reason"] == "you"));
}

#[tokio::test]
async fn auto_mode_reviews_over_http_and_activity_counts_it() {
    let s0 = tempfile::tempdir().unwrap();
    let target = s0.path().join("notes.md");
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::ToolCall {
            id: "c1".into(),
            name: "write_file".into(),
            input: json!({ "path": target, "content": "hello" }),
        }],
        vec![Chunk::Text("Done.".into())],
    ]));
    engine.push_review(engines::ScriptedReview::Reply {
        text: r#"{"verdict":"allow","risk":"low","evidence":["m1"],"reason":"Asked for."}"#.into(),
        delay: std::time::Duration::ZERO,
    });
    let s = start_engine(engine, Arc::new(Tools::new(ToolsConfig::default()))).await;
    let id = s.new_chat().await;
    let res = s
        .post(format!("/api/chats/{id}/mode"), &json!({ "mode": "auto" }))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let mut sse = SseReader::new(s.get(format!("/api/chats/{id}/stream")).await);
    s.post(
        format!("/api/chats/{id}/messages"),
        &json!({ "text": "Write hello into my notes" }),
    )
    .await;
    let (events, _) = sse.until("turn.ended").await;
    assert!(events
        .iter()
        .any(|e| e["type"] == "review.judged" && e["outcome"] == "allowed"));
    assert!(!events.iter().any(|e| e["type"] == "permission.requested"));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "hello");
    let page: Value = s.get_json("/api/activity?limit=10").await;
    assert_eq!(page["totals"]["reviewAllowed"], 1);
    assert_eq!(page["totals"]["reviewRejected"], 0);
}

/// An "always" given on a card let every later command run with no
/// question, and nothing showed it or took it back. It shows in the
/// chat's grants, a person or a key takes it back (`grant.revoked`), and
/// the next command asks again.
#[tokio::test]
async fn an_always_shows_in_the_grants_and_taking_it_back_asks_again() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "echo eins")],
        vec![Chunk::Text("Done.".into())],
        vec![command("c2", "echo zwei")],
        vec![Chunk::Text("Done.".into())],
        vec![command("c3", "echo drei")],
        vec![Chunk::Text("Done.".into())],
    ]));
    let s = start_engine(engine, Arc::new(Tools::new(ToolsConfig::default()))).await;
    let id = s.new_chat().await;
    let mut sse = SseReader::new(s.get(format!("/api/chats/{id}/stream")).await);
    let post = |text: &'static str| {
        let s = &s;
        let id = id.clone();
        async move {
            s.post(
                format!("/api/chats/{id}/messages"),
                &json!({ "text": text }),
            )
            .await;
        }
    };
    post("first").await;
    let (events, _) = sse.until("permission.requested").await;
    let ask = events.last().unwrap()["ask"].as_str().unwrap().to_owned();
    let none: Value = s.get_json(format!("/api/chats/{id}/grants")).await;
    assert_eq!(none["grants"], json!([]));
    s.post(
        format!("/api/chats/{id}/permissions/{ask}"),
        &json!({ "answer": "always" }),
    )
    .await;
    sse.until("turn.ended").await;

    let grants: Value = s.get_json(format!("/api/chats/{id}/grants")).await;
    let keys: Vec<&str> = grants["grants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["box:run_command", "run_command"], "{grants}");
    let run = &grants["grants"][1];
    assert_eq!(run["says"], "Commands run without asking in this chat.");
    assert_eq!(run["by"], "owner");
    assert!(run["at"].as_str().unwrap().ends_with('Z'));
    let shown: Value = s.get_json(format!("/api/chats/{id}")).await;
    assert_eq!(shown["grants"], grants["grants"]);

    // Covered: the next command runs without a question.
    post("second").await;
    let (events, _) = sse.until("turn.ended").await;
    assert!(!events.iter().any(|e| e["type"] == "permission.requested"));

    // Taken back: by a script's key too (taking back only narrows).
    let (_, key) = gateway::auth::keys::create(&s.root(), "tidy").unwrap();
    for grant in ["run_command", "box%3Arun_command"] {
        let res = reqwest::Client::new()
            .delete(format!("{}/api/chats/{id}/grants/{grant}", s.url))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{grant}");
    }
    let again = reqwest::Client::new()
        .delete(format!("{}/api/chats/{id}/grants/run_command", s.url))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_FOUND);
    let grants: Value = s.get_json(format!("/api/chats/{id}/grants")).await;
    assert_eq!(grants["grants"], json!([]));

    post("third").await;
    let (events, _) = sse.until("permission.requested").await;
    let revoked: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "grant.revoked")
        .collect();
    assert_eq!(revoked.len(), 2);
    assert_eq!(revoked[0]["key"], "run_command");
    assert_eq!(revoked[0]["by"], "key:tidy");
    assert_eq!(events.last().unwrap()["call"], "c3");
}
