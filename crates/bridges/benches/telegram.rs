//! From a Telegram update arriving to the owner being asked: a person the
//! owner allowed writes (the scripted Bot API server on 127.0.0.1 gets the
//! update), the bridge reads it, posts it into its chat, the scripted model
//! proposes a command, the guard asks, and the question with its buttons
//! reaches the owner's chat on the server. Median and p99 of
//! `TELEGRAM_BENCH_N` (default 200) such trips, each from a new person in a
//! new chat, one at a time.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "../tests/support/bot_api.rs"]
mod bot_api;

use std::sync::Arc;
use std::time::{Duration, Instant};

use bot_api::{BotApi, TOKEN};
use bridges::telegram::Telegram;
use bridges::{access, ChatApp, Relay, StateFile, Waits};
use conversations::{Chats, ChatsConfig, Durability, GuardConfig, Home};
use engines::{Chunk, ScriptedEngine};
use protocol::Mode;
use serde_json::json;
use tools::{Tools, ToolsConfig};

const ADA: i64 = 100;

fn main() {
    let n: usize = std::env::var("TELEGRAM_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(bench(n));
}

async fn bench(n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = (dir.path().join("home"), dir.path().join("work"));
    std::fs::create_dir(&work).unwrap();
    let steps = (0..n).map(|i| {
        vec![Chunk::ToolCall {
            id: format!("c{i}"),
            name: "run_command".into(),
            input: json!({ "command": format!("echo «{i}» — ünïcödé") }),
        }]
    });
    let chats = Chats::new(
        Home::open(&home).unwrap(),
        Arc::new(ScriptedEngine::new(steps)),
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work,
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
    let app: Arc<dyn ChatApp> = Telegram::new(
        TOKEN,
        Some(&api.base),
        bridges::telegram::DEFAULT_POLL_SECONDS,
    )
    .unwrap();
    tokio::spawn(Relay::new(app, chats.clone(), &home, "Ada", Waits::default()).run());
    let (code, kept) = access::new_code([3; 8], routines_now());
    state.update("telegram", |s| s.link = Some(kept)).unwrap();
    api.direct(ADA, "Ada", None, &format!("/link {code}"));
    api.until("linked", |a| {
        a.said_in(ADA).iter().any(|m| m.text == access::LINKED)
    })
    .await;
    for i in 0..n {
        let id = 10_000 + i as i64;
        bridges::state::allow(
            &state,
            "telegram",
            access::parse_user(&id.to_string()).unwrap(),
        )
        .unwrap();
    }
    let mut trips = Vec::with_capacity(n);
    for i in 0..n {
        let id = 10_000 + i as i64;
        let asked_before = api
            .said_in(ADA)
            .iter()
            .filter(|m| m.buttons.is_some())
            .count();
        let start = Instant::now();
        api.direct(
            id,
            "Ева",
            None,
            "Привет! Запусти, пожалуйста, echo — merci 🙏",
        );
        api.until("the owner is asked", |a| {
            a.said_in(ADA)
                .iter()
                .filter(|m| m.buttons.is_some())
                .count()
                > asked_before
        })
        .await;
        trips.push(start.elapsed());
    }
    trips.sort();
    let at = |q: f64| trips[((trips.len() - 1) as f64 * q).round() as usize];
    println!(
        "telegram update → owner asked, {n} trips: median {:.2} ms, p99 {:.2} ms, min {:.2} ms, max {:.2} ms",
        ms(at(0.5)),
        ms(at(0.99)),
        ms(trips[0]),
        ms(trips[trips.len() - 1])
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn routines_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}
