//! What Auto mode's review adds to one tool call beyond the model's own
//! latency: reading the log for the reviewer's input, building it, the
//! deadline's task, parsing the verdict, checking nothing changed, binding,
//! deciding again, and the `review.judged` append. The scripted model
//! answers at once, so its latency is zero; the same calls that need no
//! review are the baseline. 300 calls in one chat (it grows as it goes, so
//! later reviews read a longer log).
//!
//! cargo bench -p conversations --bench review
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::time::Duration;

use conversations::Durability;
use engines::ScriptedReview;
use protocol::{Body, Mode, ReviewOutcome};

const CALLS: usize = 300;

#[path = "common/calls.rs"]
mod calls;

use calls::{percentile, Noop};

async fn measure(review: bool) -> Vec<f64> {
    let engine = calls::engine(CALLS);
    for _ in 0..CALLS {
        engine.push_review(ScriptedReview::Reply {
            text: r#"{"verdict":"allow","risk":"low","evidence":["m1"],"reason":"Asked for."}"#
                .into(),
            delay: Duration::ZERO,
        });
    }
    let mut allowed = 0;
    let gaps = calls::measure(
        engine,
        Noop { review },
        Mode::Auto,
        Durability::Group,
        |body| match body {
            Body::ReviewJudged(j) if j.outcome == ReviewOutcome::Allowed => allowed += 1,
            Body::PermissionRequested(_) => panic!("the bench's calls shouldn't ask"),
            _ => {}
        },
    )
    .await;
    assert_eq!(allowed, if review { CALLS } else { 0 });
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
