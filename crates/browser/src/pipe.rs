//! The DevTools protocol over Chromium's own pipe (`--remote-debugging-pipe`):
//! it reads commands from fd 3 and writes replies and events to fd 4, one
//! JSON message each, ended by a NUL byte.
//!
//! Why a pipe and not a port: a debugging port on 127.0.0.1 would let any
//! program on the computer (a command the assistant runs included) drive
//! this browser and its signed-in profile. A pipe is held by Conch alone.
//! Why not `chromiumoxide`: it speaks over a websocket (so a port), and its
//! generated protocol types are a large build for the dozen commands used
//! here.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{broadcast, oneshot};

use crate::error::BrowserError;

/// An event Chromium sent: from the browser itself (`session` None) or a
/// page it is attached to.
#[derive(Debug, Clone)]
pub struct Event {
    pub session: Option<String>,
    pub method: String,
    pub params: Value,
}

type Waiting = Mutex<HashMap<u64, oneshot::Sender<Result<Value, BrowserError>>>>;

/// One connection to one Chromium.
pub struct Connection {
    next: AtomicU64,
    waiting: Arc<Waiting>,
    events: broadcast::Sender<Event>,
    writer: Mutex<File>,
    closed: Arc<AtomicBool>,
}

impl Connection {
    /// Talks over `to` (Chromium's fd 3) and `from` (its fd 4). A thread
    /// reads `from` until Chromium closes it.
    pub fn new(to: File, from: File) -> Arc<Connection> {
        let waiting: Arc<Waiting> = Arc::default();
        let closed = Arc::new(AtomicBool::new(false));
        let (events, _) = broadcast::channel(1024);
        let connection = Arc::new(Connection {
            next: AtomicU64::new(1),
            waiting: waiting.clone(),
            events: events.clone(),
            writer: Mutex::new(to),
            closed: closed.clone(),
        });
        std::thread::Builder::new()
            .name("conch-browser-pipe".to_owned())
            .spawn(move || read_loop(from, &waiting, &events, &closed))
            .ok();
        connection
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Every event from now on.
    pub fn events(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// Sends `method` (to a page when `session` is given) and waits up to
    /// `within` for its reply.
    pub async fn call(
        &self,
        method: &str,
        params: Value,
        session: Option<&str>,
        within: Duration,
    ) -> Result<Value, BrowserError> {
        if self.is_closed() {
            return Err(BrowserError::Closed);
        }
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            message["sessionId"] = Value::String(s.to_owned());
        }
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).insert(id, tx);
        let mut bytes =
            serde_json::to_vec(&message).map_err(|e| BrowserError::Protocol(e.to_string()))?;
        bytes.push(0);
        let written = {
            let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
            w.write_all(&bytes).and_then(|()| w.flush())
        };
        if written.is_err() {
            lock(&self.waiting).remove(&id);
            return Err(BrowserError::Closed);
        }
        match tokio::time::timeout(within, rx).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => Err(BrowserError::Closed),
            Err(_) => {
                lock(&self.waiting).remove(&id);
                Err(BrowserError::Timeout(method.to_owned()))
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn read_loop(
    from: File,
    waiting: &Waiting,
    events: &broadcast::Sender<Event>,
    closed: &AtomicBool,
) {
    let mut reader = BufReader::with_capacity(1 << 20, from);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(0, &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if buf.last() == Some(&0) {
            buf.pop();
        }
        let Ok(message) = serde_json::from_slice::<Value>(&buf) else {
            continue;
        };
        if let Some(id) = message.get("id").and_then(Value::as_u64) {
            if let Some(tx) = lock(waiting).remove(&id) {
                let reply = match message.get("error") {
                    Some(e) => Err(BrowserError::Protocol(
                        e.get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("unknown error")
                            .to_owned(),
                    )),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = tx.send(reply);
            }
        } else if let Some(method) = message.get("method").and_then(Value::as_str) {
            let _ = events.send(Event {
                session: message
                    .get("sessionId")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                method: method.to_owned(),
                params: message.get("params").cloned().unwrap_or(Value::Null),
            });
        }
    }
    closed.store(true, Ordering::SeqCst);
    for (_, tx) in lock(waiting).drain() {
        let _ = tx.send(Err(BrowserError::Closed));
    }
}
