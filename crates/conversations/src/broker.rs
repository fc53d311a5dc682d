//! The permission broker: a call that must ask appends `permission.requested`
//! and waits; the owner's answer appends `permission.answered` and wakes it.
//!
//! Nothing is remembered outside the log: what is waiting and what "always"
//! covers are folds over it (`ChatView::pending`, `ChatView::always`). The
//! waiters here are only the wake-up calls for turns running now.
//!
//! A question still waiting when Conch stops is ended when the chat next
//! opens (`permission.ended`, reason `restart`), and its turn with it
//! (`interrupted`): the step that asked is gone with the process, and a yes
//! given to a question nobody is waiting on would run nothing.

use std::collections::HashMap;
use std::sync::Mutex;

use protocol::{Answer, Body, PermissionAnswered, PermissionEnded};
use tokio::sync::oneshot;

use crate::chat::Chat;
use crate::error::ChatError;
use crate::log::LogError;

#[derive(Default)]
pub(crate) struct Waiters {
    map: Mutex<HashMap<String, oneshot::Sender<Answer>>>,
}

impl Waiters {
    pub fn register(&self, ask: &str) -> oneshot::Receiver<Answer> {
        let (tx, rx) = oneshot::channel();
        self.lock().insert(ask.to_owned(), tx);
        rx
    }

    pub fn wake(&self, ask: &str, answer: Answer) {
        if let Some(tx) = self.lock().remove(ask) {
            let _ = tx.send(answer);
        }
    }

    pub fn forget(&self, ask: &str) {
        self.lock().remove(ask);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<Answer>>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Chat {
    /// The owner (or a script's key) answers a waiting question.
    pub async fn answer(&self, ask: &str, answer: Answer, by: String) -> Result<(), ChatError> {
        self.answer_with(ask, answer, false, by).await
    }

    /// The same, saying whether an `always` is the narrower choice (the
    /// question's `narrow`: this command's program only) rather than the
    /// tool's. A narrower answer to a question that didn't offer one counts
    /// as once, as an `always` to one that offered none does.
    pub async fn answer_with(
        &self,
        ask: &str,
        answer: Answer,
        narrow: bool,
        by: String,
    ) -> Result<(), ChatError> {
        let _one_at_a_time = self.live.decisions.lock().await;
        if self.log.with_view(|v| v.pending_ask(ask).is_none()) {
            return Err(ChatError::NotWaiting(ask.chars().take(40).collect()));
        }
        self.log
            .append(Body::PermissionAnswered(PermissionAnswered {
                ask: ask.to_owned(),
                answer,
                by,
                narrow: narrow && answer == Answer::Always,
            }))
            .await?;
        self.live.waiters.wake(ask, answer);
        Ok(())
    }

    /// Changes the chat's mode. It holds from the next decision; questions
    /// waiting now that the new mode would allow are allowed.
    pub async fn set_mode(&self, mode: protocol::Mode) -> Result<(), ChatError> {
        let _one_at_a_time = self.live.decisions.lock().await;
        self.log
            .append(Body::ModeChanged(protocol::ModeChanged { mode }))
            .await?;
        // An engine running its own turn (Claude Code) switches too.
        if let Some(native) = self.shared.engine.native() {
            native.set_mode(&self.id, mode);
        }
        let view = self.log.view();
        let settings = self.guard_settings(mode);
        for pending in &view.pending {
            let call = guard::Call {
                tool: &pending.tool,
                action: &pending.action,
            };
            if guard::decide(call, &view, &settings) == guard::Decision::Allow {
                self.log
                    .append(Body::PermissionAnswered(PermissionAnswered {
                        ask: pending.ask.clone(),
                        answer: Answer::Once,
                        by: "mode".to_owned(),
                        narrow: false,
                    }))
                    .await?;
                self.live.waiters.wake(&pending.ask, Answer::Once);
            }
        }
        Ok(())
    }

    /// Ends a question without an answer (Stop, or a restart).
    pub(crate) async fn end_question(&self, ask: &str, reason: &str) -> Result<(), LogError> {
        let _one_at_a_time = self.live.decisions.lock().await;
        self.live.waiters.forget(ask);
        if self.log.with_view(|v| v.pending_ask(ask).is_some()) {
            self.log
                .append(Body::PermissionEnded(PermissionEnded {
                    ask: ask.to_owned(),
                    reason: reason.to_owned(),
                }))
                .await?;
        }
        Ok(())
    }
}
