//! Auto mode's reviewer on Claude Code: one `claude -p` with no tools, no
//! session and the reviewer's own system prompt; the question goes in on
//! stdin and the reply's text comes back. It runs in a HOME of its own, so
//! it never sees a chat's session.

use std::process::Stdio;

use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use super::{launch, ClaudeCode};
use crate::engine::EngineError;

pub(super) async fn run(
    engine: &ClaudeCode,
    system: String,
    prompt: String,
) -> Result<String, EngineError> {
    let cfg = &engine.config;
    let home = cfg.state.join("review");
    super::socket::private_dir(&home).map_err(EngineError::Unavailable)?;
    let env = launch::environment(&home, &cfg.provider, |k| std::env::var_os(k), &[]);
    let mut child = Command::new(&cfg.bin)
        .args(launch::review_arguments(
            cfg.provider.model.as_deref(),
            &system,
        ))
        .env_clear()
        .envs(env)
        .current_dir(&home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // The deadline drops this future; the process goes with it.
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            EngineError::Unavailable(format!(
                "Claude Code couldn't start for the review ({}: {e}).",
                cfg.bin.display()
            ))
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(prompt.as_bytes())
            .await
            .map_err(|e| EngineError::Unavailable(format!("Claude Code took no question: {e}.")))?;
    }
    // Both pipes are read together, so neither can fill and stall it.
    let output = child
        .wait_with_output()
        .await
        .map_err(|e| EngineError::Unavailable(format!("Claude Code's review failed: {e}.")))?;
    let out = String::from_utf8_lossy(&output.stdout);
    let err = String::from_utf8_lossy(&output.stderr);
    let reply: Value = serde_json::from_str(out.trim()).map_err(|_| {
        EngineError::Protocol(format!(
            "Claude Code's review answer couldn't be read{}",
            if err.trim().is_empty() {
                ".".to_owned()
            } else {
                format!(": {}", err.trim())
            }
        ))
    })?;
    let text = reply
        .get("result")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if reply
        .get("is_error")
        .and_then(Value::as_bool)
        .unwrap_or(false)
    {
        return Err(EngineError::Unavailable(format!("Claude Code: {text}")));
    }
    Ok(text)
}
