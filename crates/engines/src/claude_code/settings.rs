//! The settings file a turn runs with (`--settings FILE`, and
//! `--setting-sources ""` so nothing else is read): the hooks that call
//! back into Conch for every tool call, and Claude Code's own sandbox set
//! from Conch's seal (the guard's shared list of places keys live).
//!
//! Every hook command ends in `|| exit 2`: Claude Code steps past a hook
//! that fails any other way (a missing binary is exit 127, and the call
//! runs unchecked: measured with 2.1.332), while exit 2 blocks the call.
//! So a hook that can't reach Conch refuses, whatever went wrong.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// How long Claude Code gives a hook before it gives up on it, in
/// seconds. The hook gives up first (its own deadlines are shorter), so a
/// slow Conch is a refusal, never a call that goes unchecked.
pub const PRE_TIMEOUT_SECS: u64 = 30;
pub const POST_TIMEOUT_SECS: u64 = 60;

/// Quotes `word` for `sh`.
pub fn sh_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The command line of one hook: `conch hook EVENT`, failing closed.
pub fn hook_command(conch: &Path, event: &str) -> String {
    format!(
        "{} hook {event} || {{ echo 'Conch could not check this call, so it did not run.' >&2; exit 2; }}",
        sh_quote(&conch.to_string_lossy())
    )
}

/// Claude Code's own sandbox for commands, from Conch's seal.
#[derive(Debug, Clone, PartialEq)]
pub struct Sandbox {
    /// Where keys live, and Conch's own folder: never readable.
    pub hidden: Vec<PathBuf>,
    /// Folders inside a hidden one that commands may still read (the
    /// engine's own home for this chat).
    pub readable: Vec<PathBuf>,
    /// Besides the work folder, where commands may write.
    pub writable: Vec<PathBuf>,
    /// Environment variables commands must not see (the key, the hook's
    /// token).
    pub secret_env: Vec<String>,
}

fn paths(list: &[PathBuf]) -> Vec<String> {
    list.iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect()
}

/// The whole settings file.
pub fn settings(conch: &Path, sandbox: Option<&Sandbox>) -> Value {
    let hook = |event: &str, timeout: u64| {
        json!([{ "matcher": "*", "hooks": [{
            "type": "command",
            "command": hook_command(conch, event),
            "timeout": timeout,
        }]}])
    };
    let mut settings = json!({
        "hooks": {
            "PreToolUse": hook("pre-tool-use", PRE_TIMEOUT_SECS),
            // A skill's own shell lines (`!command` in SKILL.md) run
            // without a tool call; the same check answers them.
            "PreSkillShellCommand": hook("pre-tool-use", PRE_TIMEOUT_SECS),
            "PostToolUse": hook("post-tool-use", POST_TIMEOUT_SECS),
            "PostToolUseFailure": hook("post-tool-use", POST_TIMEOUT_SECS),
            "PostCompact": hook("post-compact", POST_TIMEOUT_SECS),
        },
        // Conch keeps the chat's history; Claude Code's own session files
        // are only for --resume.
        "cleanupPeriodDays": 3650,
        // WebFetch would first ask claude.ai whether a site may be read:
        // a call beyond the provider (which fails offline, or behind a
        // provider's own address). Conch's guard judges each fetch itself.
        "skipWebFetchPreflight": true,
    });
    if let Some(s) = sandbox {
        settings["sandbox"] = json!({
            "enabled": true,
            // Conch treats these commands as sealed: if the sandbox can't
            // start, the turn fails rather than run them unsealed.
            "failIfUnavailable": true,
            // Every command still passes Conch's hook.
            "autoAllowBashIfSandboxed": false,
            // A command that needs out says so (dangerouslyDisableSandbox),
            // and Conch's guard asks about it.
            "allowUnsandboxedCommands": true,
            "filesystem": {
                "denyRead": paths(&s.hidden),
                "allowRead": paths(&s.readable),
                "allowWrite": paths(&s.writable),
            },
            "credentials": {
                "envVars": s.secret_env.iter()
                    .map(|name| json!({ "name": name, "mode": "deny" }))
                    .collect::<Vec<_>>(),
            },
        });
    }
    settings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hook_fails_closed_and_every_tool_is_matched() {
        let s = settings(Path::new("/opt/it's conch/conch"), None);
        for event in [
            "PreToolUse",
            "PreSkillShellCommand",
            "PostToolUse",
            "PostToolUseFailure",
            "PostCompact",
        ] {
            let entry = &s["hooks"][event][0];
            assert_eq!(entry["matcher"], "*", "{event}");
            let command = entry["hooks"][0]["command"].as_str().unwrap();
            assert!(
                command.starts_with(r"'/opt/it'\''s conch/conch' hook "),
                "{command}"
            );
            assert!(command.ends_with("exit 2; }"), "{command}");
        }
        assert!(s.get("sandbox").is_none());
    }

    #[test]
    fn the_sandbox_hides_the_shared_list() {
        let s = settings(
            Path::new("/usr/bin/conch"),
            Some(&Sandbox {
                hidden: vec![PathBuf::from("/home/ada/.ssh")],
                readable: vec![PathBuf::from(
                    "/home/ada/.conch/engines/claude-code/chats/x",
                )],
                writable: vec![PathBuf::from("/tmp")],
                secret_env: vec!["ANTHROPIC_API_KEY".into()],
            }),
        );
        assert_eq!(s["sandbox"]["enabled"], true);
        assert_eq!(s["sandbox"]["failIfUnavailable"], true);
        assert_eq!(s["sandbox"]["autoAllowBashIfSandboxed"], false);
        assert_eq!(s["sandbox"]["filesystem"]["denyRead"][0], "/home/ada/.ssh");
        assert_eq!(
            s["sandbox"]["credentials"]["envVars"][0]["name"],
            "ANTHROPIC_API_KEY"
        );
    }
}
