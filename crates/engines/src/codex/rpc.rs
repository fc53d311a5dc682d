//! JSON-RPC with `codex app-server` over its standard input and output:
//! one JSON object a line. Our requests get answers matched by id; what
//! Codex sends by itself (notifications, and its own requests such as
//! approvals) comes out of [`Rpc::incoming`] in the order it was sent.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::{mpsc, oneshot};

use crate::engine::EngineError;

/// Something Codex sent that isn't an answer to us.
#[derive(Debug)]
pub enum Incoming {
    Notification {
        method: String,
        params: Value,
    },
    /// Codex asks us; answer with [`Rpc::respond`] and the same id.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
}

type Waiters = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>>;

pub struct Rpc {
    out: mpsc::UnboundedSender<String>,
    waiters: Waiters,
    next: AtomicU64,
}

impl Rpc {
    /// Starts reading and writing the child's pipes. The receiver ends
    /// when Codex closes its output.
    pub fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
    ) -> (Rpc, mpsc::UnboundedReceiver<Incoming>) {
        let (out, mut lines) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            let mut stdin = stdin;
            while let Some(line) = lines.recv().await {
                if stdin.write_all(line.as_bytes()).await.is_err()
                    || stdin.write_all(b"\n").await.is_err()
                    || stdin.flush().await.is_err()
                {
                    break;
                }
            }
        });
        let waiters: Waiters = Arc::default();
        let (tx, incoming) = mpsc::unbounded_channel();
        let w = waiters.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                let Ok(mut message) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                let method = message
                    .get("method")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let params = message
                    .get_mut("params")
                    .map(Value::take)
                    .unwrap_or(Value::Null);
                match (method, message.get("id").cloned()) {
                    (Some(method), Some(id)) => {
                        let _ = tx.send(Incoming::Request { id, method, params });
                    }
                    (Some(method), None) => {
                        let _ = tx.send(Incoming::Notification { method, params });
                    }
                    (None, Some(id)) => {
                        let waiter = id
                            .as_u64()
                            .and_then(|n| w.lock().unwrap_or_else(|p| p.into_inner()).remove(&n));
                        if let Some(waiter) = waiter {
                            let answer = match message.get_mut("error") {
                                Some(e) => Err(e["message"]
                                    .as_str()
                                    .map_or_else(|| e.to_string(), str::to_owned)),
                                None => Ok(message
                                    .get_mut("result")
                                    .map(Value::take)
                                    .unwrap_or(Value::Null)),
                            };
                            let _ = waiter.send(answer);
                        }
                    }
                    (None, None) => {}
                }
            }
            // Codex is gone: nobody will answer the rest.
            w.lock().unwrap_or_else(|p| p.into_inner()).clear();
        });
        (
            Rpc {
                out,
                waiters,
                next: AtomicU64::new(1),
            },
            incoming,
        )
    }

    /// Sends a request and waits for its answer; Codex's error message on
    /// failure.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        self.waiters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, tx);
        let line = json!({ "id": id, "method": method, "params": params }).to_string();
        if self.out.send(line).is_err() {
            return Err("Codex isn't running.".to_owned());
        }
        rx.await
            .unwrap_or_else(|_| Err("Codex stopped before it answered.".to_owned()))
    }

    pub fn notify(&self, method: &str, params: Value) {
        let _ = self
            .out
            .send(json!({ "method": method, "params": params }).to_string());
    }

    pub fn respond(&self, id: Value, result: Value) {
        let _ = self
            .out
            .send(json!({ "id": id, "result": result }).to_string());
    }

    pub fn refuse(&self, id: Value, message: &str) {
        let _ = self
            .out
            .send(json!({ "id": id, "error": { "code": -32601, "message": message } }).to_string());
    }
}

/// The last lines Codex wrote to its error output, for a sentence when it
/// stops unexpectedly.
#[derive(Clone, Default)]
pub struct Stderr(Arc<Mutex<Vec<String>>>);

impl Stderr {
    pub fn collect(&self, child: &mut Child) {
        let Some(err) = child.stderr.take() else {
            return;
        };
        let lines = self.0.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(err).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                let mut l = lines.lock().unwrap_or_else(|p| p.into_inner());
                if l.len() >= 20 {
                    l.remove(0);
                }
                l.push(line);
            }
        });
    }

    /// The last line that says something, without terminal colours.
    pub fn last(&self) -> Option<String> {
        let lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        lines
            .iter()
            .rev()
            .map(|l| strip_colours(l))
            .find(|l| !l.trim().is_empty())
    }
}

fn strip_colours(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // ESC [ … letter
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A sentence for a request Codex refused.
pub fn failed(what: &str, why: String) -> EngineError {
    EngineError::Protocol(format!("Codex refused {what}: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_taken_out_of_codex_errors() {
        assert_eq!(
            strip_colours("\u{1b}[2m2026\u{1b}[0m \u{1b}[31mERROR\u{1b}[0m x"),
            "2026 ERROR x"
        );
    }
}
