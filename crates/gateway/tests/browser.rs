//! A chat's browser screenshots over HTTP: served to the owner as PNG,
//! only by their own names, never to someone signed out.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use reqwest::StatusCode;

#[tokio::test]
async fn a_chats_screenshot_is_served_and_nothing_else_is() {
    let s = common::start().await;
    let id = s.new_chat().await;
    let folder = s.root().join("chats").join(&id);
    std::fs::create_dir_all(folder.join("browser")).unwrap();
    let png = b"\x89PNG\r\n\x1a\nnot really a picture".to_vec();
    std::fs::write(folder.join("browser").join("call-1.png"), &png).unwrap();
    let res = s.get(format!("/api/chats/{id}/browser/call-1.png")).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "image/png");
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    assert_eq!(res.bytes().await.unwrap().to_vec(), png);
    // The chat's log is beside it: no name reaches it.
    for path in [
        format!("/api/chats/{id}/browser/..%2Flog.jsonl"),
        format!("/api/chats/{id}/browser/log.jsonl"),
        format!("/api/chats/{id}/browser/missing.png"),
        "/api/chats/nochat/browser/call-1.png".to_owned(),
    ] {
        let res = s.get(&path).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{path}");
    }
    let res = s
        .anon
        .get(format!("{}/api/chats/{id}/browser/call-1.png", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}
