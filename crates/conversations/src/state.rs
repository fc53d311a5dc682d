//! One chat's state, below everything that acts on it: its log, what every
//! chat shares, what changes while it is open, and the small acts every
//! part needs (a mark, the guard's settings, the engine of the turn, an
//! ended question). A turn and everything it calls take a [`Core`]; the
//! public [`crate::Chat`] wraps one and starts its turns. Other chats are
//! reached through the [`Registry`] that holds them, never by name, so
//! nothing here reaches back up.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use engines::Engine;
use protocol::{
    Action, Answer, Body, Event, Mode, Origin, PermissionAnswered, PermissionEnded, Speaker,
};
use tools::{Cancel, ToolBox, ToolCall};

use crate::broker::Waiters;
use crate::error::ChatError;
use crate::log::{ChatLog, LogError};

/// A future a [`Registry`] hands back.
pub(crate) type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a chat reaches of the registry that holds it (`Chats`): other
/// chats, and what every chat shares.
pub(crate) trait Registry: Send + Sync {
    /// An open chat, opened if it isn't.
    fn get(&self, id: &str) -> Result<Arc<Core>, ChatError>;
    /// A new chat.
    fn create(&self, new: NewChat) -> Boxed<'_, Result<Arc<Core>, ChatError>>;
    /// Writes a message into chat `id` and starts its turn.
    fn post(&self, id: String, from: Speaker, text: String)
        -> Boxed<'_, Result<Posted, ChatError>>;
    fn home(&self) -> &crate::home::Home;
    fn ledger(&self) -> &Arc<crate::ledger::Ledger>;
    fn models(&self) -> Option<Arc<crate::models::Models>>;
    fn browser(&self) -> Option<Arc<browser::Browser>>;
    /// Writes what happened to memories into the chats that wrote them.
    fn deliver_memories(&self) -> Boxed<'_, ()>;
}

/// What a new chat starts with.
#[derive(Debug, Default, Clone)]
pub struct NewChat {
    pub work: Option<String>,
    pub mode: Option<Mode>,
    pub origin: Option<Origin>,
    /// The chat that started this one (a helper's).
    pub parent: Option<String>,
    /// For an `artifact` chat (a pinned app's Refresh): its one artifact.
    pub artifact: Option<String>,
}

/// A message as written.
#[derive(Debug, Clone)]
pub struct Posted {
    pub event: Event,
    /// A turn was running, so this message waits for the next one.
    pub queued: bool,
}

pub struct Core {
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
    /// (turn, path) of each file kept for undo, so a turn keeps a file once
    /// (see `undo`).
    pub kept: Mutex<std::collections::HashSet<(u64, String)>>,
    /// The work folder as the last command left it (see `undo::commands`).
    pub commands: Mutex<crate::undo::commands::Known>,
    /// The provider the running (or last) turn runs on; None: the engine
    /// `Chats` was made with.
    pub turn_provider: Mutex<Option<String>>,
}

/// What every chat of one `Chats` shares.
pub(crate) struct Shared {
    pub engine: Arc<dyn Engine>,
    pub tools: Arc<dyn ToolBox>,
    pub policies: Arc<guard::Settings>,
    pub skills: Option<Arc<skills::Catalog>>,
    /// The registry that holds this chat, for other chats and what every
    /// chat shares.
    pub chats: std::sync::Weak<dyn Registry>,
    pub artifacts: artifacts::Store,
    pub switches: Arc<crate::safety::Switches>,
    pub review: crate::settings::ReviewConfig,
    pub max_steps: usize,
    pub memories: Arc<memory::Store>,
    /// Stop everything: while set, nothing starts.
    pub halt: Arc<crate::halt::Halt>,
    /// The secrets taken out of what a chat stores or makes.
    pub secrets: Arc<crate::known_secrets::KnownSecrets>,
    /// What model requests cost, against the caps (see `spending`).
    pub spending: Arc<crate::spending::Ledger>,
}

impl Core {
    pub(crate) fn new(id: String, work: PathBuf, log: ChatLog, shared: Shared) -> Core {
        let parent = log.with_view(|v| v.created.as_ref().and_then(|c| c.parent.clone()));
        let refreshes = log.with_view(|v| {
            v.created
                .as_ref()
                .filter(|c| c.origin == protocol::Origin::Artifact)
                .map(|c| c.artifact.clone().unwrap_or_default())
        });
        Core {
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
                kept: Mutex::default(),
                commands: Mutex::default(),
                turn_provider: Mutex::default(),
            },
        }
    }

    /// Picks the engine for a turn that is starting: the provider the chat
    /// picked, else the default one (see `models.rs`), else the engine the
    /// chats were made with.
    pub(crate) async fn pick_engine(&self) -> Arc<dyn Engine> {
        let picked = self.log.with_view(|v| v.provider.clone());
        let models = self.shared.chats.upgrade().and_then(|c| c.models());
        let picked = match models {
            Some(models) => tokio::task::spawn_blocking(move || models.pick(picked.as_deref()))
                .await
                .ok()
                .flatten(),
            None => None,
        };
        *self
            .live
            .turn_provider
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = picked.as_ref().and_then(|p| p.provider.clone());
        let engine = picked
            .map(|p| p.engine)
            .unwrap_or_else(|| self.shared.engine.clone());
        *self
            .live
            .turn_engine
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(engine.clone());
        engine
    }

    /// The provider of the running (or last) turn.
    pub(crate) fn turn_provider(&self) -> Option<String> {
        self.live
            .turn_provider
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
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
    /// Hands `f` the call and the chat as it is now, in its mode: what the
    /// approval machine decides from.
    pub(crate) fn with_look<R>(
        &self,
        call: &ToolCall,
        action: &Action,
        f: impl FnOnce(approval::Call<'_>, &approval::Look<'_>) -> R,
    ) -> R {
        let work = self.work.to_string_lossy();
        let contacts = self.shared.switches.contacts();
        self.log.with_view(|view| {
            let settings = self.guard_settings(view.mode.unwrap_or(Mode::Ask));
            let at = approval::Look {
                view,
                settings: &settings,
                work: &work,
                contacts: &contacts,
            };
            let call = approval::Call {
                tool: &call.name,
                action,
                input: &call.input,
            };
            f(call, &at)
        })
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
