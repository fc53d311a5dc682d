//! The loop that joins a chat app to the chats. Updates are read in order
//! and each is handled before reading moves past it (the cursor is saved
//! after each), so a message is neither lost nor posted twice when the app
//! says "wait" (429), "someone else is reading" (409) or can't be reached:
//! the same request is made again after the wait.
//!
//! Each app chat is one Conch chat, origin `app`, so nobody is there to
//! choose in it: the owner's own words are the owner's, anyone else's
//! mark it, and what it asks goes to the owner ([`crate::questions`]).
//! Replies, and the sentence telling a person who was asked, go back to
//! the app chat they belong to.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use conversations::{Chat, Chats, NewChat};
use protocol::{Body, Origin, Speaker};

use crate::access::{self, Route};
use crate::app::{AppError, ChatApp, Pressed, Said, Update};
use crate::questions::Questions;
use crate::send::{patiently, say_all};
use crate::state::StateFile;

/// How long to wait before asking again after the app couldn't be reached
/// or another program was reading its updates.
#[derive(Debug, Clone, Copy)]
pub struct Waits {
    pub unreachable: Duration,
    pub conflict: Duration,
    /// The longest `retry_after` obeyed; a longer one is waited in pieces
    /// of this, so Stop is never far off.
    pub most: Duration,
}

impl Default for Waits {
    fn default() -> Self {
        Waits {
            unreachable: Duration::from_secs(5),
            conflict: Duration::from_secs(10),
            most: Duration::from_secs(60),
        }
    }
}

/// How long a refused stranger goes untold before being told again.
pub const REFUSE_AGAIN_AFTER: Duration = Duration::from_secs(10 * 60);

pub struct Relay {
    pub(crate) app: Arc<dyn ChatApp>,
    pub(crate) chats: Arc<Chats>,
    pub(crate) state: StateFile,
    pub(crate) owner_name: String,
    pub(crate) waits: Waits,
    pub(crate) questions: Arc<Questions>,
    /// Conch chats whose replies are being carried back.
    following: Mutex<HashSet<String>>,
    /// What was last said about not reaching the app, said once.
    pub(crate) said: Mutex<Option<String>>,
    /// With a webhook: the secret each pushed request must carry.
    pub(crate) push_secret: std::sync::OnceLock<String>,
    /// When each stranger was last refused: told once in a while, not at
    /// every message, so a flood of strangers can't use up the app's
    /// patience (429s) that the owner's messages need.
    refused: Mutex<std::collections::HashMap<String, std::time::Instant>>,
    /// Pushed updates are handled one at a time, in order, past this cursor.
    pub(crate) pushed_cursor: tokio::sync::Mutex<Option<Option<u64>>>,
}

/// What a person whose words are in the chat is told when they try to say
/// yes to a question themselves.
pub fn not_yours(owner_name: &str) -> String {
    guard::words::told(owner_name)
}

impl Relay {
    /// A relay for `app`, carrying the owner's questions to the owner's own
    /// chat with it (a notify channel) from now on.
    pub fn new(
        app: Arc<dyn ChatApp>,
        chats: Arc<Chats>,
        home: &std::path::Path,
        owner_name: &str,
        waits: Waits,
    ) -> Arc<Relay> {
        let app: Arc<dyn ChatApp> = Arc::new(crate::masked::Masked {
            app,
            secrets: chats.secrets().clone(),
        });
        let state = StateFile::new(home);
        let questions =
            Questions::start(app.clone(), state.clone(), chats.clone(), owner_name, waits);
        chats.notify().add_channel(questions.clone());
        chats.start_notices();
        Arc::new(Relay {
            app,
            chats,
            state,
            owner_name: owner_name.to_owned(),
            waits,
            questions,
            following: Mutex::new(HashSet::new()),
            said: Mutex::new(None),
            refused: Mutex::new(std::collections::HashMap::new()),
            push_secret: std::sync::OnceLock::new(),
            pushed_cursor: tokio::sync::Mutex::new(None),
        })
    }

    /// Reads the app's updates until the process ends. A webhook left
    /// from before is taken down first, or the app wouldn't answer.
    pub async fn run(self: Arc<Self>) {
        let name = self.app.name();
        if let Err(e) = patiently(self.waits, || self.app.push_to(None, "")).await {
            self.say_once(&e.to_string());
        }
        let mut cursor = self.state.get(name).ok().and_then(|s| s.cursor);
        loop {
            match self.app.updates(cursor).await {
                Ok(list) => {
                    *self.said.lock().unwrap_or_else(|p| p.into_inner()) = None;
                    for (c, update) in list {
                        // Asked after `cursor` but given one at or before it:
                        // handled already.
                        if cursor.is_some_and(|done| c <= done) {
                            continue;
                        }
                        self.handle(update).await;
                        cursor = Some(c);
                        if let Err(e) = self.state.update(name, |s| s.cursor = Some(c)) {
                            self.say_once(&e.to_string());
                        }
                    }
                }
                Err(AppError::Limited { retry_after }) => {
                    tokio::time::sleep(Duration::from_secs(retry_after).min(self.waits.most)).await;
                }
                Err(e @ AppError::Conflict(_)) => {
                    self.say_once(&e.to_string());
                    tokio::time::sleep(self.waits.conflict).await;
                }
                Err(e) => {
                    self.say_once(&e.to_string());
                    tokio::time::sleep(self.waits.unreachable).await;
                }
            }
        }
    }

    /// Whether a stranger should be told (again): once per
    /// [`REFUSE_AGAIN_AFTER`].
    fn first_refusal(&self, id: &str) -> bool {
        let now = std::time::Instant::now();
        let mut refused = self.refused.lock().unwrap_or_else(|p| p.into_inner());
        // Forget those told long ago, so the map stays small.
        refused.retain(|_, at| now.duration_since(*at) < REFUSE_AGAIN_AFTER);
        if refused.contains_key(id) {
            return false;
        }
        refused.insert(id.to_owned(), now);
        true
    }

    pub(crate) fn say_once(&self, sentence: &str) {
        let mut said = self.said.lock().unwrap_or_else(|p| p.into_inner());
        if said.as_deref() != Some(sentence) {
            conversations::warn(&format!("{}: {sentence}", self.app.name()));
            *said = Some(sentence.to_owned());
        }
    }

    /// One update, start to end.
    pub async fn handle(&self, update: Update) {
        match update {
            Update::Said(said) => self.said(said).await,
            Update::Pressed(press) => self.pressed(press).await,
            Update::Other => {}
        }
    }

    async fn said(&self, said: Said) {
        let name = self.app.name();
        let state = match self.state.get(name) {
            Ok(s) => s,
            Err(e) => {
                self.say_once(&e.to_string());
                return;
            }
        };
        match access::route(&state, &said, &self.owner_name) {
            Route::Ignore => {}
            Route::Refuse(sentence) => {
                if self.first_refusal(&said.from.id) {
                    self.tell(&said.chat, &sentence).await;
                }
            }
            Route::LinkInGroup(code) => {
                let spent = self
                    .state
                    .update(name, |s| access::link_in_group(s, &code))
                    .unwrap_or(false);
                let sentence = if spent {
                    access::LINK_IN_GROUP
                } else {
                    access::LINK_NOT_IN_GROUP
                };
                self.tell(&said.chat, sentence).await;
            }
            Route::Link(code) => {
                let now = now();
                let linked = self
                    .state
                    .update(name, |s| access::link(s, &said, &code, now))
                    .unwrap_or(Err(access::WRONG_CODE));
                match linked {
                    Ok(_) => self.tell(&said.chat, access::LINKED).await,
                    Err(sentence) => self.tell(&said.chat, sentence).await,
                }
            }
            // The owner sending on someone else's words (a forward, a
            // bot's message) passes them on; they are still that person's.
            Route::Stop => {
                let by = format!("owner:{name}");
                let sentence = match self.chats.stop_all(&by) {
                    Ok(ended) => format!(
                        "Stopped everything ({ended} running {}). Nothing starts until you press Resume on the web page, or type conch resume on your computer.",
                        if ended == 1 { "turn ended" } else { "turns ended" }
                    ),
                    Err(e) => e.to_string(),
                };
                self.tell(&said.chat, &sentence).await;
            }
            Route::Owner if said.origin.is_some() => self.post(&said, Speaker::Person, true).await,
            Route::Owner => self.post(&said, Speaker::Owner, true).await,
            Route::Person { pin } => {
                let (id, who) = (said.from.id.clone(), said.from.name.clone());
                // Written only when something changed: their id, first
                // time in by handle, or the name they show.
                let known = state.allowed.iter().any(|a| {
                    a.id.as_deref() == Some(id.as_str()) && a.name.as_deref() == Some(who.as_str())
                });
                if pin.is_some() || !known {
                    let _ = self.state.update(name, |s| {
                        if let Some(a) = pin.and_then(|i| s.allowed.get_mut(i)) {
                            a.id = Some(id.clone());
                        }
                        if let Some(a) = s
                            .allowed
                            .iter_mut()
                            .find(|a| a.id.as_deref() == Some(id.as_str()))
                        {
                            a.name = Some(who.clone());
                        }
                    });
                }
                self.post(&said, Speaker::Person, false).await;
            }
        }
    }

    /// Says `text` in an app chat, waiting out the app's limits.
    async fn tell(&self, chat: &str, text: &str) {
        if let Err(e) = say_all(self.app.as_ref(), self.waits, chat, text).await {
            self.say_once(&e.to_string());
        }
    }

    /// The Conch chat an app chat is, made the first time.
    async fn chat_for(&self, app_chat: &str) -> Option<Arc<Chat>> {
        let name = self.app.name();
        let known = self
            .state
            .get(name)
            .ok()
            .and_then(|s| s.chats.get(app_chat).cloned());
        if let Some(id) = known {
            let chats = self.chats.clone();
            let opened = tokio::task::spawn_blocking(move || chats.get(&id)).await;
            if let Ok(Ok(chat)) = opened {
                return Some(chat);
            }
        }
        let made = self
            .chats
            .create(NewChat {
                origin: Some(Origin::App),
                ..NewChat::default()
            })
            .await;
        match made {
            Ok(chat) => {
                let (key, id) = (app_chat.to_owned(), chat.id.clone());
                if let Err(e) = self.state.update(name, |s| s.chats.insert(key, id)) {
                    self.say_once(&e.to_string());
                }
                Some(chat)
            }
            Err(e) => {
                self.say_once(&e.to_string());
                None
            }
        }
    }

    async fn post(&self, said: &Said, from: Speaker, by_owner: bool) {
        let Some(chat) = self.chat_for(&said.chat).await else {
            self.tell(
                &said.chat,
                "Something went wrong on my side, so I couldn't read that. Try again in a minute.",
            )
            .await;
            return;
        };
        self.follow(&chat, &said.chat);
        // Someone else's yes is a message, never an answer.
        let waiting = chat.log.with_view(|v| !v.pending.is_empty());
        let name = match (&said.origin, from) {
            (Some(origin), _) => Some(format!("{} ({origin})", said.from.name)),
            (None, Speaker::Person) => Some(said.from.name.clone()),
            (None, _) => None,
        };
        let app = Some(self.app.name().to_owned());
        if let Err(e) = chat.post_as(from, &said.text, name, app).await {
            self.tell(&said.chat, &e.to_string()).await;
            return;
        }
        // The owner's forward isn't an answer either, but they know that.
        if from == Speaker::Person && waiting && !by_owner {
            self.tell(&said.chat, &not_yours(&self.owner_name)).await;
        }
    }

    /// Follows `chat` in the app chat it belongs to, when it belongs to one.
    fn follow_mapped(&self, chat: &str) {
        let app_chat = self.state.get(self.app.name()).ok().and_then(|s| {
            s.chats
                .iter()
                .find(|(_, id)| id.as_str() == chat)
                .map(|(app_chat, _)| app_chat.clone())
        });
        if let (Some(app_chat), Ok(chat)) = (app_chat, self.chats.get(chat)) {
            self.follow(&chat, &app_chat);
        }
    }

    /// Carries the chat's replies back to the app chat, from now on.
    fn follow(&self, chat: &Arc<Chat>, app_chat: &str) {
        if !self
            .following
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(chat.id.clone())
        {
            return;
        }
        let (chat, app, waits) = (chat.clone(), self.app.clone(), self.waits);
        let app_chat = app_chat.to_owned();
        let mut live = chat.log.follow();
        let mut last = chat.log.last_seq();
        tokio::spawn(async move {
            loop {
                match live.recv().await {
                    Ok(conversations::Live::Delta { .. }) => continue,
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
                let Ok(events) = chat.log.events_after(last) else {
                    continue;
                };
                for event in events {
                    last = event.seq;
                    let text = match event.body {
                        Body::Reply(r) if !r.text.trim().is_empty() => r.text,
                        Body::PermissionRequested(p) => match p.told {
                            Some(told) => told,
                            None => continue,
                        },
                        Body::TurnEnded(t) => match t.error {
                            Some(e) => e,
                            None => continue,
                        },
                        _ => continue,
                    };
                    if let Err(e) = say_all(app.as_ref(), waits, &app_chat, &text).await {
                        conversations::warn(&format!(
                            "{}: a reply couldn't be sent: {e}",
                            app.name()
                        ));
                    }
                }
            }
        });
    }

    async fn pressed(&self, press: Pressed) {
        let owner = self.state.get(self.app.name()).ok().and_then(|s| s.owner);
        let reply = if owner.as_ref().is_some_and(|o| o.id == press.from.id) {
            let (reply, answered_in) = self.questions.pressed(&press).await;
            // A chat answered here has its replies carried back here, even
            // one this relay hasn't heard from since a restart (a question
            // asked again).
            if let Some(id) = answered_in {
                self.follow_mapped(&id);
            }
            reply
        } else {
            format!("Only {} can answer this.", self.owner_name)
        };
        // A press already answered (the app sent it twice) can't be
        // answered again: that's fine, it was.
        match patiently(self.waits, || self.app.answer(&press.id, &reply)).await {
            Ok(()) | Err(AppError::Refused(_)) => {}
            Err(e) => self.say_once(&e.to_string()),
        }
    }
}

pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
