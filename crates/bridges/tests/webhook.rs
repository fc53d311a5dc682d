//! Telegram with a webhook: the scripted Bot API server pushes each update
//! to Conch's hook with the secret; the relay handles them in order, once
//! each (an update pushed again isn't handled again), refuses a request
//! without the secret, and polling takes the webhook down again.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "support/bot_api.rs"]
mod bot_api;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use bot_api::{BotApi, TOKEN};
use bridges::telegram::Telegram;
use bridges::{access, ChatApp, Relay, StateFile, Waits};
use conversations::{Chats, ChatsConfig, Durability, GuardConfig, Home};
use engines::{Chunk, ScriptedEngine};
use protocol::{Body, Mode};
use serde_json::json;
use tools::{Tools, ToolsConfig};

const ADA: i64 = 100;
const SECRET: &str = "a-secret_of-the-webhook-0123456789";

async fn hook(State(relay): State<Arc<Relay>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let secret = headers
        .get("x-telegram-bot-api-secret-token")
        .and_then(|v| v.to_str().ok());
    StatusCode::from_u16(relay.pushed(secret, &body).await).unwrap()
}

#[tokio::test]
async fn pushed_updates_are_handled_in_order_once_each_and_only_with_the_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = (dir.path().join("home"), dir.path().join("work"));
    std::fs::create_dir(&work).unwrap();
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::Text("first reply".into())],
        vec![Chunk::Text("second reply".into())],
        vec![Chunk::Text("third reply".into())],
    ]));
    let chats = Chats::new(
        Home::open(&home).unwrap(),
        engine,
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work,
            default_mode: Mode::Ask,
            policies: Default::default(),
            guard: GuardConfig {
                owner_name: "Ada".into(),
                ..GuardConfig::default()
            },
            skills: None,
            max_steps: None,
        },
    );
    let api = BotApi::start().await;
    let state = StateFile::new(&home);
    let waits = Waits {
        unreachable: Duration::from_millis(50),
        conflict: Duration::from_millis(100),
        most: Duration::from_secs(2),
    };
    let app: Arc<dyn ChatApp> = Telegram::new(TOKEN, Some(&api.base), 1).unwrap();
    let relay = Relay::new(app.clone(), chats.clone(), &home, "Ada", waits);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hooks/telegram", listener.local_addr().unwrap());
    let router = axum::Router::new()
        .route("/hooks/telegram", axum::routing::post(hook))
        .with_state(relay.clone());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    relay.push_to(&url, SECRET).await.unwrap();
    assert_eq!(api.webhook(), Some((url.clone(), SECRET.to_owned())));
    // While pushing, reading updates is refused, as Telegram does.
    assert!(matches!(
        app.updates(None).await,
        Err(bridges::AppError::Conflict(_))
    ));

    let (code, kept) = access::new_code([4; 8], routines::now());
    state.update("telegram", |s| s.link = Some(kept)).unwrap();
    api.direct(ADA, "Ada", None, &format!("/link {code}"));
    api.until("linked", |a| {
        a.said_in(ADA).iter().any(|m| m.text == access::LINKED)
    })
    .await;

    // The first message is pushed twice (an answer Telegram didn't get).
    api.repeat_next_push();
    api.direct(ADA, "Ada", None, "один");
    // The second is sent once the first is answered: two messages that
    // arrive before a turn starts are answered by one turn.
    api.until("the first reply", |a| {
        a.said_in(ADA).iter().any(|m| m.text == "first reply")
    })
    .await;
    api.direct(ADA, "Ada", None, "deux");
    api.until("both replies", |a| {
        a.said_in(ADA)
            .iter()
            .filter(|m| m.text.ends_with(" reply"))
            .count()
            >= 2
    })
    .await;
    let id = state.get("telegram").unwrap().chats[&ADA.to_string()].clone();
    let chat = chats.get(&id).unwrap();
    let messages: Vec<String> = chat
        .log
        .events_after(0)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.body {
            Body::Message(m) => Some(m.text),
            _ => None,
        })
        .collect();
    assert_eq!(messages, ["один", "deux"]);
    let pushes = api.pushes();
    let first_message = pushes[1].0;
    assert_eq!(
        pushes.iter().filter(|p| p.0 == first_message).count(),
        2,
        "{pushes:?}"
    );

    // Without the secret, or with another, nothing is read.
    let http = reqwest::Client::new();
    let forged = json!({ "update_id": 999_999, "message": {
        "message_id": 1, "date": 0, "text": "/link AAAAAAAA",
        "from": { "id": 666, "is_bot": false, "first_name": "Mallory" },
        "chat": { "id": 666, "type": "private" } } });
    for header in [None, Some("wrong"), Some("")] {
        let mut request = http.post(&url).json(&forged);
        if let Some(h) = header {
            request = request.header("X-Telegram-Bot-Api-Secret-Token", h);
        }
        assert_eq!(request.send().await.unwrap().status(), 401);
    }
    assert!(api.said_in(666).is_empty());
    assert_ne!(state.get("telegram").unwrap().cursor, Some(999_999));

    // Polling again takes the webhook down and reads on from the cursor.
    tokio::spawn(relay.clone().run());
    api.until("the webhook is gone", |a| a.webhook().is_none())
        .await;
    api.direct(ADA, "Ada", None, "trois");
    api.until("the third reply", |a| {
        a.said_in(ADA).iter().any(|m| m.text == "third reply")
    })
    .await;
}
