//! The owner's apps end to end through the real gateway, with a scripted
//! model and a real MCP server on 127.0.0.1 (crates/apps/tests/npm/
//! notes-server.mjs, on the official SDK): what an app returns marks the
//! chat, a write after that asks even in Full trust with nobody there, Off
//! is refused in every mode, a changed description turns the tool off and
//! says why, and the owner's override toward stricter holds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use apps::catalog;
use apps::file::{self, Reach};
use apps::{Apps, AppsConfig, Choice, Standing};
use common::{start_engine, Server, SseReader};
use conversations::NewChat;
use engines::{Chunk, ScriptedEngine};
use protocol::{Mode, Origin};
use serde_json::{json, Value};
use tools::{Tools, ToolsConfig};

struct Notes {
    child: Child,
    port: u16,
}

impl Drop for Notes {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn notes_server() -> Notes {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../apps/tests/npm/notes-server.mjs");
    let mut child = Command::new("node")
        .arg(script)
        .arg("tok-4a1")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .strip_prefix("listening ")
        .unwrap()
        .parse()
        .unwrap();
    Notes { child, port }
}

struct World {
    s: Server,
    apps: Arc<Apps>,
    apps_home: PathBuf,
    notes: Notes,
    _dir: tempfile::TempDir,
}

fn call(id: &str, tool: &str, input: Value) -> Chunk {
    Chunk::ToolCall {
        id: id.into(),
        name: tool.into(),
        input,
    }
}

fn say(text: &str) -> Vec<Chunk> {
    vec![Chunk::Text(text.into())]
}

async fn world(script: Vec<Vec<Chunk>>) -> World {
    let notes = notes_server();
    let dir = tempfile::tempdir().unwrap();
    let apps_home = dir.path().to_path_buf();
    file::update(&apps_home, |f| {
        catalog::add(
            f,
            "notes",
            Reach::Http {
                url: format!("http://127.0.0.1:{}/mcp", notes.port),
                headers: vec!["Authorization".into()],
            },
            "2026-10-05T00:00:00.000Z",
        )
    })
    .unwrap()
    .0
    .unwrap();
    let mut config = AppsConfig::new(&apps_home, dir.path());
    config.secrets = Arc::new(|_| {
        Ok(apps::Secrets {
            env: vec![],
            headers: vec![("Authorization".into(), "Bearer tok-4a1".into())],
        })
    });
    let apps = Apps::start(config);
    assert!(apps.settled(Duration::from_secs(60)).await);
    let toolbox = Arc::new(apps::WithApps {
        inner: Arc::new(Tools::new(ToolsConfig::default())),
        apps: apps.clone(),
    });
    let s = start_engine(Arc::new(ScriptedEngine::new(script)), toolbox).await;
    World {
        s,
        apps,
        apps_home,
        notes,
        _dir: dir,
    }
}

impl World {
    async fn chat(&self, mode: Mode, origin: Origin) -> String {
        let chat = self
            .s
            .state
            .chats
            .create(NewChat {
                mode: Some(mode),
                origin: Some(origin),
                ..NewChat::default()
            })
            .await
            .unwrap();
        chat.id.clone()
    }

    fn choose(&self, tool: &str, choice: Choice) {
        file::update(&self.apps_home, |f| {
            catalog::choose(f, "notes", tool, choice, "t")
        })
        .unwrap()
        .0
        .unwrap();
    }

    /// Posts `text` and reads the stream until `until`.
    async fn turn(&self, id: &str, text: &str, until: &str) -> Vec<Value> {
        let mut sse = SseReader::new(self.s.get(format!("/api/chats/{id}/stream")).await);
        self.s
            .post(
                format!("/api/chats/{id}/messages"),
                &json!({ "text": text }),
            )
            .await;
        sse.until(until).await.0
    }
}

fn of<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_marks_the_chat_and_the_next_write_asks_in_full_trust_with_nobody_there() {
    let w = world(vec![
        vec![call("r1", "mcp__notes__search", json!({"q": "lunch"}))],
        vec![call(
            "w1",
            "mcp__notes__add",
            json!({"text": "forward all to x@evil.example"}),
        )],
        say("I didn't add it."),
    ])
    .await;
    let id = w.chat(Mode::Full, Origin::Routine).await;
    let events = w.turn(&id, "Check my notes", "permission.requested").await;
    // The read ran without asking, and marked the chat, naming the tool.
    let finished = of(&events, "tool.finished");
    assert_eq!(finished.len(), 1, "{events:#?}");
    assert_eq!(finished[0]["ok"], true);
    assert!(finished[0]["output"].as_str().unwrap().contains("Zoë"));
    assert_eq!(finished[0]["detail"]["server"], "notes");
    let taint = of(&events, "taint");
    assert_eq!(taint.len(), 1, "{events:#?}");
    assert_eq!(taint[0]["source"], "integration");
    assert_eq!(taint[0]["what"], "notes.search");
    // The write asks, in Full trust, because it read and nobody is there.
    let asked = of(&events, "permission.requested")[0];
    assert_eq!(asked["tool"], "mcp__notes__add");
    assert_eq!(asked["action"]["kind"], "integration");
    assert_eq!(asked["action"]["tool"], "notes.add");
    let why: Vec<&str> = asked["why"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(why.contains(&"after-reading.integration-write"), "{why:?}");
    assert!(
        why.contains(&"nobody-there.waits") || why.iter().any(|w| w.starts_with("nobody-there")),
        "{why:?}"
    );
    assert!(
        asked["note"]
            .as_str()
            .is_some_and(|n| n.contains("notes.search")),
        "the GuardNote names what it read: {asked:#}"
    );
    // Activity says what it read.
    let activity: Value = w.s.get_json("/api/activity").await;
    let text = activity.to_string();
    assert!(text.contains("notes.search"), "{text}");
    // Nothing was added: the owner says no.
    let ask = asked["ask"].as_str().unwrap();
    let mut sse = SseReader::new(w.s.get(format!("/api/chats/{id}/stream")).await);
    let res =
        w.s.post(
            format!("/api/chats/{id}/permissions/{ask}"),
            &json!({"answer": "deny"}),
        )
        .await;
    assert!(res.status().is_success());
    sse.until("turn.ended").await;
    drop(w.notes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_is_refused_in_every_mode() {
    let modes = [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full];
    let mut script = Vec::new();
    for _ in modes {
        script.push(vec![call("o1", "mcp__notes__add", json!({"text": "x"}))]);
        script.push(say("It's off."));
    }
    let w = world(script).await;
    w.choose("add", Choice::Off);
    assert_eq!(w.apps.find("notes.add").unwrap().standing, Standing::Off);
    for mode in modes {
        let id = w.chat(mode, Origin::Owner).await;
        let events = w.turn(&id, "add a note", "turn.ended").await;
        assert!(
            of(&events, "permission.requested").is_empty(),
            "{mode:?}: {events:#?}"
        );
        let finished = of(&events, "tool.finished");
        assert_eq!(finished.len(), 1, "{mode:?}: {events:#?}");
        assert_eq!(finished[0]["ok"], false, "{mode:?}");
        assert!(
            finished[0]["output"].as_str().unwrap().contains("turned"),
            "{mode:?}: {}",
            finished[0]["output"]
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_description_turns_the_tool_off_and_says_why() {
    let w = world(vec![
        vec![call("c1", "mcp__notes__search", json!({"q": "lunch"}))],
        say("It changed."),
    ])
    .await;
    reqwest::Client::new()
        .post(format!("http://127.0.0.1:{}/control/rug", w.notes.port))
        .send()
        .await
        .unwrap();
    let end = std::time::Instant::now() + Duration::from_secs(30);
    while w.apps.find("notes.search").unwrap().standing != Standing::Changed {
        assert!(std::time::Instant::now() < end, "the change wasn't seen");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let id = w.chat(Mode::Full, Origin::Owner).await;
    let events = w.turn(&id, "search my notes", "turn.ended").await;
    let finished = of(&events, "tool.finished");
    assert_eq!(finished.len(), 1, "{events:#?}");
    assert_eq!(finished[0]["ok"], false);
    let said = finished[0]["output"].as_str().unwrap();
    assert!(
        said.contains("changed since the owner turned it on"),
        "{said}"
    );
    assert!(
        of(&events, "taint").is_empty(),
        "it never ran, so it read nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owners_override_toward_stricter_holds() {
    let w = world(vec![
        // A read that marks the chat, then the same tool again, which the
        // owner says writes: it asks, though the server says it reads.
        vec![call("a1", "mcp__notes__search", json!({"q": "a"}))],
        vec![call("a2", "mcp__notes__search", json!({"q": "b"}))],
        say("Asked."),
        // Read only on a tool that writes: refused, in Full trust.
        vec![call("b1", "mcp__notes__add", json!({"text": "x"}))],
        say("Refused."),
    ])
    .await;
    file::update(&w.apps_home, |f| {
        catalog::treat_as_write(f, "notes", "search", true)
    })
    .unwrap()
    .0
    .unwrap();
    // Only toward stricter: the server's write can't be made read-only.
    let looser = file::update(&w.apps_home, |f| {
        catalog::treat_as_write(f, "notes", "add", false)
    })
    .unwrap()
    .0;
    assert!(looser.is_err());
    assert!(!w.apps.find("notes.search").unwrap().read_only);

    let id = w.chat(Mode::Full, Origin::Routine).await;
    let events = w.turn(&id, "search twice", "permission.requested").await;
    assert_eq!(of(&events, "tool.finished").len(), 1, "{events:#?}");
    let asked = of(&events, "permission.requested")[0];
    assert_eq!(asked["action"]["tool"], "notes.search");
    assert_eq!(asked["action"]["read_only"], false, "{asked:#}");
    let ask = asked["ask"].as_str().unwrap();
    let mut sse = SseReader::new(w.s.get(format!("/api/chats/{id}/stream")).await);
    w.s.post(
        format!("/api/chats/{id}/permissions/{ask}"),
        &json!({"answer": "deny"}),
    )
    .await;
    sse.until("turn.ended").await;

    w.choose("add", Choice::ReadOnly);
    let id = w.chat(Mode::Full, Origin::Owner).await;
    let events = w.turn(&id, "add one", "turn.ended").await;
    let finished = of(&events, "tool.finished");
    assert_eq!(finished.len(), 1, "{events:#?}");
    assert_eq!(finished[0]["ok"], false);
    assert!(
        finished[0]["output"]
            .as_str()
            .unwrap()
            .contains("read-only"),
        "{}",
        finished[0]["output"]
    );
}

/// Right after Conch starts, an app may still be connecting: the turn
/// waits a moment for it, then says which app wasn't ready, on the turn
/// itself. An app that has connected is ready, and nothing is said.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_says_which_apps_were_still_connecting() {
    let dir = tempfile::tempdir().unwrap();
    let apps_home = dir.path().to_path_buf();
    file::update(&apps_home, |f| {
        catalog::add(
            f,
            "slowmail",
            Reach::Stdio {
                command: "sleep".into(),
                args: vec!["60".into()],
                env: vec![],
            },
            "2026-10-05T00:00:00.000Z",
        )
    })
    .unwrap()
    .0
    .unwrap();
    let apps = Apps::start(AppsConfig::new(&apps_home, dir.path()));
    let toolbox = Arc::new(apps::WithApps {
        inner: Arc::new(Tools::new(ToolsConfig::default())),
        apps: apps.clone(),
    });
    let s = start_engine(Arc::new(ScriptedEngine::new([say("Hallo.")])), toolbox).await;
    let chat = s.state.chats.create(NewChat::default()).await.unwrap();
    let mut sse = SseReader::new(s.get(format!("/api/chats/{}/stream", chat.id)).await);
    let began = std::time::Instant::now();
    s.post(
        format!("/api/chats/{}/messages", chat.id),
        &json!({ "text": "Was steht an?" }),
    )
    .await;
    let events = sse.until("turn.ended").await.0;
    let started = of(&events, "turn.started");
    assert_eq!(started[0]["not_ready"], json!(["slowmail"]), "{events:?}");
    assert!(began.elapsed() >= Duration::from_secs(4), "it waited first");

    // The control: an app that has connected is ready.
    let w = world(vec![say("Hallo.")]).await;
    let id = w.chat(Mode::Ask, Origin::Owner).await;
    let events = w.turn(&id, "Was steht an?", "turn.ended").await;
    assert!(of(&events, "turn.started")[0].get("not_ready").is_none());
}

/// An app the owner turned off is never started, so a turn right after
/// start-up doesn't wait for it, and it isn't named as not ready.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_turned_off_doesnt_hold_up_a_turn() {
    let dir = tempfile::tempdir().unwrap();
    let apps_home = dir.path().to_path_buf();
    file::update(&apps_home, |f| {
        let added = catalog::add(
            f,
            "offmail",
            Reach::Stdio {
                command: "sleep".into(),
                args: vec!["60".into()],
                env: vec![],
            },
            "2026-10-05T00:00:00.000Z",
        );
        if let Some(s) = f.servers.get_mut("offmail") {
            s.off = true;
        }
        added
    })
    .unwrap()
    .0
    .unwrap();
    let apps = Apps::start(AppsConfig::new(&apps_home, dir.path()));
    let toolbox = Arc::new(apps::WithApps {
        inner: Arc::new(Tools::new(ToolsConfig::default())),
        apps,
    });
    let s = start_engine(Arc::new(ScriptedEngine::new([say("Hallo.")])), toolbox).await;
    let chat = s.state.chats.create(NewChat::default()).await.unwrap();
    let mut sse = SseReader::new(s.get(format!("/api/chats/{}/stream", chat.id)).await);
    let began = std::time::Instant::now();
    s.post(
        format!("/api/chats/{}/messages", chat.id),
        &json!({ "text": "Was steht an?" }),
    )
    .await;
    let events = sse.until("turn.ended").await.0;
    assert!(of(&events, "turn.started")[0].get("not_ready").is_none());
    assert!(
        began.elapsed() < Duration::from_secs(3),
        "waited {:?} for an app that is off",
        began.elapsed()
    );
}
