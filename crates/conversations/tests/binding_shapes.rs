//! Approvals are bound to what will run, in every shape the shell runs a
//! file: `cd` before it, the command's own `PATH=`, an exported PATH, an
//! interpreter's options that take a value, `sh < file`, `"$PWD"/x`, `./x`.
//! For each, the file changes while the question waits, the owner says
//! yes, and the changed file doesn't run without a new question
//! (`bind.changed`). A command that can't be pinned down is approved this
//! once, with no "always" offered.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use conversations::{Chat, Chats, ChatsConfig, Durability, GuardConfig, Home, NewChat};
use engines::{Chunk, ScriptedEngine};
use protocol::{Answer, Body, Event, Mode};
use serde_json::json;
use tools::{Tools, ToolsConfig};

struct World {
    _dir: tempfile::TempDir,
    work: PathBuf,
    engine: Arc<ScriptedEngine>,
    chats: Arc<Chats>,
}

fn world() -> World {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(work.join("sub/bin")).unwrap();
    let engine = Arc::new(ScriptedEngine::new(Vec::new()));
    let chats = Chats::new(
        Home::open(&root.join("home")).unwrap(),
        engine.clone(),
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.clone(),
            default_mode: Mode::Ask,
            policies: Default::default(),
            guard: GuardConfig::default(),
            skills: None,
            max_steps: None,
        },
    );
    World {
        _dir: dir,
        work,
        engine,
        chats,
    }
}

async fn until(chat: &Chat, want: impl Fn(&Event) -> bool) -> Vec<Event> {
    for _ in 0..400 {
        let events = chat.log.events_after(0).unwrap();
        if events.iter().any(&want) {
            return events;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("timed out: {:#?}", chat.log.events_after(0).unwrap());
}

fn asks(events: &[Event]) -> Vec<protocol::PermissionRequested> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            Body::PermissionRequested(p) => Some(p.clone()),
            _ => None,
        })
        .collect()
}

fn script(path: &PathBuf, out: &PathBuf, word: &str) {
    let body = if path.extension().is_some_and(|e| e == "py") {
        format!("open({:?}, 'w').write('{word}')\n", out)
    } else {
        format!("#!/bin/sh\nprintf {word} > '{}'\n", out.display())
    };
    std::fs::write(path, body).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[tokio::test]
async fn a_file_changed_while_the_question_waits_does_not_run_on_the_old_yes() {
    let shapes = [
        ("cd sub && ./x.sh", "sub/x.sh"),
        ("PATH=sub/bin:$PATH tool", "sub/bin/tool"),
        ("export PATH=\"$PWD/sub/bin:$PATH\"; tool", "sub/bin/tool"),
        ("bash -o posix x.sh", "x.sh"),
        ("python3 -W ignore x.py", "x.py"),
        ("sh < x.sh", "x.sh"),
        ("\"$PWD\"/x.sh", "x.sh"),
        ("./x.sh", "x.sh"),
    ];
    for (i, (command, file)) in shapes.iter().enumerate() {
        let w = world();
        let path = w.work.join(file);
        let out = w.work.join("out.txt");
        script(&path, &out, "first");
        w.engine.push(vec![Chunk::ToolCall {
            id: format!("c{i}"),
            name: "run_command".into(),
            input: json!({ "command": command }),
        }]);
        let chat = w.chats.create(NewChat::default()).await.unwrap();
        chat.post("Run it").await.unwrap();
        let first =
            asks(&until(&chat, |e| matches!(e.body, Body::PermissionRequested(_))).await).remove(0);
        script(&path, &out, "second");
        chat.answer(&first.ask, Answer::Once, "owner".into())
            .await
            .unwrap();
        let events = until(
            &chat,
            |e| matches!(&e.body, Body::PermissionRequested(p) if p.ask != first.ask),
        )
        .await;
        let second = asks(&events).remove(1);
        assert!(
            second.why.contains(&"bind.changed".to_owned()),
            "{command}: {:?}",
            second.why
        );
        assert!(
            !out.exists(),
            "{command}: the changed file ran on the old yes"
        );
        chat.answer(&second.ask, Answer::Once, "owner".into())
            .await
            .unwrap();
        until(&chat, |e| matches!(e.body, Body::TurnEnded(_))).await;
        assert_eq!(
            std::fs::read_to_string(&out).unwrap_or_default(),
            "second",
            "{command}: runs after the new yes"
        );
    }
}

#[tokio::test]
async fn what_cannot_be_pinned_down_is_approved_this_once() {
    let w = world();
    w.engine.push(vec![Chunk::ToolCall {
        id: "c1".into(),
        name: "run_command".into(),
        input: json!({ "command": "sh \"$SCRIPT\"" }),
    }]);
    let chat = w.chats.create(NewChat::default()).await.unwrap();
    chat.post("Run it").await.unwrap();
    let first =
        asks(&until(&chat, |e| matches!(e.body, Body::PermissionRequested(_))).await).remove(0);
    assert_eq!(
        first.always, None,
        "no always for what can't be pinned down"
    );
    assert!(
        first.note.unwrap_or_default().contains("this once"),
        "the card says so"
    );
}
