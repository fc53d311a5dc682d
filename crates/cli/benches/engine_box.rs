//! What the box costs around Claude Code (the real binary, installed for
//! the tests, against the scripted Messages API), each through a real chat
//! in Full trust, boxed (Seal commands and Run engines in the box on) and
//! not (both off), RUNS of each, interleaved:
//!
//! 1. a one-reply turn: the time from posting to the turn's end, which is
//!    the time to its first token plus its end;
//! 2. a turn of five commands (each sealed beside the engine when boxed);
//! 3. memory: the largest resident size of any process of the turns (the
//!    engine), from the kernel's account of reaped children.
//!
//! Medians and the ratio boxed / not.
//!
//! cargo bench -p conch --bench engine_box
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "../tests/claude_code/model.rs"]
mod model;
#[path = "../tests/claude_code/rig.rs"]
mod rig;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use model::tool;
use protocol::{Body, Mode};
use serde_json::json;

const RUNS: usize = 9;

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

async fn turn(r: &rig::Rig, prompt: &str) -> f64 {
    let chat = r.chats.create(Default::default()).await.unwrap();
    let start = Instant::now();
    chat.post(prompt).await.unwrap();
    let end = rig::until_within(&chat, 0, rig::ended, Duration::from_secs(600)).await;
    let took = start.elapsed().as_secs_f64() * 1000.0;
    if let Body::TurnEnded(t) = &end.body {
        assert!(t.error.is_none(), "{t:?}");
    }
    took
}

/// The largest resident size, in MiB, of any child reaped so far.
fn max_rss_mib() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss as f64 / 1024.0
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let boxed = rig::rig(Mode::Full, BTreeMap::new(), true).await;
        let open = rig::rig(Mode::Full, BTreeMap::new(), false).await;
        let five: Vec<_> = (0..5)
            .map(|i| {
                tool(
                    "Bash",
                    json!({"command": format!("echo {i} é > n{i}.txt; cat n{i}.txt"), "description": "count"}),
                )
            })
            .collect();
        for r in [&boxed, &open] {
            r.model.script("five-commands", five.clone());
        }
        let mut rows: BTreeMap<&str, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
        // One of each first, unmeasured: the binary's first start.
        turn(&boxed, "Bonjour !").await;
        turn(&open, "Bonjour !").await;
        for _ in 0..RUNS {
            for (name, prompt) in [("one-reply turn", "Bonjour, ça va ?"), ("five-command turn", "five-commands")] {
                let b = turn(&boxed, prompt).await;
                let o = turn(&open, prompt).await;
                let row = rows.entry(name).or_default();
                row.0.push(b);
                row.1.push(o);
            }
        }
        println!("engine_box: Claude Code through a chat, {RUNS} runs each, interleaved");
        for (name, (b, o)) in &rows {
            let (mb, mo) = (median(b), median(o));
            println!(
                "  {name}: boxed median {mb:.0} ms, not boxed {mo:.0} ms, ratio {:.2}",
                mb / mo
            );
        }
        println!(
            "  largest process of any turn: {:.0} MiB resident",
            max_rss_mib()
        );
    });
}
