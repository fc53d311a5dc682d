//! Settings → Backups over HTTP: a backup made, listed and downloaded
//! whole; one that carries keys only after a recent password; restored
//! beside this Conch, never into it; the schedule makes one when due and
//! keeps as many as it says.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use std::time::{Duration, SystemTime};

use reqwest::StatusCode;
use serde_json::{json, Value};

const KEY: &str = "sk-proj-backups-http-8d21c0";

#[tokio::test]
async fn a_backup_from_the_browser_made_downloaded_and_restored_beside() {
    let s = common::start().await;
    let root = s.root();
    let chat = s.new_chat().await;
    std::fs::write(
        root.join("secrets.json"),
        format!(r#"{{"providers":{{"local":{{"key":"{KEY}"}}}}}}"#),
    )
    .unwrap();

    let res = s.post("/api/backups", &json!({})).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let made: Value = res.json().await.unwrap();
    let name = made["name"].as_str().unwrap().to_owned();
    assert!(
        made["says"].as_str().unwrap().contains("holds no keys"),
        "{made}"
    );
    let listed: Value = s.get_json("/api/backups").await;
    assert_eq!(listed["backups"][0]["name"], name.as_str());
    assert_eq!(listed["backups"][0]["locked"], false);
    assert_eq!(listed["schedule"]["every"], "off");

    // Downloaded whole, byte for byte; no key in it.
    let res = s.get(format!("/api/backups/{name}")).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .starts_with("attachment"));
    let bytes = res.bytes().await.unwrap();
    assert_eq!(
        &bytes[..],
        &std::fs::read(root.join("backups").join(&name)).unwrap()[..]
    );
    assert!(!bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()));
    for bad in [
        "..%2Fsecrets.json",
        "secrets.json",
        "conch-..%2F..%2Fx.backup",
    ] {
        assert_eq!(
            s.get(format!("/api/backups/{bad}")).await.status(),
            StatusCode::NOT_FOUND,
            "{bad}"
        );
    }

    // Keys in a file need a recent password.
    s.state.auth.sessions.set_recent(Duration::ZERO);
    let res = s
        .post(
            "/api/backups",
            &json!({ "passphrase": "a long passphrase ✓" }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = s
        .post(format!("/api/backups/{name}/restore"), &json!({}))
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    s.state.auth.sessions.set_recent(Duration::from_secs(600));
    let res = s
        .post(
            "/api/backups",
            &json!({ "passphrase": "a long passphrase ✓" }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let locked: Value = res.json().await.unwrap();
    let locked_name = locked["name"].as_str().unwrap().to_owned();

    // Restored beside: the running Conch's folder is as it was.
    let res = s
        .post(
            format!("/api/backups/{locked_name}/restore"),
            &json!({ "passphrase": "wrong one!" }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = s
        .post(
            format!("/api/backups/{locked_name}/restore"),
            &json!({ "passphrase": "a long passphrase ✓" }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let restored: Value = res.json().await.unwrap();
    let into = std::path::PathBuf::from(restored["into"].as_str().unwrap());
    assert_ne!(into, root);
    assert!(into.join("chats").join(&chat).join("log.jsonl").exists());
    let sealed = std::fs::read(into.join("secrets.json")).unwrap();
    assert!(
        vault::is_sealed(&sealed),
        "locked with this computer's key at once"
    );
    assert!(restored["start"]
        .as_str()
        .unwrap()
        .starts_with("conch serve --home "));
}

#[tokio::test]
async fn the_schedule_makes_one_when_due_and_keeps_as_many_as_it_says() {
    let s = common::start().await;
    let root = s.root();
    s.state.auth.sessions.set_recent(Duration::ZERO);
    let res = s
        .post(
            "/api/backups/schedule",
            &json!({ "every": "daily", "keep": 2, "passphrase": "scheduled passphrase" }),
        )
        .await;
    assert_eq!(
        res.status(),
        StatusCode::FORBIDDEN,
        "a passphrase needs a recent password"
    );
    let res = s
        .post(
            "/api/backups/schedule",
            &json!({ "every": "daily", "keep": 2 }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let settings = std::fs::read_to_string(root.join("settings.json")).unwrap();
    assert!(settings.contains("\"every\": \"daily\""), "{settings}");

    let now = SystemTime::now();
    let first = gateway::backups::tick(&root, now).unwrap();
    assert!(first.is_some());
    assert_eq!(
        gateway::backups::tick(&root, now).unwrap(),
        None,
        "not due again yet"
    );
    // A day later (and a minute: the first was made just after `now`),
    // then two more: only two kept.
    std::thread::sleep(Duration::from_millis(1100));
    assert!(
        gateway::backups::tick(&root, now + Duration::from_secs(86_400 + 60))
            .unwrap()
            .is_some()
    );
    std::thread::sleep(Duration::from_millis(1100));
    assert!(
        gateway::backups::tick(&root, now + Duration::from_secs(3 * 86_400))
            .unwrap()
            .is_some()
    );
    let listed: Value = s.get_json("/api/backups").await;
    let names: Vec<&str> = listed["backups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        !names.contains(&first.as_deref().unwrap()),
        "the oldest went"
    );

    // With a passphrase (sealed, never in settings.json), they carry keys.
    s.state.auth.sessions.set_recent(Duration::from_secs(600));
    let res = s
        .post(
            "/api/backups/schedule",
            &json!({ "every": "weekly", "keep": 3, "passphrase": "scheduled passphrase" }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(!std::fs::read_to_string(root.join("settings.json"))
        .unwrap()
        .contains("scheduled passphrase"));
    std::thread::sleep(Duration::from_millis(1100));
    let made = gateway::backups::tick(&root, now + Duration::from_secs(30 * 86_400))
        .unwrap()
        .unwrap();
    let listed: Value = s.get_json("/api/backups").await;
    let newest = &listed["backups"][0];
    assert_eq!(newest["name"], made.as_str());
    assert_eq!(newest["locked"], true);
    assert_eq!(listed["schedule"]["passphrase"], true);
}
