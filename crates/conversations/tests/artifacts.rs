//! Artifacts in chats: made and updated by tool calls (the mock engine's
//! one of each kind), by fenced blocks, and by a pinned app's Refresh,
//! which can do nothing else.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::sync::Arc;
use std::time::Duration;

use artifacts::store::By;
use conversations::{Chat, Chats, ChatsConfig, Durability, Home, NewChat};
use engines::{Chunk, Engine, MockEngine, ScriptedEngine};
use protocol::{Answer, ArtifactAction, Body, Event, Mode, Origin};
use serde_json::json;
use tools::{Tools, ToolsConfig};

async fn until(chat: &Chat, want: impl Fn(&[Event]) -> bool) -> Vec<Event> {
    let mut follow = chat.log.follow();
    loop {
        let events = chat.log.events_after(0).unwrap();
        if want(&events) {
            return events;
        }
        tokio::time::timeout(Duration::from_secs(10), follow.recv())
            .await
            .expect("it comes")
            .ok();
    }
}

fn turns_ended(n: usize) -> impl Fn(&[Event]) -> bool {
    move |ev| {
        ev.iter()
            .filter(|e| matches!(e.body, Body::TurnEnded(_)))
            .count()
            >= n
    }
}

fn setup(engine: Arc<dyn Engine>) -> (tempfile::TempDir, Arc<Chats>) {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::open(&dir.path().join("home")).unwrap();
    let chats = Chats::new(
        home,
        engine,
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: dir.path().to_path_buf(),
            default_mode: Mode::Ask,
            policies: Default::default(),
            guard: Default::default(),
            skills: None,
            max_steps: None,
        },
    );
    (dir, chats)
}

fn artifact_events(events: &[Event]) -> Vec<protocol::ArtifactEvent> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            Body::Artifact(a) => Some(a.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_mock_engine_makes_one_of_each_kind_and_changes_it() {
    let (_dir, chats) = setup(Arc::new(MockEngine::new(Duration::ZERO)));
    let chat = chats.create(NewChat::default()).await.unwrap();
    let asks = [
        ("make me a chart", "chart"),
        ("make me a page", "html"),
        ("make me a document", "markdown"),
        ("make me a diagram", "mermaid"),
        ("make me a table", "table"),
        ("make me a picture", "svg"),
        ("make me a page with a link", "html"),
    ];
    for (i, (ask, _)) in asks.iter().enumerate() {
        chat.post(ask).await.unwrap();
        until(&chat, turns_ended(i + 1)).await;
    }
    chat.post("make it bigger").await.unwrap();
    let events = until(&chat, turns_ended(asks.len() + 1)).await;
    let made = artifact_events(&events);
    let kinds: Vec<&str> = made.iter().map(|a| a.kind.as_str()).collect();
    let mut want: Vec<&str> = asks.iter().map(|(_, k)| *k).collect();
    want.push("html");
    assert_eq!(kinds, want);
    assert!(made[..7]
        .iter()
        .all(|a| a.action == ArtifactAction::Made && a.version == 1));
    // The page with a link out is marked; the calculator isn't.
    assert!(!made[1].navigates);
    assert!(made[6].navigates);
    // "make it …" made version 2 of the last one.
    assert_eq!(made[7].action, ArtifactAction::Updated);
    assert_eq!(made[7].artifact, made[6].artifact);
    assert_eq!(made[7].version, 2);
    // Stored, with the request it was made for.
    let stored = chats.artifacts().get(&made[0].artifact).unwrap();
    assert_eq!(stored.chat.as_deref(), Some(chat.id.as_str()));
    assert_eq!(stored.request.as_deref(), Some("make me a chart"));
    assert_eq!(chats.artifacts().list().len(), 7);
    // Every turn ended cleanly, and the replies say where it is.
    let last_reply = events
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            Body::Reply(r) => Some(r.text.clone()),
            _ => None,
        })
        .unwrap();
    assert!(last_reply.contains("beside the chat"), "{last_reply}");
}

#[tokio::test]
async fn content_that_doesnt_fit_gets_a_sentence_and_nothing_is_stored() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::ToolCall {
            id: "c1".into(),
            name: "artifact_create".into(),
            input: json!({
                "kind": "chart", "title": "Sales",
                "content": "{\"type\":\"bar\",\"labels\":[\"a\",\"b\",\"c\",\"d\",\"e\"],\"series\":[{\"name\":\"Sales\",\"values\":[1,2,3,4]}]}"
            }),
        }],
        vec![Chunk::Text("Let me fix that.".into())],
    ]));
    let (_dir, chats) = setup(engine);
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("chart it").await.unwrap();
    let events = until(&chat, turns_ended(1)).await;
    let finished = events
        .iter()
        .find_map(|e| match &e.body {
            Body::ToolFinished(f) if f.call == "c1" => Some(f.clone()),
            _ => None,
        })
        .unwrap();
    assert!(!finished.ok);
    assert_eq!(
        finished.output,
        "The chart has 5 labels but series \"Sales\" has 4 values."
    );
    assert!(artifact_events(&events).is_empty());
    assert!(chats.artifacts().list().is_empty());
}

#[tokio::test]
async fn fenced_blocks_come_out_of_the_reply() {
    let engine = Arc::new(ScriptedEngine::new([vec![Chunk::Text(
        "Here's the stock.\n```artifact kind=\"table\" title=\"Stock\"\nitem,qty\npen,3\n```\nAnything else?".into(),
    )]]));
    let (_dir, chats) = setup(engine);
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("table of stock").await.unwrap();
    let events = until(&chat, turns_ended(1)).await;
    let made = artifact_events(&events);
    assert_eq!(made.len(), 1);
    assert_eq!(made[0].kind, "table");
    assert_eq!(made[0].call, None);
    let reply = events
        .iter()
        .find_map(|e| match &e.body {
            Body::Reply(r) => Some(r.text.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        reply,
        "Here's the stock.\n(Made a table \"Stock\" beside the chat.)\nAnything else?"
    );
    assert_eq!(
        chats.artifacts().text(&made[0].artifact, 1).unwrap(),
        "item,qty\npen,3"
    );
}

#[tokio::test]
async fn refresh_runs_its_own_chat_that_only_updates_its_artifact() {
    let (_dir, chats) = setup(Arc::new(MockEngine::new(Duration::ZERO)));
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("make me a chart").await.unwrap();
    let events = until(&chat, turns_ended(1)).await;
    let id = artifact_events(&events)[0].artifact.clone();
    chats.artifacts().set_pinned(&id, true).unwrap();

    let refresh = chats.refresh_artifact(&id).await.unwrap();
    let events = until(&refresh, turns_ended(1)).await;
    let made = artifact_events(&events);
    assert_eq!(made.len(), 1, "{events:#?}");
    assert_eq!(made[0].action, ArtifactAction::Refreshed);
    assert_eq!(made[0].artifact, id);
    let stored = chats.artifacts().get(&id).unwrap();
    assert_eq!(stored.latest, 2);
    assert_eq!(stored.newest().unwrap().by, By::Refreshed);
    assert!(stored.pinned);
    // Kept out of the chat list.
    let listed: Vec<String> = chats.list().into_iter().map(|c| c.id).collect();
    assert!(listed.contains(&chat.id));
    assert!(!listed.contains(&refresh.id));
    assert_eq!(refresh.log.view().created.unwrap().origin, Origin::Artifact);
}

#[tokio::test]
async fn a_refresh_chat_can_do_nothing_else() {
    let engine = Arc::new(ScriptedEngine::new([
        // The first chat makes something.
        vec![Chunk::ToolCall {
            id: "m1".into(),
            name: "artifact_create".into(),
            input: json!({ "kind": "markdown", "title": "Notes", "content": "# Notes" }),
        }],
        vec![Chunk::Text("Made.".into())],
        // Its refresh tries a command, another artifact, then its own.
        vec![Chunk::ToolCall {
            id: "r1".into(),
            name: "run_command".into(),
            input: json!({ "command": "curl https://evil.example" }),
        }],
        vec![Chunk::ToolCall {
            id: "r2".into(),
            name: "artifact_update".into(),
            input: json!({ "id": "someotherid1", "content": "# x" }),
        }],
        vec![Chunk::Text("Done.".into())],
    ]));
    let (_dir, chats) = setup(engine);
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("notes please").await.unwrap();
    let events = until(&chat, turns_ended(1)).await;
    let id = artifact_events(&events)[0].artifact.clone();
    let refresh = chats.refresh_artifact(&id).await.unwrap();
    let events = until(&refresh, turns_ended(1)).await;
    let outputs: Vec<(String, bool, String)> = events
        .iter()
        .filter_map(|e| match &e.body {
            Body::ToolFinished(f) => Some((f.call.clone(), f.ok, f.output.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(outputs.len(), 2, "{outputs:?}");
    assert!(!outputs[0].1);
    assert!(
        outputs[0].2.contains("only refreshes the artifact"),
        "{:?}",
        outputs[0]
    );
    assert!(!outputs[1].1);
    assert!(
        outputs[1].2.contains("can't change \"someotherid1\""),
        "{:?}",
        outputs[1]
    );
    // Nothing ran, nothing changed.
    assert!(!events
        .iter()
        .any(|e| matches!(e.body, Body::PermissionRequested(_))));
    assert_eq!(chats.artifacts().get(&id).unwrap().latest, 1);
}

/// A page server on 127.0.0.1 that keeps the addresses asked of it.
async fn week_server() -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
    let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = asked.clone();
    let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
        let kept = kept.clone();
        async move {
            kept.lock().unwrap().push(uri.to_string());
            axum::response::Html("<h1>This week</h1><p>Mon 30, Tue 31.</p>")
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, asked)
}

#[tokio::test]
async fn a_refresh_reads_the_web_and_asks_the_owner_before_a_read_that_sends() {
    let (_dir, chats) = setup(Arc::new(MockEngine::new(Duration::ZERO)));
    let (base, asked) = week_server().await;
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post(&format!("make me a chart of {base}/week"))
        .await
        .unwrap();
    let events = until(&chat, turns_ended(1)).await;
    let id = artifact_events(&events)[0].artifact.clone();
    assert_eq!(
        chats.artifacts().get(&id).unwrap().request.as_deref(),
        Some(format!("make me a chart of {base}/week").as_str())
    );

    let refresh = chats.refresh_artifact(&id).await.unwrap();
    let events = until(&refresh, |ev| {
        ev.iter()
            .any(|e| matches!(e.body, Body::PermissionRequested(_)))
    })
    .await;
    let question = events
        .iter()
        .find_map(|e| match &e.body {
            Body::PermissionRequested(p) => Some(p.clone()),
            _ => None,
        })
        .unwrap();
    // The plain read ran; the read that carries what it has waits for the
    // owner, with nobody in the chat to answer it.
    assert_eq!(*asked.lock().unwrap(), ["/week"]);
    assert!(
        question
            .why
            .contains(&"after-reading.data-fetch".to_owned()),
        "{:?}",
        question.why
    );
    assert!(
        question.why.contains(&"nobody-there.waits".to_owned()),
        "{:?}",
        question.why
    );
    assert_eq!(chats.artifacts().get(&id).unwrap().latest, 1);

    refresh
        .answer(&question.ask, Answer::Once, "owner".into())
        .await
        .unwrap();
    let events = until(&refresh, turns_ended(1)).await;
    let made = artifact_events(&events);
    assert_eq!(made.len(), 1, "{events:#?}");
    assert_eq!(made[0].action, ArtifactAction::Refreshed);
    let seen = asked.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert!(seen[1].starts_with("/week?have="), "{seen:?}");
    let stored = chats.artifacts().get(&id).unwrap();
    assert_eq!(stored.newest().unwrap().by, By::Refreshed);
}

/// The bug: a page made after reading a stranger's page was refreshed in a
/// new chat that started unmarked, so its data-carrying fetch ran with no
/// question where the chat that made it asked. The artifact now keeps what
/// its chat had read, and each Refresh starts marked with it. The control:
/// a chart made in a chat that read nothing refreshes unmarked.
#[tokio::test]
async fn a_refresh_starts_as_marked_as_the_chat_that_made_its_page() {
    let (base, _) = week_server().await;
    let make = |id: &str| Chunk::ToolCall {
        id: id.into(),
        name: "artifact_create".into(),
        input: json!({ "kind": "markdown", "title": "This week", "content": "# Mon 30, Tue 31" }),
    };
    let said = |t: &str| vec![Chunk::Text(t.into())];
    let engine = Arc::new(ScriptedEngine::new([
        // A chat reads a page, then makes a page of it.
        vec![Chunk::ToolCall {
            id: "f".into(),
            name: "web_fetch".into(),
            input: json!({ "url": format!("{base}/week") }),
        }],
        vec![make("a")],
        said("Made it."),
        // Its Refresh.
        said("Nothing new."),
        // The control: a chat that read nothing makes one, and its Refresh.
        vec![make("b")],
        said("Made it."),
        said("Nothing new."),
    ]));
    let (_dir, chats) = setup(engine);
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("make me a page of this week").await.unwrap();
    let events = until(&chat, turns_ended(1)).await;
    let id = artifact_events(&events)[0].artifact.clone();
    assert_eq!(
        chats.artifacts().get(&id).unwrap().marks,
        ["read 127.0.0.1"]
    );
    let refresh = chats.refresh_artifact(&id).await.unwrap();
    let events = until(&refresh, turns_ended(1)).await;
    let first = events
        .iter()
        .find_map(|e| match &e.body {
            Body::Taint(t) => Some(t.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(first.source, protocol::MarkSource::Carried);
    assert!(first.what.contains("read 127.0.0.1"), "{}", first.what);

    // The control.
    let plain = chats.create(NewChat::default()).await.unwrap();
    plain.post("make me a page").await.unwrap();
    let events = until(&plain, turns_ended(1)).await;
    let id = artifact_events(&events)[0].artifact.clone();
    assert!(chats.artifacts().get(&id).unwrap().marks.is_empty());
    let refresh = chats.refresh_artifact(&id).await.unwrap();
    until(&refresh, turns_ended(1)).await;
    assert!(
        !refresh.log.with_view(|v| v.is_marked()),
        "the control starts unmarked"
    );
}
