//! Each provider against a scripted model server on 127.0.0.1 that speaks the
//! provider's real wire format, streaming included, and asks for tool calls;
//! the turn runs the tools for real in a temporary work folder.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body as HttpBody;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use conversations::{Chat, Chats, ChatsConfig, Durability, Home, NewChat};
use engines::providers::{engine, Provider, ProviderKind, ProviderSettings, Retry};
use protocol::{Body, EndReason, Event, Mode};
use serde_json::{json, Value};
use tools::{Tools, ToolsConfig};

/// What the fake model server answers each request with, in order.
#[derive(Clone)]
enum Answer {
    Stream(Vec<String>),
    Status(u16, &'static str),
}

#[derive(Clone, Default)]
struct Script {
    answers: Arc<Mutex<Vec<Answer>>>,
    seen: Arc<Mutex<Vec<(HeaderMap, Value)>>>,
}

async fn model(
    State(script): State<Script>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    script.seen.lock().unwrap().push((headers, body));
    let next = {
        let mut answers = script.answers.lock().unwrap();
        if answers.is_empty() {
            Answer::Status(500, "the script ran out")
        } else {
            answers.remove(0)
        }
    };
    match next {
        Answer::Status(code, text) => (
            StatusCode::from_u16(code).unwrap(),
            Json(json!({"error": {"message": text}})),
        )
            .into_response(),
        Answer::Stream(pieces) => {
            // Each piece is sent on its own, a little apart, as a real stream is.
            let stream = futures_util::stream::unfold(pieces.into_iter(), |mut it| async move {
                let piece = it.next()?;
                tokio::time::sleep(Duration::from_millis(2)).await;
                Some((Ok::<_, std::io::Error>(piece), it))
            });
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(HttpBody::from_stream(stream))
                .unwrap()
        }
    }
}

async fn serve(script: Script) -> String {
    let app = Router::new()
        .route("/v1/chat/completions", post(model))
        .route("/v1/messages", post(model))
        .with_state(script);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

fn openai_sse(chunks: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    out.push("data: [DONE]\n\n".into());
    out
}

fn openai_text(text: &str) -> Vec<String> {
    let pieces: Vec<Value> = text
        .split_inclusive(' ')
        .map(|w| json!({"choices": [{"index": 0, "delta": {"content": w}}]}))
        .collect();
    openai_sse(&pieces)
}

fn openai_call(id: &str, name: &str, args: &str) -> Vec<String> {
    let (a, b) = args.split_at(args.len() / 2);
    openai_sse(&[
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": a}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": b}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ])
}

fn anthropic_event(kind: &str, data: Value) -> String {
    format!("event: {kind}\ndata: {data}\n\n")
}

fn anthropic_text(text: &str) -> Vec<String> {
    let mut out = vec![
        anthropic_event(
            "message_start",
            json!({"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}}),
        ),
        anthropic_event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        anthropic_event("ping", json!({"type": "ping"})),
    ];
    for w in text.split_inclusive(' ') {
        out.push(anthropic_event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}})));
    }
    out.push(anthropic_event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    out.push(anthropic_event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
    ));
    out.push(anthropic_event(
        "message_stop",
        json!({"type": "message_stop"}),
    ));
    out
}

fn anthropic_call(id: &str, name: &str, args: &str) -> Vec<String> {
    let (a, b) = args.split_at(args.len() / 2);
    vec![
        anthropic_event(
            "message_start",
            json!({"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}}),
        ),
        anthropic_event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "On it."}}),
        ),
        anthropic_event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        anthropic_event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
        ),
        anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": a}}),
        ),
        anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": b}}),
        ),
        anthropic_event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        anthropic_event(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
        ),
        anthropic_event("message_stop", json!({"type": "message_stop"})),
    ]
}

fn provider(kind: ProviderKind, base: &str) -> Provider {
    let base_url = match kind {
        ProviderKind::Openai => format!("{base}/v1"),
        _ => base.to_owned(),
    };
    Provider {
        settings: ProviderSettings {
            name: "test-model".into(),
            kind,
            base_url,
            model: "m-1".into(),
            context_tokens: 100_000,
            max_tokens: 1000,
            bin: None,
            prices: None,
            no_cap: false,
        },
        key: Some("sk-test-123".into()),
    }
}

fn fast_retry() -> Retry {
    Retry {
        first: Duration::from_millis(5),
        most: Duration::from_millis(20),
    }
}

async fn chat_with(kind: ProviderKind, base: &str, dir: &std::path::Path) -> Arc<Chat> {
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let chats = Chats::new(
        Home::open(&dir.join("home")).unwrap(),
        engine(provider(kind, base), fast_retry()),
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
    chats.create(NewChat::default()).await.unwrap()
}

async fn turn_ended(chat: &Chat) -> Vec<Event> {
    let mut follow = chat.log.follow();
    loop {
        let events = chat.log.events_after(0).unwrap();
        if events.iter().any(|e| matches!(e.body, Body::TurnEnded(_))) {
            return events;
        }
        tokio::time::timeout(Duration::from_secs(10), follow.recv())
            .await
            .expect("the turn ends")
            .ok();
    }
}

fn tool_outputs(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            Body::ToolFinished(f) => Some(f.output.clone()),
            _ => None,
        })
        .collect()
}

fn last_reply(events: &[Event]) -> String {
    events
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            Body::Reply(r) => Some(r.text.clone()),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn openai_streams_text_and_tool_calls_that_run_for_real() {
    let script = Script::default();
    *script.answers.lock().unwrap() = vec![
        Answer::Stream(openai_call(
            "call_1",
            "write_file",
            r#"{"path":"note.txt","content":"hi from the model"}"#,
        )),
        Answer::Stream(openai_call(
            "call_2",
            "run_command",
            r#"{"command":"cat note.txt"}"#,
        )),
        Answer::Stream(openai_text("All done, the note says hi.")),
    ];
    let base = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let chat = chat_with(ProviderKind::Openai, &base, dir.path()).await;
    chat.post("write a note and show it").await.unwrap();
    let events = turn_ended(&chat).await;

    assert_eq!(
        std::fs::read_to_string(dir.path().join("work/note.txt")).unwrap(),
        "hi from the model"
    );
    let outs = tool_outputs(&events);
    assert!(outs[1].starts_with("hi from the model"), "{outs:?}");
    assert_eq!(last_reply(&events), "All done, the note says hi.");
    let Body::TurnStarted(started) = &events[2].body else {
        panic!()
    };
    assert_eq!(
        (started.engine.as_str(), started.model.as_deref()),
        ("test-model", Some("m-1"))
    );

    let seen = script.seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    let (headers, first) = &seen[0];
    assert_eq!(headers["authorization"], "Bearer sk-test-123");
    assert_eq!(first["model"], "m-1");
    assert_eq!(first["stream"], true);
    assert_eq!(first["messages"][0]["role"], "system");
    assert_eq!(
        first["messages"][1],
        json!({"role": "user", "content": "write a note and show it"})
    );
    assert!(first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["function"]["name"] == "run_command"));
    // The third request carries both calls and their results.
    let third = &seen[2].1["messages"];
    let tool_msgs: Vec<&Value> = third
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(tool_msgs.len(), 2);
    assert_eq!(tool_msgs[1]["tool_call_id"], "call_2");
    assert!(tool_msgs[1]["content"]
        .as_str()
        .unwrap()
        .starts_with("hi from the model"));
}

#[tokio::test]
async fn anthropic_streams_text_and_tool_calls_that_run_for_real() {
    let script = Script::default();
    *script.answers.lock().unwrap() = vec![
        Answer::Stream(anthropic_call(
            "toolu_1",
            "write_file",
            r#"{"path":"a/b.txt","content":"nested"}"#,
        )),
        Answer::Stream(anthropic_call(
            "toolu_2",
            "read_file",
            r#"{"path":"a/b.txt"}"#,
        )),
        Answer::Stream(anthropic_text("It says nested.")),
    ];
    let base = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let chat = chat_with(ProviderKind::Anthropic, &base, dir.path()).await;
    chat.post("go").await.unwrap();
    let events = turn_ended(&chat).await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("work/a/b.txt")).unwrap(),
        "nested"
    );
    assert_eq!(tool_outputs(&events)[1], "nested");
    assert_eq!(last_reply(&events), "It says nested.");
    let replies: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.body {
            Body::Reply(r) => Some(r.text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(replies, ["On it.", "On it.", "It says nested."]);

    let seen = script.seen.lock().unwrap();
    let (headers, first) = &seen[0];
    assert_eq!(headers["x-api-key"], "sk-test-123");
    assert_eq!(headers["anthropic-version"], "2023-06-01");
    assert!(first["system"]
        .as_str()
        .unwrap()
        .starts_with("You are Conch"));
    assert!(first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "web_fetch" && t["input_schema"].is_object()));
    let third = &seen[2].1["messages"];
    let roles: Vec<&str> = third
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant", "user"]);
    assert_eq!(third[4]["content"][0]["type"], "tool_result");
    assert_eq!(third[4]["content"][0]["tool_use_id"], "toolu_2");
    assert_eq!(third[4]["content"][0]["content"], "nested");
}

#[tokio::test]
async fn busy_providers_are_retried_and_a_bad_key_gets_a_sentence() {
    for kind in [ProviderKind::Openai, ProviderKind::Anthropic] {
        let script = Script::default();
        let ok = match kind {
            ProviderKind::Openai => openai_text("Made it."),
            _ => anthropic_text("Made it."),
        };
        *script.answers.lock().unwrap() = vec![
            Answer::Status(429, "slow down"),
            Answer::Status(503, "overloaded"),
            Answer::Stream(ok),
            Answer::Status(401, "bad key"),
        ];
        let base = serve(script.clone()).await;
        let dir = tempfile::tempdir().unwrap();
        let chat = chat_with(kind, &base, dir.path()).await;
        chat.post("hello").await.unwrap();
        let events = turn_ended(&chat).await;
        assert_eq!(last_reply(&events), "Made it.");
        assert_eq!(script.seen.lock().unwrap().len(), 3);

        chat.post("again").await.unwrap();
        let mut follow = chat.log.follow();
        let ended = loop {
            let events = chat.log.events_after(0).unwrap();
            let ends: Vec<_> = events
                .iter()
                .filter_map(|e| match &e.body {
                    Body::TurnEnded(t) => Some(t.clone()),
                    _ => None,
                })
                .collect();
            if ends.len() == 2 {
                break ends[1].clone();
            }
            tokio::time::timeout(Duration::from_secs(10), follow.recv())
                .await
                .unwrap()
                .ok();
        };
        assert_eq!(ended.reason, EndReason::Error);
        let sentence = ended.error.unwrap();
        assert!(
            sentence.contains("refused the key (HTTP 401)"),
            "{sentence}"
        );
    }
}

#[tokio::test]
async fn a_provider_that_keeps_failing_ends_the_turn_after_the_retries() {
    let script = Script::default();
    *script.answers.lock().unwrap() = vec![Answer::Status(500, "down"); 6];
    let base = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let chat = chat_with(ProviderKind::Openai, &base, dir.path()).await;
    chat.post("hello").await.unwrap();
    let events = turn_ended(&chat).await;
    let Body::TurnEnded(t) = &events.last().unwrap().body else {
        panic!()
    };
    assert!(
        t.error.as_deref().unwrap().contains("after 4 tries"),
        "{:?}",
        t.error
    );
    assert_eq!(script.seen.lock().unwrap().len(), 4);
}
