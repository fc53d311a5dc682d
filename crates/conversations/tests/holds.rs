//! Skill holds in a real chat: the record's example, widening and deleting a
//! skill after it was used, stopping a hold, and compaction leaving holds.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use conversations::{Chat, Chats, ChatsConfig, Durability, Home, NewChat};
use engines::{Chunk, ScriptedEngine};
use protocol::{Body, Event, Mode};
use serde_json::json;
use tools::{Tools, ToolsConfig};

fn write_skill(home: &Path, name: &str, front: &str) {
    let dir = home.join("skills").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: d\n{front}---\nDo the {name} steps.\n"),
    )
    .unwrap();
}

struct World {
    _dir: tempfile::TempDir,
    home: std::path::PathBuf,
    chats: Arc<Chats>,
}

fn world(engine: Arc<ScriptedEngine>) -> World {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::open(&dir.path().join("home")).unwrap();
    let root = home.root().to_path_buf();
    write_skill(&root, "quick-setup", "permissions:\n  commands: [git]\n");
    write_skill(
        &root,
        "weekly-review",
        "permissions:\n  files: read\n  web: read\n",
    );
    let catalog = Arc::new(skills::Catalog {
        conch_home: root.clone(),
        person_home: None,
        project: None,
    });
    let chats = Chats::new(
        home,
        engine,
        Arc::new(Tools::new(ToolsConfig {
            skills: Some(catalog.clone()),
            ..ToolsConfig::default()
        })),
        ChatsConfig {
            durability: Durability::Group,
            default_work: dir.path().to_path_buf(),
            default_mode: Mode::Full,
            policies: Default::default(),
            guard: Default::default(),
            skills: Some(catalog),
            max_steps: None,
        },
    );
    World {
        _dir: dir,
        home: root,
        chats,
    }
}

fn command(id: &str, c: &str) -> Chunk {
    Chunk::ToolCall {
        id: id.into(),
        name: "run_command".into(),
        input: json!({ "command": c }),
    }
}

async fn turns(chat: &Chat, n: usize) -> Vec<Event> {
    let mut follow = chat.log.follow();
    loop {
        let events = chat.log.events_after(0).unwrap();
        if events
            .iter()
            .filter(|e| matches!(e.body, Body::TurnEnded(_)))
            .count()
            >= n
        {
            return events;
        }
        if tokio::time::timeout(Duration::from_secs(10), follow.recv())
            .await
            .is_err()
        {
            panic!(
                "stuck: {:#?}",
                events.iter().map(|e| e.to_line()).collect::<Vec<_>>()
            );
        }
    }
}

async fn question(chat: &Chat, call: &str) -> protocol::PermissionRequested {
    let mut follow = chat.log.follow();
    loop {
        if let Some(q) = asked(&chat.log.events_after(0).unwrap(), call) {
            return q;
        }
        tokio::time::timeout(Duration::from_secs(10), follow.recv())
            .await
            .expect("the question comes")
            .ok();
    }
}

fn asked(events: &[Event], call: &str) -> Option<protocol::PermissionRequested> {
    events.iter().find_map(|e| match &e.body {
        Body::PermissionRequested(p) if p.call == call => Some(p.clone()),
        _ => None,
    })
}

#[tokio::test]
async fn git_log_with_quick_setup_and_weekly_review_held_asks() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "git log --oneline")],
        vec![Chunk::Text("ok".into())],
        vec![command("c2", "git log --oneline")],
        vec![Chunk::Text("ok".into())],
    ]));
    let w = world(engine);
    let chat = w.chats.create(NewChat::default()).await.unwrap();
    chat.post("/quick-setup").await.unwrap();
    let events = turns(&chat, 1).await;
    assert!(
        asked(&events, "c1").is_none(),
        "Quick setup alone: git log runs, even unsealed in Full trust"
    );
    chat.post("/weekly-review").await.unwrap();
    let q = question(&chat, "c2").await;
    assert!(q.why.contains(&"hold.off-list".to_string()));
    assert_eq!(q.always, None);
    assert!(q.note.unwrap().contains("\"weekly-review\" skill"));
    chat.answer(&q.ask, protocol::Answer::Deny, "owner".into())
        .await
        .unwrap();
    turns(&chat, 2).await;
}

#[tokio::test]
async fn widening_or_deleting_a_skill_after_it_was_used_changes_nothing() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::Text("ok".into())],
        vec![command("c1", "curl -s https://example.com")],
        vec![Chunk::Text("ok".into())],
        vec![command("c2", "curl -s https://example.com")],
        vec![Chunk::Text("ok".into())],
    ]));
    let w = world(engine);
    let chat = w.chats.create(NewChat::default()).await.unwrap();
    chat.post("/quick-setup").await.unwrap();
    turns(&chat, 1).await;
    // Widened after it came in: the chat stays held to the list it was reviewed under.
    write_skill(
        &w.home,
        "quick-setup",
        "permissions:\n  commands: [\"*\"]\n",
    );
    chat.post("fetch it").await.unwrap();
    let q = question(&chat, "c1").await;
    assert!(q.why.contains(&"hold.off-list".to_string()));
    chat.answer(&q.ask, protocol::Answer::Deny, "owner".into())
        .await
        .unwrap();
    turns(&chat, 2).await;
    // Deleted: still the recorded list.
    std::fs::remove_dir_all(w.home.join("skills/quick-setup")).unwrap();
    chat.post("again").await.unwrap();
    let q = question(&chat, "c2").await;
    assert!(q.why.contains(&"hold.off-list".to_string()));
    chat.answer(&q.ask, protocol::Answer::Deny, "owner".into())
        .await
        .unwrap();
    turns(&chat, 3).await;
}

#[tokio::test]
async fn stopping_a_hold_and_what_doesnt_end_one() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::Text("ok".into())],
        vec![command("c1", "curl -s https://example.com")],
        vec![Chunk::Text("ok".into())],
    ]));
    let w = world(engine);
    let chat = w.chats.create(NewChat::default()).await.unwrap();
    chat.post("/weekly-review").await.unwrap();
    turns(&chat, 1).await;
    // A compaction leaves every hold in place.
    chat.log
        .append(Body::Compacted(protocol::Compacted {
            summary: "earlier turns".into(),
            through: 3,
        }))
        .await
        .unwrap();
    assert_eq!(chat.log.view().holds.len(), 1);
    assert!(chat
        .stop_holding("nope")
        .await
        .unwrap_err()
        .to_string()
        .contains("isn't held"));
    chat.stop_holding("weekly-review").await.unwrap();
    assert!(chat.log.view().holds.is_empty());
    let events = chat.log.events_after(0).unwrap();
    assert!(events.iter().any(|e| matches!(&e.body, Body::SkillHoldEnded(h) if h.skill == "weekly-review" && h.reason == "you")));
    chat.post("now fetch it").await.unwrap();
    let events = turns(&chat, 2).await;
    assert!(
        asked(&events, "c1").is_none(),
        "no hold, Full trust: it runs"
    );
}
