//! `conch serve` under load, whole process: many chats at once, each
//! followed on its live stream, against one chat alone.
//!
//! - 50 chats × 20 turns in parallel: each chat posts a message, waits for
//!   its turn's `turn.ended` on the stream, and posts the next.
//! - 1 chat × 1,000 turns, the same way.
//!
//! For each: turns/s, p50 and p99 from posting a message to its
//! `turn.ended` arriving on the stream, and the gateway's resident memory
//! (now and at its peak). The mock engine streams its words 5 ms apart
//! (`CONCH_MOCK_PACE_MS`), as a model streams; the goal is that 50 chats'
//! p99 stays within 2× of one chat's.
//!
//! cargo bench -p conch --bench load
//! (CONCH_LOAD_CHATS, CONCH_LOAD_TURNS, CONCH_LOAD_SINGLE change the sizes;
//! CONCH_LOAD_PACE_MS the engine's pace.)
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use serde_json::{json, Value};

const PACE_MS: &str = "5";
/// Turns at the start of each chat compared on their own.
const FIRST: usize = 20;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn memory_kb(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

struct Gateway {
    child: Child,
    url: String,
    key: String,
    _home: tempfile::TempDir,
    _work: tempfile::TempDir,
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Gateway {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    // Conch's folder is the owner's alone (else serve warns about it).
    std::fs::set_permissions(
        home.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let (_, key) = gateway::auth::keys::create(home.path(), "load bench").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_conch"))
        .arg("--home")
        .arg(home.path())
        .args(["serve", "--listen", "127.0.0.1:0"])
        .current_dir(work.path())
        .env(
            "CONCH_MOCK_PACE_MS",
            std::env::var("CONCH_LOAD_PACE_MS").unwrap_or_else(|_| PACE_MS.to_owned()),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let url = first
        .strip_prefix("Conch is running at ")
        .unwrap()
        .to_owned();
    std::thread::spawn(move || for _ in lines {});
    Gateway {
        child,
        url,
        key,
        _home: home,
        _work: work,
    }
}

/// Reads server-sent events' `data:` lines off a streaming response.
struct Stream {
    response: reqwest::Response,
    buffer: String,
}

impl Stream {
    async fn next_stored(&mut self) -> Value {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if block.lines().any(|l| l.starts_with("event: delta")) {
                    continue;
                }
                if let Some(data) = block.lines().find_map(|l| l.strip_prefix("data: ")) {
                    return serde_json::from_str(data).unwrap();
                }
                continue;
            }
            let chunk = self
                .response
                .chunk()
                .await
                .unwrap()
                .expect("the stream goes on");
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

/// One chat: `turns` messages, each waited for on the stream. Returns each
/// turn's latency in ms.
async fn chat(http: reqwest::Client, url: String, key: String, turns: usize) -> Vec<f64> {
    let made: Value = http
        .post(format!("{url}/api/chats"))
        .bearer_auth(&key)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = made["id"].as_str().unwrap().to_owned();
    let response = http
        .get(format!("{url}/api/chats/{id}/stream"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    let mut stream = Stream {
        response,
        buffer: String::new(),
    };
    let mut latencies = Vec::with_capacity(turns);
    for n in 0..turns {
        let sent = Instant::now();
        let res = http
            .post(format!("{url}/api/chats/{id}/messages"))
            .bearer_auth(&key)
            .json(&json!({ "text": format!("Turn {n}: how's the weather in Zürich — 晴れ?") }))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 202);
        loop {
            // A turn that never ends is a bug to see, not a number.
            let Ok(event) =
                tokio::time::timeout(std::time::Duration::from_secs(30), stream.next_stored())
                    .await
            else {
                let view = http
                    .get(format!("{url}/api/chats/{id}"))
                    .bearer_auth(&key)
                    .send()
                    .await
                    .unwrap()
                    .text()
                    .await
                    .unwrap();
                panic!("chat {id}: turn {n} didn't end within 30 s: {view}");
            };
            if event["type"] == "turn.ended" {
                assert_eq!(event["reason"], "done", "{event}");
                break;
            }
        }
        latencies.push(sent.elapsed().as_secs_f64() * 1000.0);
    }
    latencies
}

struct Run {
    turns_per_s: f64,
    p50: f64,
    p99: f64,
    /// p99 of each chat's first `FIRST` turns, a chat as short as the many.
    first_p99: f64,
    rss_mb: f64,
    peak_mb: f64,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at]
}

fn run(chats: usize, turns: usize) -> Run {
    let gateway = start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(chats * 2)
        .build()
        .unwrap();
    let started = Instant::now();
    let mut first: Vec<f64> = Vec::new();
    let mut all: Vec<f64> = runtime.block_on(async {
        let tasks: Vec<_> = (0..chats)
            .map(|_| {
                tokio::spawn(chat(
                    http.clone(),
                    gateway.url.clone(),
                    gateway.key.clone(),
                    turns,
                ))
            })
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            let one = t.await.unwrap();
            first.extend(one.iter().take(FIRST));
            all.extend(one);
        }
        all
    });
    let took = started.elapsed();
    let pid = gateway.child.id();
    let rss_mb = memory_kb(pid, "VmRSS:") as f64 / 1024.0;
    let peak_mb = memory_kb(pid, "VmHWM:") as f64 / 1024.0;
    all.sort_by(|a, b| a.total_cmp(b));
    first.sort_by(|a, b| a.total_cmp(b));
    Run {
        first_p99: percentile(&first, 0.99),
        turns_per_s: all.len() as f64 / took.as_secs_f64(),
        p50: percentile(&all, 0.5),
        p99: percentile(&all, 0.99),
        rss_mb,
        peak_mb,
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let chats = env_or("CONCH_LOAD_CHATS", 50);
    let turns = env_or("CONCH_LOAD_TURNS", 20);
    let single = env_or("CONCH_LOAD_SINGLE", 1000);
    let print = |name: &str, r: &Run| {
        println!(
            "{name}: {:.1} turns/s, message → turn.ended p50 {:.1} ms, p99 {:.1} ms (first {FIRST} turns of each chat: p99 {:.1} ms); gateway RSS {:.1} MB (peak {:.1} MB)",
            r.turns_per_s, r.p50, r.p99, r.first_p99, r.rss_mb, r.peak_mb
        );
    };
    let many = run(chats, turns);
    print(&format!("{chats} chats × {turns} turns"), &many);
    let one = run(1, single);
    print(&format!("1 chat × {single} turns"), &one);
    println!(
        "p99 of {chats} chats ÷ p99 of one chat: {:.2}× (goal: within 2×); p50: {:.2}×; against one chat's first {FIRST} turns: p99 {:.2}×",
        many.p99 / one.p99,
        many.p50 / one.p50,
        many.p99 / one.first_p99
    );
}
