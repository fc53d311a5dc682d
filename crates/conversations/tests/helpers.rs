//! Helpers: holds and marks flow down when a helper starts, and what it used
//! and read flows back up with its result; what it was handed doesn't.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use conversations::{Chat, Chats, ChatsConfig, Durability, Home, NewChat};
use engines::{Chunk, ScriptedEngine};
use protocol::{Answer, Body, Event, MarkSource, Mode, Origin, SkillBy};
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

fn call(id: &str, name: &str, input: serde_json::Value) -> Chunk {
    Chunk::ToolCall {
        id: id.into(),
        name: name.into(),
        input,
    }
}

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

#[tokio::test]
async fn holds_and_marks_flow_down_and_what_the_helper_did_flows_up() {
    let engine = Arc::new(ScriptedEngine::new([
        // The parent hands the task over.
        vec![call("d1", "delegate", json!({ "task": "Tidy the notes" }))],
        // The helper: loads a skill, then runs a command that downloads.
        vec![call("h1", "use_skill", json!({ "name": "weekly-review" }))],
        vec![call(
            "h2",
            "run_command",
            json!({ "command": "echo https://dl.invalid/tool" }),
        )],
        vec![Chunk::Text("Notes tidied.".into())],
        // The parent again.
        vec![Chunk::Text("The helper tidied them.".into())],
    ]));
    let dir = tempfile::tempdir().unwrap();
    let home = Home::open(&dir.path().join("home")).unwrap();
    write_skill(
        home.root(),
        "quick-setup",
        "permissions:\n  commands: [git, echo]\n",
    );
    write_skill(
        home.root(),
        "weekly-review",
        "permissions:\n  commands: [echo]\n",
    );
    let catalog = Arc::new(skills::Catalog {
        conch_home: home.root().to_path_buf(),
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
    let parent = chats.create(NewChat::default()).await.unwrap();
    // The parent is held to Quick setup and has read something.
    parent
        .log
        .append(Body::Taint(protocol::Taint {
            source: MarkSource::Page,
            what: "news.example".into(),
            call: None,
            says: None,
            from: None,
            path: None,
        }))
        .await
        .unwrap();
    parent
        .post("/quick-setup and tidy the notes")
        .await
        .unwrap();

    // The helper appears, asks (nobody is there in a helper's chat), and is answered.
    let helper = loop {
        if let Some(h) = chats.children(&parent.id).into_iter().next() {
            break h;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let events = until(&helper, |ev| {
        ev.iter()
            .any(|e| matches!(&e.body, Body::PermissionRequested(p) if p.call == "h2"))
    })
    .await;
    let created = helper.log.view().created.unwrap();
    assert_eq!(
        (created.origin, created.parent.as_deref()),
        (Origin::Task, Some(parent.id.as_str()))
    );
    let handed: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            Body::SkillUsed(u) if u.by == SkillBy::Carried => Some(u.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(handed.len(), 1);
    assert_eq!(handed[0].skill, "quick-setup");
    assert_eq!(handed[0].from.as_deref(), Some(parent.id.as_str()));
    assert_eq!(
        handed[0].says.as_deref(),
        Some("Held to the quick-setup skill, like the chat it came from")
    );
    assert_eq!(
        handed[0].permissions.as_ref().unwrap().commands,
        ["git", "echo"]
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.body, Body::Taint(t) if t.source == MarkSource::Carried)),
        "as marked as its parent"
    );
    let q = events
        .iter()
        .find_map(|e| match &e.body {
            Body::PermissionRequested(p) if p.call == "h2" => Some(p.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        q.why.contains(&"nobody-there.waits".to_string()),
        "{:?}",
        q.why
    );
    // While the helper ran, the owner stopped Quick setup in the parent.
    parent
        .log
        .append(Body::SkillHoldEnded(protocol::SkillHoldEnded {
            skill: "quick-setup".into(),
            reason: "you".into(),
        }))
        .await
        .unwrap();
    helper
        .answer(&q.ask, Answer::Once, "owner".into())
        .await
        .unwrap();

    let events = until(&parent, |ev| {
        ev.iter().any(|e| matches!(e.body, Body::TurnEnded(_)))
    })
    .await;
    let result = events
        .iter()
        .find_map(|e| match &e.body {
            Body::ToolFinished(f) if f.call == "d1" => Some(f.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(result.output, "Notes tidied.");
    let detail = result.detail.clone().unwrap();
    assert_eq!(detail["add_holds"], serde_json::json!(["weekly-review"]));
    assert_eq!(detail["helper"], serde_json::json!(helper.id));
    assert!(
        detail["marks"][0]
            .as_str()
            .is_some_and(|m| m.contains("dl.invalid")),
        "{detail:?}"
    );
    let back: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            Body::SkillUsed(u) if u.by == SkillBy::Carried => Some(u.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(back.len(), 1, "only what the helper used itself comes back");
    assert_eq!(back[0].skill, "weekly-review");
    assert_eq!(back[0].from.as_deref(), Some(helper.id.as_str()));
    assert_eq!(
        back[0].says.as_deref(),
        Some("A helper used the weekly-review skill, so this chat is held to it too")
    );
    let holds: Vec<String> = parent
        .log
        .view()
        .holds
        .iter()
        .map(|h| h.skill.clone())
        .collect();
    assert_eq!(holds, ["weekly-review"], "the stopped hold stays stopped");
    assert!(
        parent
            .log
            .view()
            .marks
            .iter()
            .any(|m| m.source == MarkSource::Carried && m.what.contains("dl.invalid")),
        "what it read came back"
    );
}
