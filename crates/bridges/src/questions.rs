//! The owner's questions in the owner's own chat with the app: one
//! message each, with the question, why it asks, whose chat it is, and
//! buttons (Once, Deny, and Always only where the guard offered it, which
//! it never does for someone else's words or an empty room). When the
//! question ends, however it ended, the message says so and its buttons go.
//!
//! It is a [`Channel`] of the owner's notifications: `notify` decides what
//! reaches the owner this way, this only carries it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use conversations::notify::{Channel, Notice};
use conversations::{ChatError, Chats};
use protocol::Answer;
use tokio::sync::mpsc;

use crate::app::{AppError, Button, ChatApp, Pressed, Sent};
use crate::relay::Waits;
use crate::send::patiently;
use crate::state::StateFile;

pub struct Questions {
    app: Arc<dyn ChatApp>,
    state: StateFile,
    chats: Arc<Chats>,
    outbox: mpsc::UnboundedSender<Notice>,
    /// A button's reference → (chat, ask). Questions end when Conch
    /// stops, so these live only as long as the process.
    refs: Mutex<HashMap<String, (String, String)>>,
    /// (chat, ask) → the message asking it, and what it says.
    sent: Mutex<HashMap<(String, String), (Sent, String)>>,
}

/// What a press is told when its question is gone.
pub const OVER: &str = "That question is over.";

impl Questions {
    pub(crate) fn start(
        app: Arc<dyn ChatApp>,
        state: StateFile,
        chats: Arc<Chats>,
        _owner_name: &str,
        waits: Waits,
    ) -> Arc<Questions> {
        let (outbox, mut rx) = mpsc::unbounded_channel();
        let me = Arc::new(Questions {
            app,
            state,
            chats,
            outbox,
            refs: Mutex::new(HashMap::new()),
            sent: Mutex::new(HashMap::new()),
        });
        // In order, one at a time: a question is sent before its end edits it.
        let worker = Arc::downgrade(&me);
        tokio::spawn(async move {
            while let Some(notice) = rx.recv().await {
                let Some(me) = worker.upgrade() else {
                    return;
                };
                me.deliver(notice, waits).await;
            }
        });
        me
    }

    fn owner_chat(&self) -> Option<String> {
        self.state.get(self.app.name()).ok()?.owner.map(|o| o.chat)
    }

    async fn deliver(&self, notice: Notice, waits: Waits) {
        let Some(owner_chat) = self.owner_chat() else {
            return;
        };
        match notice {
            Notice::Question {
                chat,
                ask,
                title,
                others,
                question,
                note,
                always,
                ..
            } => {
                let text = within(
                    question_text(title.as_deref(), &others, &question, note.as_deref()),
                    self.app.max_chars(),
                );
                let reference = conversations::ids::random_id(12);
                let mut buttons = vec![Button {
                    text: "Once".into(),
                    data: format!("once:{reference}"),
                }];
                if always {
                    buttons.push(Button {
                        text: "Always".into(),
                        data: format!("always:{reference}"),
                    });
                }
                buttons.push(Button {
                    text: "Deny".into(),
                    data: format!("deny:{reference}"),
                });
                // Known before it is sent: the owner can press a button
                // before the app's answer to sending it reaches Conch.
                lock(&self.refs).insert(reference.clone(), (chat.clone(), ask.clone()));
                match patiently(waits, || self.app.say(&owner_chat, &text, &buttons)).await {
                    Ok(sent) => {
                        lock(&self.sent).insert((chat, ask), (sent, text));
                    }
                    Err(e) => {
                        lock(&self.refs).remove(&reference);
                        conversations::warn(&format!(
                            "{}: a question couldn't be sent: {e}",
                            self.app.name()
                        ))
                    }
                }
            }
            Notice::Settled {
                chat,
                ask,
                outcome,
                by,
            } => {
                let Some((sent, text)) = lock(&self.sent).remove(&(chat.clone(), ask.clone()))
                else {
                    return;
                };
                lock(&self.refs).retain(|_, v| *v != (chat.clone(), ask.clone()));
                let done = format!(
                    "{text}\n\n— {}{}.",
                    capital(&outcome),
                    answered_where(by.as_deref(), self.app.name())
                );
                match patiently(waits, || self.app.edit(&sent, &done)).await {
                    Ok(()) | Err(AppError::NotModified) => {}
                    Err(e) => conversations::warn(&format!(
                        "{}: a question couldn't be marked done: {e}",
                        self.app.name()
                    )),
                }
            }
            Notice::RoutineDone {
                routine,
                says,
                failed,
                ..
            } => {
                let text = if failed {
                    format!("The routine \"{routine}\" stopped with a problem: {says}")
                } else {
                    format!("The routine \"{routine}\" finished:\n\n{says}")
                };
                if let Err(e) =
                    crate::send::say_all(self.app.as_ref(), waits, &owner_chat, &text).await
                {
                    conversations::warn(&format!(
                        "{}: a routine's result couldn't be sent: {e}",
                        self.app.name()
                    ));
                }
            }
        }
    }

    /// The owner pressed a button: answers the question it was for. What
    /// the press is told back, and the chat it answered in.
    pub(crate) async fn pressed(&self, press: &Pressed) -> (String, Option<String>) {
        let (answer, reference) = match press.data.split_once(':') {
            Some(("once", r)) => (Answer::Once, r),
            Some(("always", r)) => (Answer::Always, r),
            Some(("deny", r)) => (Answer::Deny, r),
            _ => return (OVER.to_owned(), None),
        };
        let found = lock(&self.refs).get(reference).cloned();
        let answered_in = found.as_ref().map(|(chat, _)| chat.clone());
        let result = match found {
            Some((chat, ask)) => match self.chats.get(&chat) {
                Ok(c) => {
                    c.answer(&ask, answer, format!("owner:{}", self.app.name()))
                        .await
                }
                Err(e) => Err(e),
            },
            None => Err(ChatError::NotWaiting(String::new())),
        };
        match result {
            Ok(()) => (
                match answer {
                    Answer::Once => "Allowed once.",
                    Answer::Always => "Allowed for the rest of that chat.",
                    Answer::Deny => "Said no.",
                }
                .to_owned(),
                answered_in,
            ),
            Err(_) => {
                // A question from before a restart, or answered elsewhere:
                // its buttons go.
                if let Some(on) = &press.on {
                    let _ = self.app.edit(on, OVER).await;
                }
                (OVER.to_owned(), None)
            }
        }
    }
}

/// A question fits one message (its buttons are on it): past the app's
/// limit it is cut, and says where the rest is.
/// Where a question was answered, as its message in the chat app says it:
/// the owner sees on the phone that the page answered it first, and where.
fn answered_where(by: Option<&str>, app: &str) -> String {
    match by {
        Some("owner") => " on the web page".to_owned(),
        Some("mode") => " by the mode you picked".to_owned(),
        Some(by) => match by.split_once(':') {
            Some(("owner", a)) if a == app => " here".to_owned(),
            Some(("owner", a)) => format!(" in {}", capital(a)),
            Some(("key", name)) => format!(" with the access key \"{name}\""),
            _ => String::new(),
        },
        None => String::new(),
    }
}

fn within(text: String, max: usize) -> String {
    const REST: &str = "\n\n… The rest is in Conch.";
    if text.chars().count() <= max {
        return text;
    }
    let keep = max.saturating_sub(REST.chars().count());
    text.chars().take(keep).collect::<String>() + REST
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect::<String>(),
        None => String::new(),
    }
}

/// The question as the owner reads it in the app.
pub fn question_text(
    title: Option<&str>,
    others: &[String],
    question: &str,
    note: Option<&str>,
) -> String {
    let mut text = question.to_owned();
    if let Some(note) = note {
        text.push_str("\n\n");
        text.push_str(note);
    }
    text.push_str("\n\nIn the chat ");
    match title {
        Some(t) => text.push_str(&format!("\"{t}\"")),
        None => text.push_str("with no title yet"),
    }
    if !others.is_empty() {
        text.push_str(&format!(", where {} wrote", others.join(", ")));
    }
    text.push('.');
    text
}

impl Channel for Questions {
    fn name(&self) -> &str {
        self.app.name()
    }

    fn linked(&self) -> bool {
        self.owner_chat().is_some()
    }

    fn send(&self, notice: &Notice) {
        let _ = self.outbox.send(notice.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_says_whose_chat_and_fits_one_message() {
        let text = question_text(
            Some("Ménage — 掃除"),
            &["Eve on telegram".to_owned()],
            "Can I run `rm -rf build`?",
            Some("This chat has words from Eve on telegram, who could be trying to steer me."),
        );
        assert_eq!(
            text,
            "Can I run `rm -rf build`?\n\nThis chat has words from Eve on telegram, who could be trying to steer me.\n\nIn the chat \"Ménage — 掃除\", where Eve on telegram wrote."
        );
        assert_eq!(within(text.clone(), 4096), text);
        let long = "é".repeat(5000);
        let cut = within(long, 4096);
        assert_eq!(cut.chars().count(), 4096);
        assert!(cut.ends_with("… The rest is in Conch."));
    }
}
