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
use tokio::sync::mpsc;

use crate::chat::Chat;
use crate::error::ChatError;
use crate::log::LogError;

/// What wakes a call waiting on its question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wake {
    /// The owner (or a script's key) answered.
    Answer(Answer),
    /// The chat's mode changed: the call's approval reads the chat again.
    ModeChanged,
}

#[derive(Default)]
pub(crate) struct Waiters {
    map: Mutex<HashMap<String, mpsc::UnboundedSender<Wake>>>,
}

impl Waiters {
    pub fn register(&self, ask: &str) -> mpsc::UnboundedReceiver<Wake> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.lock().insert(ask.to_owned(), tx);
        rx
    }

    /// An answer ends the wait.
    pub fn wake(&self, ask: &str, answer: Answer) {
        if let Some(tx) = self.lock().remove(ask) {
            let _ = tx.send(Wake::Answer(answer));
        }
    }

    /// A new mode: every waiting call looks again, and keeps waiting.
    fn mode_changed(&self) {
        for tx in self.lock().values() {
            let _ = tx.send(Wake::ModeChanged);
        }
    }

    pub fn forget(&self, ask: &str) {
        self.lock().remove(ask);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, mpsc::UnboundedSender<Wake>>> {
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

    /// Changes the chat's mode. It holds from the next decision; each call
    /// waiting on a question reads the chat again through its approval, and
    /// one the new mode allows is answered by the mode
    /// ([`Chat::answer_by_mode`]).
    pub async fn set_mode(&self, mode: protocol::Mode) -> Result<(), ChatError> {
        let _one_at_a_time = self.live.decisions.lock().await;
        self.log
            .append(Body::ModeChanged(protocol::ModeChanged { mode }))
            .await?;
        // An engine running its own turn (Claude Code) switches too.
        if let Some(native) = self.shared.engine.native() {
            native.set_mode(&self.id, mode);
        }
        self.live.waiters.mode_changed();
        Ok(())
    }

    /// Answers a waiting question once, by the mode, unless it was answered
    /// or ended first. Whether it did.
    pub(crate) async fn answer_by_mode(&self, ask: &str) -> Result<bool, LogError> {
        let _one_at_a_time = self.live.decisions.lock().await;
        if self.log.with_view(|v| v.pending_ask(ask).is_none()) {
            return Ok(false);
        }
        self.live.waiters.forget(ask);
        self.log
            .append(Body::PermissionAnswered(PermissionAnswered {
                ask: ask.to_owned(),
                answer: Answer::Once,
                by: "mode".to_owned(),
                narrow: false,
            }))
            .await?;
        Ok(true)
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
