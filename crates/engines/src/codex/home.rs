//! The folder Codex keeps its state in for one chat (`CODEX_HOME`): a
//! folder of Conch's, never the owner's `~/.codex` (whose hooks, skills
//! and settings Conch hasn't looked at) and never under /tmp (Codex
//! refuses to make its helpers there). One folder a chat keeps each chat's
//! Codex thread, hook socket and settings apart.
//!
//! Everything here is written again before each turn from Conch's own
//! settings, so a change Codex or anyone else made in between doesn't
//! carry over.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::json;

/// The environment variable Codex reads the provider's key from.
pub const KEY_VAR: &str = "CONCH_CODEX_KEY";

/// Features turned off: they reach the internet by themselves (plugin and
/// app catalogues), or start work outside the turn's tool calls (sub-agents,
/// goals that continue on their own).
pub const DISABLED: &[&str] = &[
    "plugins",
    "remote_plugin",
    "apps",
    "tool_suggest",
    "multi_agent",
    "goals",
];

pub struct ChatHome {
    pub dir: PathBuf,
}

/// What's kept between turns of one chat.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Kept {
    /// The Codex thread this chat continues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// The chat was told once that Codex runs tighter here.
    #[serde(default)]
    pub told_tight: bool,
    /// The chat was told once that its apps aren't offered in the box.
    #[serde(default)]
    pub told_no_apps: bool,
}

fn private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// A TOML basic string.
fn toml_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A word for `sh`, in single quotes.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// What config.toml says about the model.
pub struct Model<'a> {
    pub provider: &'a str,
    pub model: Option<&'a str>,
    /// Empty: Codex's own (OpenAI, with the owner's Codex sign-in).
    pub base_url: &'a str,
    pub has_key: bool,
    /// The owner's apps, as MCP servers that are Conch's own binary
    /// (`conch`) relaying to each.
    pub apps: &'a [crate::NativeApp],
    pub conch: &'a Path,
}

impl ChatHome {
    /// The folder for `chat` under `root` (Conch's folder for Codex).
    pub fn new(root: &Path, chat: &str) -> ChatHome {
        // Chat ids are Conch's own; anything else is kept out of the path.
        let safe: String = chat
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        ChatHome {
            dir: root.join(if safe.is_empty() {
                "_".to_owned()
            } else {
                safe
            }),
        }
    }

    pub fn prepare(&self) -> std::io::Result<()> {
        private_dir(&self.dir)
    }

    pub fn hooks_file(&self) -> PathBuf {
        self.dir.join("hooks.json")
    }

    pub fn kept(&self) -> Kept {
        std::fs::read(self.dir.join("conch.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    pub fn keep(&self, kept: &Kept) -> std::io::Result<()> {
        let text = serde_json::to_string(kept).unwrap_or_else(|_| "{}".to_owned());
        vault::write_private(&self.dir.join("conch.json"), text.as_bytes())
    }

    /// config.toml: the model provider (`wire_api = "responses"`), nothing
    /// that reaches out by itself, and Conch's key kept from commands.
    pub fn write_config(&self, m: &Model<'_>) -> std::io::Result<()> {
        let mut t = String::from("# Written by Conch before each turn; changes here don't last.\n");
        if let Some(model) = m.model {
            t.push_str(&format!("model = {}\n", toml_str(model)));
        }
        if !m.base_url.is_empty() {
            t.push_str("model_provider = \"conch\"\n");
        }
        t.push_str("check_for_update_on_startup = false\n");
        t.push_str("\n[analytics]\nenabled = false\n");
        // Codex leaves variables named like keys out of commands; Conch's
        // are named so they're left out too, whatever the defaults become.
        // CODEX_HOME is in Conch's folder: `$CODEX_HOME/../..` would lead a
        // command there by a spelling no rule reads, so it isn't given.
        t.push_str("\n[shell_environment_policy]\nexclude = [\"CONCH_*\", \"CODEX_HOME\"]\n");
        if !m.base_url.is_empty() {
            t.push_str("\n[model_providers.conch]\n");
            t.push_str(&format!("name = {}\n", toml_str(m.provider)));
            t.push_str(&format!("base_url = {}\n", toml_str(m.base_url)));
            t.push_str("wire_api = \"responses\"\n");
            if m.has_key {
                t.push_str(&format!("env_key = {}\n", toml_str(KEY_VAR)));
            }
        }
        for app in m.apps {
            // Names are Conch's app names: lowercase letters, digits, dashes.
            t.push_str(&format!("\n[mcp_servers.{}]\n", toml_str(&app.name)));
            t.push_str(&format!(
                "command = {}\n",
                toml_str(&m.conch.to_string_lossy())
            ));
            let args: Vec<String> = app.args.iter().map(|a| toml_str(a)).collect();
            t.push_str(&format!("args = [{}]\n", args.join(", ")));
            // Conch's hook has judged every call before it runs (and asks
            // the owner itself): Codex's own question would only be
            // turned down.
            t.push_str("default_tools_approval_mode = \"approve\"\n");
        }
        vault::write_private(&self.dir.join("config.toml"), t.as_bytes())
    }

    /// hooks.json: one PreToolUse hook for every tool, which hands the
    /// call to Conch over `socket`. If Conch can't be reached, or says
    /// nothing, the hook exits 2, which Codex takes as "blocked": the step
    /// doesn't run (a hook that merely fails would let it through).
    pub fn write_hooks(
        &self,
        codex: &Path,
        socket: &Path,
        socat: Option<&Path>,
    ) -> std::io::Result<String> {
        let command = hook_command(codex, socket, socat);
        self.write_hooks_line(&command)?;
        Ok(command)
    }

    /// hooks.json with `command` as the one PreToolUse hook.
    pub fn write_hooks_line(&self, command: &str) -> std::io::Result<()> {
        let hooks = json!({ "hooks": { "PreToolUse": [{
            "matcher": "*",
            "hooks": [{ "type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECS }],
        }]}});
        vault::write_private(&self.hooks_file(), hooks.to_string().as_bytes())
    }

    /// Uses the owner's Codex sign-in when no base URL is given: the
    /// sign-in file is linked, not copied, so a refreshed one is used.
    pub fn link_sign_in(&self) {
        let Some(home) = std::env::var_os("HOME") else {
            return;
        };
        let theirs = Path::new(&home).join(".codex").join("auth.json");
        let ours = self.dir.join("auth.json");
        if theirs.exists() && std::fs::symlink_metadata(&ours).is_err() {
            #[cfg(unix)]
            let _ = std::os::unix::fs::symlink(&theirs, &ours);
        }
    }
}

/// How long Codex waits for the hook. The hook waits while the owner
/// decides, and Codex lets a step through when its hook runs out of time,
/// so this is longer than any question stays open (Conch answers "no"
/// itself before it: [`crate::codex::hook::ANSWER_WITHIN`]).
pub const HOOK_TIMEOUT_SECS: u64 = 7 * 24 * 3600;

/// The hook's command line. The pipe to Conch's socket is `socat` where
/// it's installed (sealing on Linux needs it too; it starts in a few
/// milliseconds), else Codex's own `app-server proxy`, a plain byte pipe
/// that takes Codex's longer start. socat waits up to the hook's timeout
/// for Conch's answer after the call is sent.
pub fn hook_command(codex: &Path, socket: &Path, socat: Option<&Path>) -> String {
    let path = socket.to_string_lossy();
    // socat's address syntax gives `:` `,` `!` and quotes meanings.
    let plain = path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'));
    let pipe = match socat {
        Some(socat) if plain => format!(
            "{} -t {HOOK_TIMEOUT_SECS} - {}",
            sh_quote(&socat.to_string_lossy()),
            sh_quote(&format!("UNIX-CONNECT:{path}"))
        ),
        _ => format!(
            "{} app-server proxy --sock {}",
            sh_quote(&codex.to_string_lossy()),
            sh_quote(&path)
        ),
    };
    answered_or_blocked(&pipe)
}

/// `pipe`'s answer printed, or the step blocked (exit 2) when it gives
/// none.
pub fn answered_or_blocked(pipe: &str) -> String {
    format!(
        "out=$({pipe} 2>/dev/null) && [ -n \"$out\" ] && printf '%s\\n' \"$out\" || {{ echo \"Conch couldn't check this step, so it didn't run.\" >&2; exit 2; }}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_apps_are_conch_relays_codex_doesnt_ask_about() {
        let dir = tempfile::tempdir().unwrap();
        let home = ChatHome {
            dir: dir.path().to_path_buf(),
        };
        let apps = [crate::NativeApp {
            name: "my-notes".into(),
            args: vec![
                "--home".into(),
                "/h/it's".into(),
                "apps".into(),
                "relay".into(),
                "my-notes".into(),
            ],
        }];
        home.write_config(&Model {
            provider: "codex",
            model: None,
            base_url: "",
            has_key: false,
            apps: &apps,
            conch: Path::new("/opt/conch"),
        })
        .unwrap();
        let text = std::fs::read_to_string(dir.path().join("config.toml")).unwrap();
        assert!(
            text.contains("[mcp_servers.\"my-notes\"]\ncommand = \"/opt/conch\"\n"),
            "{text}"
        );
        assert!(
            text.contains("args = [\"--home\", \"/h/it's\", \"apps\", \"relay\", \"my-notes\"]"),
            "{text}"
        );
        assert!(
            text.contains("default_tools_approval_mode = \"approve\""),
            "{text}"
        );
    }

    #[test]
    fn toml_strings_keep_quotes_and_newlines_in() {
        assert_eq!(toml_str("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
        assert_eq!(toml_str("ünï"), "\"ünï\"");
    }

    #[test]
    fn a_chat_id_stays_one_folder() {
        let h = ChatHome::new(Path::new("/r"), "../../etc");
        assert_eq!(h.dir, Path::new("/r/______etc"));
    }

    #[test]
    fn the_hook_pipes_through_socat_only_for_a_plain_path() {
        let socat = Path::new("/usr/bin/socat");
        let codex = Path::new("/opt/codex");
        let c = hook_command(codex, Path::new("/h/c1/hook.sock"), Some(socat));
        assert!(
            c.contains("'/usr/bin/socat' -t 604800 - 'UNIX-CONNECT:/h/c1/hook.sock'"),
            "{c}"
        );
        let c = hook_command(codex, Path::new("/h/a:b,c/hook.sock"), Some(socat));
        assert!(
            c.contains("'/opt/codex' app-server proxy --sock '/h/a:b,c/hook.sock'"),
            "{c}"
        );
        let c = hook_command(codex, Path::new("/h/c1/hook.sock"), None);
        assert!(c.contains("app-server proxy"), "{c}");
        assert!(c.ends_with("exit 2; }"), "no answer blocks the step: {c}");
    }

    #[test]
    fn quoted_paths_survive_the_shell() {
        assert_eq!(sh_quote("/a b/it's"), "'/a b/it'\\''s'");
    }
}
