//! What the gateway adds to one tool call, without the tool's own work:
//! classify + decide + the two log appends (tool.called, tool.finished) +
//! delivery to a live follower (what the SSE stream reads). A scripted engine
//! asks for 500 calls of a tool that does nothing; the time between one
//! call's tool.finished reaching the follower and the next one's is the
//! per-call cost. Prints median and p99.
//!
//! cargo bench -p conversations --bench tool_call

use std::sync::Arc;
use std::time::{Duration, Instant};

use conversations::{Chats, ChatsConfig, Durability, Home, Live, NewChat};
use engines::{Chunk, ScriptedEngine};
use protocol::{Body, Mode};

const CALLS: usize = 500;

#[path = "common/noop.rs"]
mod noop;

use noop::{percentile, Noop};

async fn measure(durability: Durability) -> Vec<f64> {
    let dir = tempfile::tempdir().unwrap();
    let step: Vec<Chunk> = (0..CALLS)
        .map(|n| Chunk::ToolCall {
            id: format!("c{n}"),
            name: "noop".into(),
            input: serde_json::json!({}),
        })
        .collect();
    let engine = Arc::new(ScriptedEngine::new([step, vec![]]));
    let chats = Chats::new(
        Home::open(&dir.path().join("home")).unwrap(),
        engine,
        Arc::new(Noop { review: false }),
        ChatsConfig {
            durability,
            default_work: dir.path().to_path_buf(),
            default_mode: Mode::Full,
            policies: Default::default(),
            guard: Default::default(),
            skills: None,
        },
    );
    let chat = chats.create(NewChat::default()).await.unwrap();
    let mut follow = chat.log.follow();
    chat.post("go").await.unwrap();
    let mut stamps = Vec::with_capacity(CALLS);
    loop {
        match follow.recv().await {
            Ok(Live::Event(c)) => match &c.event.body {
                Body::ToolFinished(_) => stamps.push(Instant::now()),
                Body::TurnEnded(_) => break,
                _ => {}
            },
            Ok(_) => {}
            Err(e) => panic!("the follower fell behind: {e}"),
        }
    }
    let mut gaps: Vec<f64> = stamps
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64() * 1e6)
        .collect();
    gaps.sort_by(|a, b| a.total_cmp(b));
    gaps
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
    for (name, durability) in [
        ("group commit", Durability::Group),
        ("fsync each", Durability::EachEvent),
    ] {
        // A warm-up run, then the measured one.
        rt.block_on(measure(durability));
        let gaps = rt.block_on(measure(durability));
        println!(
            "tool call overhead ({name}): median {:.0} µs, p99 {:.0} µs over {} calls",
            percentile(&gaps, 0.5),
            percentile(&gaps, 0.99),
            gaps.len()
        );
    }
    std::thread::sleep(Duration::from_millis(10));
}
