//! Plays a fixed script: each step sends the next scripted chunks. The base of
//! tests and of `conch replay`; the model is what's scripted, everything
//! around it is real.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::sync::mpsc;

use crate::engine::{BoxFuture, Chunk, Engine, EngineError, StepRequest};

/// What one step of the script sends.
pub type ScriptStep = Vec<Chunk>;

pub struct ScriptedEngine {
    steps: Mutex<VecDeque<ScriptStep>>,
    seen: Mutex<Vec<StepRequest>>,
}

impl ScriptedEngine {
    pub fn new(steps: impl IntoIterator<Item = ScriptStep>) -> ScriptedEngine {
        ScriptedEngine {
            steps: Mutex::new(steps.into_iter().collect()),
            seen: Mutex::new(Vec::new()),
        }
    }

    /// Adds steps to the end of the script.
    pub fn push(&self, step: ScriptStep) {
        if let Ok(mut steps) = self.steps.lock() {
            steps.push_back(step);
        }
    }

    /// Every request the engine was given, in order: what the model would have seen.
    pub fn requests(&self) -> Vec<StepRequest> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Engine for ScriptedEngine {
    fn name(&self) -> &str {
        "scripted"
    }

    fn step<'a>(
        &'a self,
        request: StepRequest,
        out: mpsc::Sender<Chunk>,
    ) -> BoxFuture<'a, Result<(), EngineError>> {
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(request);
        }
        // An exhausted script ends the turn with no more words.
        let step = self
            .steps
            .lock()
            .ok()
            .and_then(|mut s| s.pop_front())
            .unwrap_or_default();
        Box::pin(async move {
            for chunk in step {
                if out.send(chunk).await.is_err() {
                    return Err(EngineError::Stopped);
                }
            }
            Ok(())
        })
    }
}
