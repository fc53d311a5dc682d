//! What the check after a sealed command costs (`seal::later`): the
//! run-later places of the work folder looked at before and after, against
//! the whole sealed `run_command` it sits in.
//!
//! Work folders: an empty one, one repository, and one holding 20 repositories
//! (each with its hooks, config and a CI file), with non-ASCII names.
//! Medians of 200 (the check) and 50 (the command).
//!
//! Run: `cargo bench -p tools --bench later`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tools::{Cancel, CommandConfig, RunContext, ToolBox, ToolCall, Tools, ToolsConfig};

fn repo(at: &Path) {
    std::fs::create_dir_all(at.join(".git/hooks")).unwrap();
    std::fs::write(at.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
    std::fs::write(at.join(".git/hooks/pre-commit.sample"), "#!/bin/sh\n").unwrap();
    std::fs::create_dir_all(at.join(".github/workflows")).unwrap();
    std::fs::write(at.join(".github/workflows/ci.yml"), "on: push\n").unwrap();
    std::fs::write(at.join("LISEZ-MOI.md"), "Café ünï 東京\n").unwrap();
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn check(work: &Path) -> Duration {
    median(
        (0..200)
            .map(|_| {
                let t = Instant::now();
                let w = seal::later::Watch::before(work);
                assert!(w.after(work).is_empty());
                t.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let empty = root.join("vide");
    std::fs::create_dir_all(&empty).unwrap();
    let one = root.join("un-dépôt");
    repo(&one);
    let work = root.join("projets-ünï");
    repo(&work);
    for i in 0..20 {
        repo(&work.join(format!("dépôt-{i}")));
    }
    let conch = root.join("conch");
    let protected = guard::Protected::usual(None, &conch.to_string_lossy());
    let sealed = seal::Sealed::new(&conch, protected).unwrap();
    let tools = Tools::new(ToolsConfig {
        command: CommandConfig {
            timeout: Duration::from_secs(30),
            max_output: 64 * 1024,
        },
        seal: Some(Arc::new(sealed)),
        ..ToolsConfig::default()
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let command = |w: &Path| {
        median(
            (0..50)
                .map(|_| {
                    let call = ToolCall {
                        id: "c".into(),
                        name: "run_command".into(),
                        input: json!({ "command": "true" }),
                    };
                    let action = tools.classify(&call, w).unwrap();
                    let ctx = RunContext {
                        work: w.to_path_buf(),
                        cancel: Cancel::default(),
                        protected: Default::default(),
                        masker: None,
                    };
                    let t = Instant::now();
                    let out = rt.block_on(tools.run(&call, &action, &ctx));
                    assert!(out.ok, "{}", out.output);
                    t.elapsed()
                })
                .collect(),
        )
    };
    for (name, w) in [
        ("an empty folder", &empty),
        ("one repository", &one),
        ("a repository holding 20", &work),
    ] {
        let (c, run) = (check(w), command(w));
        println!(
            "{name}: the check {:.1} µs, a sealed `true` {:.2} ms ({:.1}% of it)",
            c.as_secs_f64() * 1e6,
            run.as_secs_f64() * 1e3,
            100.0 * c.as_secs_f64() / run.as_secs_f64()
        );
    }
}
