//! Conch's side of Codex's PreToolUse hook. Codex runs the hook before
//! every tool call, in every approval policy; the hook (`codex app-server
//! proxy`, a plain byte pipe) hands the call to this socket and prints
//! what comes back. So every call passes the guard here, whatever Codex
//! would have asked by itself.
//!
//! Codex's hooks can't ask: they allow or deny. When the guard asks, the
//! hook waits here while the owner (or Auto mode's reviewer) decides, then
//! allows or denies. Codex lets a step through when its hook times out, so
//! Conch says no itself well before that ([`ANSWER_WITHIN`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, UnixListener};

use super::calls;
use super::turn::Shared;
use crate::native::{NativeEvent, Quick, Verdict};

/// How long a question may stay open before Conch answers "no" itself
/// (shorter than the hook's timeout in Codex).
pub const ANSWER_WITHIN: Duration = Duration::from_secs(6 * 24 * 3600);

/// The most a hook's input may be.
const MOST: usize = 4 << 20;

/// Where the socket goes: in the chat's Codex folder when the path fits a
/// socket address, else in a private folder of its own.
pub fn socket_path(dir: &Path) -> std::io::Result<(PathBuf, Option<PathBuf>)> {
    let inside = dir.join("hook.sock");
    if inside.as_os_str().len() < 100 {
        return Ok((inside, None));
    }
    let mut n = [0u8; 8];
    getrandom::fill(&mut n).map_err(|e| std::io::Error::other(e.to_string()))?;
    let own = std::env::temp_dir().join(format!(
        "conch-codex-{}",
        n.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ));
    std::fs::create_dir(&own)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&own, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok((own.join("hook.sock"), Some(own)))
}

pub fn bind(path: &Path) -> std::io::Result<UnixListener> {
    let _ = std::fs::remove_file(path);
    let listener = UnixListener::bind(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(listener)
}

/// Where the hook reaches Conch: a socket in the chat's Codex folder, or,
/// from inside the box (which refuses Unix sockets), a port on 127.0.0.1
/// that answers only the turn's token.
pub enum Listener {
    Unix(UnixListener),
    Tcp {
        listener: TcpListener,
        token: String,
    },
}

/// Answers hooks until the listener is dropped.
pub async fn serve(listener: Listener, shared: Arc<Shared>) {
    match listener {
        Listener::Unix(listener) => {
            while let Ok((stream, _)) = listener.accept().await {
                let shared = shared.clone();
                tokio::spawn(async move {
                    let _ = answer(stream, &shared).await;
                });
            }
        }
        Listener::Tcp { listener, token } => {
            let token: Arc<str> = token.into();
            while let Ok((mut stream, _)) = listener.accept().await {
                let (shared, token) = (shared.clone(), token.clone());
                tokio::spawn(async move {
                    if super::boxed::token_matches(&mut stream, &token).await {
                        let _ = answer(stream, &shared).await;
                    }
                });
            }
        }
    }
}

async fn read_value<S: AsyncRead + Unpin>(stream: &mut S) -> std::io::Result<Option<Value>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(serde_json::from_slice(&buf).ok());
        }
        buf.extend_from_slice(&chunk[..n]);
        match serde_json::from_slice::<Value>(&buf) {
            Ok(v) => return Ok(Some(v)),
            Err(e) if e.is_eof() && buf.len() < MOST => continue,
            Err(_) => return Ok(None),
        }
    }
}

fn deny(reason: &str) -> Value {
    json!({ "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }})
}

/// Allows the call. A command runs with its input from /dev/null, so what
/// runs is what was judged: nothing typed into it later (Codex's
/// `write_stdin`, which has no hook) reaches it.
fn allow(tool: &str, input: &Value) -> Value {
    match (tool, input.get("command").and_then(Value::as_str)) {
        ("Bash", Some(command)) if calls::apply_patch_heredoc(command).is_none() => {
            json!({ "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": { "command": format!("( {command}\n) </dev/null") },
            }})
        }
        _ => json!({}),
    }
}

async fn answer<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    shared: &Shared,
) -> std::io::Result<()> {
    let reply = match read_value(&mut stream).await? {
        Some(input) => decide(&input, shared).await,
        None => deny("Conch couldn't read this step, so it didn't run."),
    };
    stream.write_all(reply.to_string().as_bytes()).await?;
    stream.shutdown().await
}

async fn decide(input: &Value, shared: &Shared) -> Value {
    if input["hook_event_name"] != "PreToolUse" {
        return json!({});
    }
    let tool = input["tool_name"].as_str().unwrap_or("");
    let id = input["tool_use_id"].as_str().unwrap_or("");
    let tool_input = &input["tool_input"];
    let call = calls::from_hook(id, tool, tool_input, input["cwd"].as_str(), &shared.at);
    shared.seen(&call);
    // In a tight turn a command that asked to leave the sandbox is refused
    // here, without a question (the policy refuses it too).
    if shared.tight && shared.escalated(id) {
        let sentence = "This chat read something from outside, so commands stay in Codex's sandbox, and this one asked to leave it. It didn't run.".to_owned();
        shared.decided(id, false);
        shared
            .finish(NativeEvent::ToolFinished {
                id: id.to_owned(),
                ok: false,
                output: sentence.clone(),
            })
            .await;
        return deny(&sentence);
    }
    let verdict = match shared.gate.quick(call.clone()).await {
        Quick::Allow => Ok(()),
        Quick::Deny(sentence) => Err(sentence),
        Quick::Ask(_) => {
            let asked = tokio::time::timeout(ANSWER_WITHIN, shared.gate.ask(call.clone()));
            match asked.await {
                Ok(Verdict::Allow { .. }) => Ok(()),
                Ok(Verdict::Deny { message }) => Err(message),
                Err(_) => Err("Nobody answered in time, so it didn't run.".to_owned()),
            }
        }
    };
    shared.decided(id, verdict.is_ok());
    match verdict {
        Ok(()) => allow(tool, tool_input),
        Err(sentence) => {
            // Codex sends no item for a step its hook blocked: the refusal
            // is the call's result.
            shared
                .finish(NativeEvent::ToolFinished {
                    id: id.to_owned(),
                    ok: false,
                    output: sentence.clone(),
                })
                .await;
            deny(&sentence)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_allowed_command_reads_nothing_typed_later() {
        let v = allow("Bash", &json!({"command": "python3 # repl"}));
        assert_eq!(
            v["hookSpecificOutput"]["updatedInput"]["command"],
            "( python3 # repl\n) </dev/null"
        );
        let patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF";
        assert_eq!(allow("Bash", &json!({"command": patch})), json!({}));
        assert_eq!(allow("apply_patch", &json!({"command": "x"})), json!({}));
    }
}
