//! What Auto mode's review adds to one tool call beyond the model's own
//! latency: reading the log for the reviewer's input, building it, the
//! deadline's task, parsing the verdict, checking nothing changed, binding,
//! deciding again, and the `review.judged` append. The scripted model
//! answers at once, so its latency is zero; the same calls that need no
//! review are the baseline. 300 calls in one chat (it grows as it goes, so
//! later reviews read a longer log).
//!
//! cargo bench -p conversations --bench review

use std::sync::Arc;
use std::time::{Duration, Instant};

use conversations::{Chats, ChatsConfig, Durability, Home, Live, NewChat};
use engines::{Chunk, ScriptedEngine, ScriptedReview};
use protocol::{Body, Mode};

const CALLS: usize = 300;

#[path = "common/noop.rs"]
mod noop;

use noop::{percentile, Noop};

async fn measure(review: bool) -> Vec<f64> {
    let dir = tempfile::tempdir().unwrap();
    let step: Vec<Chunk> = (0..CALLS)
        .map(|n| Chunk::ToolCall {
            id: format!("c{n}"),
            name: "noop".into(),
            input: serde_json::json!({}),
        })
        .collect();
    let engine = Arc::new(ScriptedEngine::new([step, vec![]]));
    for _ in 0..CALLS {
        engine.push_review(ScriptedReview::Reply {
            text: r#"{"verdict":"allow","risk":"low","evidence":["m1"],"reason":"Asked for."}"#
                .into(),
            delay: Duration::ZERO,
        });
    }
    let chats = Chats::new(
        Home::open(&dir.path().join("home")).unwrap(),
        engine,
        Arc::new(Noop { review }),
        ChatsConfig {
            durability: Durability::Group,
            default_work: dir.path().to_path_buf(),
            default_mode: Mode::Auto,
            policies: Default::default(),
            guard: Default::default(),
            skills: None,
        },
    );
    let chat = chats.create(NewChat::default()).await.unwrap();
    let mut follow = chat.log.follow();
    chat.post("Keep my notes up to date").await.unwrap();
    let mut stamps = Vec::with_capacity(CALLS);
    let mut allowed = 0;
    loop {
        match follow.recv().await {
            Ok(Live::Event(c)) => match &c.event.body {
                Body::ToolFinished(_) => stamps.push(Instant::now()),
                Body::ReviewJudged(j) if j.outcome == protocol::ReviewOutcome::Allowed => {
                    allowed += 1
                }
                Body::PermissionRequested(_) => panic!("the bench's calls shouldn't ask"),
                Body::TurnEnded(_) => break,
                _ => {}
            },
            Ok(_) => {}
            Err(e) => panic!("the follower fell behind: {e}"),
        }
    }
    assert_eq!(allowed, if review { CALLS } else { 0 });
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
    rt.block_on(measure(true));
    let mut medians = Vec::new();
    for (name, review) in [("no review", false), ("reviewed", true)] {
        let gaps = rt.block_on(measure(review));
        println!(
            "tool call in Auto mode ({name}): median {:.0} µs, p99 {:.0} µs over {} calls",
            percentile(&gaps, 0.5),
            percentile(&gaps, 0.99),
            gaps.len()
        );
        medians.push(percentile(&gaps, 0.5));
    }
    println!(
        "review overhead beyond the model: {:.0} µs median (target < 2,000 µs)",
        medians[1] - medians[0]
    );
    std::thread::sleep(Duration::from_millis(10));
}
