//! The gateway as someone who doesn't know the password tries it: the setup
//! link raced, passwords guessed, confirmations guessed. Real sockets, the
//! real server.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use std::time::Duration;

use common::{start, PASSWORD};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_simultaneous_uses_of_one_setup_link_one_wins() {
    let s = start().await;
    std::fs::remove_file(s.root().join("owner.json")).unwrap();
    let token = s.state.auth.setup.issue().unwrap();
    let client = no_redirects();
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(8));
    let uses: Vec<_> = (0..8)
        .map(|i| {
            let client = client.clone();
            let url = format!("{}/setup", s.url);
            let token = token.clone();
            let barrier = barrier.clone();
            tokio::spawn(async move {
                let password = format!("password number {i} ünïcode");
                barrier.wait().await;
                let res = client
                    .post(url)
                    .form(&[
                        ("token", token.as_str()),
                        ("password", &password),
                        ("confirm", &password),
                    ])
                    .send()
                    .await
                    .unwrap();
                let status = res.status();
                (password, status, res.text().await.unwrap())
            })
        })
        .collect();
    let mut won = Vec::new();
    for u in uses {
        let (password, status, page) = u.await.unwrap();
        match status {
            StatusCode::SEE_OTHER => won.push(password),
            StatusCode::CONFLICT => {
                assert!(page.contains("This link has been used"), "{page}")
            }
            other => panic!("{other}: {page}"),
        }
    }
    assert_eq!(won.len(), 1, "exactly one use sets the password");
    let root = s.root();
    assert_eq!(
        gateway::auth::password::verify(&root, &won[0]).unwrap(),
        Some(true),
        "the password set is the winner's, not the last one's"
    );
    // Afterwards the link says it was used, to anyone.
    let res = client
        .get(format!("{}/setup?token={token}", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CONFLICT);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("This link has been used"));
}

async fn sign_in(s: &common::Server, password: &str) -> reqwest::Response {
    s.anon
        .post(format!("{}/api/session", s.url))
        .json(&json!({ "password": password }))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn guessing_gets_429_and_the_right_password_works_after_the_wait() {
    let s = start().await;
    for i in 0..5 {
        let res = sign_in(&s, &format!("guess {i}")).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "guess {i}");
    }
    let res = sign_in(&s, "guess 5").await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(wait, 1);
    let body: Value = res.json().await.unwrap();
    assert_eq!(
        body["error"],
        "Too many wrong tries. Wait 1 second and try again."
    );
    // Even the right password waits: nothing is checked early.
    assert_eq!(
        sign_in(&s, PASSWORD).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    tokio::time::sleep(Duration::from_secs(wait)).await;
    let res = sign_in(&s, PASSWORD).await;
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "the right password after the wait"
    );
    // Its address starts again from nothing.
    assert_eq!(
        sign_in(&s, "one more guess").await.status(),
        StatusCode::UNAUTHORIZED
    );

    // Activity has the security row, and the checkup says so.
    let page: Value = s.get_json("/api/activity?kinds=security").await;
    let rows = page["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{page}");
    assert_eq!(rows[0]["says"], "Someone tried 6 wrong passwords");
    assert_eq!(rows[0]["state"], "from 127.0.0.1");
    assert_eq!(rows[0]["kind"], "security");
    let checkup: Value = s.get_json("/api/security").await;
    let check = checkup["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "wrong-passwords")
        .unwrap()
        .clone();
    assert_eq!(check["ok"], false);
    assert!(
        check["says"]
            .as_str()
            .unwrap()
            .starts_with("Someone tried 6 wrong passwords in the last week"),
        "{check}"
    );
    // It is in Conch's folder, 0600: a restart's Activity has it too.
    let stored = std::fs::read_to_string(s.root().join("security.jsonl")).unwrap();
    assert_eq!(stored.lines().count(), 6);
    assert!(!stored.contains("guess"), "what was tried isn't kept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_guesses_at_once_reach_the_check_five_times() {
    let s = start().await;
    let client = reqwest::Client::new();
    let guesses: Vec<_> = (0..200)
        .map(|i| {
            let client = client.clone();
            let url = format!("{}/api/session", s.url);
            tokio::spawn(async move {
                client
                    .post(url)
                    .json(&json!({ "password": format!("guess {i}") }))
                    .send()
                    .await
                    .unwrap()
                    .status()
            })
        })
        .collect();
    let mut checked = 0;
    for g in guesses {
        match g.await.unwrap() {
            StatusCode::UNAUTHORIZED => checked += 1,
            StatusCode::TOO_MANY_REQUESTS => {}
            other => panic!("{other}"),
        }
    }
    assert_eq!(checked, 5, "only the free guesses were checked");
}

#[tokio::test]
async fn confirming_the_password_is_slowed_down_too() {
    let s = start().await;
    let confirm = |password: &str| {
        s.owner
            .post(format!("{}/api/session/confirm", s.url))
            .json(&json!({ "password": password }))
            .send()
    };
    for _ in 0..5 {
        assert_eq!(
            confirm("nope nope").await.unwrap().status(),
            StatusCode::UNAUTHORIZED
        );
    }
    let res = confirm(PASSWORD).await.unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(res.headers().contains_key("retry-after"));
    // Signing in from the same address waits too: one count per address.
    assert_eq!(
        sign_in(&s, PASSWORD).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    let res = confirm(PASSWORD).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let stored = std::fs::read_to_string(s.root().join("security.jsonl")).unwrap();
    assert_eq!(stored.matches("\"tried\":\"confirm\"").count(), 5);
}

#[tokio::test]
async fn wrong_setup_links_are_slowed_and_written_down() {
    let s = start().await;
    std::fs::remove_file(s.root().join("owner.json")).unwrap();
    let token = s.state.auth.setup.issue().unwrap();
    let client = no_redirects();
    let mut statuses = Vec::new();
    for i in 0..7 {
        let res = client
            .get(format!("{}/setup?token=guess{i}", s.url))
            .send()
            .await
            .unwrap();
        statuses.push(res.status());
    }
    assert_eq!(
        statuses,
        [
            [StatusCode::FORBIDDEN; 5].as_slice(),
            &[StatusCode::TOO_MANY_REQUESTS; 2]
        ]
        .concat()
    );
    // The right link is no guess: it is never slowed down.
    let res = client
        .get(format!("{}/setup?token={token}", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let page: Value = s.get_json("/api/activity?kinds=security").await;
    assert_eq!(
        page["rows"][0]["says"], "Someone tried 5 wrong setup links",
        "{page}"
    );
}
