//! Auto mode's reviewer for a Codex provider: one call to the same
//! Responses endpoint Codex uses (`POST {base}/responses`, streamed), with
//! the reviewer's instructions and no tools. Codex itself isn't used for
//! this: a review must not run tools, and an app-server per question would
//! cost a process start. With no base URL (Codex's own sign-in) there is no
//! endpoint Conch can call, and the review says so; Auto mode then asks
//! the owner, as it does whenever the reviewer can't answer.

use serde_json::{json, Value};

use super::CodexEngine;
use crate::engine::EngineError;
use crate::providers::http::{send, Retry};
use crate::providers::sse::SseParser;

pub async fn review(
    engine: &CodexEngine,
    system: String,
    prompt: String,
) -> Result<String, EngineError> {
    if engine.base_url.is_empty() {
        return Err(EngineError::Unavailable(format!(
            "{} uses Codex's own sign-in, which Conch can't ask for a review. Give it a base URL and key to have Auto mode review with it.",
            engine.name
        )));
    }
    let url = format!("{}/responses", engine.base_url.trim_end_matches('/'));
    let mut body = json!({
        "instructions": system,
        "input": [{ "type": "message", "role": "user",
                    "content": [{ "type": "input_text", "text": prompt }] }],
        "stream": true,
        "store": false,
    });
    if let Some(model) = &engine.model {
        body["model"] = json!(model);
    }
    let retry = Retry::default();
    let mut response = send(&engine.name, &retry, || {
        let mut r = engine.client.post(&url).json(&body);
        if let Some(key) = &engine.key {
            r = r.bearer_auth(key);
        }
        r
    })
    .await?;
    let mut parser = SseParser::default();
    let mut deltas = String::new();
    let mut done_text = String::new();
    loop {
        let chunk = response.chunk().await.map_err(|e| {
            EngineError::Unavailable(format!("{} stopped answering partway: {e}.", engine.name))
        })?;
        let Some(bytes) = chunk else { break };
        for event in parser.feed(&bytes) {
            let Ok(v) = serde_json::from_str::<Value>(&event.data) else {
                continue;
            };
            match v["type"].as_str().or(event.event.as_deref()) {
                Some("response.output_text.delta") => {
                    deltas.push_str(v["delta"].as_str().unwrap_or(""));
                }
                Some("response.output_item.done") => {
                    done_text.push_str(&message_text(&v["item"]));
                }
                Some("response.failed") | Some("error") => {
                    let m = v["response"]["error"]["message"]
                        .as_str()
                        .or(v["error"]["message"].as_str())
                        .or(v["message"].as_str())
                        .unwrap_or("it failed");
                    return Err(EngineError::Unavailable(format!(
                        "{} failed: {m}",
                        engine.name
                    )));
                }
                _ => {}
            }
        }
    }
    Ok(if done_text.is_empty() {
        deltas
    } else {
        done_text
    })
}

fn message_text(item: &Value) -> String {
    if item["type"] != "message" {
        return String::new();
    }
    item["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["type"] == "output_text")
        .filter_map(|c| c["text"].as_str())
        .collect()
}
