//! What the gateway adds to one tool call, without the tool's own work:
//! classify + decide + the two log appends (tool.called, tool.finished) +
//! delivery to a live follower (what the SSE stream reads). A scripted engine
//! asks for 500 calls of a tool that does nothing; the time between one
//! call's tool.finished reaching the follower and the next one's is the
//! per-call cost. Prints median and p99.
//!
//! cargo bench -p conversations --bench tool_call
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::time::Duration;

use conversations::Durability;
use protocol::Mode;

const CALLS: usize = 500;

#[path = "common/calls.rs"]
mod calls;

use calls::{percentile, Noop};

async fn measure(durability: Durability) -> Vec<f64> {
    calls::measure(
        calls::engine(CALLS),
        Noop { review: false },
        Mode::Full,
        durability,
        |_| {},
    )
    .await
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
