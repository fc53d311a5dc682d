//! A scripted OpenAI Responses API on 127.0.0.1, for driving the real
//! Codex offline: `POST /v1/responses` answers each request with the next
//! step of the script as server-sent events (`response.created`, one
//! `response.output_item.done` per item, `response.completed`), and keeps
//! every request it was sent. When the script runs out it says "Done.".

#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

#[derive(Default)]
struct Inner {
    script: VecDeque<Vec<Value>>,
    requests: Vec<Value>,
    /// When each request arrived (for the benchmarks).
    arrived: Vec<std::time::Instant>,
}

#[derive(Clone)]
pub struct Responses {
    /// The base URL Codex is given (`…/v1`).
    pub url: String,
    inner: Arc<Mutex<Inner>>,
}

impl Responses {
    pub async fn start(script: Vec<Vec<Value>>) -> Responses {
        let inner = Arc::new(Mutex::new(Inner {
            script: script.into(),
            requests: Vec::new(),
            arrived: Vec::new(),
        }));
        let app = Router::new()
            .route("/v1/responses", post(respond))
            .with_state(inner.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Responses { url, inner }
    }

    /// Adds steps to the end of the script.
    pub fn then(&self, steps: Vec<Vec<Value>>) {
        self.inner.lock().unwrap().script.extend(steps);
    }

    pub fn arrivals(&self) -> Vec<std::time::Instant> {
        self.inner.lock().unwrap().arrived.clone()
    }

    pub fn requests(&self) -> Vec<Value> {
        self.inner.lock().unwrap().requests.clone()
    }

    /// What the model was last told about a call (its output), if anything.
    pub fn output_of(&self, call: &str) -> Option<String> {
        self.requests().iter().rev().find_map(|r| {
            r["input"].as_array()?.iter().find_map(|i| {
                (i["call_id"] == call && i["type"].as_str()?.ends_with("_output")).then(|| match &i
                    ["output"]
                {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
            })
        })
    }
}

async fn respond(
    State(inner): State<Arc<Mutex<Inner>>>,
    Json(body): Json<Value>,
) -> impl IntoResponse {
    let items = {
        let mut inner = inner.lock().unwrap();
        inner.arrived.push(std::time::Instant::now());
        inner.requests.push(body);
        let step = inner
            .script
            .pop_front()
            .unwrap_or_else(|| vec![say("Done.")]);
        // `SESSION` in a step stands for the running command Codex last
        // reported ("Process running with session ID N").
        let session = inner.requests.last().and_then(|r| {
            r["input"].as_array()?.iter().rev().find_map(|i| {
                let out = i["output"].as_str()?;
                let at = out.find("session ID ")? + "session ID ".len();
                let digits: String = out[at..].chars().take_while(char::is_ascii_digit).collect();
                (!digits.is_empty()).then_some(digits)
            })
        });
        match session {
            Some(id) => {
                serde_json::from_str(&Value::from(step).to_string().replace("SESSION", &id))
                    .unwrap_or_default()
            }
            None => step,
        }
    };
    let n = rand_id();
    let mut sse = String::new();
    let mut event = |v: Value| {
        sse.push_str(&format!(
            "event: {}\ndata: {}\n\n",
            v["type"].as_str().unwrap_or(""),
            v
        ));
    };
    event(json!({ "type": "response.created", "response": { "id": format!("resp_{n}") } }));
    for item in items {
        event(json!({ "type": "response.output_item.done", "item": item }));
    }
    event(json!({ "type": "response.completed", "response": {
        "id": format!("resp_{n}"),
        "usage": { "input_tokens": 10, "input_tokens_details": null, "output_tokens": 5,
                   "output_tokens_details": null, "total_tokens": 15 },
    }}));
    ([(header::CONTENT_TYPE, "text/event-stream")], sse)
}

fn rand_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(1);
    N.fetch_add(1, Ordering::SeqCst)
}

/// The assistant says `text`.
pub fn say(text: &str) -> Value {
    json!({ "type": "message", "role": "assistant", "id": format!("msg_{}", rand_id()),
            "content": [{ "type": "output_text", "text": text }] })
}

/// The model runs `cmd` with Codex's command tool.
pub fn run(call: &str, cmd: &str) -> Value {
    json!({ "type": "function_call", "id": format!("fc_{call}"), "call_id": call,
            "name": "exec_command", "arguments": json!({ "cmd": cmd }).to_string() })
}

/// The model runs `cmd` in the folder `workdir`.
pub fn run_in(call: &str, cmd: &str, workdir: &str) -> Value {
    json!({ "type": "function_call", "id": format!("fc_{call}"), "call_id": call,
            "name": "exec_command", "arguments": json!({ "cmd": cmd, "workdir": workdir }).to_string() })
}

/// The model runs `cmd` and asks to leave Codex's sandbox for it.
pub fn run_outside_sandbox(call: &str, cmd: &str) -> Value {
    json!({ "type": "function_call", "id": format!("fc_{call}"), "call_id": call,
            "name": "exec_command",
            "arguments": json!({ "cmd": cmd, "sandbox_permissions": "require_escalated",
                                 "justification": "It needs to." }).to_string() })
}

/// A web search the provider ran (it marks the chat).
pub fn searched(id: &str, query: &str) -> Value {
    json!({ "type": "web_search_call", "id": id, "status": "completed",
            "action": { "type": "search", "query": query } })
}

/// The model types `chars` into the command Codex last left running.
pub fn type_into(call: &str, chars: &str) -> Value {
    json!({ "type": "function_call", "id": format!("fc_{call}"), "call_id": call,
            "name": "write_stdin",
            "arguments": format!("{{\"session_id\":SESSION,\"chars\":{},\"yield_time_ms\":500}}",
                                 Value::from(chars)) })
}

/// The model changes files with Codex's patch, given as the `apply_patch`
/// heredoc Codex takes as a file change, not a program.
pub fn patch(call: &str, patch: &str) -> Value {
    run(call, &format!("apply_patch <<'EOF'\n{patch}\nEOF\n"))
}
