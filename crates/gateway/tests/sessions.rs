//! Sign-in sessions kept in Conch's folder: a restart keeps the owner
//! signed in; "Sign out everywhere" ends every session.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use common::{start, PASSWORD};
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn sign_in(s: &common::Server, password: &str) -> reqwest::Response {
    s.anon
        .post(format!("{}/api/session", s.url))
        .json(&json!({ "password": password }))
        .send()
        .await
        .unwrap()
}

/// A client that sends this session cookie.
fn with_cookie(cookie: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("cookie", cookie.parse().unwrap());
    reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap()
}

#[tokio::test]
async fn sessions_survive_a_restart_until_signed_out_everywhere() {
    let s = start().await;
    let cookie = s.cookie.clone();
    let common::Server { home, stop, .. } = s;
    let _ = stop.unwrap().send(());
    // The same folder, a new gateway (and a new process's memory).
    let s = common::start_options(common::Options {
        home: Some(home),
        ..common::Options::default()
    })
    .await;
    let before = with_cookie(&cookie);
    let me: Value = before
        .get(format!("{}/api/session", s.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        me["who"], "owner",
        "the cookie from before the restart works"
    );
    let stored = std::fs::read_to_string(s.root().join("sessions.json")).unwrap();
    let token = cookie.split_once('=').unwrap().1;
    assert!(!stored.contains(token), "only hashes are kept");

    // An access key can't sign the owner out.
    let (_, key) = gateway::auth::keys::create(&s.root(), "script").unwrap();
    let res = reqwest::Client::new()
        .delete(format!("{}/api/sessions", s.url))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);

    // Sign out everywhere, from the old browser: both sessions end.
    let res = before
        .delete(format!("{}/api/sessions", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .contains("Max-Age=0"));
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["ended"], 2);
    for client in [&before, &s.owner] {
        let res = client
            .get(format!("{}/api/session", s.url))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    // Signing in again works.
    assert_eq!(sign_in(&s, PASSWORD).await.status(), StatusCode::OK);
}
