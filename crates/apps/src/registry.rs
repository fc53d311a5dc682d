//! The owner's apps, live: a connection to each server, kept up in the
//! background (start-up never waits for one), what each lists, and calls.
//!
//! - **Start-up** starts every server at once and returns; a server that
//!   can't be reached is tried again with a growing pause (1 s doubling to
//!   5 minutes), and its tools aren't offered meanwhile.
//! - **Lists**: right after connecting, again whenever the server says its
//!   list changed, and once more a moment after connecting over the web
//!   (a `list_changed` sent before the client's listening stream opened is
//!   lost otherwise). Each list goes through [`crate::catalog`]: new tools
//!   are off, changed ones are off again.
//! - **Work folders**: a stdio server runs for one work folder (its box's,
//!   and the one root it is told); a chat in another folder gets a
//!   connection of its own, started on its first call (at most
//!   [`MAX_FOLDERS`] a server, the least recently used closed first).
//! - **apps.json** is read again when it changes (`conch apps …` while
//!   Conch runs): apps added are started, removed ones stopped, choices
//!   count from the next call.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;
use tools::{Cancel, Outcome};

use crate::catalog;
use crate::conn::{Conn, Secrets};
use crate::file::{self, AppsFile, Reach};
use crate::name;
use crate::output;
use crate::spawn::Launch;
use crate::standing::{self, Standing};

/// Connections a stdio server may have open at once, one per work folder.
pub const MAX_FOLDERS: usize = 4;

/// How the apps reach their servers' secrets: the app's name in, the
/// values its configuration names out.
pub type SecretsFor = Arc<dyn Fn(&str) -> Result<Secrets, String> + Send + Sync>;

#[derive(Clone)]
pub struct AppsConfig {
    /// Conch's folder (apps.json is here).
    pub home: PathBuf,
    pub launch: Launch,
    pub secrets: SecretsFor,
    /// Where stdio servers start at start-up: the folder new chats work in.
    pub default_work: PathBuf,
    /// How long one call may take.
    pub call_within: Duration,
    /// Start only this app (a relay for one).
    pub only: Option<String>,
}

impl AppsConfig {
    pub fn new(home: &Path, default_work: &Path) -> AppsConfig {
        AppsConfig {
            home: home.to_path_buf(),
            launch: Launch::plain(),
            secrets: Arc::new(|_| Ok(Secrets::default())),
            default_work: default_work.to_path_buf(),
            call_within: Duration::from_secs(300),
            only: None,
        }
    }
}

/// How a server is doing.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "state"
)]
pub enum Status {
    Connecting {
        since: String,
    },
    Connected {
        since: String,
        protocol: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        server: Option<String>,
        sealed: bool,
    },
    Failed {
        at: String,
        /// Why, in a sentence.
        error: String,
        /// Seconds until it is tried again.
        retry_in: u64,
    },
}

struct Live {
    reach: Reach,
    status: Mutex<Status>,
    /// Open connections, the start-up one first.
    pool: tokio::sync::Mutex<Vec<(Arc<Conn>, Instant)>>,
    relist: mpsc::UnboundedSender<()>,
    task: tokio::task::AbortHandle,
}

impl Drop for Live {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Cached {
    file: AppsFile,
    /// Every tool by each of its names, and the guard's policies: made
    /// once per change of the file, so a call looks its tool up without
    /// reading the file again.
    index: Arc<Index>,
    stamp: Option<(u64, std::time::SystemTime, u64)>,
    /// The file couldn't be read: the sentence (the last good one is kept).
    problem: Option<String>,
}

pub struct Apps {
    config: AppsConfig,
    cached: Mutex<Cached>,
    live: Mutex<HashMap<String, Arc<Live>>>,
    /// Tools used since the last write: `server.tool` → when.
    used: Mutex<BTreeMap<String, String>>,
    me: Weak<Apps>,
    /// When these apps started: a turn waits for ones still connecting
    /// only in the first moments after.
    started: Instant,
}

/// How long after starting a turn waits for apps still connecting.
const STARTING: Duration = Duration::from_secs(60);

fn now() -> String {
    protocol::format_rfc3339(std::time::SystemTime::now())
}

/// A tool found by one of its names.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub server: String,
    pub tool: String,
    pub qualified: String,
    pub engine: String,
    pub standing: Standing,
    pub read_only: bool,
}

impl Apps {
    /// Reads apps.json and starts every server in the background.
    pub fn start(config: AppsConfig) -> Arc<Apps> {
        let (file, problem) = match file::load(&config.home) {
            Ok(f) => (f, None),
            Err(e) => (AppsFile::default(), Some(e.to_string())),
        };
        let stamp = file::stamp(&config.home);
        let apps = Arc::new_cyclic(|me| Apps {
            config,
            cached: Mutex::new(Cached {
                index: Arc::new(Index::of(&file)),
                file,
                stamp,
                problem,
            }),
            live: Mutex::new(HashMap::new()),
            used: Mutex::new(BTreeMap::new()),
            me: me.clone(),
            started: Instant::now(),
        });
        apps.sync();
        // Changes made by `conch apps …` while this runs, and tools used.
        let weak = Arc::downgrade(&apps);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(2));
            loop {
                tick.tick().await;
                let Some(apps) = weak.upgrade() else { return };
                apps.reload();
                apps.flush_used().await;
            }
        });
        apps
    }

    pub fn home(&self) -> &Path {
        &self.config.home
    }

    /// The file as last read, read again first if it changed on disk.
    pub fn file(&self) -> AppsFile {
        self.reload();
        self.lock_cached().file.clone()
    }

    /// Why apps.json couldn't be read, when it couldn't.
    pub fn problem(&self) -> Option<String> {
        self.lock_cached().problem.clone()
    }

    fn lock_cached(&self) -> std::sync::MutexGuard<'_, Cached> {
        self.cached.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_live(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Live>>> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads apps.json again if it changed; starts and stops servers to
    /// match.
    fn reload(&self) {
        let stamp = file::stamp(&self.config.home);
        {
            let mut c = self.lock_cached();
            if c.stamp == stamp {
                return;
            }
            match file::load(&self.config.home) {
                Ok(f) => {
                    c.index = Arc::new(Index::of(&f));
                    c.file = f;
                    c.problem = None;
                }
                Err(e) => c.problem = Some(e.to_string()),
            }
            c.stamp = stamp;
        }
        self.sync();
    }

    /// Keeps what the gateway wrote in memory too (its own write changes
    /// the stamp, and reading it back is the same file).
    fn take(&self, f: AppsFile) {
        let mut c = self.lock_cached();
        c.index = Arc::new(Index::of(&f));
        c.file = f;
        c.stamp = file::stamp(&self.config.home);
        c.problem = None;
    }

    /// Starts the servers the file has and this doesn't; stops the ones it
    /// no longer has, or whose way to reach them changed.
    fn sync(&self) {
        let wanted: BTreeMap<String, Reach> = self
            .lock_cached()
            .file
            .servers
            .iter()
            .filter(|(n, _)| self.config.only.as_ref().is_none_or(|o| o == *n))
            .filter(|(_, s)| !s.off)
            .map(|(n, s)| (n.clone(), s.reach.clone()))
            .collect();
        let mut live = self.lock_live();
        live.retain(|name, l| wanted.get(name) == Some(&l.reach));
        for (name, reach) in wanted {
            if live.contains_key(&name) {
                continue;
            }
            let (tx, rx) = mpsc::unbounded_channel();
            let me = self.me.clone();
            let task_name = name.clone();
            let task_reach = reach.clone();
            let task = tokio::spawn(async move {
                supervise(me, task_name, task_reach, rx).await;
            })
            .abort_handle();
            live.insert(
                name,
                Arc::new(Live {
                    reach,
                    status: Mutex::new(Status::Connecting { since: now() }),
                    pool: tokio::sync::Mutex::new(Vec::new()),
                    relist: tx,
                    task,
                }),
            );
        }
    }

    fn live(&self, server: &str) -> Option<Arc<Live>> {
        self.lock_live().get(server).cloned()
    }

    /// How each server is doing.
    pub fn statuses(&self) -> BTreeMap<String, Status> {
        self.lock_live()
            .iter()
            .map(|(n, l)| {
                (
                    n.clone(),
                    l.status.lock().unwrap_or_else(|p| p.into_inner()).clone(),
                )
            })
            .collect()
    }

    fn set_status(live: &Live, status: Status) {
        *live.status.lock().unwrap_or_else(|p| p.into_inner()) = status;
    }

    fn connected(&self, server: &str) -> bool {
        self.live(server).is_some_and(|l| {
            matches!(
                *l.status.lock().unwrap_or_else(|p| p.into_inner()),
                Status::Connected { .. }
            )
        })
    }

    /// Waits until every server has connected or failed once (for tests,
    /// benchmarks and `conch apps add`), at most `within`.
    pub async fn settled(&self, within: Duration) -> bool {
        let until = Instant::now() + within;
        loop {
            let all = self.statuses();
            let known = self
                .lock_cached()
                .file
                .servers
                .iter()
                // An app turned off is never started: nothing waits for it.
                .filter(|(n, s)| !s.off && self.config.only.as_ref().is_none_or(|o| o == *n))
                .count();
            if all.len() >= known
                && all
                    .values()
                    .all(|s| !matches!(s, Status::Connecting { .. }))
            {
                return true;
            }
            if Instant::now() > until {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The apps still connecting, after waiting for them at most `within`
    /// while these apps are just starting (the first minute); later an app
    /// that is reconnecting is said at once, and no turn waits for it.
    pub async fn not_ready(&self, within: Duration) -> Vec<String> {
        if self.started.elapsed() < STARTING {
            self.settled(within).await;
        }
        self.statuses()
            .into_iter()
            .filter(|(_, s)| matches!(s, Status::Connecting { .. }))
            .map(|(name, _)| name)
            .collect()
    }

    /// Asks `server` for its list again (as a `list_changed` would).
    pub fn relist(&self, server: &str) {
        if let Some(l) = self.live(server) {
            let _ = l.relist.send(());
        }
    }

    /// Reads `server`'s list of tools through `conn` and applies it.
    async fn list_and_apply(&self, server: &str, conn: &Conn) -> Result<catalog::Listing, String> {
        let listing = conn.list().await?;
        let home = self.config.home.clone();
        let name = server.to_owned();
        let at = now();
        let applied = tokio::task::spawn_blocking(move || {
            file::update(&home, |f| {
                f.servers
                    .get_mut(&name)
                    .map(|s| catalog::apply_listing(s, listing, &at))
            })
        })
        .await
        .map_err(|_| "its list couldn't be saved".to_owned())?
        .map_err(|e| e.to_string())?;
        let (listing, file) = applied;
        self.take(file);
        Ok(listing.unwrap_or_default())
    }

    /// The index as it is now (read again first if the file changed).
    fn index(&self) -> Arc<Index> {
        self.reload();
        self.lock_cached().index.clone()
    }

    /// Every tool of every app, with where it stands now.
    pub fn tools(&self) -> Vec<Found> {
        self.index().all.clone()
    }

    /// A tool by any of its names: `server.tool` or `mcp__server__tool`.
    pub fn find(&self, name_any: &str) -> Option<Found> {
        let index = self.index();
        index.by_name.get(name_any).map(|&i| index.all[i].clone())
    }

    /// The guard's policy for every app's tool.
    pub fn policies(&self) -> BTreeMap<String, guard::Policy> {
        self.index().policies.clone()
    }

    /// The apps with a tool offered now (connected, with a tool on).
    pub fn offered(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .tools()
            .into_iter()
            .filter(|t| t.standing == Standing::On && self.connected(&t.server))
            .map(|t| t.server)
            .collect();
        names.dedup();
        names
    }

    /// The tools offered to engines: those on, of servers connected now.
    pub fn specs(&self) -> Vec<protocol::ToolSpec> {
        let f = self.file();
        let mut out = Vec::new();
        for t in self.tools() {
            if t.standing != Standing::On || !self.connected(&t.server) {
                continue;
            }
            let Some(seen) = f
                .servers
                .get(&t.server)
                .and_then(|s| s.tools.get(&t.tool))
                .and_then(|tool| tool.seen.as_ref())
            else {
                continue;
            };
            out.push(spec(&t, seen));
        }
        out
    }

    /// A connection to `server` for `work`: the one open for it, else a
    /// new one (stdio), else the only one (web).
    async fn conn_for(&self, server: &str, work: &Path) -> Result<Arc<Conn>, String> {
        let live = self
            .live(server)
            .ok_or_else(|| format!("{server} isn't one of your connections any more"))?;
        if !self.connected(server) {
            let why = match &*live.status.lock().unwrap_or_else(|p| p.into_inner()) {
                Status::Failed { error, .. } => format!("{server} isn't connected: {error}"),
                _ => format!("{server} is still connecting"),
            };
            return Err(why);
        }
        let mut pool = live.pool.lock().await;
        pool.retain(|(c, _)| !c.is_closed());
        let stdio = matches!(live.reach, Reach::Stdio { .. });
        let at = if stdio {
            pool.iter()
                .position(|(c, _)| c.work.as_deref() == Some(work))
        } else if pool.is_empty() {
            None
        } else {
            Some(0)
        };
        if let Some(i) = at {
            pool[i].1 = Instant::now();
            return Ok(pool[i].0.clone());
        }
        if !stdio {
            return Err(format!("{server} isn't connected right now"));
        }
        let secrets = (self.config.secrets)(server)?;
        let conn = Arc::new(
            Conn::open(
                &live.reach,
                &secrets,
                &self.config.launch,
                work,
                live.relist.clone(),
            )
            .await
            .map_err(|e| format!("{server} couldn't be started for this work folder: {e}"))?,
        );
        if pool.len() >= MAX_FOLDERS {
            // The least recently used, but never the start-up one.
            if let Some((i, _)) = pool
                .iter()
                .enumerate()
                .skip(1)
                .min_by_key(|(_, (_, used))| *used)
            {
                pool.remove(i);
            }
        }
        pool.push((conn.clone(), Instant::now()));
        Ok(conn)
    }

    /// Calls a tool (by any of its names) for a chat working in `work`.
    /// The guard has decided already; this refuses anything that isn't on
    /// all the same, and gives the result as the model and the log get it.
    pub async fn call(
        &self,
        name_any: &str,
        input: &Value,
        work: &Path,
        cancel: &Cancel,
    ) -> Outcome {
        let Some(found) = self.find(name_any) else {
            return Outcome::failed(tools::no_such_tool(name_any));
        };
        if found.standing != Standing::On {
            return Outcome::failed(format!(
                "{} is off ({}), so it didn't run.",
                found.qualified,
                found.standing.name()
            ));
        }
        let arguments = match input {
            Value::Object(map) => map.clone(),
            Value::Null => serde_json::Map::new(),
            _ => {
                return Outcome::failed(format!(
                    "The input for {} must be a JSON object of its arguments.",
                    found.qualified
                ))
            }
        };
        let started = Instant::now();
        let result = tokio::select! {
            r = async {
                let conn = self.conn_for(&found.server, work).await?;
                conn.call(&found.tool, arguments, self.config.call_within).await
            } => r,
            () = cancel.cancelled() => Err("it was stopped".to_owned()),
        };
        self.lock_used().insert(found.qualified.clone(), now());
        match result {
            Ok(value) => {
                let r = output::returned(
                    &found.server,
                    &found.tool,
                    &value,
                    started.elapsed().as_millis(),
                );
                Outcome {
                    ok: !r.is_error,
                    output: r.text,
                    detail: Some(r.detail.into()),
                }
            }
            Err(why) => Outcome {
                ok: false,
                output: format!("{} didn't work: {why}", found.qualified),
                detail: Some(
                    serde_json::json!({
                        "server": found.server,
                        "tool": found.tool,
                        "is_error": true,
                        "duration_ms": started.elapsed().as_millis() as u64,
                    })
                    .into(),
                ),
            },
        }
    }

    fn lock_used(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.used.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes when tools were last used (batched: at most every 2 s).
    pub async fn flush_used(&self) {
        let used = std::mem::take(&mut *self.lock_used());
        if used.is_empty() {
            return;
        }
        let home = self.config.home.clone();
        let saved = tokio::task::spawn_blocking(move || {
            file::update(&home, |f| {
                for (q, at) in &used {
                    if let Some((server, tool)) = name::split_qualified(q) {
                        if let Some(t) = f
                            .servers
                            .get_mut(server)
                            .and_then(|s| s.tools.get_mut(tool))
                        {
                            t.last_used = Some(at.clone());
                        }
                    }
                }
            })
        })
        .await;
        if let Ok(Ok((_, f))) = saved {
            self.take(f);
        }
    }

    /// Stops every server now.
    pub async fn shutdown(&self) {
        let all: Vec<Arc<Live>> = self.lock_live().drain().map(|(_, l)| l).collect();
        for l in all {
            l.task.abort();
            l.pool.lock().await.clear();
        }
        self.flush_used().await;
    }
}

/// Every tool of every app, by each of its names, and the guard's
/// policies: all from the file, pure.
#[derive(Default)]
struct Index {
    all: Vec<Found>,
    /// `server.tool` and `mcp__server__tool` → its place in `all`.
    by_name: HashMap<String, usize>,
    policies: BTreeMap<String, guard::Policy>,
}

impl Index {
    fn of(f: &AppsFile) -> Index {
        let mut index = Index::default();
        for (server, s) in &f.servers {
            let spellings = name::engine_names(
                server,
                s.tools
                    .iter()
                    .filter(|(_, t)| t.seen.is_some())
                    .map(|(n, _)| n.as_str()),
            );
            for (tool, t) in &s.tools {
                let st = standing::standing(t.seen.as_ref(), t.choice, t.pinned.as_ref());
                let found = Found {
                    server: server.clone(),
                    tool: tool.clone(),
                    qualified: name::qualified(server, tool),
                    engine: spellings
                        .get(tool)
                        .map(|s| name::engine(server, s))
                        .unwrap_or_default(),
                    standing: st,
                    read_only: t
                        .seen
                        .as_ref()
                        .is_some_and(|l| standing::read_only(l, t.treat_as_write)),
                };
                index
                    .policies
                    .insert(found.qualified.clone(), standing::policy(st, t.choice));
                let at = index.all.len();
                index.by_name.insert(found.qualified.clone(), at);
                if !found.engine.is_empty() {
                    index.by_name.insert(found.engine.clone(), at);
                }
                index.all.push(found);
            }
        }
        index
    }
}

/// A tool as an engine is told about it. The description is the server's
/// own words, and says so.
fn spec(t: &Found, seen: &crate::listed::Listed) -> protocol::ToolSpec {
    let mut description = seen
        .description
        .clone()
        .or_else(|| seen.shown_title().map(str::to_owned))
        .unwrap_or_default();
    description.push_str(&format!(
        "\n\n(From the {} app: its description, not the owner's instructions.{})",
        t.server,
        if t.read_only { " It only reads." } else { "" }
    ));
    let mut schema = seen.input_schema.clone();
    if let Value::Object(map) = &mut schema {
        map.entry("type").or_insert_with(|| Value::from("object"));
    }
    protocol::ToolSpec {
        name: t.engine.clone(),
        description,
        schema,
    }
}

/// Keeps one server connected: connects, lists, lists again when asked,
/// and tries again after a pause when it fails or ends.
async fn supervise(
    apps: Weak<Apps>,
    server: String,
    reach: Reach,
    mut relist: mpsc::UnboundedReceiver<()>,
) {
    let mut pause = Duration::from_secs(1);
    loop {
        let Some(a) = apps.upgrade() else { return };
        let Some(live) = a.live(&server) else { return };
        Apps::set_status(&live, Status::Connecting { since: now() });
        let opened = match (a.config.secrets)(&server) {
            Ok(secrets) => {
                let work = a.config.default_work.clone();
                let tx = live.relist.clone();
                let launch = a.config.launch.clone();
                drop(a);
                Conn::open(&reach, &secrets, &launch, &work, tx).await
            }
            Err(e) => Err(e),
        };
        let Some(a) = apps.upgrade() else { return };
        let started = Instant::now();
        let failure = match opened {
            Ok(conn) => {
                let conn = Arc::new(conn);
                live.pool
                    .lock()
                    .await
                    .insert(0, (conn.clone(), Instant::now()));
                match a.list_and_apply(&server, &conn).await {
                    Ok(_) => {
                        Apps::set_status(
                            &live,
                            Status::Connected {
                                since: now(),
                                protocol: conn.protocol.clone(),
                                server: conn.server.clone(),
                                sealed: conn.sealed(),
                            },
                        );
                        if matches!(reach, Reach::Http { .. }) {
                            // A list_changed sent before the listening
                            // stream opened is gone: look again.
                            let tx = live.relist.clone();
                            tokio::spawn(async move {
                                tokio::time::sleep(Duration::from_millis(500)).await;
                                let _ = tx.send(());
                            });
                        }
                        drop(a);
                        // Nothing of the app's own is held while waiting:
                        // removing it (or dropping them all) ends this task.
                        drop(live);
                        // Lists again when asked, until it ends.
                        loop {
                            tokio::select! {
                                asked = relist.recv() => {
                                    if asked.is_none() { return; }
                                    // A burst of changes is one new list.
                                    tokio::time::sleep(Duration::from_millis(100)).await;
                                    while relist.try_recv().is_ok() {}
                                    let Some(a) = apps.upgrade() else { return };
                                    let _ = a.list_and_apply(&server, &conn).await;
                                }
                                () = conn.ended() => break,
                            }
                        }
                        format!("it stopped.{}", conn.last_words())
                    }
                    Err(e) => e,
                }
            }
            Err(e) => e,
        };
        let Some(a) = apps.upgrade() else { return };
        let Some(live) = a.live(&server) else { return };
        drop(a);
        live.pool.lock().await.clear();
        if started.elapsed() > Duration::from_secs(60) {
            pause = Duration::from_secs(1);
        }
        Apps::set_status(
            &live,
            Status::Failed {
                at: now(),
                error: failure,
                retry_in: pause.as_secs(),
            },
        );
        drop(live);
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(300));
    }
}
