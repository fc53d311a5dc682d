//! Plays a fixed script: each step sends the next scripted chunks. The base of
//! tests and of `conch replay`; the model is what's scripted, everything
//! around it is real.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::engine::{BoxFuture, Chunk, Engine, EngineError, StepRequest};

/// What one step of the script sends.
pub type ScriptStep = Vec<Chunk>;

pub struct ScriptedEngine {
    steps: Mutex<VecDeque<ScriptStep>>,
    seen: Mutex<Vec<StepRequest>>,
    reviews: Mutex<VecDeque<ScriptedReview>>,
    reviewed: Mutex<Vec<String>>,
    acquire_delay: Mutex<Duration>,
}

/// What the scripted model does when asked to review.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptedReview {
    /// Replies with this text after waiting `delay`.
    Reply { text: String, delay: Duration },
    /// Answers from a thread that ignores cancellation: the reply comes
    /// after `delay` whatever happened to the call meanwhile.
    Stubborn { text: String, delay: Duration },
    /// The provider can't be reached.
    Unavailable,
}

impl ScriptedEngine {
    pub fn new(steps: impl IntoIterator<Item = ScriptStep>) -> ScriptedEngine {
        ScriptedEngine {
            steps: Mutex::new(steps.into_iter().collect()),
            seen: Mutex::new(Vec::new()),
            reviews: Mutex::new(VecDeque::new()),
            reviewed: Mutex::new(Vec::new()),
            acquire_delay: Mutex::new(Duration::ZERO),
        }
    }

    /// Adds what the model answers to the next review.
    pub fn push_review(&self, review: ScriptedReview) {
        if let Ok(mut r) = self.reviews.lock() {
            r.push_back(review);
        }
    }

    /// Makes acquiring the model take this long from now on.
    pub fn set_acquire_delay(&self, delay: Duration) {
        if let Ok(mut d) = self.acquire_delay.lock() {
            *d = delay;
        }
    }

    /// Every review prompt the model was given, in order.
    pub fn review_prompts(&self) -> Vec<String> {
        self.reviewed.lock().map(|r| r.clone()).unwrap_or_default()
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

    fn acquire(&self) -> BoxFuture<'_, Result<(), EngineError>> {
        let delay = self.acquire_delay.lock().map(|d| *d).unwrap_or_default();
        Box::pin(async move {
            // A zero sleep still waits for the timer's next tick (about a
            // millisecond): no wait at all is what "instant" means here.
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            Ok(())
        })
    }

    fn review<'a>(
        &'a self,
        _system: String,
        prompt: String,
    ) -> BoxFuture<'a, Result<String, EngineError>> {
        if let Ok(mut r) = self.reviewed.lock() {
            r.push(prompt);
        }
        let next = self.reviews.lock().ok().and_then(|mut r| r.pop_front());
        Box::pin(async move {
            match next {
                None | Some(ScriptedReview::Unavailable) => Err(EngineError::Unavailable(
                    "The scripted model has no review to give.".to_owned(),
                )),
                Some(ScriptedReview::Reply { text, delay }) => {
                    if !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                    Ok(text)
                }
                Some(ScriptedReview::Stubborn { text, delay }) => {
                    let (tx, rx) = tokio::sync::oneshot::channel();
                    std::thread::spawn(move || {
                        std::thread::sleep(delay);
                        let _ = tx.send(text);
                    });
                    rx.await.map_err(|_| EngineError::Stopped)
                }
            }
        })
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
