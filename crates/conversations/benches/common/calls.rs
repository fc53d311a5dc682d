//! What the tool-call benches share: a tool that does nothing, so only
//! Conch's own cost is left; one chat making `calls` calls of it, timed
//! between one call's tool.finished reaching a live follower and the next;
//! and a percentile of sorted figures.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use conversations::{Chats, ChatsConfig, Durability, Home, Live, NewChat};
use engines::{Chunk, ScriptedEngine};
use protocol::{Action, Body, Mode, ToolSpec};
use tools::{BoxFuture, Outcome, RunContext, ToolBox, ToolCall};

/// `review` makes its calls changes outside the work folder, which Auto
/// mode reviews; otherwise they only look around.
pub struct Noop {
    pub review: bool,
}

impl ToolBox for Noop {
    fn specs(&self) -> Vec<ToolSpec> {
        Vec::new()
    }
    fn classify(&self, _call: &ToolCall, work: &Path) -> Result<Action, String> {
        Ok(if self.review {
            Action::FileChange {
                path: "/elsewhere/notes.md".into(),
                inside: false,
                runs_later: None,
            }
        } else {
            Action::LookAround {
                paths: vec![work.to_string_lossy().into_owned()],
            }
        })
    }
    fn run<'a>(
        &'a self,
        _: &'a ToolCall,
        _: &'a Action,
        _: &'a RunContext,
    ) -> BoxFuture<'a, Outcome> {
        Box::pin(async { Outcome::ok("", None) })
    }
}

pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// A scripted engine asking for `calls` calls of the do-nothing tool in one
/// step (add reviews to it before measuring, for Auto mode).
pub fn engine(calls: usize) -> Arc<ScriptedEngine> {
    let step: Vec<Chunk> = (0..calls)
        .map(|n| Chunk::ToolCall {
            id: format!("c{n}"),
            name: "noop".into(),
            input: serde_json::json!({}),
        })
        .collect();
    Arc::new(ScriptedEngine::new([step, vec![]]))
}

/// Runs the engine's calls in a new chat in `mode` and returns the gaps
/// between calls in microseconds, sorted. `each` sees every event.
pub async fn measure(
    engine: Arc<ScriptedEngine>,
    tool: Noop,
    mode: Mode,
    durability: Durability,
    mut each: impl FnMut(&Body),
) -> Vec<f64> {
    let dir = tempfile::tempdir().unwrap();
    let chats = Chats::new(
        Home::open(&dir.path().join("home")).unwrap(),
        engine,
        Arc::new(tool),
        ChatsConfig {
            durability,
            default_work: dir.path().to_path_buf(),
            default_mode: mode,
            policies: Default::default(),
            guard: Default::default(),
            skills: None,
            max_steps: None,
        },
    );
    let chat = chats.create(NewChat::default()).await.unwrap();
    let mut follow = chat.log.follow();
    chat.post("Keep my notes up to date").await.unwrap();
    let mut stamps = Vec::new();
    loop {
        match follow.recv().await {
            Ok(Live::Event(c)) => {
                each(&c.event.body);
                match &c.event.body {
                    Body::ToolFinished(_) => stamps.push(Instant::now()),
                    Body::TurnEnded(_) => break,
                    _ => {}
                }
            }
            Ok(_) => {}
            Err(e) => panic!("the follower fell behind: {e}"),
        }
    }
    let mut gaps: Vec<f64> = stamps
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64() * 1e6)
        .collect();
    gaps.sort_by(|a, b| a.total_cmp(b));
    gaps
}
