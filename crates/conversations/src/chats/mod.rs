//! The registry of chats: creating them, opening them on first use (one open
//! handle per chat in this process), and listing them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use std::collections::BTreeMap;

use engines::Engine;
use protocol::{
    Body, ChatCreated, ChatView, EndReason, Event, Mode, Origin, PermissionEnded, Speaker,
    TurnEnded,
};
use tools::ToolBox;

use crate::chat::Chat;
use crate::error::ChatError;
use crate::home::Home;
use crate::ids;
use crate::log::{scan, ChatLog, Durability, LogError, LOG_FILE};
use crate::private_file::create_private_dir;
pub use crate::state::NewChat;
use crate::state::{Core, Registry};

pub struct ChatsConfig {
    pub durability: Durability,
    /// Where a chat works when it isn't given a folder.
    pub default_work: PathBuf,
    pub default_mode: Mode,
    /// Tools the owner set to Ask, Read-only or Off.
    pub policies: BTreeMap<String, guard::Policy>,
    /// What the guard is told besides the mode and policies: the Safety
    /// preference, what is protected, the owner's name.
    pub guard: GuardConfig,
    /// Skills the owner can type as /name (and the assistant can load).
    pub skills: Option<Arc<skills::Catalog>>,
    /// Steps one turn may take (`maxSteps`); None: [`DEFAULT_MAX_STEPS`].
    pub max_steps: Option<usize>,
}

/// Steps one turn may take unless `maxSteps` says otherwise.
pub const DEFAULT_MAX_STEPS: usize = 200;

/// `Default`: checking on, nothing protected (for tests); `usual` is what
/// `conch serve` uses.
#[derive(Debug, Clone)]
pub struct GuardConfig {
    pub check_after_reading: bool,
    pub protected: Arc<guard::Protected>,
    pub owner_name: String,
    /// Safety, switched live by Settings; absent: made from
    /// `check_after_reading`, all else on.
    pub switches: Option<Arc<crate::safety::Switches>>,
    /// Auto mode's reviewer.
    pub review: crate::settings::ReviewConfig,
    /// The person's home folder, resolved: a chat can't work above it.
    pub owner_home: Option<PathBuf>,
}

impl Default for GuardConfig {
    fn default() -> Self {
        GuardConfig {
            check_after_reading: true,
            protected: Default::default(),
            owner_name: "the owner".to_owned(),
            switches: None,
            review: Default::default(),
            owner_home: None,
        }
    }
}

impl GuardConfig {
    /// The usual: checking on, Conch's folder and the person's keys protected.
    pub fn usual(home: &Home) -> GuardConfig {
        GuardConfig {
            check_after_reading: true,
            protected: Arc::new(tools::protected::here(home.root())),
            owner_name: "the owner".to_owned(),
            switches: None,
            review: Default::default(),
            owner_home: std::env::var_os("HOME").filter(|h| !h.is_empty()).map(|h| {
                let h = PathBuf::from(h);
                h.canonicalize().unwrap_or(h)
            }),
        }
    }
}

pub struct Chats {
    pub(crate) home: Home,
    engine: Arc<dyn Engine>,
    tools: Arc<dyn ToolBox>,
    config: ChatsConfig,
    policies: Arc<guard::Settings>,
    open: Mutex<HashMap<String, Arc<Chat>>>,
    /// Chats being opened now, one lock each.
    opening: Mutex<HashMap<String, Arc<Mutex<()>>>>,
    /// Chats being made now: their log is held by their maker until they
    /// are open, so nobody else may open (or reuse) them meanwhile.
    creating: Mutex<std::collections::HashSet<String>>,
    /// Itself, for chats that start helpers.
    me: std::sync::Weak<Chats>,
    artifacts: artifacts::Store,
    pub(crate) activity: Arc<crate::activity::Activity>,
    /// Words inside chats (built on the first search).
    pub(crate) search: Arc<crate::chat_search::ChatSearch>,
    /// Stop everything (see `halt`).
    pub(crate) halt: Arc<crate::halt::Halt>,
    security: Arc<crate::security::SecurityLog>,
    switches: Arc<crate::safety::Switches>,
    /// The owner's notifications (see `notify`).
    notify: Arc<crate::notify::Notify>,
    /// What a work folder may not be: the guard's protected places, with
    /// this Chats' own home among them whatever the configuration says.
    work_rule: guard::Protected,
    memories: crate::memories::Memories,
    /// Which provider answers a turn (see models.rs); without it, every
    /// turn runs on `engine`.
    models: std::sync::OnceLock<Arc<crate::models::Models>>,
    /// Conch's own browser (see `browsing`); without it, the browser tools
    /// aren't offered.
    browser: std::sync::OnceLock<Arc<browser::Browser>>,
    /// What a list shows of chats that aren't open, by when their log last
    /// changed and how long it was (see `peek`).
    pub(crate) peeked: Mutex<HashMap<String, (std::time::SystemTime, u64, Peeked)>>,
    /// What marked chats wrote (see `ledger`).
    ledger: Arc<crate::ledger::Ledger>,
    /// The secrets taken out of whatever is stored, shown or sent.
    secrets: Arc<crate::known_secrets::KnownSecrets>,
    /// What model requests cost (see `spending`).
    spending: Arc<crate::spending::Ledger>,
}

/// What a list needs from a chat that isn't open.
#[derive(Debug, Clone)]
pub(crate) struct Peeked {
    view: ChatView,
    created_at: Option<String>,
}

/// A chat as a list shows it.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSummary {
    pub id: String,
    /// For a routine's run: the routine's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routine: Option<String>,
    pub title: Option<String>,
    pub work: Option<String>,
    pub mode: Option<Mode>,
    pub origin: Option<Origin>,
    pub created: Option<String>,
    pub updated: Option<String>,
    pub running: bool,
    /// Questions waiting for the owner's answer: the chat needs them.
    pub waiting: usize,
    pub archived: bool,
    /// The provider the owner picked for it (None: the default).
    pub provider: Option<String>,
    /// Messages in it; for a chat that isn't open, those in the part of
    /// its log a list reads (enough to say whether it is empty).
    #[serde(skip)]
    pub messages: u64,
}

pub use crate::home::TRASH_DIR;

/// How long the trash keeps a deleted chat.
pub const TRASH_DAYS: u64 = 30;

/// How much of an unopened chat's log a list reads for its title.
const SUMMARY_BYTES: u64 = 64 * 1024;

mod registry;
mod routines;
mod stop_all;
mod trash;
pub use routines::RunAsChat;
pub use trash::Trashed;

impl Chats {
    pub fn new(
        home: Home,
        engine: Arc<dyn Engine>,
        tools: Arc<dyn ToolBox>,
        mut config: ChatsConfig,
    ) -> Arc<Chats> {
        let work_rule = {
            let mut rule = (*config.guard.protected).clone();
            let root = home.root().to_string_lossy().into_owned();
            if !rule.conch_home.contains(&root) {
                rule.conch_home.push(root);
            }
            rule
        };
        // Started in a folder no chat may work in (`/`, say, under a
        // service manager): new chats work in the person's home instead.
        let owner_home = config.guard.owner_home.clone();
        if let Err(ChatError::WorkRefused(sentence)) =
            check_work(&config.default_work, &work_rule, owner_home.as_deref())
        {
            if let Some(home) = owner_home.filter(|h| check_work(h, &work_rule, Some(h)).is_ok()) {
                crate::warn(&format!(
                    "{sentence} New chats work in {} instead, unless they're given a folder.",
                    home.display()
                ));
                config.default_work = home;
            }
        }
        let activity = Arc::new(crate::activity::Activity::new(&home.chats_dir()));
        let security = Arc::new(crate::security::SecurityLog::new(home.root()));
        {
            let activity = activity.clone();
            security.observe(Box::new(move |attempt| activity.observe_security(attempt)));
        }
        Arc::new_cyclic(|me| Chats {
            work_rule,
            notify: Arc::default(),
            search: Arc::new(crate::chat_search::ChatSearch::new(&home.chats_dir())),
            halt: Arc::new(crate::halt::Halt::load(home.root())),
            activity,
            security,
            me: me.clone(),
            artifacts: artifacts::Store::new(&home.root().join("artifacts")),
            memories: crate::memories::Memories::new(
                Arc::new(memory::Store::new(home.root())),
                me.clone() as std::sync::Weak<dyn Registry>,
            ),
            models: std::sync::OnceLock::new(),
            browser: std::sync::OnceLock::new(),
            peeked: Mutex::new(HashMap::new()),
            ledger: Arc::new(crate::ledger::Ledger::new(home.root())),
            secrets: Arc::new(crate::known_secrets::KnownSecrets::new(home.root())),
            spending: Arc::new(crate::spending::Ledger::new(home.root())),
            switches: {
                let switches = config.guard.switches.clone().unwrap_or_else(|| {
                    Arc::new(crate::safety::Switches::new(&crate::settings::Safety {
                        check_after_reading: config.guard.check_after_reading,
                        ..Default::default()
                    }))
                });
                switches.set_policies(config.policies.clone());
                switches
            },
            home,
            engine,
            tools,
            policies: Arc::new(guard::Settings {
                mode: Mode::Ask,
                policies: config.policies.clone(),
                check_after_reading: config.guard.check_after_reading,
                protected: config.guard.protected.clone(),
                owner_name: config.guard.owner_name.clone(),
                skill_lists: Default::default(),
            }),
            config,
            open: Mutex::new(HashMap::new()),
            opening: Mutex::new(HashMap::new()),
            creating: Mutex::default(),
        })
    }

    fn check_work(&self, path: &Path) -> Result<PathBuf, ChatError> {
        check_work(
            path,
            &self.work_rule,
            self.config.guard.owner_home.as_deref(),
        )
    }

    pub fn home(&self) -> &Home {
        &self.home
    }

    /// What model requests cost, against the caps.
    pub fn spending(&self) -> &Arc<crate::spending::Ledger> {
        &self.spending
    }

    /// The secrets Conch holds, to take out of what leaves it.
    pub fn secrets(&self) -> &Arc<crate::known_secrets::KnownSecrets> {
        &self.secrets
    }

    pub fn skills(&self) -> Option<&Arc<skills::Catalog>> {
        self.config.skills.as_ref()
    }

    pub fn engine_name(&self) -> &str {
        self.engine.name()
    }

    /// Turns pick their engine from the home's providers from now on.
    pub fn use_models(&self, models: Arc<crate::models::Models>) {
        let _ = self.models.set(models);
    }

    /// Gives every chat Conch's browser: its tools are offered from now
    /// on, and its downloads land in their chats' work folders. Once; a
    /// second browser is ignored. Needs a running Tokio runtime.
    pub fn use_browser(&self, browser: Arc<browser::Browser>) {
        if let Some(downloads) = browser.downloads() {
            tokio::spawn(crate::browsing::watch_downloads(self.me.clone(), downloads));
        }
        if let Some(sent) = browser.sent() {
            tokio::spawn(crate::browsing::watch_sent(self.me.clone(), sent));
        }
        let _ = self.browser.set(browser);
    }

    pub fn browser(&self) -> Option<&Arc<browser::Browser>> {
        self.browser.get()
    }

    pub fn models(&self) -> Option<&Arc<crate::models::Models>> {
        self.models.get()
    }

    /// The newest chat the owner started that has nothing in it yet (no
    /// message, not archived), in this work folder and mode when they are
    /// given: a New chat opens it instead of stacking another empty one.
    pub fn empty_chat(&self, work: Option<&Path>, mode: Option<Mode>) -> Option<String> {
        let work = work.map(|w| w.canonicalize().unwrap_or_else(|_| w.to_path_buf()));
        self.list()
            .into_iter()
            .filter(|c| c.messages == 0 && !c.archived && !c.running)
            // One being made now is its maker's: two New chats at once were
            // both given it, and the second one's open found it held.
            .filter(|c| !self.lock_creating().contains(&c.id))
            .filter(|c| c.origin.is_none_or(|o| o == Origin::Owner))
            .filter(|c| {
                work.as_ref()
                    .is_none_or(|w| c.work.as_deref().map(Path::new) == Some(w.as_path()))
            })
            .find(|c| mode.is_none_or(|m| c.mode == Some(m)))
            .map(|c| c.id)
    }

    pub async fn create(&self, new: NewChat) -> Result<Arc<Chat>, ChatError> {
        self.create_with(new, None).await
    }

    /// A chat for one run of a routine (`chat.created` names it).
    pub(crate) async fn create_run(
        &self,
        new: NewChat,
        routine: &str,
    ) -> Result<Arc<Chat>, ChatError> {
        self.create_with(new, Some(routine.to_owned())).await
    }

    async fn create_with(
        &self,
        new: NewChat,
        routine: Option<String>,
    ) -> Result<Arc<Chat>, ChatError> {
        let work = match new.work {
            Some(text) => self.check_work(Path::new(&text))?,
            None => self.check_work(&self.config.default_work)?,
        };
        let id = ids::chat_id();
        let dir = self.home.chat_dir(&id);
        self.lock_creating().insert(id.clone());
        let making = id.clone();
        let _made = Made {
            chats: self,
            id: &making,
        };
        create_private_dir(&dir).map_err(LogError::io(&dir))?;
        let (log, _) = ChatLog::open(&dir, self.config.durability)?;
        self.watch(&id, &log);
        log.append(Body::ChatCreated(ChatCreated {
            work: work.to_string_lossy().into_owned(),
            mode: new.mode.unwrap_or(self.config.default_mode),
            origin: new.origin.unwrap_or(Origin::Owner),
            parent: new.parent.clone(),
            artifact: new.artifact.clone(),
            routine,
        }))
        .await?;
        let chat = Arc::new(Chat::wrap(Arc::new(Core::new(
            id.clone(),
            work,
            log,
            self.shared(),
        ))));
        self.lock_open().insert(id, chat.clone());
        Ok(chat)
    }

    /// The chat with this id, opening it if it isn't open yet. Opening reads
    /// the whole log once, so call this off the async threads for big chats.
    /// The chat, if it is open now (never opens it).
    pub fn already_open(&self, id: &str) -> Option<Arc<Chat>> {
        self.lock_open().get(id).cloned()
    }

    pub fn get(&self, id: &str) -> Result<Arc<Chat>, ChatError> {
        if !ids::is_valid_id(id) {
            return Err(ChatError::NotFound(id.chars().take(64).collect()));
        }
        if let Some(chat) = self.lock_open().get(id) {
            return Ok(chat.clone());
        }
        // A chat being made is open in a moment (its maker holds its log):
        // wait for that rather than find the log held.
        let waited = std::time::Instant::now();
        while self.lock_creating().contains(id) && waited.elapsed() < CREATING_WAIT {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        if let Some(chat) = self.lock_open().get(id) {
            return Ok(chat.clone());
        }
        // Opening reads the whole log: one opener per chat, and other chats
        // aren't held up meanwhile.
        let opening = self
            .lock_opening()
            .entry(id.to_owned())
            .or_default()
            .clone();
        let _one_opener = opening.lock().unwrap_or_else(|p| p.into_inner());
        let _done = Opened { chats: self, id };
        if let Some(chat) = self.lock_open().get(id) {
            return Ok(chat.clone());
        }
        let dir = self.home.chat_dir(id);
        if !dir.join(LOG_FILE).is_file() {
            return Err(ChatError::NotFound(id.to_owned()));
        }
        let (log, report) = ChatLog::open(&dir, self.config.durability)?;
        self.watch(id, &log);
        for warning in report.warnings(id) {
            crate::warn(&warning);
        }
        let view = log.view();
        let work = view
            .created
            .as_ref()
            .map(|c| PathBuf::from(&c.work))
            .unwrap_or_else(|| self.config.default_work.clone());
        // The process that was running these is gone: see broker.rs. The
        // calls they asked about are asked again in a turn of their own.
        let again: Vec<crate::ToolCall> = match view.pending.first() {
            Some(first) => {
                let events = log.events_after(first.turn.saturating_sub(1))?;
                view.pending
                    .iter()
                    .filter_map(|p| {
                        events.iter().rev().find_map(|e| match &e.body {
                            Body::ToolCalled(c) if c.call == p.call => Some(crate::ToolCall {
                                id: c.call.clone(),
                                name: c.tool.clone(),
                                input: c.input.clone(),
                            }),
                            _ => None,
                        })
                    })
                    .collect()
            }
            None => Vec::new(),
        };
        for pending in &view.pending {
            log.append_blocking(Body::PermissionEnded(PermissionEnded {
                ask: pending.ask.clone(),
                reason: "restart".to_owned(),
            }))?;
        }
        if let Some(turn) = view.open_turn {
            log.append_blocking(Body::TurnEnded(TurnEnded {
                turn: turn.seq,
                reason: EndReason::Interrupted,
                error: Some("Conch stopped while this turn was running.".to_owned()),
            }))?;
        }
        let chat = Arc::new(Chat::wrap(Arc::new(Core::new(
            id.to_owned(),
            work,
            log,
            self.shared(),
        ))));
        self.lock_open().insert(id.to_owned(), chat.clone());
        if !again.is_empty() && self.halt.get().is_none() {
            chat.ask_again(again);
        }
        Ok(chat)
    }

    /// After a restart: every chat with a question still waiting is opened,
    /// so its question is asked again at once (on the page and in the
    /// owner's chat app), not only when someone looks at the chat.
    pub fn ask_again_after_restart(self: &Arc<Self>) {
        let me = self.clone();
        tokio::task::spawn_blocking(move || {
            let waiting = me.activity.page(None, &[], true, 500);
            let mut seen = std::collections::HashSet::new();
            for row in waiting.rows.iter().filter(|r| r.row.ask.is_some()) {
                if seen.insert(row.chat.clone()) && !row.chat_deleted {
                    let _ = me.get(&row.chat);
                }
            }
        });
    }

    fn lock_creating(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.creating.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_opening(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Mutex<()>>>> {
        self.opening.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn shared(&self) -> crate::state::Shared {
        crate::state::Shared {
            engine: self.engine.clone(),
            tools: self.tools.clone(),
            policies: self.policies.clone(),
            skills: self.config.skills.clone(),
            chats: self.me.clone() as std::sync::Weak<dyn Registry>,
            artifacts: self.artifacts.clone(),
            switches: self.switches.clone(),
            review: self.config.guard.review.clone(),
            max_steps: self.config.max_steps.unwrap_or(DEFAULT_MAX_STEPS).max(1),
            memories: self.memories.store().clone(),
            halt: self.halt.clone(),
            secrets: self.secrets.clone(),
            spending: self.spending.clone(),
        }
    }

    /// Conch's memories: the owner's side (list, add, keep, change, forget).
    pub fn memories(&self) -> &crate::memories::Memories {
        &self.memories
    }

    /// Safety, as it is now.
    pub fn switches(&self) -> &Arc<crate::safety::Switches> {
        &self.switches
    }

    /// Failed tries to get in (the gateway writes them).
    pub fn security(&self) -> &Arc<crate::security::SecurityLog> {
        &self.security
    }

    /// Activity across every chat.
    pub fn activity(&self) -> &Arc<crate::activity::Activity> {
        &self.activity
    }

    /// Search inside chats.
    pub fn search(&self) -> &Arc<crate::chat_search::ChatSearch> {
        &self.search
    }

    /// The owner's notifications.
    /// Starts building notices from the chats' appends.
    pub fn start_notices(self: &Arc<Self>) {
        let me: std::sync::Weak<dyn Registry> = Arc::downgrade(self) as std::sync::Weak<Chats>;
        self.notify.start(me);
    }

    pub fn notify(&self) -> &Arc<crate::notify::Notify> {
        &self.notify
    }

    /// Keeps Activity up to date with this chat's appends, from the first
    /// one this process makes.
    fn watch(&self, id: &str, log: &ChatLog) {
        log.mask_with(self.secrets.clone());
        let activity = self.activity.clone();
        let notify = self.notify.clone();
        let search = self.search.clone();
        let id = id.to_owned();
        log.observe(Box::new(move |event, span| {
            activity.observe(&id, event);
            notify.observe(&id, event);
            search.observe(&id, event, span);
        }));
    }

    /// What marked chats wrote: a read of it marks the reader.
    pub fn ledger(&self) -> &Arc<crate::ledger::Ledger> {
        &self.ledger
    }

    /// The home's artifacts.
    pub fn artifacts(&self) -> &artifacts::Store {
        &self.artifacts
    }

    /// Refresh for a pinned app: a chat of its own (origin `artifact`, kept
    /// out of the list) asked to update that one artifact with fresh data.
    pub async fn refresh_artifact(&self, id: &str) -> Result<Arc<Chat>, ChatError> {
        let store = self.artifacts.clone();
        let wanted = id.to_owned();
        let (artifact, current) = tokio::task::spawn_blocking(move || {
            let a = store.get(&wanted)?;
            let text = store.text(&wanted, a.latest)?;
            Ok::<_, artifacts::StoreError>((a, text))
        })
        .await
        .map_err(|e| ChatError::Artifact(e.to_string()))?
        .map_err(|e| ChatError::Artifact(e.to_string()))?;
        let chat = self
            .create(NewChat {
                origin: Some(Origin::Artifact),
                artifact: Some(artifact.id.clone()),
                ..NewChat::default()
            })
            .await?;
        // It starts as marked as the chats that made the page were.
        for what in &artifact.marks {
            chat.mark_from(
                protocol::MarkSource::Carried,
                format!("the chat that made the artifact it refreshes ({what})"),
                None,
                artifact.chat.clone(),
            )
            .await?;
        }
        chat.post_as(
            Speaker::Task,
            &crate::artifact::refresh_task(&artifact, &current),
            None,
            None,
        )
        .await?;
        Ok(chat)
    }

    /// The open chats a chat started (its helpers).
    pub fn children(&self, parent: &str) -> Vec<Arc<Chat>> {
        self.lock_open()
            .values()
            .filter(|c| c.parent.as_deref() == Some(parent))
            .cloned()
            .collect()
    }

    /// Every chat, most recently active first.
    pub fn list(&self) -> Vec<ChatSummary> {
        let Ok(entries) = std::fs::read_dir(self.home.chats_dir()) else {
            return Vec::new();
        };
        let open = self.lock_open().clone();
        let mut out: Vec<(std::time::SystemTime, ChatSummary)> = entries
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let id = entry.file_name().to_str()?.to_owned();
                if !ids::is_valid_id(&id) {
                    return None;
                }
                let path = entry.path().join(LOG_FILE);
                let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
                let (view, created_at, running, waiting) = match open.get(&id) {
                    Some(chat) => {
                        let created_at = chat.log.lines_after(0, 1).ok().and_then(|l| {
                            Event::from_line(l.first()?.1.as_bytes()).ok().map(|e| e.at)
                        });
                        let view = chat.log.view();
                        let waiting = view.pending.len();
                        (view, created_at, chat.is_running(), waiting)
                    }
                    // A question in a chat this process hasn't opened was
                    // asked by one that is gone: it ends when the chat opens,
                    // and nobody can answer it meanwhile.
                    None => {
                        let peeked = self.peek_cached(&id, &path, modified);
                        (peeked.view, peeked.created_at, false, 0)
                    }
                };
                let created = view.created.as_ref();
                // A pinned app's Refresh isn't a chat the owner keeps.
                if created.is_some_and(|c| c.origin == Origin::Artifact) {
                    return None;
                }
                Some((
                    modified,
                    ChatSummary {
                        id,
                        routine: created.and_then(|c| c.routine.clone()),
                        title: view.title.clone(),
                        work: created.map(|c| c.work.clone()),
                        mode: view.mode,
                        origin: created.map(|c| c.origin),
                        created: created_at,
                        updated: Some(protocol::format_rfc3339(modified)),
                        running,
                        waiting,
                        archived: view.archived,
                        provider: view.provider.clone(),
                        messages: view.messages,
                    },
                ))
            })
            .collect();
        out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
        out.into_iter().map(|(_, s)| s).collect()
    }

    /// `peek`, unless the log is as it was the last time.
    pub(crate) fn peek_cached(
        &self,
        id: &str,
        path: &Path,
        modified: std::time::SystemTime,
    ) -> Peeked {
        let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let mut cache = self.peeked.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((m, l, peeked)) = cache.get(id) {
            if *m == modified && *l == len {
                return peeked.clone();
            }
        }
        let (view, created_at) = peek(path);
        let peeked = Peeked { view, created_at };
        cache.insert(id.to_owned(), (modified, len, peeked.clone()));
        peeked
    }

    pub(crate) fn lock_open(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Chat>>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Forgets a chat's opening lock once its opener is done, however it ends.
struct Opened<'a> {
    chats: &'a Chats,
    id: &'a str,
}

impl Drop for Opened<'_> {
    fn drop(&mut self) {
        self.chats.lock_opening().remove(self.id);
    }
}

/// The chat being made is its maker's until this drops (made, or failed).
struct Made<'a> {
    chats: &'a Chats,
    id: &'a str,
}

impl Drop for Made<'_> {
    fn drop(&mut self) {
        self.chats.lock_creating().remove(self.id);
    }
}

/// How long opening a chat waits for its maker to finish making it.
const CREATING_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// What the owner says about a chat itself can come anywhere in its log:
/// past the start, only lines of these types are read.
const META_TYPES: [&[u8]; 3] = [
    b"\"type\":\"chat.renamed\"",
    b"\"type\":\"chat.archived\"",
    b"\"type\":\"model.changed\"",
];

/// How far into a line its `type` can be: `seq`, `id` and `at` come first.
const ENVELOPE_BYTES: usize = 160;

/// The file in a trashed chat's folder that says when it was deleted.
pub(crate) const DELETED_FILE: &str = "deleted";

/// Folds the start of a log without opening it for writing, and past it
/// only the lines that name, archive or pick a model for the chat. (Conch
/// writes the envelope first, so `"type":"…"` is spelled exactly so; a
/// message's text can't hold it unescaped.)
pub(crate) fn peek(path: &Path) -> (ChatView, Option<String>) {
    let Ok(bytes) = std::fs::read(path) else {
        return (ChatView::default(), None);
    };
    // The start ends on a whole line.
    let cut = if bytes.len() <= SUMMARY_BYTES as usize {
        bytes.len()
    } else {
        bytes[..SUMMARY_BYTES as usize]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1)
    };
    let mut view = ChatView::default();
    let mut first_at = None;
    scan::scan(&bytes[..cut], |e| {
        first_at.get_or_insert_with(|| e.at.clone());
        view.apply(e);
    });
    for line in bytes[cut..].split(|b| *b == b'\n') {
        // The type is in the envelope, at the start of the line.
        let head = &line[..line.len().min(ENVELOPE_BYTES)];
        if META_TYPES
            .iter()
            .any(|t| head.windows(t.len()).any(|w| w == *t))
        {
            if let Ok(event) = Event::from_line(line) {
                view.apply(&event);
            }
        }
    }
    (view, first_at)
}

/// The work folder `path`, resolved, or why a chat can't work there.
fn check_work(
    path: &Path,
    rule: &guard::Protected,
    owner_home: Option<&Path>,
) -> Result<PathBuf, ChatError> {
    let bad = |why| ChatError::Work {
        path: path.to_path_buf(),
        why,
    };
    if !path.is_absolute() {
        return Err(bad("isn't a full path (it should start with /)"));
    }
    let resolved = path.canonicalize().map_err(|_| bad("doesn't exist"))?;
    if !resolved.is_dir() {
        return Err(bad("isn't a folder"));
    }
    let owner_home = owner_home.map(|h| h.to_string_lossy().into_owned());
    match guard::work_folder_refusal(&resolved.to_string_lossy(), rule, owner_home.as_deref()) {
        Some(sentence) => Err(ChatError::WorkRefused(sentence)),
        None => Ok(resolved),
    }
}
