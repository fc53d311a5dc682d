//! The first run as a browser does it: the setup form posted under the
//! page's own referrer policy, the pages a person lands on, and a new link
//! for `conch setup`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use common::start;
use reqwest::StatusCode;

/// What Chromium sends for a navigation.
const BROWSER_ACCEPT: &str =
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn fresh() -> (common::Server, String) {
    let s = start().await;
    std::fs::remove_file(s.root().join("owner.json")).unwrap();
    let token = s.state.auth.setup.issue().unwrap();
    (s, token)
}

async fn post_setup(
    s: &common::Server,
    token: &str,
    headers: &[(&str, &str)],
) -> reqwest::Response {
    let mut request = no_redirects()
        .post(format!("{}/setup", s.url))
        .header("accept", BROWSER_ACCEPT)
        .form(&[
            ("token", token),
            ("username", "owner"),
            ("password", "a fine password"),
            ("confirm", "a fine password"),
        ]);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

/// The bug: Chromium posts the setup form from a `no-referrer` page with
/// `Origin: null` and `Sec-Fetch-Site: same-origin`, and was refused.
#[tokio::test]
async fn the_setup_form_posted_with_a_null_origin_from_conchs_own_page_sets_the_password() {
    let (s, token) = fresh().await;
    let res = post_setup(
        &s,
        &token,
        &[
            ("origin", "null"),
            ("sec-fetch-site", "same-origin"),
            ("sec-fetch-mode", "navigate"),
        ],
    )
    .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(res.headers()["location"], "/");
    assert!(res.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .starts_with("conch_session="));
    assert!(s.root().join("owner.json").exists());
}

#[tokio::test]
async fn a_null_origin_from_anywhere_else_changes_nothing_and_says_so_in_a_page() {
    let (s, token) = fresh().await;
    let others: &[&[(&str, &str)]] = &[
        &[("origin", "null")],
        &[("origin", "null"), ("sec-fetch-site", "cross-site")],
        &[("origin", "null"), ("sec-fetch-site", "same-site")],
        &[("origin", "null"), ("sec-fetch-site", "none")],
        &[("origin", "null"), ("sec-fetch-site", "SAME-ORIGIN")],
        &[
            ("origin", "http://localhost:1"),
            ("sec-fetch-site", "same-site"),
        ],
        &[("origin", "http://evil.example")],
        &[("sec-fetch-site", "cross-site")],
    ];
    for headers in others {
        let res = post_setup(&s, &token, headers).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "{headers:?}");
        assert!(res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html"));
        let page = res.text().await.unwrap();
        assert!(page.contains("another site"), "{page}");
        assert!(page.contains("<h1>Conch refused this</h1>"), "{page}");
        assert!(!s.root().join("owner.json").exists(), "{headers:?}");
    }
    // The link was never touched: it still works from Conch's own page.
    let res = post_setup(&s, &token, &[("sec-fetch-site", "same-origin")]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn a_refusal_is_a_page_for_a_browser_and_json_for_a_script() {
    let s = start().await;
    let get = |accept: &'static str, path: &'static str| {
        let mut request = s.anon.get(format!("{}{path}", s.url));
        if !accept.is_empty() {
            request = request.header("accept", accept);
        }
        request.send()
    };
    for (path, status, heading) in [
        ("/api/chats", StatusCode::UNAUTHORIZED, "Sign in first"),
        ("/nothing/here", StatusCode::NOT_FOUND, "Nothing here"),
    ] {
        let res = get(BROWSER_ACCEPT, path).await.unwrap();
        assert_eq!(res.status(), status);
        assert!(res.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("default-src 'none'"));
        let page = res.text().await.unwrap();
        assert!(page.contains(&format!("<h1>{heading}</h1>")), "{page}");
        assert!(!page.contains("{\"error\""), "{page}");
        for accept in ["", "*/*", "application/json"] {
            let res = get(accept, path).await.unwrap();
            assert_eq!(res.status(), status);
            let body: serde_json::Value = res.json().await.unwrap();
            assert!(body["error"].is_string(), "{accept}: {body}");
        }
    }
    // A foreign name (DNS rebinding) is refused in a page too.
    let res = s
        .anon
        .get(format!("{}/", s.url))
        .header("host", "evil.example")
        .header("accept", BROWSER_ACCEPT)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(res.text().await.unwrap().contains("allowedHosts"));
}

#[tokio::test]
async fn a_spent_or_wrong_link_gets_a_page_that_says_what_to_do() {
    let (s, token) = fresh().await;
    let wrong = s
        .anon
        .get(format!("{}/setup?token=not-it", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::FORBIDDEN);
    let page = wrong.text().await.unwrap();
    assert!(page.contains("This link isn't right"), "{page}");
    assert!(page.contains("conch setup"), "{page}");
    let res = post_setup(&s, &token, &[]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    // Once a password is set, any link says so, and where to sign in.
    for token in [token.as_str(), "not-it"] {
        let again = s
            .anon
            .get(format!("{}/setup?token={token}", s.url))
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), StatusCode::CONFLICT);
        let page = again.text().await.unwrap();
        assert!(page.contains("This link has been used"), "{page}");
        assert!(page.contains("Sign in"), "{page}");
        assert!(page.contains("Nothing was changed."), "{page}");
    }
}

#[tokio::test]
async fn a_new_link_for_conch_setup_replaces_the_old_one_and_only_before_a_password() {
    let (s, old) = fresh().await;
    let (_, key) = gateway::auth::keys::create(&s.root(), "conch setup").unwrap();
    let ask = || {
        s.anon
            .post(format!("{}/api/setup-link", s.url))
            .bearer_auth(&key)
            .json(&serde_json::json!({}))
            .send()
    };
    // Nobody signed in gets nothing.
    let res = s
        .anon
        .post(format!("{}/api/setup-link", s.url))
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let res = ask().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let body: serde_json::Value = res.json().await.unwrap();
    let new = body["token"].as_str().unwrap().to_owned();
    assert_eq!(body["lastsSecs"], 900);
    assert_eq!(
        post_setup(&s, &old, &[]).await.status(),
        StatusCode::FORBIDDEN,
        "the old link stops working"
    );
    assert_eq!(
        post_setup(&s, &new, &[]).await.status(),
        StatusCode::SEE_OTHER
    );
    let res = ask().await.unwrap();
    assert_eq!(res.status(), StatusCode::CONFLICT);
}
