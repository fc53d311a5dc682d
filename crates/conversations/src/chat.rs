//! One open chat: its log, and the runner that takes turns for its messages.
//!
//! Messages are never refused because a turn is running: each is written to
//! the log at once (so its place in the chat is fixed and it is safe on disk),
//! and the runner starts another turn for whatever arrived during the last
//! one. One runner per chat, so turns never overlap.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use engines::Engine;
use protocol::{Body, Event, Message, Mode, SkillBy, Speaker};
use tools::{Cancel, ToolBox};

use crate::broker::Waiters;
use crate::error::ChatError;
use crate::log::ChatLog;

pub use crate::error::MAX_MESSAGE_CHARS;

pub struct Chat {
    pub id: String,
    pub work: PathBuf,
    pub log: ChatLog,
    /// The chat that started this one, for a helper.
    pub parent: Option<String>,
    /// For an `artifact` chat (a pinned app's Refresh): the one artifact it
    /// may update.
    pub(crate) refreshes: Option<String>,
    /// What every chat of one `Chats` shares.
    pub(crate) shared: Shared,
    /// What changes while the chat is open.
    pub(crate) live: Live,
}

/// What changes while a chat is open: the turn running now, its waiters,
/// and what Auto's reviewer allowed.
pub(crate) struct Live {
    /// The engine the running (or last) turn was picked to run on; the
    /// reviewer asks the same model.
    pub turn_engine: Mutex<Option<Arc<dyn Engine>>>,
    /// Skills' lists as they are now, for holds recorded without one; read
    /// at the start of each turn.
    pub skill_lists: Mutex<std::collections::BTreeMap<String, protocol::SkillPermissions>>,
    pub running: Mutex<bool>,
    /// Stop for the turn running now.
    pub current: Mutex<Option<Cancel>>,
    pub waiters: Waiters,
    /// Answers, mode changes and ended questions are decided one at a time,
    /// so two answers to one question can't both land.
    pub decisions: tokio::sync::Mutex<()>,
    /// The redacted page Auto's reviewer allowed a browser click on, by
    /// call: the click happens only on that page, exactly.
    pub reviewed_pages: Mutex<std::collections::HashMap<String, String>>,
}

/// What every chat of one `Chats` shares.
pub(crate) struct Shared {
    pub engine: Arc<dyn Engine>,
    pub tools: Arc<dyn ToolBox>,
    pub policies: Arc<guard::Settings>,
    pub skills: Option<Arc<skills::Catalog>>,
    pub chats: std::sync::Weak<crate::chats::Chats>,
    pub artifacts: artifacts::Store,
    pub switches: Arc<crate::safety::Switches>,
    pub review: crate::settings::ReviewConfig,
    pub max_steps: usize,
    pub memories: Arc<memory::Store>,
}

/// A message as written.
#[derive(Debug, Clone)]
pub struct Posted {
    pub event: Event,
    /// A turn was running, so this message waits for the next one.
    pub queued: bool,
}

impl Chat {
    pub(crate) fn new(id: String, work: PathBuf, log: ChatLog, shared: Shared) -> Chat {
        let parent = log.with_view(|v| v.created.as_ref().and_then(|c| c.parent.clone()));
        let refreshes = log.with_view(|v| {
            v.created
                .as_ref()
                .filter(|c| c.origin == protocol::Origin::Artifact)
                .map(|c| c.artifact.clone().unwrap_or_default())
        });
        Chat {
            id,
            work,
            log,
            parent,
            refreshes,
            shared,
            live: Live {
                turn_engine: Mutex::new(None),
                skill_lists: Mutex::new(Default::default()),
                running: Mutex::new(false),
                current: Mutex::new(None),
                waiters: Waiters::default(),
                decisions: tokio::sync::Mutex::new(()),
                reviewed_pages: Mutex::default(),
            },
        }
    }

    /// Picks the engine for a turn that is starting: the provider the chat
    /// picked, else the default one (see `models.rs`), else the engine the
    /// chats were made with.
    pub(crate) async fn pick_engine(&self) -> Arc<dyn Engine> {
        let picked = self.log.with_view(|v| v.provider.clone());
        let models = self
            .shared
            .chats
            .upgrade()
            .and_then(|c| c.models().cloned());
        let engine = match models {
            Some(models) => tokio::task::spawn_blocking(move || models.pick(picked.as_deref()))
                .await
                .ok()
                .flatten()
                .map(|p| p.engine),
            None => None,
        }
        .unwrap_or_else(|| self.shared.engine.clone());
        *self
            .live
            .turn_engine
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(engine.clone());
        engine
    }

    /// The engine of the running (or last) turn.
    pub(crate) fn engine_now(&self) -> Arc<dyn Engine> {
        self.live
            .turn_engine
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .unwrap_or_else(|| self.shared.engine.clone())
    }

    /// What the guard is given besides the chat: the mode and tool policies.
    pub(crate) fn guard_settings(&self, mode: Mode) -> guard::Settings {
        guard::Settings {
            mode,
            skill_lists: self
                .live
                .skill_lists
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
            check_after_reading: self.shared.switches.check_after_reading(),
            // Read at every call: a tool turned off while a review was
            // pending is off when the call would run.
            policies: with_apps(
                self.shared.switches.policies(),
                self.shared.tools.app_policies(),
            ),
            ..(*self.shared.policies).clone()
        }
    }

    /// A person stops holding the chat to a skill's list. Never while a turn
    /// runs: the skill may be steering it right now.
    pub async fn stop_holding(&self, skill: &str) -> Result<(), ChatError> {
        // Just after a turn ends, the runner looks for queued messages before
        // it lets go: give it a moment, so a press right after a turn isn't
        // refused for a turn that is over. A turn that starts meanwhile is.
        let settle = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while self.is_running()
            && self.log.with_view(|v| v.open_turn.is_none())
            && std::time::Instant::now() < settle
        {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        let _one_at_a_time = self.live.decisions.lock().await;
        if self.is_running() || self.log.with_view(|v| v.open_turn.is_some()) {
            return Err(ChatError::TurnRunning);
        }
        if self
            .log
            .with_view(|v| !v.holds.iter().any(|h| h.skill == skill))
        {
            return Err(ChatError::NotHeld(skill.chars().take(80).collect()));
        }
        self.log
            .append(Body::SkillHoldEnded(protocol::SkillHoldEnded {
                skill: skill.to_owned(),
                reason: "you".to_owned(),
            }))
            .await?;
        Ok(())
    }

    /// Stops the running turn: the engine, a waiting question, a running
    /// command. Messages queued behind it don't start a turn by themselves.
    /// False when no turn was running.
    pub fn stop(&self) -> bool {
        match &*self.live.current.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(cancel) => {
                cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// The owner writes; a turn runs for it. A message that starts with
    /// `/name` of a skill that is on brings the skill's instructions in
    /// (`skill.used`, typed); one that is off is refused with why, and
    /// nothing is written.
    pub async fn post(self: &Arc<Self>, text: &str) -> Result<Posted, ChatError> {
        self.post_replacing(text, None).await
    }

    /// The owner writes, in place of an earlier message of theirs
    /// (`replaces`: Edit and resend, Retry); the earlier one stays in the log.
    pub(crate) async fn post_replacing(
        self: &Arc<Self>,
        text: &str,
        replaces: Option<u64>,
    ) -> Result<Posted, ChatError> {
        let typed = self.typed_skill(text)?;
        let posted = self
            .post_quietly(Speaker::Owner, text, None, None, replaces)
            .await?;
        if let Some(skill) = typed {
            self.log
                .append(Body::SkillUsed(crate::skill_use::used(
                    &skill,
                    SkillBy::Typed,
                )))
                .await?;
        }
        self.kick();
        Ok(posted)
    }

    fn typed_skill(&self, text: &str) -> Result<Option<skills::Skill>, ChatError> {
        let (Some(catalog), Some(rest)) =
            (&self.shared.skills, text.trim_start().strip_prefix('/'))
        else {
            return Ok(None);
        };
        let name = rest.split_whitespace().next().unwrap_or("");
        if name.is_empty() || name.contains('/') {
            return Ok(None);
        }
        match catalog.usable(name) {
            Ok(skill) => Ok(Some(skill)),
            Err(skills::SkillError::NotFound(_)) => Ok(None),
            Err(e) => Err(ChatError::Skill(e.to_string())),
        }
    }

    pub async fn post_as(
        self: &Arc<Self>,
        from: Speaker,
        text: &str,
        name: Option<String>,
        app: Option<String>,
    ) -> Result<Posted, ChatError> {
        let posted = self.post_quietly(from, text, name, app, None).await?;
        self.kick();
        Ok(posted)
    }

    /// Writes the message (and a person's mark) without starting a turn.
    async fn post_quietly(
        self: &Arc<Self>,
        from: Speaker,
        text: &str,
        name: Option<String>,
        app: Option<String>,
        replaces: Option<u64>,
    ) -> Result<Posted, ChatError> {
        if text.trim().is_empty() {
            return Err(ChatError::EmptyMessage);
        }
        let chars = text.chars().count();
        if chars > MAX_MESSAGE_CHARS {
            return Err(ChatError::MessageTooLong { chars });
        }
        let queued = self.is_running();
        let who = match (&name, &app) {
            (Some(n), Some(a)) => format!("{n} on {a}"),
            (Some(n), None) => n.clone(),
            _ => "Someone".to_owned(),
        };
        let event = self
            .log
            .append(Body::Message(Message {
                from,
                text: text.to_owned(),
                name,
                app,
                replaces,
            }))
            .await?;
        // Someone else's words are something from outside.
        if from == Speaker::Person {
            self.mark(protocol::MarkSource::Person, who, None).await?;
        }
        Ok(Posted { event, queued })
    }

    /// Records that the chat took in something from outside. The first mark
    /// carries the transcript's quiet line.
    pub(crate) async fn mark(
        &self,
        source: protocol::MarkSource,
        what: String,
        call: Option<String>,
    ) -> Result<(), crate::log::LogError> {
        self.mark_from(source, what, call, None).await
    }

    /// A mark, saying for a carried one which chat it came from.
    pub(crate) async fn mark_from(
        &self,
        source: protocol::MarkSource,
        what: String,
        call: Option<String>,
        from: Option<String>,
    ) -> Result<(), crate::log::LogError> {
        self.mark_with(source, what, call, from, None).await
    }

    /// A mark that came with a file: the path is kept, so the owner can
    /// clear the file's mark from the card of the call that read it.
    pub(crate) async fn mark_with(
        &self,
        source: protocol::MarkSource,
        what: String,
        call: Option<String>,
        from: Option<String>,
        path: Option<String>,
    ) -> Result<(), crate::log::LogError> {
        let (first, then) = self.log.with_view(|v| {
            let mode = v.mode.unwrap_or(protocol::Mode::Ask);
            (
                !v.is_marked(),
                guard::after_reading(mode, v, self.shared.switches.check_after_reading()),
            )
        });
        let says = first.then(|| guard::words::first_mark(source, &what, then));
        self.log
            .append(Body::Taint(protocol::Taint {
                source,
                what,
                call,
                says,
                from,
                path,
            }))
            .await?;
        Ok(())
    }

    /// Keeps the page the reviewer allowed `call`'s click on.
    pub(crate) fn keep_reviewed_page(&self, call: &str, page: String) {
        self.live
            .reviewed_pages
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(call.to_owned(), page);
    }

    /// The page the reviewer allowed `call` on, once.
    pub(crate) fn take_reviewed_page(&self, call: &str) -> Option<String> {
        self.live
            .reviewed_pages
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(call)
    }

    /// Whether a turn is running or about to.
    pub fn is_running(&self) -> bool {
        *self.live.running.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts the runner unless it is already going. The runner checks for
    /// waiting messages under the same lock before it stops, and the log's
    /// view is updated before an append is acknowledged, so a message is
    /// either seen by the running runner or starts a new one.
    fn kick(self: &Arc<Self>) {
        let mut running = self.live.running.lock().unwrap_or_else(|p| p.into_inner());
        if *running {
            return;
        }
        *running = true;
        let chat = self.clone();
        tokio::spawn(async move { chat.drive().await });
    }

    async fn drive(self: Arc<Self>) {
        loop {
            {
                let mut running = self.live.running.lock().unwrap_or_else(|p| p.into_inner());
                if !self.log.with_view(|v| v.waiting_for_turn()) {
                    *running = false;
                    return;
                }
            }
            if let Err(e) = crate::turn::run(&self).await {
                crate::warn(&format!(
                    "Chat {}: a turn couldn't be written: {e}",
                    self.id
                ));
                *self.live.running.lock().unwrap_or_else(|p| p.into_inner()) = false;
                return;
            }
        }
    }
}

/// The owner's tool policies with their apps' (read from Apps at each
/// call): a tool refused by either is refused; otherwise the apps' choice
/// counts unless it only follows the mode.
fn with_apps(
    mut policies: std::collections::BTreeMap<String, guard::Policy>,
    apps: std::collections::BTreeMap<String, guard::Policy>,
) -> std::collections::BTreeMap<String, guard::Policy> {
    for (tool, app) in apps {
        let merged = match policies.get(&tool).copied() {
            Some(own) if own.refuses_all() => own,
            Some(own) if app == guard::Policy::Mode => own,
            _ => app,
        };
        policies.insert(tool, merged);
    }
    policies
}
