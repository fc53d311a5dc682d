//! Routines and chat apps over HTTP: a person makes and removes routines
//! and changes who may talk to the bot; an access key can list and run
//! routines but can't set one up or let anyone in; the webhook route reads
//! nothing without a webhook set up; notices stream to open pages.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use reqwest::StatusCode;
use serde_json::{json, Value};

#[tokio::test]
async fn a_key_can_run_a_routine_but_not_make_one_or_let_anyone_in() {
    let s = common::start().await;
    let (_, key) = gateway::auth::keys::create(&s.root(), "script").unwrap();
    let as_key = |method: reqwest::Method, path: &str| {
        s.anon
            .request(method, format!("{}{path}", s.url))
            .bearer_auth(&key)
    };
    let made = json!({ "schedule": "every weekday at 8:00", "task": "Résumé — 要約", "name": "inbox", "mode": "full" });
    let res = as_key(reqwest::Method::POST, "/api/routines")
        .json(&made)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = s.post("/api/routines", &made).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let routine: Value = res.json().await.unwrap();
    assert_eq!(routine["madeIn"], "web");
    // A schedule that doesn't read is a sentence, and nothing is made.
    let res = s
        .post(
            "/api/routines",
            &json!({ "schedule": "61 * * * *", "task": "x" }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let said: Value = res.json().await.unwrap();
    assert!(said["error"].as_str().unwrap().contains("minute"), "{said}");

    let listed: Value = as_key(reqwest::Method::GET, "/api/routines")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let res = as_key(reqwest::Method::POST, "/api/routines/inbox/run")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let run: Value = res.json().await.unwrap();
    let listed: Value = s.get_json("/api/routines").await;
    assert_eq!(listed[0]["runs"], json!([run["chat"]]));
    let chats: Value = s.get_json("/api/chats").await;
    let chat = chats
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == run["chat"])
        .unwrap();
    assert_eq!(chat["origin"], "routine");
    assert_eq!(chat["routine"], routine["id"]);
    assert_eq!(chat["mode"], "full");

    let res = as_key(reqwest::Method::DELETE, "/api/routines/inbox")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    for (method, path, body) in [
        (reqwest::Method::GET, "/api/bridges", None),
        (
            reqwest::Method::POST,
            "/api/bridges/telegram",
            Some(json!({ "token": "1:abc" })),
        ),
        (reqwest::Method::POST, "/api/bridges/telegram/link", None),
        (
            reqwest::Method::POST,
            "/api/bridges/telegram/allowed",
            Some(json!({ "user": "@mallory" })),
        ),
        (
            reqwest::Method::DELETE,
            "/api/bridges/telegram/allowed/5",
            None,
        ),
    ] {
        let mut r = as_key(method, path);
        if let Some(b) = body {
            r = r.json(&b);
        }
        assert_eq!(
            r.send().await.unwrap().status(),
            StatusCode::FORBIDDEN,
            "{path}"
        );
    }
    let res = s
        .owner
        .delete(format!("{}/api/routines/inbox", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn the_owner_changes_chat_apps_and_the_token_is_never_shown() {
    let s = common::start().await;
    let res = s
        .post("/api/bridges/telegram", &json!({ "token": "not a token" }))
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = s
        .post(
            "/api/bridges/telegram",
            &json!({ "token": "123456:AAE-secret_part" }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let code: Value = s
        .post_empty("/api/bridges/telegram/link")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(code["send"].as_str().unwrap().len(), "/link ".len() + 8);
    assert_eq!(
        s.post("/api/bridges/telegram/allowed", &json!({ "user": "@Eve" }))
            .await
            .status(),
        StatusCode::CREATED
    );
    assert_eq!(
        s.post("/api/bridges/telegram/allowed", &json!({ "user": "eve" }))
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        s.post("/api/bridges/telegram/allowed", &json!({ "user": "e v e" }))
            .await
            .status(),
        StatusCode::BAD_REQUEST
    );
    let listed = s.get("/api/bridges").await.text().await.unwrap();
    assert!(!listed.contains("secret_part"), "{listed}");
    let listed: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed[0]["token"], true);
    assert_eq!(listed[0]["linkWaiting"], true);
    assert_eq!(
        listed[0]["allowed"],
        json!([{ "id": null, "handle": "eve", "name": null }])
    );
    let res = s
        .owner
        .delete(format!("{}/api/bridges/telegram/allowed/@eve", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let res = s
        .owner
        .delete(format!("{}/api/bridges/telegram/allowed/@eve", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    // Nothing is read at the webhook's route while none is set up.
    let res = s
        .anon
        .post(format!("{}/hooks/telegram", s.url))
        .json(&json!({ "update_id": 1 }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn questions_stream_to_open_pages_and_each_way_can_be_turned_off() {
    let s = common::start_engine(
        std::sync::Arc::new(engines::MockEngine::new(std::time::Duration::ZERO)),
        std::sync::Arc::new(tools::Tools::new(tools::ToolsConfig::default())),
    )
    .await;
    let ways: Value = s.get_json("/api/settings/notifications").await;
    assert_eq!(
        ways["ways"],
        json!([{ "way": "web", "on": true, "linked": true }])
    );
    let res = s
        .post("/api/settings/notifications", &json!({ "pager": true }))
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = s.get("/api/notifications").await;
    assert_eq!(res.status(), StatusCode::OK);
    let mut stream = common::SseReader::new(res);
    s.state.chats.start_notices();
    // The mock engine proposes the command in backticks; Ask mode asks.
    let id = s.new_chat().await;
    s.post(
        format!("/api/chats/{id}/messages"),
        &json!({ "text": "run `echo notice-me`" }),
    )
    .await;
    let notice = tokio::time::timeout(std::time::Duration::from_secs(10), stream.next())
        .await
        .unwrap()
        .unwrap();
    let notice: Value = serde_json::from_str(&notice.data).unwrap();
    assert_eq!(notice["kind"], "question");
    assert_eq!(notice["chat"], id.as_str());
    assert!(notice["question"]
        .as_str()
        .unwrap()
        .contains("echo notice-me"));
    assert_eq!(notice["nobodyThere"], false);
    // Turned off, it's kept and holds at once.
    let ways: Value = s
        .post("/api/settings/notifications", &json!({ "web": false }))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ways["ways"][0]["on"], false);
    let settings: Value =
        serde_json::from_slice(&std::fs::read(s.root().join("settings.json")).unwrap()).unwrap();
    assert_eq!(settings["notifications"], json!({ "web": false }));
}
