//! Chats you can manage and models you can pick, over HTTP: names, archive,
//! the trash, an empty chat reused, Retry and Edit and resend, providers
//! (person-only to change, keys never shown), a chat's own model, and the
//! narrower "always".
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode as AxumStatus};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use common::{start, start_engine, Server, SseReader};
use engines::{Chunk, ScriptedEngine};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tools::{Tools, ToolsConfig};

/// A model server on 127.0.0.1 speaking OpenAI's chat completions: each
/// request gets the next answer (a status, or a streamed text).
#[derive(Clone, Default)]
struct Model {
    answers: Arc<Mutex<Vec<Result<String, u16>>>>,
    seen: Arc<Mutex<Vec<(HeaderMap, Value)>>>,
}

async fn answer(
    State(model): State<Model>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    model.seen.lock().unwrap().push((headers, body));
    let next = {
        let mut answers = model.answers.lock().unwrap();
        if answers.is_empty() {
            Err(500)
        } else {
            answers.remove(0)
        }
    };
    match next {
        Err(code) => (
            AxumStatus::from_u16(code).unwrap(),
            Json(json!({"error": {"message": "no"}})),
        )
            .into_response(),
        Ok(text) => {
            let mut sse = String::new();
            for word in text.split_inclusive(' ') {
                let chunk = json!({"choices": [{"index": 0, "delta": {"content": word}}]});
                sse.push_str(&format!("data: {chunk}\n\n"));
            }
            sse.push_str("data: [DONE]\n\n");
            ([("content-type", "text/event-stream")], sse).into_response()
        }
    }
}

async fn model_server(answers: Vec<Result<&str, u16>>) -> (String, Model) {
    let model = Model {
        answers: Arc::new(Mutex::new(
            answers.into_iter().map(|a| a.map(str::to_owned)).collect(),
        )),
        ..Model::default()
    };
    let app = Router::new()
        .route("/v1/chat/completions", post(answer))
        .with_state(model.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1"), model)
}

/// The user messages a request to the model carried.
fn owner_words(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or("").to_owned())
        .collect()
}

async fn events(s: &Server, id: &str) -> Vec<Value> {
    s.get_json(format!("/api/chats/{id}/events")).await
}

async fn turn_ends(sse: &mut SseReader) -> Value {
    let (events, _) = sse.until("turn.ended").await;
    events.last().unwrap().clone()
}

async fn add_provider(s: &Server, name: &str, base: &str, model: &str, key: Option<&str>) {
    let mut body = json!({"name": name, "kind": "openai", "baseUrl": base, "model": model});
    if let Some(key) = key {
        body["key"] = json!(key);
    }
    let res = s.post("/api/providers", &body).await;
    assert_eq!(
        res.status(),
        StatusCode::CREATED,
        "{}",
        res.text().await.unwrap()
    );
}

fn use_models(s: &Server) {
    s.state
        .chats
        .use_models(Arc::new(conversations::models::Models::new(s.root())));
}

#[tokio::test]
async fn chats_are_named_archived_and_titled_in_plain_text() {
    let s = start().await;
    let id = s.new_chat().await;
    let mut sse = SseReader::new(s.get(format!("/api/chats/{id}/stream")).await);
    s.post(
        format!("/api/chats/{id}/messages"),
        &json!({"text": "run `ls -la` **now**"}),
    )
    .await;
    turn_ends(&mut sse).await;
    let list: Vec<Value> = s.get_json("/api/chats").await;
    assert_eq!(list[0]["title"], "run ls -la now");
    assert_eq!(list[0]["archived"], false);
    assert_eq!(list[0]["waiting"], 0);

    let res = s
        .post(
            format!("/api/chats/{id}/title"),
            &json!({"title": "  Plans\nfor  today é "}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        res.json::<Value>().await.unwrap()["title"],
        "Plans for today é"
    );
    let res = s
        .post(format!("/api/chats/{id}/title"), &json!({"title": " \n "}))
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(res.text().await.unwrap().contains("can't be empty"));
    let shown: Value = s.get_json(format!("/api/chats/{id}")).await;
    assert_eq!(shown["title"], "Plans for today é");

    let res = s
        .post(
            format!("/api/chats/{id}/archive"),
            &json!({"archived": true}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let list: Vec<Value> = s.get_json("/api/chats").await;
    assert_eq!(list[0]["archived"], true);
    assert_eq!(list[0]["title"], "Plans for today é");
    s.post(
        format!("/api/chats/{id}/archive"),
        &json!({"archived": false}),
    )
    .await;
    let kinds: Vec<String> = events(&s, &id)
        .await
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .collect();
    assert!(kinds.contains(&"chat.renamed".to_owned()));
    assert_eq!(kinds.iter().filter(|k| *k == "chat.archived").count(), 2);
}

#[tokio::test]
async fn an_empty_chat_is_reused_when_the_page_asks_and_scripts_get_their_own() {
    let s = start().await;
    let first = s.post("/api/chats", &json!({"reuseEmpty": true})).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let a = first.json::<Value>().await.unwrap()["id"].clone();
    let again = s.post("/api/chats", &json!({"reuseEmpty": true})).await;
    assert_eq!(again.status(), StatusCode::OK);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["id"], a);
    assert_eq!(again["reused"], true);
    // A script that leaves it out gets a chat of its own.
    let b = s.new_chat().await;
    assert_ne!(json!(b), a);
    // Archived or written in, a chat isn't empty any more.
    for id in [a.as_str().unwrap(), b.as_str()] {
        s.post(
            format!("/api/chats/{id}/archive"),
            &json!({"archived": true}),
        )
        .await;
    }
    let fresh = s.post("/api/chats", &json!({"reuseEmpty": true})).await;
    assert_eq!(fresh.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn a_deleted_chat_goes_to_the_trash_and_is_gone_after_30_days() {
    let s = start().await;
    let id = s.new_chat().await;
    let mut sse = SseReader::new(s.get(format!("/api/chats/{id}/stream")).await);
    s.post(
        format!("/api/chats/{id}/messages"),
        &json!({"text": "hello"}),
    )
    .await;
    turn_ends(&mut sse).await;
    let res = s
        .owner
        .delete(format!("{}/api/chats/{id}", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.json::<Value>().await.unwrap()["keptDays"], 30);
    assert_eq!(s.get(format!("/api/chats/{id}")).await.status(), 404);
    let list: Vec<Value> = s.get_json("/api/chats").await;
    assert!(list.iter().all(|c| c["id"] != id.as_str()));
    let activity: Value = s.get_json("/api/activity").await;
    assert!(activity["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["chat"] != id.as_str()));
    let trashed = s.root().join("trash/chats").join(&id);
    let log = std::fs::read_to_string(trashed.join("log.jsonl")).unwrap();
    assert!(log.contains("\"text\":\"hello\""), "the log is kept whole");
    assert!(trashed.join("deleted").is_file());

    // Another, deleted 29 days ago; this one 31: only this one goes.
    let other = s.new_chat().await;
    s.owner
        .delete(format!("{}/api/chats/{other}", s.url))
        .send()
        .await
        .unwrap();
    let days_ago = |days: u64| {
        protocol::format_rfc3339(
            std::time::SystemTime::now() - std::time::Duration::from_secs(days * 86_400),
        )
    };
    std::fs::write(trashed.join("deleted"), days_ago(31)).unwrap();
    let kept = s.root().join("trash/chats").join(&other);
    std::fs::write(kept.join("deleted"), days_ago(29)).unwrap();
    s.state.chats.purge_trash();
    assert!(!trashed.exists());
    assert!(kept.join("log.jsonl").is_file());
    let gone = s
        .owner
        .delete(format!("{}/api/chats/{id}", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn retry_and_edit_and_resend_start_new_turns_and_keep_the_old_ones() {
    let s = start().await;
    use_models(&s);
    let (base, model) = model_server(vec![
        Err(401),
        Ok("Hello again."),
        Ok("An edited answer."),
        Ok("Made again."),
    ])
    .await;
    add_provider(&s, "local", &base, "m1", Some("sk-test-つ-123")).await;
    let id = s.new_chat().await;
    let mut sse = SseReader::new(s.get(format!("/api/chats/{id}/stream")).await);
    s.post(
        format!("/api/chats/{id}/messages"),
        &json!({"text": "hello there"}),
    )
    .await;
    let ended = turn_ends(&mut sse).await;
    assert_eq!(ended["reason"], "error");
    assert!(ended["error"].as_str().unwrap().contains("401"), "{ended}");

    let res = s.post_empty(format!("/api/chats/{id}/retry")).await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let retried = res.json::<Value>().await.unwrap()["seq"].as_u64().unwrap();
    let ended = turn_ends(&mut sse).await;
    assert_eq!(ended["reason"], "done");
    let log = events(&s, &id).await;
    let first = log.iter().find(|e| e["type"] == "message").unwrap()["seq"].clone();
    let again = log.iter().find(|e| e["seq"] == retried).unwrap();
    assert_eq!(again["text"], "hello there");
    assert_eq!(again["replaces"], first);
    assert!(log
        .iter()
        .any(|e| e["type"] == "reply" && e["text"] == "Hello again."));
    // Nothing failed since: nothing to retry.
    let res = s.post_empty(format!("/api/chats/{id}/retry")).await;
    assert_eq!(res.status(), StatusCode::CONFLICT);

    // Edit and resend the last message: a new turn, the old one kept.
    let res = s
        .post(
            format!("/api/chats/{id}/messages"),
            &json!({"text": "hello, edited", "replaces": retried}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    turn_ends(&mut sse).await;
    let res = s
        .post(
            format!("/api/chats/{id}/messages"),
            &json!({"text": "x", "replaces": retried}),
        )
        .await;
    assert_eq!(
        res.status(),
        StatusCode::CONFLICT,
        "not the last message now"
    );
    let log = events(&s, &id).await;
    let messages: Vec<&str> = log
        .iter()
        .filter(|e| e["type"] == "message")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(messages, ["hello there", "hello there", "hello, edited"]);

    // What the model saw: each time, only the branch that stands.
    let seen = model.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3);
    assert_eq!(owner_words(&seen[1].1), ["hello there"]);
    assert_eq!(owner_words(&seen[2].1), ["hello, edited"]);
    assert_eq!(seen[0].0["authorization"], "Bearer sk-test-つ-123");

    // Regenerate: after a good answer too, the last message again.
    let res = s
        .post(format!("/api/chats/{id}/regenerate"), &json!({}))
        .await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    turn_ends(&mut sse).await;
    let log = events(&s, &id).await;
    let last = log.iter().rev().find(|e| e["type"] == "message").unwrap();
    assert_eq!(last["text"], "hello, edited");
    assert!(last["replaces"].is_u64());
    assert_eq!(model.seen.lock().unwrap().len(), 4);
    let fresh = s.new_chat().await;
    let res = s
        .post(format!("/api/chats/{fresh}/regenerate"), &json!({}))
        .await;
    assert_eq!(res.status(), StatusCode::CONFLICT, "nothing answered yet");
}

#[tokio::test]
async fn providers_are_changed_by_a_person_only_and_keys_never_come_back() {
    let s = start().await;
    use_models(&s);
    let (base, _) = model_server(vec![Ok("Hi there, I'm here.")]).await;
    let key = "sk-secret-ünïcode-0123456789";
    add_provider(&s, "local", &base, "m1", Some(key)).await;
    let listed = s.get("/api/providers").await.text().await.unwrap();
    assert!(!listed.contains(key) && !listed.contains("0123456789"));
    let listed: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed["providers"][0]["hasKey"], true);
    assert_eq!(listed["providers"][0]["baseUrl"], base.as_str());
    assert_eq!(listed["default"], "local");
    let settings = std::fs::read_to_string(s.root().join("settings.json")).unwrap();
    assert!(
        !settings.contains("0123456789"),
        "the key isn't in settings.json"
    );
    let sealed = std::fs::read(s.root().join("secrets.json")).unwrap();
    assert!(
        !sealed.windows(10).any(|w| w == b"0123456789"),
        "secrets.json is sealed"
    );

    // Test: one short request, its answer in words.
    let tested: Value = s
        .post_empty("/api/providers/local/test")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(tested["ok"], true, "{tested}");
    assert_eq!(tested["answer"], "Hi there, I'm here.");
    let (refusing, _) = model_server(vec![Err(401), Err(401), Err(401), Err(401)]).await;
    add_provider(&s, "refusing", &refusing, "m2", Some("sk-wrong")).await;
    let tested: Value = s
        .post_empty("/api/providers/refusing/test")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(tested["ok"], false);
    assert!(
        tested["error"]
            .as_str()
            .unwrap()
            .contains("refused the key"),
        "{tested}"
    );
    let res = s.post_empty("/api/providers/nobody/test").await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);

    // Bad input is a sentence, and nothing is stored.
    for (body, says) in [
        (
            json!({"name": "a b", "kind": "openai", "model": "m"}),
            "letters, digits",
        ),
        (
            json!({"name": "x", "kind": "gemini", "model": "m"}),
            "anthropic, claude-code or codex",
        ),
        (
            json!({"name": "x", "kind": "openai", "model": "m", "baseUrl": "ftp://x"}),
            "isn't a web address",
        ),
        (
            json!({"name": "x", "kind": "openai", "model": " "}),
            "which model",
        ),
    ] {
        let res = s.post("/api/providers", &body).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST);
        assert!(res.text().await.unwrap().contains(says), "{body}");
    }

    // An access key can list and test, not change.
    let (_, access) = gateway::auth::keys::create(&s.root(), "script").unwrap();
    let bearer = format!("Bearer {access}");
    for (method, path, body) in [
        (
            "POST",
            "/api/providers",
            json!({"name": "k", "kind": "openai", "model": "m", "key": "sk"}),
        ),
        (
            "POST",
            "/api/providers/default",
            json!({"name": "refusing"}),
        ),
        ("DELETE", "/api/providers/local", json!(null)),
    ] {
        let req = s
            .anon
            .request(method.parse().unwrap(), format!("{}{path}", s.url))
            .header("authorization", &bearer);
        let req = if body.is_null() { req } else { req.json(&body) };
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "{method} {path}");
    }
    let res = s
        .anon
        .get(format!("{}/api/providers", s.url))
        .header("authorization", &bearer)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);

    // The owner can.
    let res = s
        .post("/api/providers/default", &json!({"name": "refusing"}))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = s
        .owner
        .delete(format!("{}/api/providers/refusing", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let listed: Value = s.get_json("/api/providers").await;
    assert_eq!(listed["providers"].as_array().unwrap().len(), 1);
    assert_eq!(
        listed["default"], "local",
        "the default moved to the one left"
    );
}

#[tokio::test]
async fn a_chat_picks_its_model_for_the_next_turn() {
    let s = start().await;
    use_models(&s);
    let (a, model_a) = model_server(vec![Ok("From A.")]).await;
    let (b, model_b) = model_server(vec![Ok("From B.")]).await;
    add_provider(&s, "a", &a, "model-a", None).await;
    add_provider(&s, "b", &b, "model-b", None).await;
    let id = s.new_chat().await;
    let shown: Value = s.get_json(format!("/api/chats/{id}")).await;
    assert_eq!(
        (shown["provider"].clone(), shown["model"].clone()),
        (json!("a"), json!("model-a"))
    );

    let res = s
        .post(
            format!("/api/chats/{id}/model"),
            &json!({"provider": "nope"}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert!(res.text().await.unwrap().contains("Settings → Models"));
    let res = s
        .post(format!("/api/chats/{id}/model"), &json!({"provider": "b"}))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let shown: Value = s.get_json(format!("/api/chats/{id}")).await;
    assert_eq!(
        (shown["provider"].clone(), shown["model"].clone()),
        (json!("b"), json!("model-b"))
    );

    let mut sse = SseReader::new(s.get(format!("/api/chats/{id}/stream")).await);
    s.post(
        format!("/api/chats/{id}/messages"),
        &json!({"text": "which one?"}),
    )
    .await;
    turn_ends(&mut sse).await;
    assert_eq!(model_b.seen.lock().unwrap().len(), 1);
    assert_eq!(model_a.seen.lock().unwrap().len(), 0);
    let log = events(&s, &id).await;
    let started = log.iter().find(|e| e["type"] == "turn.started").unwrap();
    assert_eq!(started["model"], "model-b");
    assert!(log
        .iter()
        .any(|e| e["type"] == "reply" && e["text"] == "From B."));

    // Back to the default; a removed provider falls back to it too.
    s.post(format!("/api/chats/{id}/model"), &json!({"provider": null}))
        .await;
    let shown: Value = s.get_json(format!("/api/chats/{id}")).await;
    assert_eq!(shown["provider"], "a");
    s.post(format!("/api/chats/{id}/model"), &json!({"provider": "b"}))
        .await;
    s.owner
        .delete(format!("{}/api/providers/b", s.url))
        .send()
        .await
        .unwrap();
    let shown: Value = s.get_json(format!("/api/chats/{id}")).await;
    assert_eq!(shown["provider"], "a");
}

fn command(id: &str, command: &str) -> Chunk {
    Chunk::ToolCall {
        id: id.into(),
        name: "run_command".into(),
        input: json!({ "command": command }),
    }
}

#[tokio::test]
async fn the_narrower_always_is_picked_over_http_and_covers_its_program_only() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "echo one")],
        vec![Chunk::Text("One.".into())],
        vec![command("c2", "e''cho two")],
        vec![Chunk::Text("Two.".into())],
        vec![command("c3", "echo three; ls")],
        vec![Chunk::Text("Three.".into())],
    ]));
    let s = start_engine(engine, Arc::new(Tools::new(ToolsConfig::default()))).await;
    let id = s.new_chat().await;
    let mut sse = SseReader::new(s.get(format!("/api/chats/{id}/stream")).await);
    s.post(format!("/api/chats/{id}/messages"), &json!({"text": "go"}))
        .await;
    let (seen, _) = sse.until("permission.requested").await;
    let asked = seen.last().unwrap().clone();
    assert_eq!(asked["always"], json!(["run_command", "box:run_command"]));
    assert_eq!(
        asked["narrow"],
        json!(["run_command@echo", "box:run_command@echo"])
    );
    let url = format!(
        "{}/api/chats/{id}/permissions/{}",
        s.url,
        asked["ask"].as_str().unwrap()
    );
    let bad = s
        .owner
        .post(&url)
        .json(&json!({"answer": "always", "covers": "everything"}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    let ok = s
        .owner
        .post(&url)
        .json(&json!({"answer": "always", "covers": "program"}))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    turn_ends(&mut sse).await;
    let shown: Value = s.get_json(format!("/api/chats/{id}")).await;
    assert_eq!(
        shown["always"],
        json!(["box:run_command@echo", "run_command@echo"])
    );

    // The same program, spelled otherwise: it runs without asking.
    s.post(
        format!("/api/chats/{id}/messages"),
        &json!({"text": "again"}),
    )
    .await;
    let ended = turn_ends(&mut sse).await;
    assert_eq!(ended["reason"], "done");
    let log = events(&s, &id).await;
    let asked = log
        .iter()
        .filter(|e| e["type"] == "permission.requested")
        .count();
    assert_eq!(asked, 1);
    let answered = log
        .iter()
        .find(|e| e["type"] == "permission.answered")
        .unwrap();
    assert_eq!(answered["narrow"], true);
    // Another program beside it: asked.
    s.post(
        format!("/api/chats/{id}/messages"),
        &json!({"text": "and more"}),
    )
    .await;
    let (seen, _) = sse.until("permission.requested").await;
    assert_eq!(seen.last().unwrap()["action"]["command"], "echo three; ls");
}

/// The delete confirm said the trash keeps a chat 30 days, and nothing
/// could get it back. The trash lists it, Restore puts it back whole, and
/// Activity keeps its rows meanwhile, marked deleted.
#[tokio::test]
async fn a_deleted_chat_is_listed_in_the_trash_and_restored_whole() {
    let engine = Arc::new(ScriptedEngine::new([vec![command("c1", "ls")]]));
    let s = start_engine(engine, Arc::new(Tools::new(ToolsConfig::default()))).await;
    let id = s.new_chat().await;
    let mut sse = SseReader::new(s.get(format!("/api/chats/{id}/stream")).await);
    s.post(format!("/api/chats/{id}/messages"), &json!({"text": "go"}))
        .await;
    sse.until("permission.requested").await;
    drop(sse);
    s.post(format!("/api/chats/{id}/title"), &json!({"title": "Grüße"}))
        .await;
    let rows = |page: &Value| -> Vec<Value> {
        page["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["chat"] == id.as_str())
            .cloned()
            .collect()
    };
    let before = rows(&s.get_json::<Value>("/api/activity").await);
    assert!(!before.is_empty(), "the command has a row");
    assert!(before.iter().all(|r| r.get("chatDeleted").is_none()));
    let res = s
        .owner
        .delete(format!("{}/api/chats/{id}", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let during = rows(&s.get_json::<Value>("/api/activity").await);
    assert_eq!(during.len(), before.len(), "its rows stay");
    assert!(
        during.iter().all(|r| r["chatDeleted"] == true),
        "{during:?}"
    );
    let trash: Value = s.get_json("/api/trash").await;
    let listed = trash["chats"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{trash}");
    assert_eq!(listed[0]["id"], id.as_str());
    assert!(
        listed[0]["title"].as_str().unwrap().contains("Grüße"),
        "{trash}"
    );
    assert!(listed[0]["deletedAt"].is_string());

    let back = s.post(format!("/api/trash/{id}/restore"), &json!({})).await;
    assert_eq!(back.status(), StatusCode::OK);
    assert_eq!(s.get(format!("/api/chats/{id}")).await.status(), 200);
    let list: Vec<Value> = s.get_json("/api/chats").await;
    assert!(list.iter().any(|c| c["id"] == id.as_str()));
    let trash: Value = s.get_json("/api/trash").await;
    assert_eq!(trash["chats"].as_array().unwrap().len(), 0);
    let after = rows(&s.get_json::<Value>("/api/activity").await);
    assert!(
        after.iter().all(|r| r.get("chatDeleted").is_none()),
        "{after:?}"
    );
    let log = std::fs::read_to_string(s.root().join("chats").join(&id).join("log.jsonl")).unwrap();
    assert!(log.contains("Grüße"), "the log came back whole");
    // Restoring again finds nothing; an id that isn't one is refused.
    let again = s.post(format!("/api/trash/{id}/restore"), &json!({})).await;
    assert_eq!(again.status(), StatusCode::NOT_FOUND);
    let bad = s
        .post("/api/trash/..%2F..%2Fetc/restore".to_owned(), &json!({}))
        .await;
    assert_eq!(bad.status(), StatusCode::NOT_FOUND);

    // Deleted again, and Activity rebuilt from disk (a restart): still
    // there, still marked.
    s.owner
        .delete(format!("{}/api/chats/{id}", s.url))
        .send()
        .await
        .unwrap();
    let fresh = conversations::activity::Activity::new(&s.root().join("chats"));
    let page = fresh.page(None, &[], false, 100);
    let marked: Vec<_> = page.rows.iter().filter(|r| r.chat == id).collect();
    assert!(!marked.is_empty() && marked.iter().all(|r| r.chat_deleted));
}

/// The first screen makes a chat while New chat is pressed: both ask for
/// an empty chat at once, and both get the same one, not two.
#[tokio::test]
async fn two_asks_for_an_empty_chat_at_once_get_the_same_chat() {
    let s = common::start().await;
    let body = json!({ "reuseEmpty": true });
    for _ in 0..20 {
        let (a, b) = tokio::join!(s.post("/api/chats", &body), s.post("/api/chats", &body));
        let a: Value = a.json().await.unwrap();
        let b: Value = b.json().await.unwrap();
        assert_eq!(a["id"], b["id"], "{a} {b}");
    }
    let list: Vec<Value> = s.get_json("/api/chats").await;
    assert_eq!(list.len(), 1);
}
