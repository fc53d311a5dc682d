//! Spending caps against a scripted OpenAI-compatible model server on
//! 127.0.0.1, the provider set up in settings.json as the owner would: a
//! chat's cap reached mid-turn stops the next request before it is sent
//! (the server never sees it), the cost is logged in the chat and in
//! spending.jsonl, and a model whose price is unknown isn't sent to under
//! a cap until the owner says "no cap for this provider".
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body as HttpBody;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use axum::{Json, Router};
use conversations::models::Models;
use conversations::spending::{manage, Caps, Price};
use conversations::{Chat, Chats, ChatsConfig, Durability, GuardConfig, Home, NewChat, Settings};
use engines::providers::{ProviderKind, ProviderSettings};
use engines::ScriptedEngine;
use protocol::{Body, Event, Mode};
use serde_json::{json, Value};
use tools::{Tools, ToolsConfig};

#[derive(Clone, Default)]
struct Server {
    answers: Arc<Mutex<Vec<Vec<String>>>>,
    seen: Arc<Mutex<usize>>,
}

async fn model(State(s): State<Server>, Json(_): Json<Value>) -> Response {
    *s.seen.lock().unwrap() += 1;
    let pieces = {
        let mut a = s.answers.lock().unwrap();
        if a.is_empty() {
            sse(&[json!({"choices": [{"index": 0, "delta": {"content": "(out of script)"}}]})])
        } else {
            a.remove(0)
        }
    };
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(HttpBody::from(pieces.concat()))
        .unwrap()
}

fn sse(chunks: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    out.push("data: [DONE]\n\n".into());
    out
}

fn call(id: &str, name: &str, args: &str) -> Vec<String> {
    sse(&[
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": args}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ])
}

fn text(t: &str) -> Vec<String> {
    sse(&[json!({"choices": [{"index": 0, "delta": {"content": t}}]})])
}

struct World {
    _dir: tempfile::TempDir,
    home: std::path::PathBuf,
    server: Server,
    chats: Arc<Chats>,
}

async fn world(model_name: &str, prices: Option<Price>, caps: Caps) -> World {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let server = Server::default();
    let app = Router::new()
        .route("/v1/chat/completions", post(model))
        .with_state(server.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let home = Home::open(&root.join("home")).unwrap();
    let settings = Settings {
        providers: vec![ProviderSettings {
            name: "scripted".into(),
            kind: ProviderKind::Openai,
            base_url: format!("http://{addr}/v1"),
            model: model_name.into(),
            context_tokens: 100_000,
            max_tokens: 4096,
            bin: None,
            prices,
            no_cap: false,
        }],
        spending: Some(caps),
        ..Settings::default()
    };
    settings.save(home.root()).unwrap();
    let chats = Chats::new(
        home.clone(),
        Arc::new(ScriptedEngine::new(Vec::new())),
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work,
            default_mode: Mode::Full,
            policies: Default::default(),
            guard: GuardConfig::default(),
            skills: None,
            max_steps: None,
        },
    );
    chats.use_models(Arc::new(Models::new(home.root().to_path_buf())));
    World {
        _dir: dir,
        home: home.root().to_path_buf(),
        server,
        chats,
    }
}

async fn ended(chat: &Chat, n: usize) -> Vec<Event> {
    for _ in 0..1000 {
        let events = chat.log.events_after(0).unwrap();
        if events
            .iter()
            .filter(|e| matches!(e.body, Body::TurnEnded(_)))
            .count()
            >= n
        {
            return events;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("timed out: {:#?}", chat.log.events_after(0).unwrap());
}

fn error_of(events: &[Event]) -> Option<String> {
    events
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            Body::TurnEnded(t) => Some(t.error.clone()),
            _ => None,
        })
        .flatten()
}

#[tokio::test]
async fn a_cap_reached_mid_turn_stops_the_next_request_before_it_is_sent() {
    // 1,000 per million tokens written: a request that may write 4,096
    // tokens is estimated at 4.096; the first one's call writes a few
    // tokens (about 0.007), so a second estimate passes 4.10.
    let w = world(
        "house-model",
        Some(Price {
            input: 0.0,
            output: 1000.0,
        }),
        Caps {
            currency: "EUR".into(),
            chat: Some(4.1),
            ..Caps::default()
        },
    )
    .await;
    w.server.answers.lock().unwrap().extend([
        call("c1", "list_files", r#"{"path": "."}"#),
        text("Here they are."),
    ]);
    let chat = w.chats.create(NewChat::default()).await.unwrap();
    chat.post("What's here?").await.unwrap();
    let events = ended(&chat, 1).await;
    assert_eq!(
        *w.server.seen.lock().unwrap(),
        1,
        "the second request was sent"
    );
    let said = error_of(&events).unwrap();
    assert!(
        said.starts_with("The next request would pass this chat's cap (EUR 4.10;"),
        "{said}"
    );
    let costs: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            Body::Cost(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(costs.len(), 1);
    assert_eq!(costs[0].currency, "EUR");
    assert!(
        costs[0].amount > 0.0 && costs[0].amount < 0.1,
        "{}",
        costs[0].amount
    );
    let ledger = std::fs::read_to_string(w.home.join("spending.jsonl")).unwrap();
    assert_eq!(ledger.lines().count(), 1);
    // Raised, the chat goes on.
    manage::set_caps(
        &w.home,
        Caps {
            currency: "EUR".into(),
            chat: Some(20.0),
            ..Caps::default()
        },
    )
    .unwrap();
    chat.post("Go on").await.unwrap();
    let events = ended(&chat, 2).await;
    assert_eq!(error_of(&events), None);
    assert_eq!(*w.server.seen.lock().unwrap(), 2);
}

#[tokio::test]
async fn an_unknown_price_fails_closed_until_no_cap_is_chosen() {
    let w = world(
        "llama-local",
        None,
        Caps {
            day: Some(5.0),
            ..Caps::default()
        },
    )
    .await;
    w.server.answers.lock().unwrap().push(text("Hello."));
    let chat = w.chats.create(NewChat::default()).await.unwrap();
    chat.post("Hi").await.unwrap();
    let events = ended(&chat, 1).await;
    assert_eq!(*w.server.seen.lock().unwrap(), 0);
    let said = error_of(&events).unwrap();
    assert!(
        said.starts_with("Conch doesn't know what scripted's model llama-local costs"),
        "{said}"
    );
    manage::set_prices(&w.home, "scripted", None, Some(true)).unwrap();
    chat.post("Hi again").await.unwrap();
    let events = ended(&chat, 2).await;
    assert_eq!(error_of(&events), None);
    assert_eq!(*w.server.seen.lock().unwrap(), 1);
}

#[tokio::test]
async fn a_known_model_is_priced_from_the_list_and_counted_for_the_day() {
    let w = world(
        "gpt-4o-mini-2024-07-18",
        None,
        Caps {
            day: Some(1.0),
            ..Caps::default()
        },
    )
    .await;
    w.server
        .answers
        .lock()
        .unwrap()
        .push(text("Bonjour à toi."));
    let chat = w.chats.create(NewChat::default()).await.unwrap();
    chat.post("Salut").await.unwrap();
    let events = ended(&chat, 1).await;
    assert_eq!(error_of(&events), None);
    let today = w.chats.spending().today();
    assert!(today > 0.0 && today < 0.01, "{today}");
    let overview = manage::overview(&w.home, today).unwrap();
    assert_eq!(overview.providers[0].used.map(|p| p.input), Some(0.15));
}
