//! web_fetch against a real HTTP server on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::time::Duration;

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect};
use axum::routing::get;
use axum::Router;
use protocol::Action;
use serde_json::json;
use tools::{Cancel, FetchConfig, RunContext, ToolBox, ToolCall, Tools, ToolsConfig};

async fn server() -> String {
    let app = Router::new()
        .route(
            "/page",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                    "<html><head><title>A page</title><script>evil()</script></head><body><p>Hello <b>world</b>.</p><a href=\"/next\">next</a></body></html>",
                )
            }),
        )
        .route("/hop1", get(|| async { Redirect::temporary("/hop2") }))
        .route("/hop2", get(|| async { Redirect::permanent("/page") }))
        .route("/loop", get(|| async { Redirect::temporary("/loop") }))
        .route("/to-file", get(|| async { Redirect::temporary("file:///etc/passwd") }))
        .route("/missing", get(|| async { (StatusCode::NOT_FOUND, "nothing here") }))
        .route("/big", get(|| async { "y".repeat(3_000_000) }))
        .route(
            "/binary",
            get(|| async { ([(header::CONTENT_TYPE, "image/png")], vec![0u8, 1, 2, 3]) }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(30)).await;
                "late".into_response()
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

fn tools() -> Tools {
    Tools::new(ToolsConfig {
        fetch: FetchConfig {
            max_bytes: 1_000_000,
            timeout: Duration::from_secs(5),
            ..FetchConfig::default()
        },
        ..ToolsConfig::default()
    })
}

async fn fetch(t: &Tools, url: &str, cancel: Cancel) -> tools::Outcome {
    let call = ToolCall {
        id: "f".into(),
        name: "web_fetch".into(),
        input: json!({ "url": url }),
    };
    let action = t.classify(&call, std::path::Path::new("/")).unwrap();
    assert!(matches!(action, Action::PageRead { .. }));
    let ctx = RunContext {
        work: "/".into(),
        cancel,
        protected: Default::default(),
        masker: None,
    };
    t.run(&call, &action, &ctx).await
}

#[tokio::test]
async fn a_page_becomes_text_and_redirects_are_recorded() {
    let base = server().await;
    let t = tools();
    let out = fetch(&t, &format!("{base}/hop1"), Cancel::default()).await;
    assert!(out.ok, "{}", out.output);
    assert!(out.output.contains("Title: A page"));
    assert!(out.output.contains("Hello world."));
    assert!(out.output.contains(&format!("[next]({base}/next)")));
    assert!(!out.output.contains("evil"));
    let detail = out.detail.unwrap();
    assert_eq!(detail["final_url"], format!("{base}/page"));
    let hops: Vec<(String, u64)> = detail["hops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["url"].as_str().unwrap().to_owned(),
                h["status"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        hops,
        [(format!("{base}/hop1"), 307), (format!("{base}/hop2"), 308)]
    );
}

#[tokio::test]
async fn limits_and_failures_say_what_happened() {
    let base = server().await;
    let t = tools();
    let looped = fetch(&t, &format!("{base}/loop"), Cancel::default()).await;
    assert!(
        looped.output.contains("redirects more than 10 times"),
        "{}",
        looped.output
    );
    let to_file = fetch(&t, &format!("{base}/to-file"), Cancel::default()).await;
    assert!(
        to_file.output.contains("doesn't follow"),
        "{}",
        to_file.output
    );
    let missing = fetch(&t, &format!("{base}/missing"), Cancel::default()).await;
    assert!(!missing.ok && missing.output.contains("answered 404"));
    let big = fetch(&t, &format!("{base}/big"), Cancel::default()).await;
    assert_eq!(big.detail.as_ref().unwrap()["bytes"], 1_000_000);
    assert_eq!(big.detail.as_ref().unwrap()["truncated"], true);
    let binary = fetch(&t, &format!("{base}/binary"), Cancel::default()).await;
    assert!(
        binary.output.contains("image/png file of 4 bytes"),
        "{}",
        binary.output
    );
    let refused = fetch(&t, "http://127.0.0.1:9/", Cancel::default()).await;
    assert!(
        refused.output.contains("can't be reached"),
        "{}",
        refused.output
    );
}

#[tokio::test]
async fn stop_and_timeout_end_a_slow_page() {
    let base = server().await;
    let t = tools();
    let cancel = Cancel::default();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        stopper.cancel();
    });
    let started = std::time::Instant::now();
    let out = fetch(&t, &format!("{base}/slow"), cancel).await;
    assert!(out.output.contains("Stopped"), "{}", out.output);
    assert!(started.elapsed() < Duration::from_secs(3));
    let out = fetch(&t, &format!("{base}/slow"), Cancel::default()).await;
    assert!(
        out.output.contains("didn't answer in time"),
        "{}",
        out.output
    );
}
