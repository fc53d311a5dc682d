//! What Conch adds to an app's tool call, and how long connecting takes.
//!
//! - `call/raw`: `echo` on server-everything through rmcp alone (one
//!   connection, the server's own time and the pipe's).
//! - `call/conch`: the same call as the bridged path makes it, through
//!   the apps' toolbox (classifying it by its engine name, the policies
//!   the guard reads, running it: its standing checked again, the result
//!   made into words); the guard's decision and the log are not in it. The difference is Conch's overhead; each call's time is
//!   kept, and the medians and 99th percentiles are printed at the end.
//! - `startup/returns`: `Apps::start` with 10 servers, until it returns
//!   (the gateway's start-up waits only for this).
//! - `startup/10-connected`: until all 10 have connected and listed.
//!
//! Needs ./run-tests' npm install in crates/apps/tests/npm. Run with
//! `nice -n 19 cargo bench -p apps --bench apps`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use apps::catalog;
use apps::conn::Conn;
use apps::file::{self, Reach};
use apps::{Apps, AppsConfig, Launch, Secrets, WithApps};
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use tools::{RunContext, ToolBox, ToolCall};

fn everything() -> Reach {
    let js = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    Reach::Stdio {
        command: "node".into(),
        args: vec![js.to_string_lossy().into_owned(), "stdio".into()],
        env: vec![],
    }
}

fn home_with(n: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    file::update(&home, |f| {
        for i in 0..n {
            catalog::add(
                f,
                &format!("e{i}"),
                everything(),
                "2026-10-05T00:00:00.000Z",
            )
            .unwrap();
        }
    })
    .unwrap();
    (dir, home)
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let i = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[i]
}

fn calls(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (_dir, home) = home_with(1);
    let apps = rt.block_on(async {
        let apps = Apps::start(AppsConfig::new(&home, &home));
        assert!(apps.settled(Duration::from_secs(120)).await);
        apps
    });
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let raw = rt
        .block_on(Conn::open(
            &everything(),
            &Secrets::default(),
            &Launch::plain(),
            &home,
            tx,
        ))
        .unwrap();
    let input = json!({"message": "Grüße, Zoë 🐚"});
    let boxed = WithApps {
        inner: Arc::new(tools::NoTools),
        apps: apps.clone(),
    };
    let call = ToolCall {
        id: "c1".into(),
        name: "mcp__e0__echo".into(),
        input: input.clone(),
    };
    let ctx = RunContext {
        work: home.clone(),
        cancel: tools::Cancel::default(),
        protected: Arc::new(guard::Protected::default()),
        masker: None,
    };
    let kept: Arc<Mutex<(Vec<Duration>, Vec<Duration>)>> = Arc::default();
    let mut g = c.benchmark_group("call");
    g.sample_size(50);
    {
        let kept = kept.clone();
        g.bench_function("raw", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let args = input.as_object().unwrap().clone();
                    let t = Instant::now();
                    let out = rt.block_on(raw.call("echo", args, Duration::from_secs(30)));
                    let d = t.elapsed();
                    assert!(out.is_ok());
                    total += d;
                    kept.lock().unwrap().0.push(d);
                }
                total
            })
        });
    }
    {
        let kept = kept.clone();
        g.bench_function("conch", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    // What the bridged path asks of the apps for one
                    // call: classify, the policies the guard reads, run.
                    let t = Instant::now();
                    let action = boxed.classify(&call, &home).unwrap();
                    let policies = boxed.app_policies();
                    assert_eq!(policies.get("e0.echo"), Some(&guard::Policy::Mode));
                    let out = rt.block_on(boxed.run(&call, &action, &ctx));
                    let d = t.elapsed();
                    assert!(out.ok, "{}", out.output);
                    total += d;
                    kept.lock().unwrap().1.push(d);
                }
                total
            })
        });
    }
    g.finish();
    let (mut raw_s, mut conch_s) = std::mem::take(&mut *kept.lock().unwrap());
    let (rm, r99) = (percentile(&mut raw_s, 0.5), percentile(&mut raw_s, 0.99));
    let (cm, c99) = (
        percentile(&mut conch_s, 0.5),
        percentile(&mut conch_s, 0.99),
    );
    println!(
        "echo on server-everything, {} raw and {} Conch calls: raw median {rm:?} p99 {r99:?}; through Conch median {cm:?} p99 {c99:?}; Conch adds median {:?} p99 {:?}",
        raw_s.len(),
        conch_s.len(),
        cm.saturating_sub(rm),
        c99.saturating_sub(r99),
    );
    rt.block_on(apps.shutdown());
}

fn startup(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut g = c.benchmark_group("startup");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(60));
    g.bench_function("returns", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (_dir, home) = home_with(10);
                let d = rt.block_on(async {
                    let t = Instant::now();
                    let apps = Apps::start(AppsConfig::new(&home, &home));
                    let d = t.elapsed();
                    apps.shutdown().await;
                    d
                });
                total += d;
            }
            total
        })
    });
    g.bench_function("10-connected", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (_dir, home) = home_with(10);
                let d = rt.block_on(async {
                    let t = Instant::now();
                    let apps = Apps::start(AppsConfig::new(&home, &home));
                    assert!(apps.settled(Duration::from_secs(300)).await);
                    let d = t.elapsed();
                    assert!(apps
                        .statuses()
                        .values()
                        .all(|s| matches!(s, apps::Status::Connected { .. })));
                    apps.shutdown().await;
                    d
                });
                total += d;
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, calls, startup);
criterion_main!(benches);
