//! The owner's apps offered to the real Codex (installed from npm by
//! ./run-tests) through its MCP configuration: each app is Conch's own
//! binary relaying to it (`conch apps relay`). The app is the real
//! server-everything; the model is a scripted Responses API on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "../../engines/tests/support/codex_bin.rs"]
mod codex_bin;
#[path = "../../engines/tests/support/responses.rs"]
mod responses;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use apps::catalog;
use apps::file::{self, Reach};
use apps::{Apps, AppsConfig, Choice};
use conversations::{Chats, ChatsConfig, Durability, GuardConfig, Home, NewChat, NoTools};
use protocol::{Answer, Body, Mode, Origin};
use responses::{say, Responses};
use serde_json::{json, Value};

fn everything() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(
            "../apps/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        )
        .to_string_lossy()
        .into_owned()
}

fn mcp_call(call: &str, name: &str, args: Value) -> Value {
    json!({ "type": "function_call", "id": format!("fc_{call}"), "call_id": call,
            "namespace": "mcp__everything", "name": name, "arguments": args.to_string() })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_gets_the_apps_and_the_guard_holds_for_them() {
    let server = Responses::start(vec![
        vec![mcp_call("c1", "echo", json!({"message": "Grüße von Zoë"}))],
        vec![mcp_call("c2", "get_sum", json!({"a": 1, "b": 2}))],
        vec![mcp_call("c3", "toggle_simulated_logging", json!({}))],
        vec![say("Done.")],
    ])
    .await;
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let home = Home::open(&root.join("home")).unwrap();
    file::update(home.root(), |f| {
        catalog::add(
            f,
            "everything",
            Reach::Stdio {
                command: "node".into(),
                args: vec![everything(), "stdio".into()],
                env: vec![],
            },
            "2026-10-05T00:00:00.000Z",
        )
    })
    .unwrap()
    .0
    .unwrap();
    let apps = Apps::start(AppsConfig::new(home.root(), &work));
    assert!(apps.settled(Duration::from_secs(120)).await);
    file::update(home.root(), |f| {
        catalog::choose(f, "everything", "get-sum", Choice::Off, "t")
    })
    .unwrap()
    .0
    .unwrap();
    let engine = codex_bin::codex_engine("codex", &server.url, home.root())
        .with_conch(Path::new(env!("CARGO_BIN_EXE_conch")));
    let chats = Chats::new(
        home.clone(),
        Arc::new(engine),
        Arc::new(apps::WithApps {
            inner: Arc::new(NoTools),
            apps: apps.clone(),
        }),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.clone(),
            default_mode: Mode::Full,
            policies: Default::default(),
            // Codex runs outside Conch's box: the owner allowed it.
            guard: GuardConfig {
                switches: Some(Arc::new(conversations::safety::Switches::new(
                    &conversations::Safety {
                        engines_in_box: false,
                        ..Default::default()
                    },
                ))),
                ..GuardConfig::usual(&home)
            },
            skills: None,
            max_steps: None,
        },
    );
    let chat = chats
        .create(NewChat {
            origin: Some(Origin::Routine),
            ..Default::default()
        })
        .await
        .unwrap();
    chat.post("use the apps").await.unwrap();
    let end = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let log = chat.log.events_after(0).unwrap();
        if let Some(a) = log.iter().find_map(|e| match &e.body {
            Body::PermissionRequested(p) => Some(p.clone()),
            _ => None,
        }) {
            chat.answer(&a.ask, Answer::Deny, "owner".into()).await.ok();
        }
        if log.iter().any(|e| matches!(e.body, Body::TurnEnded(_))) {
            break;
        }
        assert!(std::time::Instant::now() < end, "{log:#?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = chat.log.events_after(0).unwrap();
    // Codex was offered the app's tools that are on, in its namespace, and
    // not the one turned off.
    let ns = server.requests()[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "mcp__everything")
        .cloned()
        .unwrap();
    let offered: Vec<&str> = ns["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(offered.contains(&"echo"), "{offered:?}");
    assert!(offered.contains(&"toggle_simulated_logging"), "{offered:?}");
    assert!(!offered.contains(&"get_sum"), "{offered:?}");
    // The read ran through the relay and marked the chat by its one name.
    let echo = server.output_of("c1").unwrap();
    assert!(echo.contains("Echo: Grüße von Zoë"), "{echo}");
    assert!(
        log.iter().any(|e| matches!(&e.body,
            Body::Taint(t) if t.source == protocol::MarkSource::Integration && t.what == "everything.echo")),
        "{log:#?}"
    );
    // Off isn't there to call.
    let sum = server.output_of("c2").unwrap();
    assert!(sum.contains("unsupported call"), "{sum}");
    // The write after reading asked, through the hook, and didn't run when
    // the owner said no.
    let asked = log
        .iter()
        .find_map(|e| match &e.body {
            Body::PermissionRequested(p) => Some(p.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(asked.tool, "mcp__everything__toggle_simulated_logging");
    assert!(
        asked
            .why
            .iter()
            .any(|w| w == "after-reading.integration-write"),
        "{:?}",
        asked.why
    );
    let out = server.output_of("c3").unwrap();
    assert!(out.contains("blocked by PreToolUse hook"), "{out}");
    apps.shutdown().await;
}
