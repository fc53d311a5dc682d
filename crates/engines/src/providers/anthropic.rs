//! Anthropic Messages, streamed.
//!
//! POST {base}/v1/messages with `x-api-key` and `anthropic-version`. The
//! stream's events: `content_block_start` (text or tool_use with id and
//! name), `content_block_delta` (`text_delta`, or `input_json_delta` pieces
//! of the tool's input), `content_block_stop`, `message_stop`, `error`.
//! Messages alternate user and assistant; tool results go back as the user's
//! `tool_result` blocks.

use std::collections::HashMap;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::budget;
use super::http::{send, Retry};
use super::sse::SseParser;
use super::Provider;
use crate::engine::{BoxFuture, Chunk, Engine, EngineError, Item, StepRequest};

pub const VERSION: &str = "2023-06-01";

pub struct AnthropicEngine {
    provider: Provider,
    client: reqwest::Client,
    retry: Retry,
}

impl AnthropicEngine {
    pub fn new(provider: Provider, retry: Retry) -> AnthropicEngine {
        AnthropicEngine {
            provider,
            client: super::client(),
            retry,
        }
    }
}

/// The request's `messages`: consecutive blocks of one role share a message.
pub fn messages(items: &[Item]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut push = |role: &str, block: Value| match out.last_mut() {
        Some(last) if last["role"] == role => {
            if let Some(blocks) = last["content"].as_array_mut() {
                blocks.push(block);
            }
        }
        _ => out.push(json!({ "role": role, "content": [block] })),
    };
    for item in items {
        match item {
            Item::Owner(text) if !text.is_empty() => {
                push("user", json!({ "type": "text", "text": text }))
            }
            Item::Other { label, text } => push(
                "user",
                json!({ "type": "text", "text": format!("[From {label}, not the owner]\n{text}") }),
            ),
            Item::Assistant(text) if !text.is_empty() => {
                push("assistant", json!({ "type": "text", "text": text }))
            }
            Item::ToolUse { id, name, input } => push(
                "assistant",
                json!({ "type": "tool_use", "id": id, "name": name, "input": object(input) }),
            ),
            Item::ToolResult { id, ok, output } => push(
                "user",
                json!({ "type": "tool_result", "tool_use_id": id, "content": output, "is_error": !ok }),
            ),
            _ => {}
        }
    }
    if out.first().is_some_and(|m| m["role"] == "assistant") {
        out.insert(
            0,
            json!({ "role": "user", "content": [{ "type": "text", "text": "(The chat so far.)" }] }),
        );
    }
    out
}

/// Anthropic wants a tool's input to be an object.
fn object(input: &Value) -> Value {
    if input.is_object() {
        input.clone()
    } else {
        json!({ "input": input })
    }
}

pub fn body(provider: &Provider, request: &StepRequest) -> Value {
    let budget = provider
        .settings
        .context_tokens
        .saturating_sub(provider.settings.max_tokens as usize + request.system.len() / 4);
    let items = budget::fit(&request.items, budget);
    let mut body = json!({
        "model": provider.settings.model,
        "max_tokens": provider.settings.max_tokens,
        "stream": true,
        "system": request.system,
        "messages": messages(&items),
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| json!({ "name": t.name, "description": t.description, "input_schema": t.schema }))
            .collect();
    }
    body
}

struct Block {
    id: String,
    name: String,
    json: String,
}

impl Engine for AnthropicEngine {
    fn name(&self) -> &str {
        &self.provider.settings.name
    }

    fn model(&self) -> Option<&str> {
        Some(&self.provider.settings.model)
    }

    fn step<'a>(
        &'a self,
        request: StepRequest,
        out: mpsc::Sender<Chunk>,
    ) -> BoxFuture<'a, Result<(), EngineError>> {
        Box::pin(async move {
            let name = &self.provider.settings.name;
            let url = format!(
                "{}/v1/messages",
                self.provider.settings.base_url.trim_end_matches('/')
            );
            let body = body(&self.provider, &request);
            let mut response = send(name, &self.retry, || {
                let mut r = self
                    .client
                    .post(&url)
                    .header("anthropic-version", VERSION)
                    .json(&body);
                if let Some(key) = &self.provider.key {
                    r = r.header("x-api-key", key);
                }
                r
            })
            .await?;
            let mut parser = SseParser::default();
            let mut blocks: HashMap<u64, Block> = HashMap::new();
            loop {
                let chunk = response.chunk().await.map_err(|e| {
                    EngineError::Unavailable(format!("{name} stopped answering partway: {e}."))
                })?;
                let Some(bytes) = chunk else { return Ok(()) };
                for event in parser.feed(&bytes) {
                    let value: Value = match serde_json::from_str(&event.data) {
                        Ok(v) => v,
                        Err(_) => {
                            return Err(EngineError::Protocol(format!(
                                "{name} sent something that isn't a Messages stream event."
                            )))
                        }
                    };
                    let kind = event
                        .event
                        .as_deref()
                        .or(value["type"].as_str())
                        .unwrap_or("");
                    let index = value["index"].as_u64().unwrap_or(0);
                    match kind {
                        "content_block_start" => {
                            let block = &value["content_block"];
                            if block["type"] == "tool_use" {
                                blocks.insert(
                                    index,
                                    Block {
                                        id: block["id"].as_str().unwrap_or("").to_owned(),
                                        name: block["name"].as_str().unwrap_or("").to_owned(),
                                        json: String::new(),
                                    },
                                );
                            } else if let Some(text) =
                                block["text"].as_str().filter(|t| !t.is_empty())
                            {
                                if out.send(Chunk::Text(text.to_owned())).await.is_err() {
                                    return Err(EngineError::Stopped);
                                }
                            }
                        }
                        "content_block_delta" => {
                            let delta = &value["delta"];
                            match delta["type"].as_str() {
                                Some("text_delta") => {
                                    let text = delta["text"].as_str().unwrap_or("").to_owned();
                                    if !text.is_empty()
                                        && out.send(Chunk::Text(text)).await.is_err()
                                    {
                                        return Err(EngineError::Stopped);
                                    }
                                }
                                Some("input_json_delta") => {
                                    if let Some(block) = blocks.get_mut(&index) {
                                        block
                                            .json
                                            .push_str(delta["partial_json"].as_str().unwrap_or(""));
                                    }
                                }
                                _ => {}
                            }
                        }
                        "content_block_stop" => {
                            if let Some(block) = blocks.remove(&index) {
                                let input = if block.json.trim().is_empty() {
                                    json!({})
                                } else {
                                    serde_json::from_str(&block.json)
                                        .unwrap_or(Value::String(block.json))
                                };
                                let call = Chunk::ToolCall {
                                    id: block.id,
                                    name: block.name,
                                    input,
                                };
                                if out.send(call).await.is_err() {
                                    return Err(EngineError::Stopped);
                                }
                            }
                        }
                        "message_stop" => return Ok(()),
                        "error" => {
                            let message = value["error"]["message"].as_str().unwrap_or("an error");
                            return Err(EngineError::Unavailable(format!(
                                "{name} failed: {message}"
                            )));
                        }
                        _ => {}
                    }
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_alternate_and_results_are_the_users() {
        let items = vec![
            Item::Owner("hi".into()),
            Item::Assistant("Looking.".into()),
            Item::ToolUse {
                id: "a".into(),
                name: "read_file".into(),
                input: json!({"path": "x"}),
            },
            Item::ToolResult {
                id: "a".into(),
                ok: false,
                output: "nope".into(),
            },
            Item::Owner("and?".into()),
            Item::Assistant(String::new()),
        ];
        let m = messages(&items);
        let roles: Vec<&str> = m.iter().map(|v| v["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["user", "assistant", "user"]);
        assert_eq!(m[1]["content"][1]["type"], "tool_use");
        assert_eq!(
            m[2]["content"][0],
            json!({"type": "tool_result", "tool_use_id": "a", "content": "nope", "is_error": true})
        );
        assert_eq!(m[2]["content"][1]["text"], "and?");
    }

    #[test]
    fn a_chat_starting_with_the_assistant_gets_a_user_turn_first() {
        let m = messages(&[Item::Assistant("hello".into())]);
        assert_eq!(m[0]["role"], "user");
    }
}
