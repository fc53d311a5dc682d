//! The whole thing as a user runs it: `conch bridges add … --api-base`
//! pointed at a scripted Bot API server on 127.0.0.1, `conch bridges link`
//! and `allow`, then `conch serve` (its built-in mock engine): the owner
//! links, an allowed person's command asks the owner in Telegram, the
//! owner's button runs it once. Then the same with a webhook: Telegram
//! pushes to `conch serve`'s `/hooks/telegram`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "../../bridges/tests/support/bot_api.rs"]
mod bot_api;

mod support;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use support::EXE;

use bot_api::{BotApi, BotMessage, TOKEN};

const ADA: i64 = 100;
const EVE: i64 = 200;

/// Runs `conch`, which must succeed: what it printed.
fn succeeds(home: &Path, args: &[&str], stdin: Option<&str>) -> String {
    let out = support::run_typed(home, args, stdin);
    assert!(out.status.success(), "{args:?}: {}", support::said(&out));
    support::text(&out.stdout)
}

struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `conch serve` until it has said its Telegram line.
fn serve(home: &Path, work: &Path, listen: &str) -> (Serve, String) {
    let mut child = Command::new(EXE)
        .arg("--home")
        .arg(home)
        .args(["serve", "--listen", listen])
        .current_dir(work)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut said = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        said.push_str(&line);
        said.push('\n');
        if line.starts_with("Telegram:") {
            break;
        }
    }
    // Keep reading, so serve never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (Serve(child), said)
}

fn question(api: &BotApi, n: usize) -> Option<BotMessage> {
    api.said_in(ADA)
        .into_iter()
        .filter(|m| m.buttons.is_some() || m.edits > 0)
        .nth(n)
}

async fn ask_and_answer(api: &BotApi, n: usize, command: &str) {
    api.direct(EVE, "Eve", Some("eve"), &format!("please run `{command}`"));
    api.until("Eve is told", |a| {
        a.said_in(EVE)
            .iter()
            .filter(|m| m.text == "I've asked the owner to OK it.")
            .count()
            > n
    })
    .await;
    api.until("the owner is asked", |a| question(a, n).is_some())
        .await;
    let q = question(api, n).unwrap();
    assert!(q.text.contains(command), "{}", q.text);
    let once = q.buttons.as_ref().unwrap()[0][0]["callback_data"]
        .as_str()
        .unwrap()
        .to_owned();
    api.press(ADA, "Ada", &q, &once);
    api.until("the question says it was allowed", |a| {
        a.said_in(ADA)
            .iter()
            .any(|m| m.id == q.id && m.text.ends_with("— Allowed once here."))
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conch_serve_with_telegram_polling_then_a_webhook() {
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = (dir.path().join("home"), dir.path().join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let api = BotApi::start().await;
    let added = succeeds(
        &home,
        &[
            "bridges",
            "add",
            "telegram",
            "--token-stdin",
            "--api-base",
            &api.base,
        ],
        Some(&format!("{TOKEN}\n")),
    );
    assert!(added.contains("@conch_test_bot"), "{added}");
    let linking = succeeds(&home, &["bridges", "link", "telegram"], None);
    let code = linking
        .split_whitespace()
        .skip_while(|w| *w != "/link")
        .nth(1)
        .unwrap()
        .to_owned();
    succeeds(&home, &["bridges", "allow", "telegram", "@eve"], None);
    let secrets = std::fs::read(home.join("secrets.json")).unwrap();
    assert!(
        !String::from_utf8_lossy(&secrets).contains("test-token"),
        "the token is sealed"
    );

    let (first, said) = serve(&home, &work, "127.0.0.1:0");
    assert!(said.contains("Telegram: on, not linked yet"), "{said}");
    api.direct(ADA, "Ada", None, &format!("/link {code}"));
    api.until("linked", |a| {
        a.said_in(ADA).iter().any(|m| m.text.starts_with("Linked."))
    })
    .await;
    ask_and_answer(&api, 0, "echo polled-✓").await;
    drop(first);

    // A webhook: Telegram pushes to serve's /hooks/telegram.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let address = format!("http://127.0.0.1:{port}");
    succeeds(&home, &["bridges", "webhook", "telegram", &address], None);
    let (_second, said) = serve(&home, &work, &format!("127.0.0.1:{port}"));
    assert!(
        said.contains(&format!("pushing to {address}/hooks/telegram")),
        "{said}"
    );
    assert!(said.contains("linked to Ada"), "{said}");
    api.until("the webhook is set", |a| a.webhook().is_some())
        .await;
    ask_and_answer(&api, 1, "echo pushed-✓").await;
    assert!(
        api.pushes().iter().all(|(_, status)| *status == 200),
        "{:?}",
        api.pushes()
    );
    let listed = succeeds(&home, &["bridges", "list", "--json"], None);
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed[0]["owner"]["name"], "Ada");
    assert_eq!(listed[0]["webhook"], address.as_str());
    assert_eq!(listed[0]["allowed"][0]["id"], EVE.to_string().as_str());
}
