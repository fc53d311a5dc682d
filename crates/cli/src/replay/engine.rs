//! The model, as replay scripts it: each step of the turn loop waits for the
//! driver to say what the model does next.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use engines::{BoxFuture, Chunk, Engine, EngineError, StepRequest};
use tokio::sync::{mpsc, Mutex};

pub enum Move {
    Call(Chunk),
    Reply(String),
    /// End the turn without more words.
    End,
}

pub struct ReplayEngine {
    moves: Arc<Mutex<mpsc::Receiver<Move>>>,
    /// What the reviewer replies next, and after how long.
    pub reviews: Arc<std::sync::Mutex<VecDeque<(String, Duration)>>>,
    /// The reviewer allows everything (`--review always-allow`).
    pub always_allow: bool,
}

impl ReplayEngine {
    pub fn new() -> (ReplayEngine, mpsc::Sender<Move>) {
        let (tx, rx) = mpsc::channel(16);
        (
            ReplayEngine {
                moves: Arc::new(Mutex::new(rx)),
                reviews: Arc::default(),
                always_allow: false,
            },
            tx,
        )
    }
}

impl Engine for ReplayEngine {
    fn name(&self) -> &str {
        "replay"
    }

    fn review<'a>(
        &'a self,
        _: String,
        prompt: String,
    ) -> BoxFuture<'a, Result<String, EngineError>> {
        let next = self.reviews.lock().ok().and_then(|mut r| r.pop_front());
        if self.always_allow {
            // It cites the owner's first message when there is one, as a
            // reviewer that believed every request would.
            let evidence: Vec<&str> = prompt
                .contains("<message id=\"m1\"")
                .then_some("m1")
                .into_iter()
                .collect();
            let reply = serde_json::json!({
                "verdict": "allow",
                "risk": "low",
                "evidence": evidence,
                "reason": "The replay's reviewer allows everything.",
            })
            .to_string();
            return Box::pin(async move { Ok(reply) });
        }
        Box::pin(async move {
            match next {
                Some((text, delay)) => {
                    tokio::time::sleep(delay).await;
                    Ok(text)
                }
                None => Err(EngineError::Unavailable(
                    "The scenario gives no review for this call.".to_owned(),
                )),
            }
        })
    }

    fn step<'a>(
        &'a self,
        _: StepRequest,
        out: mpsc::Sender<Chunk>,
    ) -> BoxFuture<'a, Result<(), EngineError>> {
        Box::pin(async move {
            let next = self.moves.lock().await.recv().await;
            match next {
                Some(Move::Call(chunk)) => out.send(chunk).await.map_err(|_| EngineError::Stopped),
                Some(Move::Reply(text)) => out
                    .send(Chunk::Text(text))
                    .await
                    .map_err(|_| EngineError::Stopped),
                Some(Move::End) | None => Ok(()),
            }
        })
    }
}
