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

/// Every file under `dir`, with its bytes (folders left out: an undo puts
/// files back, and leaves a folder a turn made).
fn tree(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Whatever mix of changes a turn makes, through commands (overwrite,
/// append, `sed -i`, `rm`, `mv`, `cp`, a file in a new folder) and
/// Conch's own `write_file`, undoing it gives back the work folder exactly
/// as it was, and undoing the undo gives back what the turn left. Over
/// generated turns and folders with non-ASCII names.
#[tokio::test]
async fn any_mix_of_changes_is_undone_exactly_and_redone_exactly() {
    const NAMES: &[&str] = &[
        "a.txt",
        "données.md",
        "sub/ß.rs",
        "deep/er/東京.txt",
        "vide.txt",
    ];
    const WORDS: &[&str] = &["alpha", "café", "Grüße", "東京", "x", "zoë"];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for round in 0..24 {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let root = dir.path().canonicalize().unwrap();
        let work = root.join("travail");
        std::fs::create_dir_all(&work).unwrap();
        for name in NAMES {
            if next(3) == 0 {
                continue;
            }
            let path = work.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let text: Vec<&str> = (0..next(40)).map(|_| WORDS[next(WORDS.len())]).collect();
            std::fs::write(&path, text.join(" ")).unwrap();
        }
        let before = tree(&work);
        let mut calls = Vec::new();
        for i in 0..1 + next(4) {
            let mut parts = Vec::new();
            for _ in 0..1 + next(4) {
                let (a, b) = (NAMES[next(NAMES.len())], NAMES[next(NAMES.len())]);
                let w = WORDS[next(WORDS.len())];
                parts.push(match next(7) {
                    0 => format!("mkdir -p \"$(dirname '{a}')\" && printf '%s' '{w}' > '{a}'"),
                    1 => format!("mkdir -p \"$(dirname '{a}')\" && printf '%s\\n' '{w}' >> '{a}'"),
                    2 => format!("sed -i 's/a/{w}/g' '{a}' 2>/dev/null || true"),
                    3 => format!("rm -f '{a}'"),
                    4 => format!(
                        "mkdir -p \"$(dirname '{b}')\" && mv '{a}' '{b}' 2>/dev/null || true"
                    ),
                    5 => format!(
                        "mkdir -p \"$(dirname '{b}')\" && cp '{a}' '{b}' 2>/dev/null || true"
                    ),
                    _ => format!("mkdir -p neu/{i} && printf '%s' '{w}' > 'neu/{i}/n.txt'"),
                });
            }
            calls.push(tool(
                &format!("c{i}"),
                "run_command",
                json!({"command": parts.join("; ")}),
            ));
            if next(2) == 0 {
                let a = NAMES[next(NAMES.len())];
                calls.push(tool(
                    &format!("w{i}"),
                    "write_file",
                    json!({"path": a, "content": WORDS[next(WORDS.len())]}),
                ));
            }
        }
        let engine = Arc::new(ScriptedEngine::new([
            calls,
            vec![Chunk::Text("Done.".into())],
        ]));
        let chats = chats_in(&root, &work, engine, ToolsConfig::default());
        let chat = chats.create(NewChat::default()).await.unwrap();
        chat.post("Change things").await.unwrap();
        until_ended(&chat, 1).await;
        let after = tree(&work);
        match chat.undo(Target::Last, "owner").await {
            Ok(done) => {
                assert!(done.left.is_empty(), "round {round}: {:?}", done.left);
                assert_eq!(tree(&work), before, "round {round}: undo");
                let seq = chat.log.last_seq();
                chat.undo(Target::Undo(seq), "owner").await.unwrap();
                assert_eq!(tree(&work), after, "round {round}: undo of the undo");
            }
            // Nothing changed (every step happened to be a no-op).
            Err(e) => {
                eprintln!("round {round}: {e}");
                assert_eq!(after, before, "round {round}: changes not kept")
            }
        }
    }
}
