//! The command line and environment one turn's `claude` runs with.
//!
//! - Hermetic: `--setting-sources ""` and one settings file of Conch's, no
//!   MCP servers but those Conch names (`--strict-mcp-config`), and only
//!   the tools Conch knows how to judge (`--tools`). Never `--bare`: it
//!   skips hooks.
//! - The environment is built, not inherited: the program's own HOME (a
//!   folder of Conch's), the provider's address and key, the hook's way
//!   back to Conch, and a short list of what programs need to run (PATH,
//!   locale, proxies). Nothing else of Conch's own environment leaks in.
//! - What the owner wrote, and who the assistant is, go in on stdin, not
//!   on the command line where anyone on this computer could read them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use protocol::Mode;

/// The tools Claude Code offers the model: those Conch classifies.
/// Anything else that appears still passes the hook (as an app's tool that
/// writes).
pub const TOOLS: &str =
    "Bash,Read,Write,Edit,MultiEdit,NotebookEdit,Glob,Grep,WebFetch,WebSearch,Task,Skill,TodoWrite";

/// Inherited from Conch's environment when set: what programs need to run.
const PASSED: &[&str] = &[
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TERM",
    "USER",
    "LOGNAME",
    "SHELL",
    "TMPDIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "NODE_EXTRA_CA_CERTS",
];

/// Claude Code's permission mode for a turn in `mode`, at its start or
/// switched to mid-turn. Never `bypassPermissions`: in it Claude Code
/// ignores a hook's "ask" on paths it calls sensitive, so an ask that
/// holds in every mode (runs-later, someone else's words, nobody there)
/// would be lost. Full trust is Claude Code's `default`, with Conch
/// answering "allow" itself through the hook and the permission channel,
/// so every call reaches Conch's approval path (ADR 0028).
pub fn permission_mode(mode: Mode) -> &'static str {
    match mode {
        Mode::Edits => "acceptEdits",
        Mode::Ask | Mode::Auto | Mode::Full => "default",
    }
}

/// How the provider is reached.
#[derive(Debug, Clone, Default)]
pub struct Provider {
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub key: Option<String>,
}

/// Where the key goes: an OAuth token (`claude setup-token`, for a Claude
/// subscription) or an API key.
pub fn key_var(key: &str) -> &'static str {
    if key.starts_with("sk-ant-oat") {
        "CLAUDE_CODE_OAUTH_TOKEN"
    } else {
        "ANTHROPIC_API_KEY"
    }
}

/// The environment: built from nothing.
pub fn environment(
    home: &Path,
    provider: &Provider,
    inherited: impl Fn(&str) -> Option<OsString>,
    extra: &[(String, String)],
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = PASSED
        .iter()
        .filter_map(|name| inherited(name).map(|v| (OsString::from(*name), v)))
        .collect();
    let mut set = |k: &str, v: &str| env.push((k.into(), v.into()));
    set("HOME", &home.to_string_lossy());
    // No telemetry, error reports or update checks: Conch talks to the
    // provider and nothing else.
    set("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    set("DISABLE_AUTOUPDATER", "1");
    // A turn owns what it starts: no command or sub-agent goes on in the
    // background after the turn ends (where Stop can't reach it and the
    // owner can't be asked).
    set("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS", "1");
    if let Some(url) = &provider.base_url {
        set("ANTHROPIC_BASE_URL", url);
    }
    if let Some(key) = &provider.key {
        set(key_var(key), key);
    }
    for (k, v) in extra {
        set(k, v);
    }
    env
}

/// The arguments of a turn.
pub struct Turn<'a> {
    pub settings: &'a Path,
    pub mode: Mode,
    pub model: Option<&'a str>,
    pub session: &'a str,
    /// The session has a transcript: continue it.
    pub resume: bool,
    /// The MCP servers it gets (`--mcp-config FILE`): the owner's apps.
    pub mcp: Option<&'a Path>,
}

pub fn arguments(t: &Turn<'_>) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        // The reply's text as it is written, like the API engines.
        "--include-partial-messages",
        "--setting-sources",
        "",
        "--permission-prompt-tool",
        "stdio",
        "--strict-mcp-config",
        "--tools",
        TOOLS,
        "--permission-mode",
        permission_mode(t.mode),
    ]
    .iter()
    .map(OsString::from)
    .collect();
    args.push("--settings".into());
    args.push(t.settings.into());
    if let Some(mcp) = t.mcp {
        args.push("--mcp-config".into());
        args.push(mcp.into());
    }
    if let Some(model) = t.model.filter(|m| !m.trim().is_empty()) {
        args.push("--model".into());
        args.push(model.into());
    }
    args.push(if t.resume { "--resume" } else { "--session-id" }.into());
    args.push(t.session.into());
    args
}

/// The `--mcp-config` file: each app as a stdio server that is Conch's
/// own binary (`conch`) relaying to it. In the box, where Conch's folder
/// isn't there, `boxed` is the shell prefix's program, and each relay is
/// `PREFIX --engine-relay N`, which asks the running Conch to start the
/// turn's Nth relay outside and pipes to it (see [`super::shell`]).
pub fn mcp_config(
    conch: &Path,
    apps: &[crate::NativeApp],
    boxed: Option<&Path>,
) -> serde_json::Value {
    let servers: serde_json::Map<String, serde_json::Value> = apps
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let (command, args) = match boxed {
                Some(prefix) => (
                    prefix,
                    vec![super::shell::ENGINE_RELAY.to_owned(), i.to_string()],
                ),
                None => (conch, a.args.clone()),
            };
            (
                a.name.clone(),
                serde_json::json!({
                    "type": "stdio",
                    "command": command,
                    "args": args,
                }),
            )
        })
        .collect();
    serde_json::json!({ "mcpServers": servers })
}

/// The one-shot call Auto mode's reviewer makes: no tools, no session,
/// `system` as the whole system prompt; the prompt goes in on stdin.
pub fn review_arguments(model: Option<&str>, system: &str) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "-p",
        "--output-format",
        "json",
        "--setting-sources",
        "",
        "--strict-mcp-config",
        "--tools",
        "",
        "--no-session-persistence",
        "--permission-mode",
        "default",
        "--system-prompt",
        system,
    ]
    .iter()
    .map(OsString::from)
    .collect();
    if let Some(model) = model.filter(|m| !m.trim().is_empty()) {
        args.push("--model".into());
        args.push(model.into());
    }
    args
}

/// The program: `--bin` as given, else `claude` on PATH.
pub fn program(bin: Option<&str>) -> PathBuf {
    PathBuf::from(bin.filter(|b| !b.trim().is_empty()).unwrap_or("claude"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_mode_ever_bypasses_permissions() {
        assert_eq!(permission_mode(Mode::Ask), "default");
        assert_eq!(permission_mode(Mode::Edits), "acceptEdits");
        assert_eq!(permission_mode(Mode::Full), "default");
        assert_eq!(permission_mode(Mode::Auto), "default");
    }

    #[test]
    fn the_environment_is_built_not_inherited() {
        let env = environment(
            Path::new("/h/.conch/engines/claude-code/chats/c1"),
            &Provider {
                model: None,
                base_url: Some("http://127.0.0.1:9".into()),
                key: Some("sk-ant-api-1".into()),
            },
            |name| match name {
                "PATH" => Some("/usr/bin".into()),
                _ => Some("leak".into()),
            },
            &[],
        );
        let get = |k: &str| {
            env.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.to_string_lossy().into_owned())
        };
        assert_eq!(get("PATH").as_deref(), Some("/usr/bin"));
        assert_eq!(
            get("HOME").as_deref(),
            Some("/h/.conch/engines/claude-code/chats/c1")
        );
        assert_eq!(get("ANTHROPIC_API_KEY").as_deref(), Some("sk-ant-api-1"));
        assert_eq!(
            get("ANTHROPIC_BASE_URL").as_deref(),
            Some("http://127.0.0.1:9")
        );
        assert_eq!(get("CONCH_HOME"), None);
        assert_eq!(get("AWS_SECRET_ACCESS_KEY"), None);
        assert_eq!(key_var("sk-ant-oat01-x"), "CLAUDE_CODE_OAUTH_TOKEN");
    }

    #[test]
    fn a_turn_never_runs_bare_and_the_prompt_is_not_an_argument() {
        let args = arguments(&Turn {
            settings: Path::new("/r/s.json"),
            mode: Mode::Full,
            model: Some("claude-sonnet-4-5"),
            session: "u-1",
            resume: true,
            mcp: None,
        });
        let words: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(!words.iter().any(|w| w == "--bare"));
        let after = |flag: &str| {
            words
                .iter()
                .position(|w| w == flag)
                .map(|i| words[i + 1].clone())
        };
        assert_eq!(after("--setting-sources").as_deref(), Some(""));
        assert_eq!(after("--permission-prompt-tool").as_deref(), Some("stdio"));
        assert_eq!(after("--permission-mode").as_deref(), Some("default"));
        assert!(!words.iter().any(|w| w.contains("bypass")), "{words:?}");
        assert_eq!(after("--resume").as_deref(), Some("u-1"));
        assert_eq!(after("--settings").as_deref(), Some("/r/s.json"));
    }
}
