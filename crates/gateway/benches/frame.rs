//! The frame route on loopback: a 100 KB page served sealed off, by 8
//! clients with keep-alive for 5 seconds. Requests per second and p50/p99
//! latency.
//!
//! cargo bench -p gateway --bench frame
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::sync::Arc;
use std::time::{Duration, Instant};

use conversations::{Chats, ChatsConfig, Durability, Home, NoTools};
use gateway::{AllowedHosts, AppState};

const CLIENTS: usize = 8;
const SECONDS: u64 = 5;

fn page() -> String {
    let mut out = String::from("<!doctype html><html><body><h1>Report</h1><table>");
    let mut i = 0;
    while out.len() < 100 * 1024 - 64 {
        out.push_str(&format!(
            "<tr><td>Row {i}</td><td>{}</td></tr>\n",
            i * 7 % 100
        ));
        i += 1;
    }
    out.push_str("</table></body></html>");
    out
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("a runtime: {e}"));
    rt.block_on(run());
}

async fn run() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().join("conch");
    let home = Home::open(&root).unwrap_or_else(|e| panic!("{e}"));
    let chats = Chats::new(
        home,
        Arc::new(engines::MockEngine::default()),
        Arc::new(NoTools),
        ChatsConfig {
            durability: Durability::Group,
            default_work: dir.path().to_path_buf(),
            default_mode: protocol::Mode::Ask,
            policies: Default::default(),
            guard: Default::default(),
            skills: None,
            max_steps: None,
        },
    );
    let page = page();
    chats
        .artifacts()
        .create(
            "benchpage123",
            artifacts::Kind::Html,
            "Report",
            &page,
            None,
            None,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let state = AppState::new(chats, AllowedHosts::new(Vec::<String>::new()));
    gateway::auth::password::set(&root, "bench password 1").unwrap_or_else(|e| panic!("{e}"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    tokio::spawn(gateway::serve(listener, state, std::future::pending()));
    let url = format!("http://{addr}");
    let res = reqwest::Client::new()
        .post(format!("{url}/api/session"))
        .json(&serde_json::json!({ "password": "bench password 1" }))
        .send()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let cookie = res.headers()["set-cookie"]
        .to_str()
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .to_owned();
    let frame = format!("{url}/api/artifacts/benchpage123/versions/1/frame");
    let deadline = Instant::now() + Duration::from_secs(SECONDS);
    let mut tasks = Vec::new();
    for _ in 0..CLIENTS {
        let frame = frame.clone();
        let cookie = cookie.clone();
        tasks.push(tokio::spawn(async move {
            let client = reqwest::Client::new();
            let mut times = Vec::new();
            while Instant::now() < deadline {
                let t = Instant::now();
                let res = client
                    .get(&frame)
                    .header("cookie", &cookie)
                    .header("sec-fetch-site", "same-origin")
                    .send()
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(res.status(), 200);
                let body = res.bytes().await.unwrap_or_default();
                assert!(body.len() > 100_000);
                times.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            times
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap_or_default());
    }
    all.sort_by(|a, b| a.total_cmp(b));
    let n = all.len();
    println!(
        "frame route, {} KB page, {CLIENTS} clients, {SECONDS} s: {:.0} requests/s, p50 {:.2} ms, p99 {:.2} ms",
        page.len() / 1024,
        n as f64 / SECONDS as f64,
        all[n / 2],
        all[n * 99 / 100]
    );
}
