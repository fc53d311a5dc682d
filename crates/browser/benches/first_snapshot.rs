//! Time to the first snapshot of a page on loopback, with Debian's real
//! Chromium: cold (the browser starts for it, as on a chat's first use)
//! and warm (the browser is running; a new chat's tab), and then the
//! browser's resident memory once the page is read and it sits idle.
//!
//! The page is served on 127.0.0.1, drawn by its script from a JSON request
//! (about 300 list items, accented and CJK text), like the pages the browser
//! is for. Every name is resolved to 127.0.0.1 and no proxy is used.
//!
//! nice -n 19 cargo bench -p browser --bench first_snapshot
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::response::Html;
use axum::routing::get;
use axum::Router;
use browser::{Browser, Config};
use criterion::{criterion_group, criterion_main, Criterion};

const PAGE: &str = r#"<!doctype html><title>Inbox</title><main id="m"><h1>Inbox</h1></main>
<script>
fetch("/items").then(r => r.json()).then(items => {
  const ul = document.createElement("ul");
  for (const i of items) { const li = document.createElement("li"); const a = document.createElement("a"); a.href = "/m/" + i.id; a.textContent = i.subject; li.append(a); ul.append(li); }
  document.getElementById("m").append(ul);
});
</script>"#;

fn items() -> Vec<serde_json::Value> {
    (0..300)
        .map(|i| {
            serde_json::json!({
                "id": i,
                "subject": format!("Réunion n°{i}: Zoë's notes — 東京の会議 {i}"),
            })
        })
        .collect()
}

fn config(home: &std::path::Path) -> Config {
    let mut config = Config::in_home(home);
    config.extra_args = vec![
        "--host-resolver-rules=MAP * 127.0.0.1".to_owned(),
        "--no-proxy-server".to_owned(),
    ];
    config
}

/// Memory of a process group, in KiB: the proportional set size (shared
/// pages divided among the processes that share them, so the sum isn't
/// counted twice) of every process whose group is `pgid` (Chromium's
/// browser, GPU, network and renderer processes); and their plain RSS sum.
fn group_memory_kib(pgid: u32) -> (u64, u64) {
    let mut total = (0, 0);
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …: the comm can hold spaces.
        let Some(after) = stat.rsplit_once(") ").map(|(_, a)| a) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields.get(2).and_then(|p| p.parse::<u32>().ok()) != Some(pgid) {
            continue;
        }
        let rollup = std::fs::read_to_string(entry.path().join("smaps_rollup")).unwrap_or_default();
        let field = |name: &str| {
            rollup
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
                .unwrap_or(0)
        };
        total.0 += field("Pss:");
        total.1 += field("Rss:");
    }
    total
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let port = rt.block_on(async {
        let app = Router::new()
            .route("/", get(|| async { Html(PAGE) }))
            .route("/items", get(|| async { axum::Json(items()) }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, app).await });
        port
    });
    let url = format!("http://mail.example:{port}/");
    let home = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("first_snapshot");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("cold (browser starts)", |b| {
        b.iter(|| {
            rt.block_on(async {
                let browser = Browser::new(config(home.path()));
                let shown = browser.open("chat", "c1", &url).await.unwrap();
                assert!(shown.snapshot.text.contains("n°299"));
                browser.stop().await;
            })
        })
    });
    let browser = Browser::new(config(home.path()));
    let n = AtomicU64::new(0);
    group.bench_function("warm (a new chat's tab)", |b| {
        b.iter(|| {
            rt.block_on(async {
                let chat = format!("chat{}", n.fetch_add(1, Ordering::SeqCst));
                let shown = browser.open(&chat, "c1", &url).await.unwrap();
                assert!(shown.snapshot.text.contains("n°299"));
                browser.close(&chat).await;
            })
        })
    });
    group.finish();
    // Memory: one chat's page read, then idle for a few seconds.
    rt.block_on(async {
        browser.open("idle", "c1", &url).await.unwrap();
        tokio::time::sleep(Duration::from_secs(5)).await;
        let pid = browser.pid().unwrap();
        let own = std::fs::read_to_string("/proc/self/status")
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0);
        let (pss, rss) = group_memory_kib(pid);
        println!(
            "idle memory, Chromium's process group with one tab open: PSS {:.1} MiB (RSS summed {:.1} MiB); this bench process RSS {:.1} MiB",
            pss as f64 / 1024.0,
            rss as f64 / 1024.0,
            own as f64 / 1024.0
        );
        browser.stop().await;
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
