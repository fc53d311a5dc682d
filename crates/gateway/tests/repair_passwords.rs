//! Settings → Security → Repair everything and Settings → Passwords over
//! HTTP: one press repairs what `conch doctor --repair` does, Safety comes
//! back on only with a recent password, a second press finds nothing;
//! Passwords lists every key by name and fingerprint and never its value.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

const KEY: &str = "sk-proj-passwords-test-3f9a2c71";

fn items_of(v: &Value, id: &str) -> Vec<Value> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["id"] == id)
        .cloned()
        .collect()
}

#[tokio::test]
async fn repair_everything_in_one_press() {
    let s = common::start().await;
    let root = s.root();
    // Damage: a torn log (a chat nobody has open), keys in the clear, a
    // stale lock, a Safety switch off.
    let chat = root.join("chats/torn0000torn0000");
    std::fs::create_dir_all(&chat).unwrap();
    std::fs::write(
        chat.join("log.jsonl"),
        concat!(
            r#"{"seq":1,"id":"e1","at":"2026-11-28T09:00:00.000Z","type":"message","from":"owner","text":"héllo"}"#,
            "\n",
            r#"{"seq":2,"id":"e2","at":"2026-11-28T09:00:01.000Z","ty"#
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("secrets.json"),
        format!(r#"{{"providers":{{"x":{{"key":"{KEY}"}}}}}}"#),
    )
    .unwrap();
    std::fs::create_dir_all(root.join("run")).unwrap();
    std::fs::write(root.join("run/serve.lock"), "1 127.0.0.1:1\n").unwrap();
    let res = s
        .post("/api/settings/safety", &json!({ "checkMemories": false }))
        .await;
    assert_eq!(res.status(), StatusCode::OK);

    let look: Value = s.get_json("/api/security/repair").await;
    for id in ["torn-logs", "provider-keys", "stale-lock", "safety"] {
        assert_eq!(items_of(&look, id)[0]["state"], "found", "{id}: {look}");
    }
    assert!(
        std::fs::read_to_string(root.join("secrets.json"))
            .unwrap()
            .contains(KEY),
        "a look changes nothing"
    );

    // Without a recent password, Safety stays off and says why.
    s.state.auth.sessions.set_recent(Duration::ZERO);
    let done: Value = s
        .post_empty("/api/security/repair")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(items_of(&done, "safety")[0]["state"], "needs-you", "{done}");
    assert!(items_of(&done, "safety")[0]["says"]
        .as_str()
        .unwrap()
        .contains("needs your password again"));
    for id in ["torn-logs", "provider-keys", "stale-lock"] {
        assert_eq!(items_of(&done, id)[0]["state"], "fixed", "{id}: {done}");
    }
    assert!(!std::fs::read_to_string(root.join("secrets.json"))
        .unwrap()
        .contains(KEY));
    assert!(root.join("chats/torn0000torn0000/log.jsonl.torn").exists());
    let safety: Value = s.get_json("/api/settings/safety").await;
    assert_eq!(safety["checkMemories"], false);

    // With one, it comes back on: live and on disk.
    s.state.auth.sessions.set_recent(Duration::from_secs(600));
    let done: Value = s
        .post_empty("/api/security/repair")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(items_of(&done, "safety")[0]["state"], "fixed", "{done}");
    let safety: Value = s.get_json("/api/settings/safety").await;
    assert_eq!(safety["checkMemories"], true);
    let on_disk = std::fs::read_to_string(root.join("settings.json")).unwrap();
    assert!(!on_disk.contains("false"), "{on_disk}");

    // A second press finds nothing.
    let again: Value = s
        .post_empty("/api/security/repair")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(again["repaired"], 0, "{again}");
    assert_eq!(again["needsYou"], 0, "{again}");
    assert_eq!(again["found"], 0, "{again}");
}

#[tokio::test]
async fn passwords_lists_every_key_by_fingerprint_never_its_value() {
    let s = common::start().await;
    let root = s.root();
    std::fs::write(
        root.join("settings.json"),
        r#"{"providers":[{"name":"local","kind":"openai","model":"m","baseUrl":"http://127.0.0.1:9/v1"}]}"#,
    )
    .unwrap();
    std::fs::write(
        root.join("secrets.json"),
        format!(r#"{{"providers":{{"local":{{"key":"{KEY}"}}}},"apps":{{"github":{{"env":{{"GITHUB_TOKEN":"ghp_pw_test_0000"}}}}}},"bridges":{{"telegram":{{"token":"123456:tg_pw_test_token"}}}}}}"#),
    )
    .unwrap();
    let (_, access) = gateway::auth::keys::create(&root, "ci").unwrap();

    let res = s.get("/api/passwords").await;
    assert_eq!(res.status(), StatusCode::OK);
    let text = res.text().await.unwrap();
    for secret in [
        KEY,
        "ghp_pw_test_0000",
        "123456:tg_pw_test_token",
        access.as_str(),
    ] {
        assert!(!text.contains(secret), "a value is shown: {text}");
    }
    let listed: Value = serde_json::from_str(&text).unwrap();
    let keys = listed["keys"].as_array().unwrap();
    let kind = |k: &str| {
        keys.iter()
            .filter(|x| x["kind"] == k)
            .cloned()
            .collect::<Vec<_>>()
    };
    let provider = &kind("provider")[0];
    assert_eq!(provider["name"], "local");
    let before = provider["fingerprint"].as_str().unwrap().to_owned();
    assert!(before.starts_with("SHA256:"), "{provider}");
    assert_eq!(kind("app")[0]["field"], "GITHUB_TOKEN");
    // The Telegram bot's token, by fingerprint too.
    assert_eq!(kind("chatApp")[0]["name"], "telegram");
    assert!(kind("chatApp")[0]["fingerprint"]
        .as_str()
        .unwrap()
        .starts_with("SHA256:"));
    assert_eq!(kind("accessKey")[0]["name"], "ci");
    assert!(
        kind("deviceKey")[0]["says"]
            .as_str()
            .unwrap()
            .contains("keystore/device.key"),
        "{listed}"
    );
    assert!(
        kind("signingKey").is_empty(),
        "never signed: nothing to list"
    );

    // Replace, then remove.
    let url = format!("{}/api/passwords/providers/local", s.url);
    let res = s
        .owner
        .put(&url)
        .json(&json!({ "key": "sk-new-key-for-local" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let listed: Value = s.get_json("/api/passwords").await;
    let now = listed["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kind"] == "provider")
        .unwrap()["fingerprint"]
        .clone();
    assert_ne!(now, before);
    let res = s.owner.delete(&url).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let res = s.owner.delete(&url).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let res = s
        .owner
        .delete(format!("{}/api/passwords/apps/github", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let listed: Value = s.get_json("/api/passwords").await;
    assert!(listed["keys"]
        .as_array()
        .unwrap()
        .iter()
        .all(|k| k["kind"] != "provider" && k["kind"] != "app"));

    // A script's key can't see or change any of it, nor press repair.
    let bearer = format!("Bearer {access}");
    for (method, path) in [
        ("GET", "/api/passwords"),
        ("DELETE", "/api/passwords/providers/local"),
        ("GET", "/api/security/repair"),
        ("POST", "/api/security/repair"),
    ] {
        let res = s
            .anon
            .request(method.parse().unwrap(), format!("{}{path}", s.url))
            .header("authorization", &bearer)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "{method} {path}");
    }
}
