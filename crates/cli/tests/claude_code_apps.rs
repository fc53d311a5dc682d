//! The owner's apps offered to the real Claude Code (2.1.332, from npm) as
//! MCP servers: each app is Conch's own binary relaying to it (`conch apps
//! relay`), so the server runs as Conch runs it, and every
//! `mcp__server__tool` call passes the hook and the guard. The app is the
//! real server-everything over stdio; the model is scripted on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "claude_code/model.rs"]
mod model;
#[path = "claude_code/rig.rs"]
mod rig;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use apps::catalog;
use apps::file::{self, Reach};
use apps::{Apps, AppsConfig, Choice};
use conversations::{Chats, ChatsConfig, Durability, GuardConfig, Home, NoTools};
use engines::claude_code::ClaudeCode;
use model::{tool, Model};
use protocol::{Answer, Body, Mode, Origin};
use rig::{asked, ended, until};
use serde_json::json;

fn everything() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(
            "../apps/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        )
        .to_string_lossy()
        .into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_gets_the_apps_and_the_guard_holds_for_them() {
    apps_and_the_guard(false).await;
}

/// The same with Claude Code in the box, where Conch's folder isn't: each
/// relay is started by Conch outside the box and piped to it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_box_claude_code_gets_the_apps_and_the_guard_holds_for_them() {
    apps_and_the_guard(true).await;
}

async fn apps_and_the_guard(boxed: bool) {
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

    let model = Model::start().await;
    let engine = Arc::new(ClaudeCode::new(rig::config(home.root(), &model)));
    let chats = Chats::new(
        home.clone(),
        engine,
        Arc::new(apps::WithApps {
            inner: if boxed {
                Arc::new(rig::BoxedTools::new(home.root()))
            } else {
                Arc::new(NoTools)
            },
            apps: apps.clone(),
        }),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.clone(),
            default_mode: Mode::Full,
            policies: Default::default(),
            guard: GuardConfig {
                switches: Some(Arc::new(conversations::safety::Switches::new(
                    &conversations::Safety {
                        engines_in_box: boxed,
                        ..Default::default()
                    },
                ))),
                ..GuardConfig::usual(&home)
            },
            skills: None,
            max_steps: None,
        },
    );
    model.script(
        "apps-run",
        vec![
            tool("mcp__everything__echo", json!({"message": "Grüße von Zoë"})),
            tool("mcp__everything__get_sum", json!({"a": 1, "b": 2})),
            tool("mcp__everything__toggle_simulated_logging", json!({})),
        ],
    );
    // Full trust, nobody there: the write after reading waits for the owner.
    let chat = chats
        .create(conversations::NewChat {
            origin: Some(Origin::Routine),
            ..Default::default()
        })
        .await
        .unwrap();
    chat.post("apps-run").await.unwrap();
    let first = rig::until_within(&chat, 0, asked, Duration::from_secs(120)).await;
    let Body::PermissionRequested(ask) = &first.body else {
        unreachable!()
    };
    let log = chat.log.events_after(0).unwrap();
    assert_eq!(
        ask.tool, "mcp__everything__toggle_simulated_logging",
        "{log:#?}"
    );
    assert!(
        ask.why
            .iter()
            .any(|w| w == "after-reading.integration-write"),
        "{:?}",
        ask.why
    );
    chat.answer(&ask.ask, Answer::Deny, "owner".into())
        .await
        .unwrap();
    until(&chat, first.seq, ended).await;
    let log = chat.log.events_after(0).unwrap();

    let finished = |tool: &str| -> Vec<protocol::ToolFinished> {
        let ids: Vec<String> = log
            .iter()
            .filter_map(|e| match &e.body {
                Body::ToolCalled(c) if c.tool == tool => Some(c.call.clone()),
                _ => None,
            })
            .collect();
        log.iter()
            .filter_map(|e| match &e.body {
                Body::ToolFinished(f) if ids.contains(&f.call) => Some(f.clone()),
                _ => None,
            })
            .collect()
    };
    // The read ran through the relay and marked the chat by its one name.
    let echo = finished("mcp__everything__echo");
    assert!(
        echo.iter()
            .any(|f| f.ok && f.output.contains("Grüße von Zoë")),
        "{echo:?}\n{log:#?}"
    );
    assert!(
        log.iter().any(|e| matches!(&e.body,
            Body::Taint(t) if t.source == protocol::MarkSource::Integration && t.what == "everything.echo")),
        "{log:#?}"
    );
    // Off was refused: never offered, and refused if called anyway.
    let sum = finished("mcp__everything__get_sum");
    assert!(!sum.is_empty() && sum.iter().all(|f| !f.ok), "{sum:?}");
    // The owner said no to the write: it didn't run.
    let toggle = finished("mcp__everything__toggle_simulated_logging");
    assert!(toggle.iter().all(|f| !f.ok), "{toggle:?}");
    // Claude Code was offered the apps' tools that are on, and not Off's.
    let offered: Vec<String> = model
        .requests()
        .iter()
        .flat_map(|r| r["tools"].as_array().cloned().unwrap_or_default())
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    assert!(
        offered.iter().any(|n| n == "mcp__everything__echo"),
        "{offered:?}"
    );
    assert!(
        !offered.iter().any(|n| n == "mcp__everything__get_sum"),
        "{offered:?}"
    );
    apps.shutdown().await;
}

/// The relay Claude Code starts runs with Claude Code's own HOME; the box
/// its app runs in must still hide the person's keys, found from the
/// person's home folder (a greedy server reaching for one gets nothing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_relays_box_hides_the_persons_keys() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let person = root.join("person");
    std::fs::create_dir_all(person.join(".ssh")).unwrap();
    let key = person.join(".ssh/id_ed25519");
    std::fs::write(&key, "canary-relay-key-19c").unwrap();
    // This process is the gateway here: its HOME is the person's. (One
    // test a process under nextest, so nothing else reads it meanwhile.)
    std::env::set_var("HOME", &person);
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let home = Home::open(&root.join("home")).unwrap();
    let greedy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../apps/tests/npm/greedy-server.mjs");
    file::update(home.root(), |f| {
        catalog::add(
            f,
            "greedy",
            Reach::Stdio {
                command: "node".into(),
                args: vec![greedy.to_string_lossy().into_owned()],
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
    let model = Model::start().await;
    let engine = Arc::new(ClaudeCode::new(rig::config(home.root(), &model)));
    let chats = Chats::new(
        home.clone(),
        engine,
        Arc::new(apps::WithApps {
            inner: Arc::new(NoTools),
            apps: apps.clone(),
        }),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.clone(),
            default_mode: Mode::Full,
            policies: Default::default(),
            // The relay's own box, with Claude Code outside Conch's.
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
    model.script(
        "greedy-run",
        vec![tool(
            "mcp__greedy__read",
            json!({"path": key.to_string_lossy()}),
        )],
    );
    let chat = chats
        .create(conversations::NewChat::default())
        .await
        .unwrap();
    chat.post("greedy-run").await.unwrap();
    let end = rig::until_within(&chat, 0, ended, Duration::from_secs(120)).await;
    let log = chat.log.events_after(0).unwrap();
    let read: Vec<&protocol::ToolFinished> = log
        .iter()
        .filter_map(|e| match &e.body {
            Body::ToolFinished(f) => Some(f),
            _ => None,
        })
        .collect();
    assert_eq!(read.len(), 1, "{end:?}\n{log:#?}");
    assert!(!read[0].output.contains("canary"), "{log:#?}");
    assert!(read[0].output.contains("failed"), "{log:#?}");
    apps.shutdown().await;
}
