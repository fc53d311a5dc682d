//! A chat's log: one append-only JSONL file, `chats/<id>/log.jsonl`.
//!
//! - One writer per chat: a thread in this process (see `writer.rs`), and a
//!   lock on the file so a second process can't write the same chat.
//! - An event is acknowledged only once it is on disk.
//! - Opening scans the file once: it builds an index of where every event's
//!   line is (so reading from `seq` N is a seek), folds the chat's view, and
//!   sets a torn tail aside into `log.jsonl.torn` before appends go on.
//! - Followers get every committed event, and the reply's text as it streams,
//!   from [`ChatLog::follow`].

mod error;
mod masked;
pub mod scan;
mod writer;

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex, RwLock};

use protocol::{Body, ChatView, Event};
use tokio::sync::{broadcast, oneshot};

pub use error::LogError;
use scan::Span;
use writer::{Request, Writer};

use crate::private_file::{open_private_append, sync_dir};

pub const LOG_FILE: &str = "log.jsonl";
pub const TORN_FILE: &str = "log.jsonl.torn";

/// When an append is flushed to disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// One `fdatasync` for everything queued together (the default).
    Group,
    /// One `fdatasync` per event.
    EachEvent,
}

/// An event as it was written, with its exact line.
#[derive(Debug)]
pub struct Committed {
    pub event: Event,
    pub line: String,
}

/// What followers of a chat receive.
#[derive(Debug, Clone)]
pub enum Live {
    /// An event now on disk.
    Event(Arc<Committed>),
    /// More of a reply's text as the engine streams it. Not stored: the whole
    /// text arrives as a `reply` event when the step ends.
    Delta { turn: u64, text: Arc<str> },
}

/// What opening found that a person should hear about.
#[derive(Debug, Default)]
pub struct OpenReport {
    /// Bytes set aside from the end of the log, and where they went.
    pub torn: Option<(u64, PathBuf)>,
    /// Lines in the middle that aren't events (left in place, skipped).
    pub skipped: usize,
}

impl OpenReport {
    /// Warnings in plain words, one a line.
    pub fn warnings(&self, chat: &str) -> Vec<String> {
        let mut out = Vec::new();
        if let Some((bytes, path)) = &self.torn {
            out.push(format!(
                "Chat {chat}: the end of its log was cut off ({bytes} bytes), probably by a crash. \
                 It was set aside in {} and the chat opened without it.",
                path.display()
            ));
        }
        if self.skipped > 0 {
            out.push(format!(
                "Chat {chat}: {} line(s) in the middle of its log aren't events. They were left in place and skipped.",
                self.skipped
            ));
        }
        out
    }
}

#[derive(Default)]
struct Index {
    spans: Vec<Span>,
    /// Bytes of the file that are committed.
    end: u64,
}

/// Told of every event as it is committed, with where its line is, before
/// the append is acknowledged (Activity and search keep up this way).
pub type Observer = Box<dyn Fn(&Event, Span) + Send + Sync>;

struct Shared {
    index: RwLock<Index>,
    view: Mutex<ChatView>,
    live: broadcast::Sender<Live>,
    observer: std::sync::OnceLock<Observer>,
    /// The secrets taken out of every event before it is stored.
    secrets: std::sync::OnceLock<Arc<crate::known_secrets::KnownSecrets>>,
}

/// A handle on one chat's log. Cheap to clone; the writer stops when the last
/// handle is dropped.
#[derive(Clone)]
pub struct ChatLog {
    path: PathBuf,
    reader: Arc<File>,
    shared: Arc<Shared>,
    writer: Arc<WriterHandle>,
}

/// Stops the writer when the last handle goes: the queue closes, the writer
/// finishes what it has, and dropping waits for it, so the file's lock is
/// free again by the time the chat could be reopened.
struct WriterHandle {
    requests: Option<mpsc::Sender<Request>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for WriterHandle {
    fn drop(&mut self) {
        self.requests.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// How many live items a slow follower may fall behind before it has to
/// catch up from the file.
const LIVE_BACKLOG: usize = 4096;

impl ChatLog {
    /// Opens the log in `dir`, creating it when missing.
    pub fn open(dir: &Path, durability: Durability) -> Result<(ChatLog, OpenReport), LogError> {
        let path = dir.join(LOG_FILE);
        let existed = path.exists();
        let file = open_private_append(&path).map_err(LogError::io(&path))?;
        if !existed {
            sync_dir(dir).map_err(LogError::io(dir))?;
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Err(LogError::Busy(path)),
            Err(std::fs::TryLockError::Error(e)) => return Err(LogError::io(&path)(e)),
        }
        let mut bytes = Vec::new();
        File::open(&path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(LogError::io(&path))?;
        let mut view = ChatView::default();
        let found = scan::scan(&bytes, |e| view.apply(e));
        let mut report = OpenReport {
            skipped: found.skipped.len(),
            ..OpenReport::default()
        };
        if let Some((from, to)) = found.torn {
            let torn_path = dir.join(TORN_FILE);
            set_aside(&bytes[from as usize..to as usize], &torn_path)?;
            file.set_len(from)
                .and_then(|()| file.sync_all())
                .map_err(LogError::io(&path))?;
            report.torn = Some((to - from, torn_path));
        }
        drop(bytes);
        let reader = File::open(&path).map_err(LogError::io(&path))?;
        let (live, _) = broadcast::channel(LIVE_BACKLOG);
        let next_seq = found.last_seq() + 1;
        let shared = Arc::new(Shared {
            index: RwLock::new(Index {
                spans: found.spans,
                end: found.good_len,
            }),
            view: Mutex::new(view),
            live,
            observer: std::sync::OnceLock::new(),
            secrets: std::sync::OnceLock::new(),
        });
        let (requests, queue) = mpsc::channel();
        let writer = Writer {
            file,
            path: path.clone(),
            end: found.good_len,
            next_seq,
            durability,
            shared: shared.clone(),
        };
        let thread = std::thread::Builder::new()
            .name("conch-log".into())
            .spawn(move || writer.run(queue))
            .map_err(LogError::io(&path))?;
        let log = ChatLog {
            path,
            reader: Arc::new(reader),
            shared,
            writer: Arc::new(WriterHandle {
                requests: Some(requests),
                thread: Some(thread),
            }),
        };
        Ok((log, report))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one event; resolves once it is on disk.
    pub async fn append(&self, body: Body) -> Result<Event, LogError> {
        self.send(body)?.await.unwrap_or(Err(LogError::Closed))
    }

    /// `append` for code outside an async runtime.
    pub fn append_blocking(&self, body: Body) -> Result<Event, LogError> {
        self.send(body)?
            .blocking_recv()
            .unwrap_or(Err(LogError::Closed))
    }

    fn send(&self, body: Body) -> Result<oneshot::Receiver<Result<Event, LogError>>, LogError> {
        let (reply, done) = oneshot::channel();
        self.writer
            .requests
            .as_ref()
            .ok_or(LogError::Closed)?
            .send(Request { body, reply })
            .map_err(|_| LogError::Closed)?;
        Ok(done)
    }

    /// The chat as its log says it is now.
    pub fn view(&self) -> ChatView {
        self.shared
            .view
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Runs `f` on the view without copying it.
    pub fn with_view<T>(&self, f: impl FnOnce(&ChatView) -> T) -> T {
        f(&self.shared.view.lock().unwrap_or_else(|p| p.into_inner()))
    }

    pub fn last_seq(&self) -> u64 {
        self.shared
            .index
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .spans
            .last()
            .map_or(0, |s| s.seq)
    }

    /// Lines of the events after `after`, at most `limit`, exactly as stored.
    pub fn lines_after(&self, after: u64, limit: usize) -> Result<Vec<(u64, String)>, LogError> {
        let spans: Vec<Span> = {
            let index = self.shared.index.read().unwrap_or_else(|p| p.into_inner());
            let from = index.spans.partition_point(|s| s.seq <= after);
            let to = index.spans.len().min(from.saturating_add(limit));
            index.spans[from..to].to_vec()
        };
        let (Some(first), Some(last)) = (spans.first(), spans.last()) else {
            return Ok(Vec::new());
        };
        let mut bytes = vec![0u8; (last.end() - first.start) as usize];
        self.reader
            .read_exact_at(&mut bytes, first.start)
            .map_err(LogError::io(&self.path))?;
        Ok(spans
            .iter()
            .map(|s| {
                let from = (s.start - first.start) as usize;
                let text = String::from_utf8_lossy(&bytes[from..from + s.len as usize]);
                (s.seq, text.into_owned())
            })
            .collect())
    }

    /// The events after `after`, as a JSON array of the stored lines.
    pub fn json_after(&self, after: u64, limit: usize) -> Result<String, LogError> {
        let lines = self.lines_after(after, limit)?;
        let mut out = String::with_capacity(lines.iter().map(|l| l.1.len() + 1).sum::<usize>() + 2);
        out.push('[');
        for (i, (_, line)) in lines.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(line);
        }
        out.push(']');
        Ok(out)
    }

    /// Every event after `after`, parsed.
    pub fn events_after(&self, after: u64) -> Result<Vec<Event>, LogError> {
        Ok(self
            .lines_after(after, usize::MAX)?
            .iter()
            .filter_map(|(_, line)| Event::from_line(line.as_bytes()).ok())
            .collect())
    }

    /// Subscribes to what's committed from now on, and to streamed text.
    /// Subscribe first, then read the file from where you are: nothing is
    /// missed, and events seen twice are told apart by `seq`.
    /// Sets the one observer of this log's appends (later calls are
    /// ignored).
    pub fn observe(&self, observer: Observer) {
        let _ = self.shared.observer.set(observer);
    }

    /// Takes these secrets out of every event from now on (later calls
    /// are ignored).
    pub fn mask_with(&self, secrets: Arc<crate::known_secrets::KnownSecrets>) {
        let _ = self.shared.secrets.set(secrets);
    }

    pub fn follow(&self) -> broadcast::Receiver<Live> {
        self.shared.live.subscribe()
    }

    /// Streams text to followers without storing it.
    pub fn send_delta(&self, turn: u64, text: &str) {
        let text = match self.shared.secrets.get() {
            Some(secrets) => Arc::from(secrets.mask(text)),
            None => Arc::from(text),
        };
        let _ = self.shared.live.send(Live::Delta { turn, text });
    }
}

/// Copies a torn tail to the side file durably before the log is cut, so a
/// crash in between leaves the bytes in both places, never in neither.
fn set_aside(bytes: &[u8], path: &Path) -> Result<(), LogError> {
    let mut side = open_private_append(path).map_err(LogError::io(path))?;
    let mut record = bytes.to_vec();
    if !record.ends_with(b"\n") {
        record.push(b'\n');
    }
    side.write_all(&record)
        .and_then(|()| side.sync_all())
        .map_err(LogError::io(path))?;
    if let Some(dir) = path.parent() {
        sync_dir(dir).map_err(LogError::io(dir))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
