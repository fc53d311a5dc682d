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

use protocol::Answer;
use tokio::sync::mpsc;

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
    pub(crate) fn mode_changed(&self) {
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
