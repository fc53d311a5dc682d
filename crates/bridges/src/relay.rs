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
use crate::state::{Allowed, StateFile};

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
    said: Mutex<Option<String>>,
    /// With a webhook: the secret each pushed request must carry.
    push_secret: std::sync::OnceLock<String>,
    /// When each stranger was last refused: told once in a while, not at
    /// every message, so a flood of strangers can't use up the app's
    /// patience (429s) that the owner's messages need.
    refused: Mutex<std::collections::HashMap<String, std::time::Instant>>,
    /// Pushed updates are handled one at a time, in order, past this cursor.
    pushed_cursor: tokio::sync::Mutex<Option<Option<u64>>>,
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
        let state = StateFile::new(home);
        let questions =
            Questions::start(app.clone(), state.clone(), chats.clone(), owner_name, waits);
        chats.notify().add_channel(questions.clone());
        chats.notify().start(&chats);
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

    /// Has the app push updates to `url` (Conch's `/hooks/{app}` at the
    /// owner's public address), each carrying `secret`; then the gateway
    /// hands them to [`Relay::pushed`] and nothing polls.
    pub async fn push_to(&self, url: &str, secret: &str) -> Result<(), AppError> {
        let _ = self.push_secret.set(secret.to_owned());
        patiently(self.waits, || self.app.push_to(Some(url), secret)).await
    }

    /// One pushed request: the HTTP status to answer. A request without
    /// the secret is 401 and read no further; an update handled before (the
    /// app sends again what wasn't answered in time) is 200 and not handled
    /// twice; one the app couldn't be asked about is 503, so it sends it
    /// again.
    pub async fn pushed(&self, secret: Option<&str>, body: &[u8]) -> u16 {
        let Some(want) = self.push_secret.get() else {
            return 404;
        };
        if !secret.is_some_and(|s| crate::access::same(s, want)) {
            return 401;
        }
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
            return 400;
        };
        let (c, update) = match self.app.read_pushed(&value).await {
            Ok(Some(u)) => u,
            Ok(None) => return 200,
            Err(e) => {
                self.say_once(&e.to_string());
                return 503;
            }
        };
        let name = self.app.name();
        let mut cursor = self.pushed_cursor.lock().await;
        let done = match *cursor {
            Some(done) => done,
            None => self.state.get(name).ok().and_then(|s| s.cursor),
        };
        if done.is_some_and(|d| c <= d) {
            *cursor = Some(done);
            return 200;
        }
        self.handle(update).await;
        *cursor = Some(Some(c));
        if let Err(e) = self.state.update(name, |s| s.cursor = Some(c)) {
            self.say_once(&e.to_string());
        }
        200
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

    fn say_once(&self, sentence: &str) {
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
            Route::LinkInGroup => {
                let _ = self.state.update(name, |s| s.link = None);
                self.tell(&said.chat, access::LINK_IN_GROUP).await;
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
            Route::Owner => self.post(&said, Speaker::Owner).await,
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
                self.post(&said, Speaker::Person).await;
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

    async fn post(&self, said: &Said, from: Speaker) {
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
        let (name, app) = match from {
            Speaker::Person => (
                Some(said.from.name.clone()),
                Some(self.app.name().to_owned()),
            ),
            _ => (None, Some(self.app.name().to_owned())),
        };
        if let Err(e) = chat.post_as(from, &said.text, name, app).await {
            self.tell(&said.chat, &e.to_string()).await;
            return;
        }
        if from == Speaker::Person && waiting {
            self.tell(&said.chat, &not_yours(&self.owner_name)).await;
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
            self.questions.pressed(&press).await
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

/// The allowlist entry `conch bridges allow` adds, unless it is there.
pub fn allow(state: &StateFile, app: &str, who: Allowed) -> Result<bool, crate::StateError> {
    state.update(app, |s| {
        let there = s.allowed.iter().any(|a| {
            (who.id.is_some() && a.id == who.id) || (who.handle.is_some() && a.handle == who.handle)
        });
        if !there {
            s.allowed.push(who);
        }
        !there
    })
}

/// Takes someone off the allowlist (by id or handle); whether they were on it.
pub fn disallow(state: &StateFile, app: &str, who: &Allowed) -> Result<bool, crate::StateError> {
    state.update(app, |s| {
        let before = s.allowed.len();
        s.allowed.retain(|a| {
            !((who.id.is_some() && a.id == who.id)
                || (who.handle.is_some() && a.handle == who.handle))
        });
        before != s.allowed.len()
    })
}

/// Says all of `text`, in as many messages as the app's limit needs, each
/// one waited out on its own (so a wait never sends a piece twice).
pub async fn say_all(
    app: &dyn ChatApp,
    waits: Waits,
    chat: &str,
    text: &str,
) -> Result<(), AppError> {
    for piece in pieces(text, app.max_chars()) {
        patiently(waits, || app.say(chat, &piece, &[])).await?;
    }
    Ok(())
}

/// `text` in pieces of at most `max` characters, cut after a line where
/// one ends late enough in the piece, else after a space, else anywhere.
pub fn pieces(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut out = Vec::new();
    let mut rest: Vec<char> = text.chars().collect();
    while rest.len() > max {
        let window = &rest[..max];
        let cut = ['\n', ' ']
            .iter()
            .find_map(|c| {
                window
                    .iter()
                    .rposition(|x| x == c)
                    .filter(|&at| at >= max / 2)
            })
            .map_or(max, |at| at + 1);
        out.push(rest[..cut].iter().collect());
        rest.drain(..cut);
    }
    if !rest.is_empty() || out.is_empty() {
        out.push(rest.into_iter().collect());
    }
    out
}

/// Makes one request, again after each wait the app asks for and after
/// the app couldn't be reached (a few times): "wait" means it wasn't done.
pub async fn patiently<'a, T, F>(waits: Waits, mut request: F) -> Result<T, AppError>
where
    F: FnMut() -> crate::app::BoxFuture<'a, Result<T, AppError>>,
{
    let mut unreachable = 0;
    loop {
        match request().await {
            Err(AppError::Limited { retry_after }) => {
                tokio::time::sleep(Duration::from_secs(retry_after).min(waits.most)).await;
            }
            Err(AppError::Unreachable(_)) if unreachable < 3 => {
                unreachable += 1;
                tokio::time::sleep(waits.unreachable).await;
            }
            other => return other,
        }
    }
}

pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::pieces;

    /// Whatever the text and the limit, the pieces are within the limit
    /// and put back together are the text, character for character.
    #[test]
    fn a_long_reply_is_sent_whole_in_pieces() {
        let words = [
            "word ",
            "слово ",
            "語",
            "\n",
            "👋🏽",
            "a-very-long-unbroken-token-",
            " ",
        ];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..500 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 3000) as usize;
            let max = 1 + (x >> 20) as usize % 300;
            let text: String = (0..n)
                .map(|i| words[(x as usize + i * 7) % words.len()])
                .collect();
            let got = pieces(&text, max);
            assert!(got.iter().all(|p| p.chars().count() <= max), "{max}");
            assert_eq!(got.concat(), text);
            assert!(got.iter().all(|p| !p.is_empty()) || text.is_empty());
        }
        assert_eq!(pieces("", 10), [""]);
    }
}
