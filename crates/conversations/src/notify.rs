//! The owner's notifications, in one place: what reaches the owner and by
//! which way. Nothing else in Conch sends the owner anything.
//!
//! What: a question waiting for the owner, the end of that question (so a
//! notification or a button can go away), and a routine's run that
//! finished (with what it said).
//!
//! Which way:
//!
//! - **web**: every open page that listens (`GET /api/notifications`);
//!   the page decides whether to show a browser notification;
//! - **the owner's own chat in a chat app** (Telegram, when linked), a
//!   [`Channel`] the bridge registers: questions from a chat nobody is in
//!   (a chat app's, a routine's, a helper's) or with someone else's words
//!   in it, any question while no page is open, and routines' results.
//!
//! and nothing else. Settings → Notifications turns each way off or on
//! (`notifications` in settings.json: `{"web": true, "telegram": true}`).
//!
//! Chats tell it of their appends ([`Notify::observe`], before an append
//! is acknowledged), so it only copies the few events it cares about into
//! a queue; a task reads the chat and builds the notice off the append's
//! path.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use protocol::{Body, Event, Origin};
use serde::Serialize;
use tokio::sync::{broadcast, mpsc};

use crate::state::Registry;

/// One thing the owner is told.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Notice {
    /// A question waits for the owner.
    #[serde(rename_all = "camelCase")]
    Question {
        chat: String,
        ask: String,
        /// The chat's title, when it has one.
        title: Option<String>,
        /// Who started the chat (`owner`, `app`, `routine`, `task`).
        origin: String,
        /// Whose words are in the chat besides the owner's ("Eve on telegram").
        others: Vec<String>,
        question: String,
        /// Why it asks, when a mark or rule is behind it.
        note: Option<String>,
        /// The rule ids.
        why: Vec<String>,
        /// Whether "Always allow" is true here (offered).
        always: bool,
        /// Nobody is in the chat to answer it there.
        nobody_there: bool,
    },
    /// A question was answered or ended.
    #[serde(rename_all = "camelCase")]
    Settled {
        chat: String,
        ask: String,
        /// In words: "allowed once", "said no", "stopped", …
        outcome: String,
        /// Who answered: `owner`, `owner:telegram`, `key:…`, `mode`.
        by: Option<String>,
    },
    /// A routine's run finished.
    #[serde(rename_all = "camelCase")]
    RoutineDone {
        chat: String,
        /// The routine's name.
        routine: String,
        /// What the run said last, shortened.
        says: String,
        /// It ended with an error.
        failed: bool,
    },
}

impl Notice {
    pub fn chat(&self) -> &str {
        match self {
            Notice::Question { chat, .. }
            | Notice::Settled { chat, .. }
            | Notice::RoutineDone { chat, .. } => chat,
        }
    }
}

/// A way to reach the owner besides the web pages: the owner's own chat
/// with a chat app's bot. `send` must not block (queue it).
pub trait Channel: Send + Sync {
    /// Its name in settings (`telegram`).
    fn name(&self) -> &str;
    /// Whether the owner has linked their account, so there's a chat to
    /// send to.
    fn linked(&self) -> bool;
    fn send(&self, notice: &Notice);
}

/// How long a routine's result may be in a notice.
const SAYS_CHARS: usize = 1500;

pub struct Notify {
    web: broadcast::Sender<Notice>,
    channels: Mutex<Vec<Arc<dyn Channel>>>,
    /// Each way's switch; a way not named is on.
    choices: Mutex<BTreeMap<String, bool>>,
    queue: OnceLock<mpsc::UnboundedSender<(String, Event)>>,
}

impl Default for Notify {
    fn default() -> Self {
        Notify {
            web: broadcast::channel(256).0,
            channels: Mutex::new(Vec::new()),
            choices: Mutex::new(BTreeMap::new()),
            queue: OnceLock::new(),
        }
    }
}

impl Notify {
    /// Starts building notices from the chats' appends. Until then (and in
    /// tests that don't), nothing is sent.
    pub(crate) fn start(self: &Arc<Self>, chats: Weak<dyn Registry>) {
        let (tx, rx) = mpsc::unbounded_channel();
        if self.queue.set(tx).is_ok() {
            tokio::spawn(build(self.clone(), chats, rx));
        }
    }

    /// Told of every append, before it is acknowledged: keeps only what a
    /// notice could come of.
    pub fn observe(&self, chat: &str, event: &Event) {
        let Some(queue) = self.queue.get() else {
            return;
        };
        if matches!(
            event.body,
            Body::PermissionRequested(_)
                | Body::PermissionAnswered(_)
                | Body::PermissionEnded(_)
                | Body::TurnEnded(_)
        ) || matches!(&event.body, Body::Reply(_) | Body::ChatCreated(_))
            || matches!(&event.body, Body::Message(m) if m.from == protocol::Speaker::Routine)
        {
            let _ = queue.send((chat.to_owned(), event.clone()));
        }
    }

    /// Open pages listening for notices.
    pub fn subscribe(&self) -> broadcast::Receiver<Notice> {
        self.web.subscribe()
    }

    /// Adds a way to reach the owner (a chat app's bridge).
    pub fn add_channel(&self, channel: Arc<dyn Channel>) {
        self.channels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(channel);
    }

    /// The ways there are besides the web: (name, linked).
    pub fn channels(&self) -> Vec<(String, bool)> {
        self.channels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|c| (c.name().to_owned(), c.linked()))
            .collect()
    }

    /// Each way's switch (from settings.json's `notifications`).
    pub fn set_choices(&self, choices: BTreeMap<String, bool>) {
        *self.choices.lock().unwrap_or_else(|p| p.into_inner()) = choices;
    }

    pub fn choices(&self) -> BTreeMap<String, bool> {
        self.choices
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn on(&self, way: &str) -> bool {
        self.choices
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(way)
            .copied()
            .unwrap_or(true)
    }

    /// Sends a notice every way it should go. The one place that decides.
    pub fn send(&self, notice: Notice) {
        let web_open = self.web.receiver_count() > 0 && self.on("web");
        let to_app = match &notice {
            Notice::Question {
                nobody_there,
                others,
                ..
            } => *nobody_there || !others.is_empty() || !web_open,
            // A channel only edits what it sent; it ignores the rest.
            Notice::Settled { .. } => true,
            Notice::RoutineDone { .. } => true,
        };
        if to_app {
            let channels = self
                .channels
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone();
            for channel in channels {
                if channel.linked() && self.on(channel.name()) {
                    channel.send(&notice);
                }
            }
        }
        if self.on("web") {
            let _ = self.web.send(notice);
        }
    }
}

/// What the builder remembers of a chat: its origin and routine, and for a
/// routine's run, what it said last.
#[derive(Default)]
struct Seen {
    origin: Option<Origin>,
    routine: Option<String>,
    /// The routine's name, from its run's message.
    name: Option<String>,
    last_reply: Option<String>,
    done: bool,
}

async fn build(
    notify: Arc<Notify>,
    chats: Weak<dyn Registry>,
    mut rx: mpsc::UnboundedReceiver<(String, Event)>,
) {
    let mut seen: HashMap<String, Seen> = HashMap::new();
    while let Some((id, event)) = rx.recv().await {
        let Some(chats) = chats.upgrade() else {
            return;
        };
        let chat = chats.get(&id).ok();
        let entry = seen.entry(id.clone()).or_insert_with(|| {
            let created = chat
                .as_ref()
                .and_then(|c| c.log.with_view(|v| v.created.clone()));
            Seen {
                origin: created.as_ref().map(|c| c.origin),
                routine: created.and_then(|c| c.routine),
                ..Seen::default()
            }
        });
        match event.body {
            Body::ChatCreated(c) => {
                entry.origin = Some(c.origin);
                entry.routine = c.routine;
            }
            Body::PermissionRequested(p) => {
                let (title, others, nobody_there) = chat
                    .as_ref()
                    .map(|c| {
                        c.log
                            .with_view(|v| (v.title.clone(), v.others.clone(), !v.someone_there()))
                    })
                    .unwrap_or_default();
                notify.send(Notice::Question {
                    chat: id,
                    ask: p.ask,
                    title,
                    origin: entry.origin.map(origin_name).unwrap_or("owner").to_owned(),
                    others,
                    question: p.question,
                    note: p.note,
                    why: p.why,
                    always: p.always.is_some(),
                    nobody_there,
                });
            }
            Body::PermissionAnswered(a) => notify.send(Notice::Settled {
                chat: id,
                ask: a.ask,
                outcome: match a.answer {
                    protocol::Answer::Once => "allowed once",
                    protocol::Answer::Always => "allowed for the rest of the chat",
                    protocol::Answer::Deny => "said no",
                }
                .to_owned(),
                by: Some(a.by),
            }),
            Body::PermissionEnded(e) => notify.send(Notice::Settled {
                chat: id,
                ask: e.ask,
                outcome: if e.reason == "stopped" {
                    "stopped before it was answered"
                } else {
                    "ended when Conch restarted"
                }
                .to_owned(),
                by: None,
            }),
            Body::Message(m) if entry.routine.is_some() => {
                entry.name = m.name;
            }
            Body::Reply(r) if entry.routine.is_some() && !entry.done => {
                entry.last_reply = Some(r.text);
            }
            Body::TurnEnded(t) if entry.routine.is_some() && !entry.done => {
                entry.done = true;
                let failed = t.error.is_some();
                let says = match (&t.error, &entry.last_reply) {
                    (Some(e), _) => e.clone(),
                    (None, Some(r)) => r.clone(),
                    (None, None) => "It finished without saying anything.".to_owned(),
                };
                let name = entry.name.clone().unwrap_or_else(|| {
                    chat.as_ref()
                        .and_then(|c| c.log.with_view(|v| v.title.clone()))
                        .unwrap_or_default()
                });
                let says = if says.chars().count() > SAYS_CHARS {
                    let mut s: String = says.chars().take(SAYS_CHARS - 1).collect();
                    s.push('…');
                    s
                } else {
                    says
                };
                notify.send(Notice::RoutineDone {
                    chat: id,
                    routine: name,
                    says,
                    failed,
                });
            }
            _ => {}
        }
    }
}

fn origin_name(origin: Origin) -> &'static str {
    match origin {
        Origin::Owner => "owner",
        Origin::App => "app",
        Origin::Routine => "routine",
        Origin::Task => "task",
        Origin::Artifact => "artifact",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Recording {
        linked: bool,
        got: Mutex<Vec<Notice>>,
    }

    impl Channel for Recording {
        fn name(&self) -> &str {
            "telegram"
        }
        fn linked(&self) -> bool {
            self.linked
        }
        fn send(&self, notice: &Notice) {
            self.got.lock().unwrap().push(notice.clone());
        }
    }

    fn question(nobody_there: bool, others: &[&str]) -> Notice {
        Notice::Question {
            chat: "c".into(),
            ask: "a".into(),
            title: None,
            origin: "owner".into(),
            others: others.iter().map(|s| s.to_string()).collect(),
            question: "Can I run `ls`?".into(),
            note: None,
            why: vec![],
            always: false,
            nobody_there,
        }
    }

    /// Which questions reach the owner's chat app: every one from a chat
    /// nobody is in or with someone else's words; the owner's own chats'
    /// only while no page is open. Never to an app that isn't linked or
    /// that the owner turned off.
    #[test]
    fn a_question_reaches_the_app_when_nobody_is_there_or_no_page_is_open() {
        for web_open in [false, true] {
            for nobody in [false, true] {
                for others in [&[][..], &["Eve on telegram"][..]] {
                    let notify = Notify::default();
                    let app = Arc::new(Recording {
                        linked: true,
                        ..Recording::default()
                    });
                    notify.add_channel(app.clone());
                    let _page = web_open.then(|| notify.subscribe());
                    notify.send(question(nobody, others));
                    let want = nobody || !others.is_empty() || !web_open;
                    assert_eq!(
                        app.got.lock().unwrap().len(),
                        usize::from(want),
                        "web_open {web_open}, nobody {nobody}, others {others:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn nothing_goes_to_an_app_not_linked_or_turned_off_and_pages_can_be_turned_off() {
        let notify = Notify::default();
        let unlinked = Arc::new(Recording::default());
        notify.add_channel(unlinked.clone());
        notify.send(question(true, &[]));
        assert!(unlinked.got.lock().unwrap().is_empty());

        let notify = Notify::default();
        let linked = Arc::new(Recording {
            linked: true,
            ..Recording::default()
        });
        notify.add_channel(linked.clone());
        let mut page = notify.subscribe();
        notify.set_choices([("telegram".to_owned(), false)].into());
        notify.send(question(true, &["Eve on telegram"]));
        assert!(linked.got.lock().unwrap().is_empty());
        assert!(matches!(page.try_recv(), Ok(Notice::Question { .. })));
        notify.set_choices([("web".to_owned(), false)].into());
        notify.send(question(true, &[]));
        assert!(page.try_recv().is_err());
        assert_eq!(linked.got.lock().unwrap().len(), 1);
    }
}
