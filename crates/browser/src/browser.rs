//! Conch's one browser: started on first use, stopped after a few idle
//! minutes, one tab per chat. Its profile is its own, in Conch's folder,
//! never the owner's.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::element::Element;
use crate::error::BrowserError;
use crate::launch;
use crate::pipe::Connection;

/// How Conch's browser runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Chromium; None: `CONCH_CHROMIUM`, else the usual places.
    pub program: Option<PathBuf>,
    /// Its profile: in Conch's folder (`browser/profile`).
    pub profile: PathBuf,
    /// Where downloads land before they are moved to a chat's work folder.
    pub staging: PathBuf,
    pub headless: bool,
    /// Stopped after this long unused.
    pub idle: Duration,
    /// How long a page may take to load.
    pub page_timeout: Duration,
    /// More arguments (tests map host names to 127.0.0.1, replay sets its
    /// proxy).
    pub extra_args: Vec<String>,
}

/// The idle time before the browser stops, unless settings say otherwise.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(5 * 60);

impl Config {
    /// The usual for a Conch folder `home`.
    pub fn in_home(home: &Path) -> Config {
        Config {
            program: None,
            profile: profile_folder(home),
            staging: home.join("browser").join("downloads"),
            headless: true,
            idle: DEFAULT_IDLE,
            page_timeout: Duration::from_secs(30),
            extra_args: Vec::new(),
        }
    }
}

/// The browser's profile in Conch's folder `home`. Inside it, so the
/// protection of Conch's folder covers it: the file tools refuse it, walks
/// skip it, and the box hides it.
pub fn profile_folder(home: &Path) -> PathBuf {
    home.join("browser").join("profile")
}

/// A download that finished, for the chat whose page started it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downloaded {
    pub chat: String,
    /// The tool call that was running on that page, or last ran there.
    pub call: Option<String>,
    /// Where it is now (in the staging folder): the chat moves it.
    pub staged: PathBuf,
    /// The name the site suggested.
    pub suggested: String,
    pub url: String,
}

/// A place a chat's page sent a request to after text was typed on it:
/// what was typed may have gone there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub chat: String,
    /// The tool call that was running on that page, or last ran there.
    pub call: Option<String>,
    /// Its origin (`https://evil.example`).
    pub to: String,
}

/// What a chat's last snapshot showed: what a call is classified against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    pub url: String,
    /// The page `back` returns to.
    pub back: Option<String>,
    pub elements: BTreeMap<String, Element>,
    /// Text was typed on this page that no navigation has sent yet.
    pub typed: bool,
    /// Every origin this page has sent a request to, its own included.
    pub contacted: Vec<String>,
}

pub(crate) struct Running {
    pub conn: Arc<Connection>,
    pub child: tokio::process::Child,
    pub generation: u64,
}

pub struct Browser {
    pub(crate) config: Config,
    pub(crate) running: tokio::sync::Mutex<Option<Running>>,
    pub(crate) tabs: Mutex<HashMap<String, Arc<crate::tab::Tab>>>,
    pub(crate) known: Mutex<HashMap<String, Known>>,
    last_used: Mutex<Instant>,
    pub(crate) busy: AtomicUsize,
    generation: AtomicU64,
    pid: Mutex<Option<u32>>,
    downloads: mpsc::UnboundedSender<Downloaded>,
    downloaded: Mutex<Option<mpsc::UnboundedReceiver<Downloaded>>>,
    sent: mpsc::UnboundedSender<Sent>,
    sent_rx: Mutex<Option<mpsc::UnboundedReceiver<Sent>>>,
    me: std::sync::Weak<Browser>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Counts an operation in flight, so the idle timer never stops the
/// browser under it.
pub(crate) struct Busy<'a>(&'a Browser);
impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Browser {
    pub fn new(config: Config) -> Arc<Browser> {
        let (tx, rx) = mpsc::unbounded_channel();
        let (sent, sent_rx) = mpsc::unbounded_channel();
        Arc::new_cyclic(|me| Browser {
            config,
            running: tokio::sync::Mutex::new(None),
            tabs: Mutex::default(),
            known: Mutex::default(),
            last_used: Mutex::new(Instant::now()),
            busy: AtomicUsize::new(0),
            generation: AtomicU64::new(0),
            pid: Mutex::new(None),
            downloads: tx,
            downloaded: Mutex::new(Some(rx)),
            sent,
            sent_rx: Mutex::new(Some(sent_rx)),
            me: me.clone(),
        })
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Finished downloads, for whoever moves them (taken once).
    pub fn downloads(&self) -> Option<mpsc::UnboundedReceiver<Downloaded>> {
        lock(&self.downloaded).take()
    }

    /// Places pages reached after typing, for whoever marks the chats
    /// (taken once).
    pub fn sent(&self) -> Option<mpsc::UnboundedReceiver<Sent>> {
        lock(&self.sent_rx).take()
    }

    fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    pub(crate) fn busy(&self) -> Busy<'_> {
        self.busy.fetch_add(1, Ordering::SeqCst);
        self.touch();
        Busy(self)
    }

    /// Chromium's process id while it runs (its group is the same number).
    pub fn pid(&self) -> Option<u32> {
        *lock(&self.pid)
    }

    pub fn is_running(&self) -> bool {
        self.pid().is_some()
    }

    /// What `chat`'s last snapshot showed, if it has a page.
    pub fn known(&self, chat: &str) -> Option<Known> {
        lock(&self.known).get(chat).cloned()
    }

    /// The connection, starting Chromium when it isn't running.
    pub(crate) async fn connection(&self) -> Result<(Arc<Connection>, u64), BrowserError> {
        let mut running = self.running.lock().await;
        if let Some(r) = running.as_ref() {
            if !r.conn.is_closed() {
                return Ok((r.conn.clone(), r.generation));
            }
        }
        if let Some(mut old) = running.take() {
            let _ = old.child.start_kill();
            self.forget_pages();
        }
        let r = self.start().await?;
        let out = (r.conn.clone(), r.generation);
        *running = Some(r);
        Ok(out)
    }

    fn forget_pages(&self) {
        lock(&self.tabs).clear();
        lock(&self.known).clear();
        *lock(&self.pid) = None;
    }

    async fn start(&self) -> Result<Running, BrowserError> {
        let program = launch::find(self.config.program.as_deref())?;
        for dir in [&self.config.profile, &self.config.staging] {
            create_private(dir).map_err(|e| {
                BrowserError::Start(format!("couldn't make {}: {e}", dir.display()))
            })?;
        }
        let mut extra = self.config.extra_args.clone();
        // A page restored from the back-forward cache fires no load event.
        extra.push("--disable-features=BackForwardCache,Translate,MediaRouter".to_owned());
        let args = launch::arguments(&self.config.profile, self.config.headless, &extra);
        let started = launch::start(&program, &args)?;
        let conn = Connection::new(started.to, started.from);
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let mut child = started.child;
        let ready = conn
            .call(
                "Browser.getVersion",
                json!({}),
                None,
                Duration::from_secs(30),
            )
            .await;
        if let Err(e) = ready {
            let _ = child.start_kill();
            return Err(BrowserError::Start(format!(
                "{} didn't answer ({e})",
                program.display()
            )));
        }
        conn.call(
            "Browser.setDownloadBehavior",
            json!({
                "behavior": "allowAndName",
                "downloadPath": self.config.staging.to_string_lossy(),
                "eventsEnabled": true,
            }),
            None,
            Duration::from_secs(10),
        )
        .await?;
        *lock(&self.pid) = child.id();
        self.forget_pages_but_pid();
        self.touch();
        if let Some(me) = self.me.upgrade() {
            tokio::spawn(watch_downloads(me.clone(), conn.clone(), generation));
            tokio::spawn(watch_requests(me.clone(), conn.clone(), generation));
            tokio::spawn(stop_when_idle(me, generation));
        }
        Ok(Running {
            conn,
            child,
            generation,
        })
    }

    fn forget_pages_but_pid(&self) {
        lock(&self.tabs).clear();
        lock(&self.known).clear();
    }

    /// Closes the browser (its tabs are gone; chats open pages again).
    pub async fn stop(&self) {
        let mut running = self.running.lock().await;
        if let Some(mut r) = running.take() {
            let _ = r
                .conn
                .call("Browser.close", json!({}), None, Duration::from_secs(2))
                .await;
            let waited = tokio::time::timeout(Duration::from_secs(3), r.child.wait()).await;
            if waited.is_err() {
                if let Some(pid) = r.child.id().and_then(|p| i32::try_from(p).ok()) {
                    // SAFETY: kill has no memory preconditions; -pid names
                    // the process group Chromium was started in.
                    unsafe {
                        libc::kill(-pid, libc::SIGKILL);
                    }
                }
                let _ = r.child.wait().await;
            }
        }
        self.forget_pages();
    }

    /// Closes `chat`'s tab, if it has one.
    pub async fn close(&self, chat: &str) {
        let tab = lock(&self.tabs).remove(chat);
        lock(&self.known).remove(chat);
        if let Some(tab) = tab {
            if let Ok((conn, generation)) = self.connection_if_running().await {
                if generation == tab.generation {
                    let _ = conn
                        .call(
                            "Target.closeTarget",
                            json!({ "targetId": tab.target }),
                            None,
                            Duration::from_secs(5),
                        )
                        .await;
                }
            }
        }
    }

    async fn connection_if_running(&self) -> Result<(Arc<Connection>, u64), BrowserError> {
        let running = self.running.lock().await;
        match running.as_ref() {
            Some(r) if !r.conn.is_closed() => Ok((r.conn.clone(), r.generation)),
            _ => Err(BrowserError::Closed),
        }
    }

    fn tab_of_target(&self, target: &str) -> Option<Arc<crate::tab::Tab>> {
        lock(&self.tabs)
            .values()
            .find(|t| t.target == target)
            .cloned()
    }

    fn idle_for(&self) -> Duration {
        lock(&self.last_used).elapsed()
    }

    fn current_generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }
}

fn create_private(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Stops the browser once it has been unused for the configured time.
async fn stop_when_idle(browser: Arc<Browser>, generation: u64) {
    let idle = browser.config.idle;
    let every = (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(15));
    loop {
        tokio::time::sleep(every).await;
        if browser.current_generation() != generation || !browser.is_running() {
            return;
        }
        if browser.busy.load(Ordering::SeqCst) == 0 && browser.idle_for() >= idle {
            browser.stop().await;
            return;
        }
    }
}

/// Every request a tab makes, as Chromium's network layer sees it (the
/// page can't hide one): kept for its page, and told when it comes after
/// typing.
async fn watch_requests(browser: Arc<Browser>, conn: Arc<Connection>, generation: u64) {
    let mut events = conn.events();
    loop {
        let event = match events.recv().await {
            Ok(e) => e,
            // Events were missed: what the pages sent meanwhile is unknown,
            // so every typed page is taken to have reached a place it can't
            // name. Rare: the channel holds a thousand events.
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                let tabs: Vec<_> = lock(&browser.tabs).values().cloned().collect();
                for tab in tabs {
                    if let Some(to) = lock(&tab.net).missed() {
                        let _ = browser.sent.send(Sent {
                            chat: tab.chat.clone(),
                            call: tab.last_call(),
                            to,
                        });
                    }
                }
                continue;
            }
            Err(_) => return,
        };
        if browser.current_generation() != generation {
            return;
        }
        let p = &event.params;
        let (url, new_page) = match event.method.as_str() {
            "Network.requestWillBeSent" => (
                p["request"]["url"].as_str().unwrap_or(""),
                p["type"] == "Document",
            ),
            "Network.webSocketCreated" => (p["url"].as_str().unwrap_or(""), false),
            _ => continue,
        };
        let Some(session) = event.session.as_deref() else {
            continue;
        };
        let Some(tab) = lock(&browser.tabs)
            .values()
            .find(|t| t.session == session)
            .cloned()
        else {
            continue;
        };
        // A document for the tab's own frame is a new page; a frame's is not.
        let new_page = new_page && p["frameId"].as_str() == Some(tab.target.as_str());
        let news = lock(&tab.net).request(url, new_page);
        if let Some(to) = news {
            let _ = browser.sent.send(Sent {
                chat: tab.chat.clone(),
                call: tab.last_call(),
                to,
            });
        }
    }
}

/// Moves nothing itself: says which chat a finished download belongs to.
async fn watch_downloads(browser: Arc<Browser>, conn: Arc<Connection>, generation: u64) {
    let mut events = conn.events();
    let mut begun: HashMap<String, (String, String, String)> = HashMap::new();
    loop {
        let event = match events.recv().await {
            Ok(e) => e,
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
            Err(_) => return,
        };
        if browser.current_generation() != generation {
            return;
        }
        let p = &event.params;
        let s = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        match event.method.as_str() {
            "Browser.downloadWillBegin" => {
                begun.insert(s("guid"), (s("frameId"), s("url"), s("suggestedFilename")));
            }
            "Browser.downloadProgress" => {
                let guid = s("guid");
                let state = s("state");
                if state == "completed" || state == "canceled" {
                    let Some((frame, url, suggested)) = begun.remove(&guid) else {
                        continue;
                    };
                    let staged = browser.config.staging.join(&guid);
                    match (state.as_str(), browser.tab_of_target(&frame)) {
                        ("completed", Some(tab)) => {
                            let call = tab.last_call();
                            let _ = browser.downloads.send(Downloaded {
                                chat: tab.chat.clone(),
                                call,
                                staged,
                                suggested,
                                url,
                            });
                        }
                        // A download no chat's page started (a frame's), or
                        // one that was canceled: nothing is kept.
                        _ => {
                            let _ = std::fs::remove_file(&staged);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}
