//! Undo (issue 37). Two figures:
//!
//! - the space kept for a 100-turn coding chat: a project of 240 source
//!   files (multilingual comments, 1–12 KB each, 1.3 MB), and 100 turns,
//!   each editing one to three files with `edit_file` or `write_file`,
//!   every fifth also running a command (`sed -i` over one file, the
//!   project's files kept before it); what `kept/` holds against the
//!   project's size;
//! - the time of an undo of 1,000 files a command changed (and of undoing
//!   that undo), medians of 9, on real files.
//!
//! cargo bench -p conversations --bench undo
#![allow(clippy::unwrap_used, clippy::expect_used)] // Benches may panic: that is the bench failing.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use conversations::undo::Target;
use conversations::{Chat, Chats, ChatsConfig, Durability, GuardConfig, Home, NewChat};
use engines::{Chunk, ScriptedEngine};
use protocol::{Body, Mode};
use serde_json::json;
use tools::{Tools, ToolsConfig};

fn chats(root: &Path, work: &Path, engine: Arc<ScriptedEngine>) -> Arc<Chats> {
    Chats::new(
        Home::open(&root.join("home")).unwrap(),
        engine,
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.to_path_buf(),
            default_mode: Mode::Full,
            policies: Default::default(),
            guard: GuardConfig::default(),
            skills: None,
            max_steps: Some(500),
        },
    )
}

async fn ended(chat: &Chat, turns: usize) {
    loop {
        let n = chat
            .log
            .events_after(0)
            .unwrap()
            .iter()
            .filter(|e| matches!(e.body, Body::TurnEnded(_)))
            .count();
        if n >= turns {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            let m = e.metadata().unwrap();
            if m.is_dir() {
                size(&e.path())
            } else {
                m.len()
            }
        })
        .sum()
}

fn source(i: usize, lines: usize) -> String {
    let mut s = String::new();
    for l in 0..lines {
        s.push_str(&format!(
            "// Étape {l} du module {i} — données, café, 東京, Grüße\nfn f_{i}_{l}(x: u32) -> u32 {{ x * {l} + {i} }}\n"
        ));
    }
    s
}

async fn space() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("projet");
    std::fs::create_dir_all(work.join("src")).unwrap();
    for i in 0..240 {
        std::fs::write(
            work.join(format!("src/m{i}.rs")),
            source(i, 10 + (i * 7) % 100),
        )
        .unwrap();
    }
    let project = size(&work);
    let mut turns = Vec::new();
    for t in 0..100usize {
        let mut calls = Vec::new();
        for k in 0..1 + t % 3 {
            let i = (t * 17 + k * 31) % 240;
            let path = format!("src/m{i}.rs");
            if k % 2 == 0 {
                calls.push(Chunk::ToolCall {
                    id: format!("e{t}-{k}"),
                    name: "edit_file".into(),
                    input: json!({"path": path, "old": format!("fn f_{i}_0("), "new": format!("fn f_{i}_0_{t}(")}),
                });
            } else {
                calls.push(Chunk::ToolCall {
                    id: format!("w{t}-{k}"),
                    name: "write_file".into(),
                    input: json!({"path": path, "content": source(i, 10 + t % 50)}),
                });
            }
        }
        if t % 5 == 0 {
            calls.push(Chunk::ToolCall {
                id: format!("c{t}"),
                name: "run_command".into(),
                input: json!({"command": format!("sed -i 's/café/kaffee/' src/m{}.rs", (t * 13) % 240)}),
            });
        }
        turns.push(calls);
        turns.push(vec![Chunk::Text("Done.".into())]);
    }
    let engine = Arc::new(ScriptedEngine::new(turns));
    let chats = chats(&root, &work, engine);
    let chat = chats.create(NewChat::default()).await.unwrap();
    for t in 0..100 {
        chat.post(&format!("Étape {t}")).await.unwrap();
        ended(&chat, t + 1).await;
    }
    let kept = size(&chat.log.path().parent().unwrap().join("kept"));
    let log = std::fs::metadata(chat.log.path()).unwrap().len();
    println!(
        "100-turn coding chat: project {:.2} MB; kept/ {:.2} MB ({:.0}% of the project); the log {:.2} MB",
        project as f64 / 1e6,
        kept as f64 / 1e6,
        kept as f64 / project as f64 * 100.0,
        log as f64 / 1e6
    );
}

async fn thousand() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("données");
    std::fs::create_dir_all(&work).unwrap();
    for i in 0..1000 {
        std::fs::write(work.join(format!("f{i:04}.txt")), source(i, 20)).unwrap();
    }
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::ToolCall {
            id: "c".into(),
            name: "run_command".into(),
            input: json!({"command": "for f in *.txt; do echo 'ligne ajoutée' >> \"$f\"; done"}),
        }],
        vec![Chunk::Text("Done.".into())],
    ]));
    let chats = chats(&root, &work, engine);
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("Ajoute une ligne").await.unwrap();
    ended(&chat, 1).await;
    let mut undo = Vec::new();
    let mut redo = Vec::new();
    let mut target = Target::Last;
    for round in 0..18 {
        let t = Instant::now();
        let done = chat.undo(target, "owner").await.unwrap();
        let took = t.elapsed();
        assert_eq!(done.restored.len(), 1000, "{:?}", done.left.first());
        let seq = chat.log.last_seq();
        target = Target::Undo(seq);
        if round % 2 == 0 {
            undo.push(took);
        } else {
            redo.push(took);
        }
    }
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    println!(
        "undo of 1,000 files: median {:.1} ms; undoing that undo: {:.1} ms",
        median(undo).as_secs_f64() * 1e3,
        median(redo).as_secs_f64() * 1e3
    );
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(space());
    runtime.block_on(thousand());
}
