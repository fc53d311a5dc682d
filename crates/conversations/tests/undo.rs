//! Undo of a turn's changes through Conch's own file tools: a file written
//! and another edited are put back, a file the turn made is removed, a
//! file the owner changed since is left alone and the undo says so, and
//! the undo is logged and can itself be undone. Against real files.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::sync::Arc;
use std::time::Duration;

use conversations::undo::Target;
use conversations::{Chat, Chats, ChatsConfig, Durability, GuardConfig, Home, NewChat};
use engines::{Chunk, ScriptedEngine};
use protocol::{Body, Event, Mode};
use serde_json::json;
use tools::{Tools, ToolsConfig};

fn tool(id: &str, name: &str, input: serde_json::Value) -> Chunk {
    Chunk::ToolCall {
        id: id.into(),
        name: name.into(),
        input,
    }
}

fn chats_in(
    root: &std::path::Path,
    work: &std::path::Path,
    engine: Arc<ScriptedEngine>,
    tools: ToolsConfig,
) -> Arc<Chats> {
    Chats::new(
        Home::open(&root.join("home")).unwrap(),
        engine,
        Arc::new(Tools::new(tools)),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.to_path_buf(),
            default_mode: Mode::Full,
            policies: Default::default(),
            guard: GuardConfig::default(),
            skills: None,
            max_steps: None,
        },
    )
}

async fn until_ended(chat: &Chat, turns: usize) -> Vec<Event> {
    for _ in 0..500 {
        let events = chat.log.events_after(0).unwrap();
        if events
            .iter()
            .filter(|e| matches!(e.body, Body::TurnEnded(_)))
            .count()
            >= turns
        {
            return events;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("timed out: {:#?}", chat.log.events_after(0).unwrap());
}

#[tokio::test]
async fn a_turns_writes_and_edits_are_put_back_and_the_owners_own_edit_is_kept() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("projet-ünï");
    std::fs::create_dir_all(&work).unwrap();
    let notes = work.join("notes.md");
    let plan = work.join("plan.txt");
    let mine = work.join("à-moi.txt");
    std::fs::write(&notes, "Café à 9 h\n").unwrap();
    std::fs::write(&plan, "étape 1\nétape 2\n").unwrap();
    std::fs::write(&mine, "v1").unwrap();
    let engine = Arc::new(ScriptedEngine::new([
        vec![
            tool(
                "w1",
                "write_file",
                json!({"path": "notes.md", "content": "Réunion à 10 h\n"}),
            ),
            tool(
                "e1",
                "edit_file",
                json!({"path": "plan.txt", "old": "étape 2", "new": "étape 2 bis"}),
            ),
            tool(
                "w2",
                "write_file",
                json!({"path": "nouveau/fichier.txt", "content": "neu"}),
            ),
            tool(
                "w3",
                "write_file",
                json!({"path": "à-moi.txt", "content": "v2"}),
            ),
            // A second change to the same file in the turn keeps nothing new.
            tool(
                "w4",
                "write_file",
                json!({"path": "notes.md", "content": "Réunion à 11 h\n"}),
            ),
        ],
        vec![Chunk::Text("Done.".into())],
    ]));
    let chats = chats_in(&root, &work, engine, ToolsConfig::default());
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("Tidy my notes").await.unwrap();
    let events = until_ended(&chat, 1).await;
    let turn = events
        .iter()
        .find_map(|e| matches!(e.body, Body::TurnStarted(_)).then_some(e.seq))
        .unwrap();
    let kept: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            Body::FileKept(k) => Some(k.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(kept.len(), 4, "{kept:#?}");
    assert!(kept.iter().all(|k| k.turn == turn));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "Réunion à 11 h\n");

    // The owner changes one of them before undoing.
    std::fs::write(&mine, "v3, mine").unwrap();
    let done = chat.undo(Target::Last, "owner").await.unwrap();
    assert_eq!(done.turn, turn);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "Café à 9 h\n");
    assert_eq!(
        std::fs::read_to_string(&plan).unwrap(),
        "étape 1\nétape 2\n"
    );
    assert!(!work.join("nouveau/fichier.txt").exists());
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "v3, mine");
    assert_eq!(done.restored.len(), 3);
    assert_eq!(done.left.len(), 1);
    assert!(
        done.left[0].why.starts_with("It changed after this turn"),
        "{}",
        done.left[0].why
    );

    // Logged, and undone in turn: the turn's changes are back.
    let undo_seq = chat
        .log
        .events_after(0)
        .unwrap()
        .iter()
        .rev()
        .find_map(|e| matches!(e.body, Body::FilesRestored(_)).then_some(e.seq))
        .unwrap();
    let again = chat.undo(Target::Undo(undo_seq), "owner").await.unwrap();
    assert_eq!(again.undo_of, Some(undo_seq));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "Réunion à 11 h\n");
    assert_eq!(
        std::fs::read_to_string(work.join("nouveau/fichier.txt")).unwrap(),
        "neu"
    );
    assert_eq!(
        std::fs::read_to_string(&plan).unwrap(),
        "étape 1\nétape 2 bis\n"
    );
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "v3, mine");

    // Kept once per content: the chat's folder holds each version once.
    let kept_dir = chat.log.path().parent().unwrap().join("kept");
    let count = std::fs::read_dir(&kept_dir).unwrap().count();
    assert!(count <= 7, "{count} copies");
}

#[tokio::test]
async fn an_undo_with_nothing_to_undo_says_so() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let engine = Arc::new(ScriptedEngine::new([vec![Chunk::Text("Hi.".into())]]));
    let chats = chats_in(&root, &root, engine, ToolsConfig::default());
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("Hello").await.unwrap();
    until_ended(&chat, 1).await;
    let e = chat.undo(Target::Last, "owner").await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "This chat hasn't changed any file Conch kept, so there is nothing to undo."
    );
}

/// A sealed command's changes: `sed -i` (a new file renamed over the old),
/// an append in place, a file made and one removed. The box let them
/// write the work folder; the work folder kept before the command has
/// what each held, and the undo puts all four back.
#[tokio::test]
async fn a_sealed_commands_sed_append_make_and_remove_are_undone() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("dépôt");
    std::fs::create_dir_all(work.join("src")).unwrap();
    std::fs::write(
        work.join("src/main.rs"),
        "fn main() { println!(\"héllo\"); }\n",
    )
    .unwrap();
    std::fs::write(work.join("journal.txt"), "lundi\n").unwrap();
    std::fs::write(work.join("vieux.txt"), "à jeter\n").unwrap();
    let conch = root.join("conch");
    let seal = Arc::new(seal::Sealed::new(&conch, tools::protected::here(&conch)).unwrap());
    let engine = Arc::new(ScriptedEngine::new([
        vec![tool(
            "c1",
            "run_command",
            json!({"command": "sed -i 's/héllo/bonjour/' src/main.rs && echo mardi >> journal.txt && echo neu > neu.txt && rm vieux.txt"}),
        )],
        vec![Chunk::Text("Done.".into())],
    ]));
    let chats = chats_in(
        &root,
        &work,
        engine,
        ToolsConfig {
            seal: Some(seal),
            ..ToolsConfig::default()
        },
    );
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("Say bonjour").await.unwrap();
    let events = until_ended(&chat, 1).await;
    let finished = events
        .iter()
        .find_map(|e| match &e.body {
            Body::ToolFinished(f) => Some(f.clone()),
            _ => None,
        })
        .unwrap();
    assert!(finished.ok, "{}", finished.output);
    assert_eq!(
        std::fs::read_to_string(work.join("src/main.rs")).unwrap(),
        "fn main() { println!(\"bonjour\"); }\n"
    );
    let done = chat.undo(Target::Last, "owner").await.unwrap();
    assert_eq!(done.restored.len(), 4, "{done:#?}");
    assert_eq!(
        std::fs::read_to_string(work.join("src/main.rs")).unwrap(),
        "fn main() { println!(\"héllo\"); }\n"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("journal.txt")).unwrap(),
        "lundi\n"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("vieux.txt")).unwrap(),
        "à jeter\n"
    );
    assert!(!work.join("neu.txt").exists());
}
