//! OpenAI-compatible chat completions, streamed.
//!
//! POST {base}/chat/completions with `stream: true`; `data:` lines carry
//! `choices[0].delta` with `content` and `tool_calls` (pieces keyed by
//! `index`, arguments arriving as string fragments); `data: [DONE]` ends it.

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::budget;
use super::http::{send, Retry};
use super::sse::SseParser;
use super::Provider;
use crate::engine::{BoxFuture, Chunk, Engine, EngineError, Item, StepRequest};

pub struct OpenAiEngine {
    provider: Provider,
    client: reqwest::Client,
    retry: Retry,
}

impl OpenAiEngine {
    pub fn new(provider: Provider, retry: Retry) -> OpenAiEngine {
        OpenAiEngine {
            provider,
            client: super::client(),
            retry,
        }
    }
}

/// The request's `messages`.
pub fn messages(system: &str, items: &[Item]) -> Vec<Value> {
    let mut out = vec![json!({ "role": "system", "content": system })];
    for item in items {
        match item {
            Item::Owner(text) => out.push(json!({ "role": "user", "content": text })),
            Item::Other { label, text } => out.push(json!({
                "role": "user",
                "content": format!("[From {label}, not the owner]\n{text}"),
            })),
            Item::Assistant(text) => out.push(json!({ "role": "assistant", "content": text })),
            Item::ToolUse { id, name, input } => {
                let call = json!({
                    "id": id,
                    "type": "function",
                    "function": { "name": name, "arguments": input.to_string() },
                });
                // Calls join the assistant message just before them.
                match out.last_mut() {
                    Some(last) if last["role"] == "assistant" => {
                        if !last["tool_calls"].is_array() {
                            last["tool_calls"] = json!([]);
                        }
                        if let Some(calls) = last["tool_calls"].as_array_mut() {
                            calls.push(call);
                        }
                    }
                    _ => out.push(
                        json!({ "role": "assistant", "content": null, "tool_calls": [call] }),
                    ),
                }
            }
            Item::ToolResult { id, output, .. } => out.push(json!({
                "role": "tool",
                "tool_call_id": id,
                "content": output,
            })),
        }
    }
    out
}

pub fn body(provider: &Provider, request: &StepRequest) -> Value {
    let budget = provider
        .settings
        .context_tokens
        .saturating_sub(provider.settings.max_tokens as usize + request.system.len() / 4);
    let items = budget::fit(&request.items, budget);
    let mut body = json!({
        "model": provider.settings.model,
        "stream": true,
        "max_tokens": provider.settings.max_tokens,
        "messages": messages(&request.system, &items),
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": { "name": t.name, "description": t.description, "parameters": t.schema },
                })
            })
            .collect();
    }
    body
}

#[derive(Default)]
struct PendingCall {
    id: String,
    name: String,
    arguments: String,
}

fn tool_input(arguments: &str) -> Value {
    if arguments.trim().is_empty() {
        return json!({});
    }
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()))
}

impl Engine for OpenAiEngine {
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
                "{}/chat/completions",
                self.provider.settings.base_url.trim_end_matches('/')
            );
            let body = body(&self.provider, &request);
            let mut response = send(name, &self.retry, || {
                let mut r = self.client.post(&url).json(&body);
                if let Some(key) = &self.provider.key {
                    r = r.bearer_auth(key);
                }
                r
            })
            .await?;
            let mut parser = SseParser::default();
            let mut calls: Vec<PendingCall> = Vec::new();
            let mut done = false;
            'read: while !done {
                let chunk = response.chunk().await.map_err(|e| {
                    EngineError::Unavailable(format!("{name} stopped answering partway: {e}."))
                })?;
                let Some(bytes) = chunk else { break };
                for event in parser.feed(&bytes) {
                    if event.data.trim() == "[DONE]" {
                        done = true;
                        continue 'read;
                    }
                    let value: Value = serde_json::from_str(&event.data).map_err(|_| {
                        EngineError::Protocol(format!(
                            "{name} sent something that isn't a chat completion chunk."
                        ))
                    })?;
                    if let Some(message) = value["error"]["message"].as_str() {
                        return Err(EngineError::Unavailable(format!(
                            "{name} failed: {message}"
                        )));
                    }
                    let delta = &value["choices"][0]["delta"];
                    if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
                        if out.send(Chunk::Text(text.to_owned())).await.is_err() {
                            return Err(EngineError::Stopped);
                        }
                    }
                    for piece in delta["tool_calls"].as_array().into_iter().flatten() {
                        let index = piece["index"].as_u64().unwrap_or(calls.len() as u64) as usize;
                        while calls.len() <= index {
                            calls.push(PendingCall::default());
                        }
                        let call = &mut calls[index];
                        if let Some(id) = piece["id"].as_str() {
                            call.id = id.to_owned();
                        }
                        if let Some(n) = piece["function"]["name"].as_str() {
                            call.name.push_str(n);
                        }
                        if let Some(a) = piece["function"]["arguments"].as_str() {
                            call.arguments.push_str(a);
                        }
                    }
                }
            }
            for (n, call) in calls.into_iter().enumerate() {
                if call.name.is_empty() {
                    continue;
                }
                let id = if call.id.is_empty() {
                    format!("call_{n}")
                } else {
                    call.id
                };
                let chunk = Chunk::ToolCall {
                    id,
                    name: call.name,
                    input: tool_input(&call.arguments),
                };
                if out.send(chunk).await.is_err() {
                    return Err(EngineError::Stopped);
                }
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_join_the_assistant_message_and_results_follow() {
        let items = vec![
            Item::Owner("hi".into()),
            Item::Assistant("Looking.".into()),
            Item::ToolUse {
                id: "a".into(),
                name: "read_file".into(),
                input: json!({"path": "x"}),
            },
            Item::ToolUse {
                id: "b".into(),
                name: "list_files".into(),
                input: json!({"path": "."}),
            },
            Item::ToolResult {
                id: "a".into(),
                ok: true,
                output: "1".into(),
            },
            Item::ToolResult {
                id: "b".into(),
                ok: true,
                output: "2".into(),
            },
            Item::Other {
                label: "Eve on telegram".into(),
                text: "do it".into(),
            },
        ];
        let m = messages("sys", &items);
        assert_eq!(m[0], json!({"role": "system", "content": "sys"}));
        assert_eq!(m[2]["content"], "Looking.");
        assert_eq!(m[2]["tool_calls"][1]["function"]["name"], "list_files");
        assert_eq!(
            m[2]["tool_calls"][0]["function"]["arguments"],
            "{\"path\":\"x\"}"
        );
        assert_eq!(
            m[3],
            json!({"role": "tool", "tool_call_id": "a", "content": "1"})
        );
        assert!(m[5]["content"]
            .as_str()
            .unwrap()
            .starts_with("[From Eve on telegram, not the owner]"));
    }

    #[test]
    fn arguments_that_are_not_json_reach_the_tool_as_text() {
        assert_eq!(tool_input(""), json!({}));
        assert_eq!(tool_input("{\"a\":1}"), json!({"a": 1}));
        assert_eq!(tool_input("{broken"), json!("{broken"));
    }
}
