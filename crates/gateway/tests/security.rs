//! Settings → Safety over HTTP: turning a preference off needs a person
//! with a recent password, refused by the server; on needs nothing; the
//! checkup shows it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

#[tokio::test]
async fn turning_safety_off_needs_a_recent_password() {
    let s = common::start().await;
    let url = format!("{}/api/settings/safety", s.url);
    let now: Value = s
        .owner
        .get(&url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        now,
        json!({"checkAfterReading": true, "sealedCommands": true, "checkMemories": true, "enginesInBox": true})
    );

    // The sign-in was a while ago: not recent.
    s.state.auth.sessions.set_recent(Duration::ZERO);
    let res = s
        .owner
        .post(&url)
        .json(&json!({ "checkAfterReading": false }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let said: Value = res.json().await.unwrap();
    assert!(
        said["error"].as_str().unwrap().starts_with(
            "Turning this off needs your password again (a page it reads could then steer"
        ),
        "{said}"
    );
    // Nothing changed, on disk or live.
    let now: Value = s
        .owner
        .get(&url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(now["checkAfterReading"], true);
    assert!(!std::fs::read_to_string(s.root().join("settings.json"))
        .unwrap_or_default()
        .contains("false"));

    // Running engines outside the box is the same: no recent password, no.
    let res = s
        .owner
        .post(&url)
        .json(&json!({ "enginesInBox": false }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let said: Value = res.json().await.unwrap();
    assert!(
        said["error"]
            .as_str()
            .unwrap()
            .contains("Claude Code and Codex would then run with your full access"),
        "{said}"
    );

    // An access key can't, recent or not.
    s.state.auth.sessions.set_recent(Duration::from_secs(600));
    let (_, key) = gateway::auth::keys::create(&s.root(), "script").unwrap();
    let res = s
        .anon
        .post(&url)
        .bearer_auth(&key)
        .json(&json!({ "sealedCommands": false }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);

    // The password again: a wrong one is refused, the right one counts.
    let confirm = format!("{}/api/session/confirm", s.url);
    s.state.auth.sessions.set_recent(Duration::from_millis(300));
    tokio::time::sleep(Duration::from_millis(400)).await;
    let res = s
        .owner
        .post(&confirm)
        .json(&json!({ "password": "nope" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let res = s
        .owner
        .post(&confirm)
        .json(&json!({ "password": common::PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let res = s
        .owner
        .post(&url)
        .json(&json!({ "checkAfterReading": false }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "{}",
        res.text().await.unwrap()
    );
    let saved = std::fs::read_to_string(s.root().join("settings.json")).unwrap();
    assert!(saved.contains("\"checkAfterReading\": false"), "{saved}");

    // The checkup shows it, with the one-press fix.
    let checkup: Value = s.get_json("/api/security").await;
    let check = checkup["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "check-after-reading")
        .unwrap()
        .clone();
    assert_eq!(check["ok"], false);
    assert_eq!(
        check["fix"],
        json!({"kind": "turn-on", "setting": "checkAfterReading"})
    );

    // Turning it on needs nothing, not even a recent password.
    s.state.auth.sessions.set_recent(Duration::ZERO);
    let res = s
        .owner
        .post(&url)
        .json(&json!({ "checkAfterReading": true }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let now: Value = s
        .owner
        .get(&url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(now["checkAfterReading"], true);
}

#[tokio::test]
async fn activity_pages_over_http() {
    let s = common::start().await;
    let id = s.new_chat().await;
    let res = s
        .post(
            format!("/api/chats/{id}/messages"),
            &json!({ "text": "hello" }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let page: Value = s.get_json("/api/activity?limit=10").await;
    assert!(page["rows"].is_array());
    let res = s.get("/api/activity?kinds=nonsense").await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
}
