//! Stop everything (issue 37: < 1 s): five chats each running a real
//! command (`sleep`, sealed as usual), then `Chats::stop_all`; the time
//! until the last of those processes is gone from /proc. 10 rounds; prints
//! the median and the slowest.
//!
//! cargo bench -p conversations --bench stop_all
#![allow(clippy::unwrap_used, clippy::expect_used)] // Benches may panic: that is the bench failing.

use std::sync::Arc;
use std::time::{Duration, Instant};

use conversations::{Chats, ChatsConfig, Durability, GuardConfig, Home, NewChat};
use engines::{Chunk, ScriptedEngine};
use protocol::Mode;
use serde_json::json;
use tools::{Tools, ToolsConfig};

const CHATS: usize = 5;
const ROUNDS: usize = 10;

/// Processes whose command line holds `marker`.
fn running(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|c| {
            let line = String::from_utf8_lossy(c).replace('\0', " ");
            line.starts_with("sleep ") && line.contains(marker)
        })
        .count()
}

async fn round(n: usize) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    // A marker of its own, so only this round's processes are counted.
    let marker = format!("31.{}{n}", std::process::id());
    let steps: Vec<Vec<Chunk>> = (0..CHATS)
        .map(|i| {
            vec![Chunk::ToolCall {
                id: format!("c{i}"),
                name: "run_command".into(),
                input: json!({ "command": format!("sleep {marker}") }),
            }]
        })
        .collect();
    let chats = Chats::new(
        Home::open(&dir.path().join("home")).unwrap(),
        Arc::new(ScriptedEngine::new(steps)),
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
    for _ in 0..CHATS {
        let chat = chats.create(NewChat::default()).await.unwrap();
        chat.post("work").await.unwrap();
    }
    let ready = Instant::now();
    while running(&marker) < CHATS {
        assert!(
            ready.elapsed() < Duration::from_secs(20),
            "the commands didn't start"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let started = Instant::now();
    chats.stop_all("bench").unwrap();
    while running(&marker) > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "a command outlived the stop"
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    started.elapsed()
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut times: Vec<f64> = (0..ROUNDS)
        .map(|n| rt.block_on(round(n)).as_secs_f64() * 1000.0)
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    println!(
        "stop all, {CHATS} chats each running a command, to the last process gone: median {:.1} ms, slowest {:.1} ms over {ROUNDS} rounds (goal < 1000 ms)",
        times[ROUNDS / 2],
        times[ROUNDS - 1]
    );
}
