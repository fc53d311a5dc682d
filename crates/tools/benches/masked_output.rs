//! What taking the secrets out costs a command with a 10 MB output: `cat`
//! of a 10 MB file of multilingual log lines with secrets planted in it,
//! run by `run_command` (outside the box, so the box's own start-up
//! doesn't hide the difference), with no secrets held and with 12 held
//! secrets and 3 access keys. The output is cut to its first and last
//! parts; what is masked is what is kept, with a margin each side.
//! Medians of 21, interleaved.
//!
//! Run: `cargo bench -p tools --bench masked_output`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tools::{Cancel, RunContext, ToolBox, ToolCall, Tools, ToolsConfig};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let work = dir.path().canonicalize().unwrap();
    let held: Vec<mask::Secret> = (0..12)
        .map(|i| {
            mask::Secret::new(
                &format!("KEY_{i}"),
                &format!("sk-proj-{i:02}Zq8vN3xR7tLmW2pK9sYd4HbF6jQe{i}"),
            )
        })
        .collect();
    let mut text = String::new();
    let mut i = 0usize;
    while text.len() < 10 << 20 {
        text.push_str("2026-12-05 INFO café 東京 — données reçues, Привет мир, straße 42 ms\n");
        if i.is_multiple_of(2000) {
            text.push_str(&format!("token={}\n", held[i % 12].value));
        }
        i += 1;
    }
    text.push_str(&format!("last={}\n", held[0].value));
    std::fs::write(work.join("sortie.log"), &text).unwrap();
    let masker = Arc::new(mask::Masker::new(
        &held,
        (0..3)
            .map(|i| mask::Hashed::new(&format!("k{i}"), "conch_", 40, &"ab".repeat(32)))
            .collect(),
    ));
    let tools = Tools::new(ToolsConfig::default());
    let call = ToolCall {
        id: "c".into(),
        name: "run_command".into(),
        input: json!({ "command": "cat sortie.log" }),
    };
    let action = tools.classify(&call, &work).unwrap();
    let mut without = Vec::new();
    let mut with = Vec::new();
    for round in 0..43 {
        let masked = round % 2 == 1;
        let ctx = RunContext {
            work: work.clone(),
            cancel: Cancel::default(),
            protected: Default::default(),
            masker: masked.then(|| masker.clone()),
        };
        let t = Instant::now();
        let out = tools.run(&call, &action, &ctx).await;
        let took = t.elapsed();
        assert_eq!(
            out.output.contains("[secret: KEY_0]"),
            masked,
            "{}",
            out.output.len()
        );
        if round > 0 {
            if masked {
                with.push(took)
            } else {
                without.push(took)
            }
        }
    }
    let (a, b) = (median(without), median(with));
    println!(
        "10 MB output, no secrets held: {:.2} ms",
        a.as_secs_f64() * 1e3
    );
    println!(
        "10 MB output, 15 secrets held: {:.2} ms",
        b.as_secs_f64() * 1e3
    );
    println!(
        "cost: {:+.1}%",
        (b.as_secs_f64() / a.as_secs_f64() - 1.0) * 100.0
    );
}
