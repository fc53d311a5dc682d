//! A routine due in the past runs once at start, as its own chat with
//! nobody there; what its command asks (even in Full trust, once it has
//! read a page) reaches the owner's linked Telegram chat, the owner's
//! button runs it, and the routine's result follows.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "support/bot_api.rs"]
mod bot_api;

use std::sync::Arc;
use std::time::Duration;

use bot_api::{BotApi, TOKEN};
use bridges::telegram::Telegram;
use bridges::{access, ChatApp, Relay, StateFile, Waits};
use conversations::RunAsChat;
use conversations::{Chats, ChatsConfig, Durability, GuardConfig, Home};
use engines::{Chunk, ScriptedEngine};
use protocol::{Body, Mode, Origin};
use routines::store::NewRoutine;
use serde_json::json;
use tools::{Tools, ToolsConfig};

const ADA: i64 = 100;

async fn page_server() -> String {
    let app = axum::Router::new().fallback(|| async {
        axum::response::Html("<h1>Inbox</h1><p>3 new: the rent, a parcel, Ünïcödé news.</p>")
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

#[tokio::test]
async fn a_routine_due_in_the_past_runs_once_and_its_command_asks_the_owner_in_telegram_in_full_trust(
) {
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = (dir.path().join("home"), dir.path().join("work"));
    std::fs::create_dir(&work).unwrap();
    let page = page_server().await;
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::ToolCall {
            id: "f1".into(),
            name: "web_fetch".into(),
            input: json!({ "url": format!("{page}/inbox") }),
        }],
        vec![Chunk::ToolCall {
            id: "c1".into(),
            name: "run_command".into(),
            input: json!({ "command": "echo 3 new > summary.txt" }),
        }],
        vec![Chunk::Text("3 new: the rent, a parcel, news.".into())],
    ]));
    let chats = Chats::new(
        Home::open(&home).unwrap(),
        engine,
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.clone(),
            default_mode: Mode::Full,
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
    let app: Arc<dyn ChatApp> = Telegram::new(TOKEN, Some(&api.base), 1).unwrap();
    let relay = Relay::new(
        app,
        chats.clone(),
        &home,
        "Ada",
        Waits {
            unreachable: Duration::from_millis(50),
            conflict: Duration::from_millis(100),
            most: Duration::from_secs(2),
        },
    );
    tokio::spawn(relay.run());
    let (code, kept) = access::new_code([9; 8], routines::now());
    state.update("telegram", |s| s.link = Some(kept)).unwrap();
    api.direct(ADA, "Ada", None, &format!("/link {code}"));
    api.until("linked", |a| {
        a.said_in(ADA).iter().any(|m| m.text == access::LINKED)
    })
    .await;

    // Made two days ago, every hour: 48 times went by while nothing ran.
    let store = routines::Store::new(&home);
    let routine = store
        .add(
            NewRoutine {
                schedule: "every hour".into(),
                task: "Summarise my inbox".into(),
                name: Some("inbox".into()),
                ..NewRoutine::default()
            },
            routines::now() - 2 * 86_400,
        )
        .unwrap();
    let scheduler = routines::Scheduler::new(
        &home,
        Arc::new(RunAsChat(Arc::downgrade(&chats))),
        Box::new(|| jiff::tz::TimeZone::UTC),
        &[],
    )
    .unwrap();
    tokio::spawn(scheduler.run());

    api.until("Ada is asked", |a| {
        a.said_in(ADA).iter().any(|m| m.buttons.is_some())
    })
    .await;
    let runs: Vec<_> = chats
        .list()
        .into_iter()
        .filter(|c| c.routine.as_deref() == Some(routine.id.as_str()))
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let chat = chats.get(&runs[0].id).unwrap();
    let view = chat.log.view();
    assert_eq!(view.created.as_ref().unwrap().origin, Origin::Routine);
    let asked = chat
        .log
        .events_after(0)
        .unwrap()
        .into_iter()
        .find_map(|e| match e.body {
            Body::PermissionRequested(p) => Some(p),
            _ => None,
        })
        .unwrap();
    assert!(
        asked.why.iter().any(|w| w == "nobody-there.waits"),
        "{:?}",
        asked.why
    );
    assert_eq!(asked.always, None);
    let question = api
        .said_in(ADA)
        .into_iter()
        .find(|m| m.buttons.is_some())
        .unwrap();
    assert!(question.text.contains("echo 3 new"), "{}", question.text);
    let once = question.buttons.as_ref().unwrap()[0][0]["callback_data"]
        .as_str()
        .unwrap()
        .to_owned();
    api.press(ADA, "Ada", &question, &once);
    api.until("the routine's result", |a| {
        a.said_in(ADA)
            .iter()
            .any(|m| m.text.starts_with("The routine \"inbox\" finished"))
    })
    .await;
    assert_eq!(
        std::fs::read_to_string(work.join("summary.txt")).unwrap(),
        "3 new\n"
    );
    // Still one run: the 48 missed times ran once.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let runs = chats
        .list()
        .into_iter()
        .filter(|c| c.routine.as_deref() == Some(routine.id.as_str()))
        .count();
    assert_eq!(runs, 1);
}

/// A routine whose next request would pass its cap for the day isn't
/// sent to the model: its run stops, and the owner is told in Telegram
/// which cap and what to do.
#[tokio::test]
async fn a_routine_that_hits_its_cap_stops_and_the_owner_is_told_in_telegram() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = (dir.path().join("home"), dir.path().join("work"));
    std::fs::create_dir(&work).unwrap();
    // A model server that counts what reaches it.
    let seen = Arc::new(AtomicUsize::new(0));
    let counted = seen.clone();
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            async { "data: [DONE]\n\n" }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let home_dir = Home::open(&home).unwrap();
    conversations::Settings {
        providers: vec![engines::providers::ProviderSettings {
            name: "metered".into(),
            kind: engines::providers::ProviderKind::Openai,
            base_url: format!("http://{addr}/v1"),
            model: "gpt-4o-mini".into(),
            context_tokens: 100_000,
            max_tokens: 4096,
            bin: None,
            prices: None,
            no_cap: false,
        }],
        spending: Some(conversations::spending::Caps {
            routine: Some(0.001),
            ..Default::default()
        }),
        ..Default::default()
    }
    .save(home_dir.root())
    .unwrap();
    let chats = Chats::new(
        home_dir,
        Arc::new(ScriptedEngine::new(Vec::new())),
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.clone(),
            default_mode: Mode::Full,
            policies: Default::default(),
            guard: GuardConfig {
                owner_name: "Ada".into(),
                ..GuardConfig::default()
            },
            skills: None,
            max_steps: None,
        },
    );
    chats.use_models(Arc::new(conversations::models::Models::new(home.clone())));
    let api = BotApi::start().await;
    let state = StateFile::new(&home);
    let app: Arc<dyn ChatApp> = Telegram::new(TOKEN, Some(&api.base), 1).unwrap();
    let relay = Relay::new(
        app,
        chats.clone(),
        &home,
        "Ada",
        Waits {
            unreachable: Duration::from_millis(50),
            conflict: Duration::from_millis(100),
            most: Duration::from_secs(2),
        },
    );
    tokio::spawn(relay.run());
    let (code, kept) = access::new_code([9; 8], routines::now());
    state.update("telegram", |s| s.link = Some(kept)).unwrap();
    api.direct(ADA, "Ada", None, &format!("/link {code}"));
    api.until("linked", |a| {
        a.said_in(ADA).iter().any(|m| m.text == access::LINKED)
    })
    .await;
    let routine = routines::Store::new(&home)
        .add(
            NewRoutine {
                schedule: "every hour".into(),
                task: "Summarise my inbox".into(),
                name: Some("inbox".into()),
                ..NewRoutine::default()
            },
            routines::now(),
        )
        .unwrap();
    chats.run_routine(&routine).await.unwrap();
    api.until("Ada is told the routine stopped at its cap", |a| {
        a.said_in(ADA).iter().any(|m| {
            m.text.starts_with("The routine \"inbox\" stopped with a problem: The next request would pass this routine's cap for today (USD 0.0010;")
        })
    })
    .await;
    assert_eq!(seen.load(Ordering::SeqCst), 0, "nothing reached the model");
}
