//! Claude Code's stream-json protocol (`claude -p --input-format
//! stream-json --output-format stream-json`): one JSON object a line each
//! way. What comes out is read into [`Out`]; what goes in is built by the
//! functions below. Only what Conch uses is read; anything else is
//! [`Out::Other`] and skipped, so a newer Claude Code that adds messages
//! doesn't break a turn.

use serde_json::{json, Value};

/// One line Claude Code wrote.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    /// The session started (`system`/`init`).
    Init {
        session: String,
    },
    /// The assistant said something (the whole message). Calls a
    /// sub-agent made carry the Task call they belong to.
    Assistant {
        parent: Option<String>,
        message: String,
        blocks: Vec<Block>,
    },
    /// A message starts streaming (`--include-partial-messages`).
    Streaming {
        parent: Option<String>,
        message: String,
    },
    /// More of its text, as it comes.
    Delta {
        parent: Option<String>,
        text: String,
    },
    /// Tool results, as the model will see them.
    Results {
        parent: Option<String>,
        results: Vec<ToolResult>,
    },
    /// It asks whether a tool may run (`can_use_tool`).
    CanUseTool {
        request: String,
        id: String,
        tool: String,
        input: Value,
    },
    /// Another control request Conch doesn't serve; it is answered with an
    /// error so Claude Code doesn't wait for it.
    OtherRequest {
        request: String,
        subtype: String,
    },
    /// The answer to one of Conch's control requests.
    Answered {
        request: String,
        error: Option<String>,
    },
    /// A PreToolUse hook gave no verdict: the call was not checked.
    Unchecked {
        hook: String,
        call: Option<String>,
    },
    /// The turn ended.
    Result {
        error: bool,
        text: String,
        /// What the turn cost, as Claude Code reports it (US dollars).
        cost_usd: Option<f64>,
    },
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(String),
    ToolUse {
        id: String,
        tool: String,
        input: Value,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub id: String,
    pub error: bool,
    pub text: String,
}

fn string(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_owned()
}

fn parent(v: &Value) -> Option<String> {
    v.get("parent_tool_use_id")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// A tool result's content: a string, or text blocks.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Reads one line. A line that isn't JSON is `None` (Claude Code writes
/// only JSON lines to stdout; anything else is noise to skip).
pub fn read(line: &str) -> Option<Out> {
    let v: Value = serde_json::from_str(line.trim()).ok()?;
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
    Some(match kind {
        "system" => match v.get("subtype").and_then(Value::as_str) {
            Some("init") => Out::Init {
                session: string(&v, "session_id"),
            },
            Some("informational")
                if v.get("tag").and_then(Value::as_str) == Some("hook_no_verdict") =>
            {
                let about = v.get("hook_no_verdict").cloned().unwrap_or(Value::Null);
                Out::Unchecked {
                    hook: string(&about, "hook_event"),
                    call: about
                        .get("tool_use_id")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                }
            }
            _ => Out::Other,
        },
        "assistant" => {
            let blocks = v["message"]["content"]
                .as_array()
                .map(|list| {
                    list.iter()
                        .filter_map(|b| match b.get("type").and_then(Value::as_str) {
                            Some("text") => Some(Block::Text(string(b, "text"))),
                            Some("tool_use") => Some(Block::ToolUse {
                                id: string(b, "id"),
                                tool: string(b, "name"),
                                input: b.get("input").cloned().unwrap_or(Value::Null),
                            }),
                            _ => None,
                        })
                        .collect()
                })
                .unwrap_or_default();
            Out::Assistant {
                parent: parent(&v),
                message: string(&v["message"], "id"),
                blocks,
            }
        }
        "stream_event" => {
            let event = &v["event"];
            match event.get("type").and_then(Value::as_str) {
                Some("message_start") => Out::Streaming {
                    parent: parent(&v),
                    message: string(&event["message"], "id"),
                },
                Some("content_block_delta") if event["delta"]["type"] == "text_delta" => {
                    Out::Delta {
                        parent: parent(&v),
                        text: string(&event["delta"], "text"),
                    }
                }
                _ => Out::Other,
            }
        }
        "user" => {
            let results: Vec<ToolResult> = v["message"]["content"]
                .as_array()
                .map(|list| {
                    list.iter()
                        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                        .map(|b| ToolResult {
                            id: string(b, "tool_use_id"),
                            error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                            text: content_text(b.get("content").unwrap_or(&Value::Null)),
                        })
                        .collect()
                })
                .unwrap_or_default();
            if results.is_empty() {
                Out::Other
            } else {
                Out::Results {
                    parent: parent(&v),
                    results,
                }
            }
        }
        "control_request" => {
            let request = string(&v, "request_id");
            let inner = &v["request"];
            match inner.get("subtype").and_then(Value::as_str) {
                Some("can_use_tool") => {
                    // An ask without the call's id is still answered; the
                    // request's id stands in for it.
                    let id = inner
                        .get("tool_use_id")
                        .and_then(Value::as_str)
                        .map_or_else(|| request.clone(), str::to_owned);
                    Out::CanUseTool {
                        request,
                        id,
                        tool: string(inner, "tool_name"),
                        input: inner.get("input").cloned().unwrap_or(Value::Null),
                    }
                }
                other => Out::OtherRequest {
                    request,
                    subtype: other.unwrap_or("").to_owned(),
                },
            }
        }
        "control_response" => {
            let r = &v["response"];
            Out::Answered {
                request: string(r, "request_id"),
                error: (r.get("subtype").and_then(Value::as_str) == Some("error"))
                    .then(|| string(r, "error")),
            }
        }
        "result" => Out::Result {
            error: v.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            text: string(&v, "result"),
            cost_usd: v.get("total_cost_usd").and_then(Value::as_f64),
        },
        _ => Out::Other,
    })
}

fn control(request: &str, body: Value) -> String {
    json!({ "type": "control_request", "request_id": request, "request": body }).to_string()
}

/// The first control request: who the assistant is, kept out of the
/// command line (where anyone on this computer could read it).
pub fn initialize(request: &str, system: &str) -> String {
    control(
        request,
        json!({ "subtype": "initialize", "appendSystemPrompt": system }),
    )
}

/// The owner's words for this turn.
pub fn user(text: &str) -> String {
    json!({
        "type": "user",
        "message": { "role": "user", "content": text },
        "parent_tool_use_id": null,
        "session_id": "",
    })
    .to_string()
}

pub fn set_permission_mode(request: &str, mode: &str) -> String {
    control(
        request,
        json!({ "subtype": "set_permission_mode", "mode": mode }),
    )
}

pub fn interrupt(request: &str) -> String {
    control(request, json!({ "subtype": "interrupt" }))
}

fn success(request: &str, body: Value) -> String {
    json!({
        "type": "control_response",
        "response": { "subtype": "success", "request_id": request, "response": body },
    })
    .to_string()
}

/// Yes, with exactly this input: what runs is what was approved.
pub fn allow(request: &str, id: &str, input: &Value) -> String {
    success(
        request,
        json!({ "behavior": "allow", "updatedInput": input, "toolUseID": id }),
    )
}

pub fn deny(request: &str, id: &str, message: &str) -> String {
    success(
        request,
        json!({ "behavior": "deny", "message": message, "toolUseID": id }),
    )
}

/// A control request Conch doesn't serve.
pub fn unsupported(request: &str, subtype: &str) -> String {
    json!({
        "type": "control_response",
        "response": {
            "subtype": "error",
            "request_id": request,
            "error": format!("Conch doesn't answer {subtype}."),
        },
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_claude_code_writes() {
        let init = r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s-1","tools":[]}"#;
        assert_eq!(
            read(init),
            Some(Out::Init {
                session: "s-1".into()
            })
        );
        let call = r#"{"type":"assistant","message":{"id":"msg_1","content":[{"type":"text","text":"Ça va"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":null}"#;
        assert_eq!(
            read(call),
            Some(Out::Assistant {
                parent: None,
                message: "msg_1".into(),
                blocks: vec![
                    Block::Text("Ça va".into()),
                    Block::ToolUse {
                        id: "toolu_1".into(),
                        tool: "Bash".into(),
                        input: json!({"command": "ls"})
                    }
                ]
            })
        );
        let result = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"is_error":true}]},"parent_tool_use_id":"toolu_0"}"#;
        assert_eq!(
            read(result),
            Some(Out::Results {
                parent: Some("toolu_0".into()),
                results: vec![ToolResult {
                    id: "toolu_1".into(),
                    error: true,
                    text: "a\nb".into()
                }]
            })
        );
        let ask = r#"{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"toolu_1"}}"#;
        assert_eq!(
            read(ask),
            Some(Out::CanUseTool {
                request: "r1".into(),
                id: "toolu_1".into(),
                tool: "Bash".into(),
                input: json!({"command": "ls"})
            })
        );
        let unchecked = r#"{"type":"system","subtype":"informational","tag":"hook_no_verdict","hook_no_verdict":{"hook_event":"PreToolUse","tool_use_id":"toolu_4","timed_out":false}}"#;
        assert_eq!(
            read(unchecked),
            Some(Out::Unchecked {
                hook: "PreToolUse".into(),
                call: Some("toolu_4".into())
            })
        );
        let delta = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Bonjour"}},"parent_tool_use_id":null}"#;
        assert_eq!(
            read(delta),
            Some(Out::Delta {
                parent: None,
                text: "Bonjour".into()
            })
        );
        assert_eq!(read("not json"), None);
        assert_eq!(read(r#"{"type":"keep_alive"}"#), Some(Out::Other));
    }

    #[test]
    fn answers_carry_exactly_the_approved_input() {
        let line = allow("r1", "toolu_1", &json!({"command": "echo ünï"}));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["response"]["response"]["behavior"], "allow");
        assert_eq!(
            v["response"]["response"]["updatedInput"]["command"],
            "echo ünï"
        );
        let line = deny("r2", "toolu_2", "No.");
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["response"]["request_id"], "r2");
        assert_eq!(v["response"]["response"]["message"], "No.");
    }
}
