//! The hook's half: `conch hook pre-tool-use` (and `post-tool-use`,
//! `post-compact`), which Claude Code runs around every tool call. It reads
//! the hook's JSON on stdin, hands it to the running Conch over its Unix
//! socket (found, with the turn and a token, in the environment Conch gave
//! Claude Code), and prints what Conch answers.
//!
//! It never waits for the owner: the engine answers at once (allow, deny,
//! or ask, which Claude Code then puts to Conch on its permission channel).
//! Anything that goes wrong is an error, which `conch` turns into exit 2:
//! the one exit Claude Code treats as "blocked".

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use serde_json::{json, Value};

/// Where the running Conch listens, which turn this is, and its token.
pub const SOCKET_VAR: &str = "CONCH_HOOK_SOCKET";
pub const TURN_VAR: &str = "CONCH_HOOK_TURN";
pub const TOKEN_VAR: &str = "CONCH_HOOK_TOKEN";
/// Conch's own binary as the hooks' lines name it (in the box only).
pub const PROGRAM_VAR: &str = "CONCH_HOOK_PROGRAM";

/// The most the hook reads from stdin (a Write's whole file, a Read's
/// result).
pub const MAX_INPUT: u64 = 64 * 1024 * 1024;

/// Which hook this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    PreToolUse,
    PostToolUse,
    PostCompact,
}

impl Event {
    pub fn parse(name: &str) -> Option<Event> {
        match name {
            "pre-tool-use" => Some(Event::PreToolUse),
            "post-tool-use" => Some(Event::PostToolUse),
            "post-compact" => Some(Event::PostCompact),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Event::PreToolUse => "pre-tool-use",
            Event::PostToolUse => "post-tool-use",
            Event::PostCompact => "post-compact",
        }
    }

    /// The hook events of Claude Code's this one answers.
    pub fn answers(self, hook_event: &str) -> bool {
        match self {
            Event::PreToolUse => matches!(hook_event, "PreToolUse" | "PreSkillShellCommand"),
            Event::PostToolUse => matches!(hook_event, "PostToolUse" | "PostToolUseFailure"),
            Event::PostCompact => hook_event == "PostCompact",
        }
    }

    /// How long it waits for Conch: less than Claude Code waits for it.
    fn deadline(self) -> Duration {
        match self {
            Event::PreToolUse => {
                Duration::from_secs(super::settings::PRE_TIMEOUT_SECS.saturating_sub(10))
            }
            Event::PostToolUse | Event::PostCompact => {
                Duration::from_secs(super::settings::POST_TIMEOUT_SECS.saturating_sub(10))
            }
        }
    }
}

/// Why the hook couldn't answer; each refuses the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookError {
    NotFromConch,
    Input(String),
    Unreachable(String),
    Slow,
    Refused(String),
    BadAnswer,
}

impl std::fmt::Display for HookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HookError::NotFromConch => f.write_str(
                "conch hook runs inside a Claude Code turn that Conch started; it has nothing to check here.",
            ),
            HookError::Input(e) => write!(f, "Conch couldn't read what Claude Code sent: {e}."),
            HookError::Unreachable(e) => write!(f, "Conch isn't answering ({e}), so this call didn't run."),
            HookError::Slow => f.write_str("Conch didn't answer in time, so this call didn't run."),
            HookError::Refused(why) => f.write_str(why),
            HookError::BadAnswer => f.write_str("Conch's answer couldn't be read, so this call didn't run."),
        }
    }
}

impl std::error::Error for HookError {}

/// One request to the engine, as one line.
pub fn request(token: &str, turn: &str, event: Event, input: &Value) -> String {
    let mut line = json!({
        "token": token,
        "turn": turn,
        "event": event.name(),
        "input": input,
    })
    .to_string();
    line.push('\n');
    line
}

/// What the engine's answer line lets the hook print. A PreToolUse answer
/// must be a decision; anything else is refused.
pub fn checked(event: Event, answer: &str) -> Result<Option<String>, HookError> {
    let v: Value = serde_json::from_str(answer.trim()).map_err(|_| HookError::BadAnswer)?;
    if let Some(why) = v.get("error").and_then(Value::as_str) {
        return Err(HookError::Refused(why.to_owned()));
    }
    let print = v.get("print").cloned().unwrap_or(Value::Null);
    if event == Event::PreToolUse {
        let decision = print["hookSpecificOutput"]["permissionDecision"].as_str();
        if !matches!(decision, Some("allow" | "deny" | "ask")) {
            return Err(HookError::BadAnswer);
        }
    }
    Ok((!print.is_null()).then(|| print.to_string()))
}

/// The way back to Conch: its Unix socket, or (an engine in the box, where
/// no Unix socket can be opened) `127.0.0.1:PORT`.
pub enum Conn {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Conn {
    pub fn open(to: &str) -> std::io::Result<Conn> {
        match to.parse::<SocketAddr>() {
            Ok(addr) => {
                let s = TcpStream::connect(addr)?;
                let _ = s.set_nodelay(true);
                Ok(Conn::Tcp(s))
            }
            Err(_) => UnixStream::connect(to).map(Conn::Unix),
        }
    }

    pub fn try_clone(&self) -> std::io::Result<Conn> {
        match self {
            Conn::Unix(s) => s.try_clone().map(Conn::Unix),
            Conn::Tcp(s) => s.try_clone().map(Conn::Tcp),
        }
    }

    /// Says nothing more will be sent.
    pub fn close_write(&self) {
        let _ = match self {
            Conn::Unix(s) => s.shutdown(std::net::Shutdown::Write),
            Conn::Tcp(s) => s.shutdown(std::net::Shutdown::Write),
        };
    }

    fn deadline(&self, d: Option<Duration>) -> std::io::Result<()> {
        match self {
            Conn::Unix(s) => s.set_read_timeout(d).and_then(|()| s.set_write_timeout(d)),
            Conn::Tcp(s) => s.set_read_timeout(d).and_then(|()| s.set_write_timeout(d)),
        }
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Conn::Unix(s) => s.read(buf),
            Conn::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Conn::Unix(s) => s.write(buf),
            Conn::Tcp(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Conn::Unix(s) => s.flush(),
            Conn::Tcp(s) => s.flush(),
        }
    }
}

/// `conch hook shell SCRIPT`: the command runs sealed by Conch, beside
/// the engine's box (see [`super::shell`]); its exit code.
pub fn shell(script: &str, var: impl Fn(&str) -> Option<String>) -> Result<i32, HookError> {
    let (Some(socket), Some(turn), Some(token)) = (var(SOCKET_VAR), var(TURN_VAR), var(TOKEN_VAR))
    else {
        return Err(HookError::NotFromConch);
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let conn = Conn::open(&socket).map_err(|e| HookError::Unreachable(e.to_string()))?;
    super::shell::run(conn, &token, &turn, &cwd, script).map_err(HookError::Refused)
}

/// `conch-engine-shell --engine-relay N`: the turn's Nth app for an
/// engine in the box, started by Conch outside it (see [`super::shell`]).
pub fn relay(index: usize, var: impl Fn(&str) -> Option<String>) -> Result<(), HookError> {
    let (Some(socket), Some(turn), Some(token)) = (var(SOCKET_VAR), var(TURN_VAR), var(TOKEN_VAR))
    else {
        return Err(HookError::NotFromConch);
    };
    let conn = Conn::open(&socket).map_err(|e| HookError::Unreachable(e.to_string()))?;
    super::shell::relay_here(conn, &token, &turn, index).map_err(HookError::Refused)
}

/// Runs the hook: what to print on stdout.
pub fn run(
    event: Event,
    stdin: impl Read,
    var: impl Fn(&str) -> Option<String>,
) -> Result<Option<String>, HookError> {
    let (Some(socket), Some(turn), Some(token)) = (var(SOCKET_VAR), var(TURN_VAR), var(TOKEN_VAR))
    else {
        return Err(HookError::NotFromConch);
    };
    let mut text = String::new();
    stdin
        .take(MAX_INPUT)
        .read_to_string(&mut text)
        .map_err(|e| HookError::Input(e.to_string()))?;
    let input: Value = serde_json::from_str(&text).map_err(|e| HookError::Input(e.to_string()))?;
    let hook_event = input
        .get("hook_event_name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if !event.answers(hook_event) {
        return Err(HookError::Input(format!(
            "conch hook {} doesn't answer {hook_event:?}",
            event.name()
        )));
    }
    let deadline = event.deadline();
    let mut stream = Conn::open(&socket).map_err(|e| HookError::Unreachable(e.to_string()))?;
    let slow = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => HookError::Slow,
        _ => HookError::Unreachable(e.to_string()),
    };
    stream
        .deadline(Some(deadline))
        .map_err(|e| HookError::Unreachable(e.to_string()))?;
    stream
        .write_all(request(&token, &turn, event, &input).as_bytes())
        .map_err(slow)?;
    let mut answer = String::new();
    BufReader::new(stream.take(MAX_INPUT))
        .read_line(&mut answer)
        .map_err(slow)?;
    if answer.is_empty() {
        return Err(HookError::Unreachable("it closed the connection".into()));
    }
    checked(event, &answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pre_tool_use_answer_must_be_a_decision() {
        let ok = r#"{"print":{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"Can I run ls?"}}}"#;
        assert!(checked(Event::PreToolUse, ok)
            .unwrap()
            .unwrap()
            .contains("\"ask\""));
        for bad in [
            r#"{"print":{}}"#,
            r#"{"print":{"hookSpecificOutput":{"permissionDecision":"defer"}}}"#,
            r#"{"print":null}"#,
            "",
            "not json",
        ] {
            assert!(checked(Event::PreToolUse, bad).is_err(), "{bad}");
        }
        assert_eq!(
            checked(Event::PreToolUse, r#"{"error":"Wrong token."}"#),
            Err(HookError::Refused("Wrong token.".into()))
        );
        assert_eq!(checked(Event::PostToolUse, r#"{"print":null}"#), Ok(None));
    }

    #[test]
    fn without_conch_the_hook_refuses() {
        let r = run(Event::PreToolUse, &b"{}"[..], |_| None);
        assert_eq!(r, Err(HookError::NotFromConch));
        let r = run(
            Event::PreToolUse,
            &br#"{"hook_event_name":"PostToolUse"}"#[..],
            |_| Some("x".into()),
        );
        assert!(matches!(r, Err(HookError::Input(_))), "{r:?}");
        let r = run(
            Event::PreToolUse,
            &br#"{"hook_event_name":"PreToolUse"}"#[..],
            |_| Some("/nonexistent/conch.sock".into()),
        );
        assert!(matches!(r, Err(HookError::Unreachable(_))), "{r:?}");
    }
}
