//! Artifacts over HTTP: the frame route's headers byte for byte, per kind
//! and with and without scripts=1; the checks every /api route passes;
//! the other routes.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use std::io::{Read, Write};

use artifacts::frame::{BASE, BRIDGE};
use artifacts::Kind;
use common::Server;
use reqwest::StatusCode;
use serde_json::Value;

const CSP_SCRIPTS: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; form-action 'none'; base-uri 'none'; frame-src 'none'; worker-src 'none'; frame-ancestors 'self'; sandbox allow-scripts";
const CSP_NONE: &str = "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; form-action 'none'; base-uri 'none'; frame-src 'none'; worker-src 'none'; frame-ancestors 'self'; sandbox";
const POLICY: &str = "accelerometer=(), ambient-light-sensor=(), attribution-reporting=(), autoplay=(), bluetooth=(), browsing-topics=(), camera=(), clipboard-read=(), clipboard-write=(), compute-pressure=(), display-capture=(), encrypted-media=(), fullscreen=(), gamepad=(), geolocation=(), gyroscope=(), hid=(), identity-credentials-get=(), idle-detection=(), interest-cohort=(), keyboard-map=(), local-fonts=(), magnetometer=(), microphone=(), midi=(), otp-credentials=(), payment=(), picture-in-picture=(), publickey-credentials-create=(), publickey-credentials-get=(), screen-wake-lock=(), serial=(), speaker-selection=(), storage-access=(), usb=(), web-share=(), window-management=(), xr-spatial-tracking=()";

fn make(s: &Server, id: &str, kind: Kind, title: &str, text: &str) {
    s.state
        .chats
        .artifacts()
        .create(id, kind, title, text, None, None)
        .unwrap();
}

fn session_cookie(s: &Server) -> String {
    s.cookie.clone()
}

/// The response head as it came over the wire, without `date` (it moves).
fn raw_head(s: &Server, path: &str, extra: &str) -> String {
    let mut stream = std::net::TcpStream::connect(s.addr).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {}\r\nSec-Fetch-Site: same-origin\r\n{extra}Connection: close\r\n\r\n",
        session_cookie(s)
    )
    .unwrap();
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let head = text.split("\r\n\r\n").next().unwrap().to_owned();
    head.split("\r\n")
        .filter(|l| !l.starts_with("date: "))
        .collect::<Vec<_>>()
        .join("\r\n")
}

fn expected(content_type: &str, csp: &str, length: usize) -> String {
    format!(
        "HTTP/1.1 200 OK\r\n\
         content-type: {content_type}\r\n\
         content-security-policy: {csp}\r\n\
         connection-allowlist: ()\r\n\
         x-frame-options: SAMEORIGIN\r\n\
         x-content-type-options: nosniff\r\n\
         content-disposition: inline\r\n\
         referrer-policy: no-referrer\r\n\
         cross-origin-resource-policy: same-origin\r\n\
         cross-origin-opener-policy: same-origin\r\n\
         permissions-policy: {POLICY}\r\n\
         cache-control: no-store\r\n\
         content-length: {length}\r\n\
         connection: close"
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn frame_headers_byte_for_byte() {
    let s = common::start().await;
    let page = "<!doctype html><p>Tip: <output id=o></output></p><script>o.textContent=1</script>";
    let leaving = "<p><a href=\"https://evil.example/?d=1\">more</a></p><link rel=dns-prefetch href=//x.evil.example>";
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"><circle r=\"4\"/></svg>";
    let chart = r#"{"type":"bar","labels":["a"],"series":[{"name":"s","values":[1]}]}"#;
    make(&s, "pageaaaa1111", Kind::Html, "Tips", page);
    make(&s, "leaveaaa1111", Kind::Html, "Links", leaving);
    make(&s, "svgaaaaa1111", Kind::Svg, "Dot", svg);
    make(&s, "chartaaa1111", Kind::Chart, "Bars", chart);
    make(&s, "docaaaaa1111", Kind::Markdown, "Doc", "# Hi\n");
    make(&s, "tableaaa1111", Kind::Table, "T", "a,b\n1,2\n");
    make(
        &s,
        "mermaida1111",
        Kind::Mermaid,
        "M",
        "flowchart LR\n A-->B\n",
    );
    let served_leaving = "<p><a href=\"https://evil.example/?d=1\">more</a></p>";
    let text_plain = "text/plain; charset=utf-8";
    let html = "text/html; charset=utf-8";
    let cases: Vec<(&str, String)> = vec![
        // A page gets its base target, and the bridge when its scripts run.
        (
            "/api/artifacts/pageaaaa1111/versions/1/frame",
            expected(html, CSP_SCRIPTS, BASE.len() + BRIDGE.len() + page.len()),
        ),
        (
            "/api/artifacts/pageaaaa1111/versions/1/frame?scripts=1",
            expected(html, CSP_SCRIPTS, BASE.len() + BRIDGE.len() + page.len()),
        ),
        // A navigating version runs nothing unless asked, and loses its hints.
        (
            "/api/artifacts/leaveaaa1111/versions/1/frame",
            expected(html, CSP_NONE, BASE.len() + served_leaving.len()),
        ),
        (
            "/api/artifacts/leaveaaa1111/versions/1/frame?scripts=1",
            expected(
                html,
                CSP_SCRIPTS,
                BASE.len() + BRIDGE.len() + served_leaving.len(),
            ),
        ),
        (
            "/api/artifacts/leaveaaa1111/versions/1/frame?scripts=yes",
            expected(html, CSP_NONE, BASE.len() + served_leaving.len()),
        ),
        (
            "/api/artifacts/svgaaaaa1111/versions/1/frame",
            expected("image/svg+xml", CSP_SCRIPTS, svg.len()),
        ),
        (
            "/api/artifacts/chartaaa1111/versions/1/frame",
            expected(text_plain, CSP_SCRIPTS, chart.len()),
        ),
        (
            "/api/artifacts/docaaaaa1111/versions/1/frame",
            expected(text_plain, CSP_SCRIPTS, 5),
        ),
        (
            "/api/artifacts/tableaaa1111/versions/1/frame",
            expected(text_plain, CSP_SCRIPTS, 8),
        ),
        (
            "/api/artifacts/mermaida1111/versions/1/frame",
            expected(text_plain, CSP_SCRIPTS, 20),
        ),
    ];
    for (path, want) in cases {
        let s2 = &s;
        let got = tokio::task::block_in_place(|| raw_head(s2, path, ""));
        assert_eq!(got, want, "{path}");
    }
    // The body served for the navigating page.
    let body = s
        .owner
        .get(format!(
            "{}/api/artifacts/leaveaaa1111/versions/1/frame",
            s.url
        ))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(body, format!("{BASE}{served_leaving}"));
}

#[tokio::test(flavor = "multi_thread")]
async fn downloads_are_attachments_and_exact() {
    let s = common::start().await;
    let leaving = "<a href=\"#\" download=\"x\">s</a><link rel=dns-prefetch href=//x.evil>";
    make(&s, "leaveaaa1111", Kind::Html, "Links: Q3", leaving);
    let got = tokio::task::block_in_place(|| {
        raw_head(&s, "/api/artifacts/leaveaaa1111/versions/1/download", "")
    });
    let want = format!(
        "HTTP/1.1 200 OK\r\n\
         content-type: text/html; charset=utf-8\r\n\
         content-disposition: attachment; filename=\"Links-Q3.html\"\r\n\
         content-security-policy: default-src 'none'; sandbox\r\n\
         connection-allowlist: ()\r\n\
         x-content-type-options: nosniff\r\n\
         referrer-policy: no-referrer\r\n\
         cross-origin-resource-policy: same-origin\r\n\
         cache-control: no-store\r\n\
         x-frame-options: DENY\r\n\
         content-length: {}\r\n\
         connection: close",
        leaving.len()
    );
    assert_eq!(got, want);
    let body = s
        .owner
        .get(format!(
            "{}/api/artifacts/leaveaaa1111/versions/1/download",
            s.url
        ))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(body, leaving, "a download is the version exactly as it was");
}

#[tokio::test]
async fn the_frame_is_refused_without_sign_in_cross_site_or_a_foreign_host() {
    let s = common::start().await;
    make(&s, "pageaaaa1111", Kind::Html, "Tips", "<p>hi</p>");
    let url = format!("{}/api/artifacts/pageaaaa1111/versions/1/frame", s.url);
    let res = s.anon.get(&url).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let res = s
        .owner
        .get(&url)
        .header("sec-fetch-site", "cross-site")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = s
        .owner
        .get(&url)
        .header("sec-fetch-site", "same-site")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = s
        .owner
        .get(&url)
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    // Signed in, same origin: served.
    let res = s
        .owner
        .get(&url)
        .header("sec-fetch-site", "same-origin")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
}

#[tokio::test]
async fn list_show_text_diff_pin_delete() {
    let s = common::start().await;
    let store = s.state.chats.artifacts().clone();
    make(
        &s,
        "chartaaa1111",
        Kind::Table,
        "Stock",
        "item,qty\npen,3\n",
    );
    store
        .update(
            "chartaaa1111",
            "item,qty\npen,4\nink,1\n",
            artifacts::store::By::Updated,
        )
        .unwrap();
    let get = |path: &str| s.owner.get(format!("{}{path}", s.url)).send();
    let list: Value = get("/api/artifacts").await.unwrap().json().await.unwrap();
    assert_eq!(list["artifacts"][0]["id"], "chartaaa1111");
    assert_eq!(list["artifacts"][0]["latest"], 2);
    let shown: Value = get("/api/artifacts/chartaaa1111")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(shown["versions"].as_array().unwrap().len(), 2);
    let res = get("/api/artifacts/chartaaa1111/versions/1").await.unwrap();
    assert_eq!(res.headers()["content-type"], "text/plain; charset=utf-8");
    assert_eq!(res.text().await.unwrap(), "item,qty\npen,3\n");
    let diff: Value = get("/api/artifacts/chartaaa1111/diff")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(diff["from"], 1);
    assert_eq!(diff["to"], 2);
    let ops: Vec<(String, String)> = diff["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["op"].as_str().unwrap().into(),
                l["text"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        ops,
        [
            ("same".into(), "item,qty".into()),
            ("removed".into(), "pen,3".into()),
            ("added".into(), "pen,4".into()),
            ("added".into(), "ink,1".into()),
        ]
    );
    let res = get("/api/artifacts/chartaaa1111/versions/9").await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let pinned: Value = s
        .post_empty("/api/artifacts/chartaaa1111/pin")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(pinned["pinned"], true);
    let list: Value = get("/api/artifacts?pinned=true")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["artifacts"].as_array().unwrap().len(), 1);
    let res = s
        .owner
        .delete(format!("{}/api/artifacts/chartaaa1111", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let res = get("/api/artifacts/chartaaa1111").await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let res = get("/api/artifacts/..%2F..%2Fetc").await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn refresh_starts_its_own_chat() {
    let s = common::start().await;
    make(
        &s,
        "chartaaa1111",
        Kind::Chart,
        "Bars",
        r#"{"type":"bar","labels":["a"],"series":[{"name":"s","values":[1]}]}"#,
    );
    let res = s.post_empty("/api/artifacts/chartaaa1111/refresh").await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let chat: Value = res.json().await.unwrap();
    assert!(chat["chat"].as_str().is_some());
    let res = s.post_empty("/api/artifacts/nothinghere1/refresh").await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

/// The diagram renderer's frame: sealed like a page, its one script from
/// Conch itself, and behind the same checks as every /api route.
#[tokio::test(flavor = "multi_thread")]
async fn the_diagram_frame_is_sealed_and_names_its_one_script() {
    let s = common::start().await;
    let url = format!("{}/api/artifacts/mermaid-frame", s.url);
    assert_eq!(
        s.anon.get(&url).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    let cross = s
        .owner
        .get(&url)
        .header("sec-fetch-site", "cross-site")
        .send()
        .await
        .unwrap();
    assert_eq!(cross.status(), StatusCode::FORBIDDEN);
    let res = s.owner.get(&url).send().await.unwrap();
    if res.status() == StatusCode::NOT_FOUND {
        // A Conch built without its web pages says how to build them.
        let said: Value = res.json().await.unwrap();
        assert!(said["error"]
            .as_str()
            .unwrap()
            .contains("build the web pages"));
        return;
    }
    assert_eq!(res.status(), StatusCode::OK);
    let h = res.headers();
    let csp = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'; frame-src 'none'; worker-src 'none'; frame-ancestors 'self'; sandbox allow-scripts";
    assert_eq!(h["content-security-policy"], csp);
    assert_eq!(h["connection-allowlist"], "(response-origin)");
    assert_eq!(h["x-frame-options"], "SAMEORIGIN");
    assert_eq!(h["permissions-policy"], POLICY);
    assert_eq!(h["cache-control"], "no-store");
    let body = res.text().await.unwrap();
    let start = body.find("<script src=\"").unwrap() + 13;
    let script = &body[start..start + body[start..].find('"').unwrap()];
    assert!(script.starts_with("/assets/mermaid-frame-") && script.ends_with(".js"));
    assert_eq!(body.matches("<script").count(), 1, "{body}");
    let js = s
        .anon
        .get(format!("{}{script}", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(js.status(), StatusCode::OK);
    assert!(js.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/javascript"));
}
