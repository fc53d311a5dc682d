//! The security checkup (`/settings/security`, `conch doctor`): each Safety
//! preference with its state and fix, whether commands can be sealed here
//! (with the one typed line when it helps), whether Conch listens beyond
//! this computer, and the home folder's permissions.

use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde::Serialize;

use crate::settings::Safety;

/// How a check is fixed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Fix {
    /// One press: turn this Safety preference back on.
    TurnOn { setting: &'static str },
    /// A line to type in a terminal.
    Command { line: String },
    /// Words: what to do.
    Advice { says: String },
    /// Keep or forget them on the Memories page (or `conch memories keep
    /// ID`).
    Memories { held: Vec<String> },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// `check-after-reading`, `sealed-commands`, `check-memories`,
    /// `sealing-available`, `listening`, `home-folder`, `held-memories`.
    pub id: &'static str,
    pub ok: bool,
    pub says: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

fn check(id: &'static str, ok: bool, says: impl Into<String>, fix: Option<Fix>) -> Check {
    Check {
        id,
        ok,
        says: says.into(),
        fix,
    }
}

/// The checks. `listening` is where the gateway listens, when it does.
pub fn checkup(home: &Path, safety: &Safety, listening: Option<SocketAddr>) -> Vec<Check> {
    let mut out = vec![
        if safety.check_after_reading {
            check(
                "check-after-reading",
                true,
                "Check before acting on what it read: on.",
                None,
            )
        } else {
            check(
                "check-after-reading",
                false,
                "Check before acting on what it read is off: a page it reads can steer a command or a request without you being asked.",
                Some(Fix::TurnOn { setting: "checkAfterReading" }),
            )
        },
        if safety.sealed_commands {
            check("sealed-commands", true, "Seal commands: on.", None)
        } else {
            check(
                "sealed-commands",
                false,
                "Seal commands is off: every command runs with your full access (your files, your keys, the network).",
                Some(Fix::TurnOn { setting: "sealedCommands" }),
            )
        },
        if safety.check_memories {
            check("check-memories", true, "Check what it remembers: on.", None)
        } else {
            check(
                "check-memories",
                false,
                "Check what it remembers is off: a memory planted by something it read would be used without a question.",
                Some(Fix::TurnOn { setting: "checkMemories" }),
            )
        },
    ];
    if safety.sealed_commands {
        let support = seal::sandbox_support();
        out.push(match &support {
            seal::Support::Ready => check("sealing-available", true, "Commands can be sealed here (bubblewrap).", None),
            seal::Support::Unavailable { problem } => check(
                "sealing-available",
                false,
                format!("{} So every command runs with your full access and asks first.", problem.sentence()),
                Some(match seal::fix_line(&support) {
                    Some(line) => Fix::Command { line },
                    None => Fix::Advice {
                        says: "This computer can't make the box (no command fixes that from here); commands keep asking first.".into(),
                    },
                }),
            ),
        });
    }
    if let Some(addr) = listening {
        out.push(if addr.ip().is_loopback() {
            check("listening", true, format!("Conch listens on this computer only ({addr})."), None)
        } else {
            check(
                "listening",
                false,
                format!("Conch listens beyond this computer ({addr}): anyone who can reach it can try your password."),
                Some(Fix::Advice {
                    says: "Start it without --public (it listens on 127.0.0.1), and reach it through a tunnel or a reverse proxy.".into(),
                }),
            )
        });
    }
    out.push(home_folder(home));
    out.push(held_memories(home));
    out
}

/// Memories held for the owner ("Keep this memory?").
fn held_memories(home: &Path) -> Check {
    let store = memory::Store::new(home);
    let held: Vec<memory::Memory> = match store.list() {
        Ok(list) => list
            .iter()
            .filter(|m| m.state == memory::State::Held)
            .cloned()
            .collect(),
        Err(e) => {
            return check(
                "held-memories",
                false,
                format!("Conch's memories couldn't be read: {e}"),
                None,
            )
        }
    };
    let warning = store.warning();
    match (held.as_slice(), warning) {
        (_, Some(w)) => check("held-memories", false, w, None),
        ([], None) => check("held-memories", true, "No memory is waiting for you.", None),
        (held, None) => {
            let first = &held[0];
            let more = match held.len() {
                1 => String::new(),
                2 => " (and one more)".to_owned(),
                n => format!(" (and {} more)", n - 1),
            };
            check(
                "held-memories",
                false,
                format!(
                    "A memory from {} is waiting for you{more}: \"{}\". Keep this memory?",
                    first.source.words(),
                    first.text.chars().take(120).collect::<String>()
                ),
                Some(Fix::Memories {
                    held: held.iter().map(|m| m.id.clone()).collect(),
                }),
            )
        }
    }
}

/// The home folder is 0700 and nothing in it is readable by others.
fn home_folder(home: &Path) -> Check {
    let mode = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.permissions().mode() & 0o777)
            .ok()
    };
    let mut loose = Vec::new();
    if mode(home).is_some_and(|m| m & 0o077 != 0) {
        loose.push(home.display().to_string());
    }
    for name in [
        "owner.json",
        "access-keys.json",
        "secrets.json",
        "settings.json",
        "skills.signing.json",
        "skills.trust.json",
        "keystore",
        "chats",
        "artifacts",
        "memories.json",
    ] {
        let p = home.join(name);
        if mode(&p).is_some_and(|m| m & 0o077 != 0) {
            loose.push(p.display().to_string());
        }
    }
    if loose.is_empty() {
        check("home-folder", true, "Conch's folder is yours alone.", None)
    } else {
        check(
            "home-folder",
            false,
            format!(
                "Others on this computer can read into Conch's folder: {}.",
                loose.join(", ")
            ),
            Some(Fix::Command {
                line: format!(
                    "chmod -R go-rwx '{}'",
                    home.display().to_string().replace('\'', "'\\''")
                ),
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_preferences_have_a_one_press_fix() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let off = Safety {
            check_after_reading: false,
            sealed_commands: false,
            check_memories: false,
        };
        let checks = checkup(dir.path(), &off, Some("0.0.0.0:7777".parse().unwrap()));
        let fixes: Vec<_> = checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| (c.id, c.fix.clone()))
            .collect();
        assert_eq!(
            fixes[0],
            (
                "check-after-reading",
                Some(Fix::TurnOn {
                    setting: "checkAfterReading"
                })
            )
        );
        assert_eq!(
            fixes[1],
            (
                "sealed-commands",
                Some(Fix::TurnOn {
                    setting: "sealedCommands"
                })
            )
        );
        assert_eq!(
            fixes[2],
            (
                "check-memories",
                Some(Fix::TurnOn {
                    setting: "checkMemories"
                })
            )
        );
        assert_eq!(fixes[3].0, "listening");
        assert!(checks.iter().any(|c| c.id == "home-folder" && c.ok));
        // A folder others can read is said, with the line that fixes it.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let c = home_folder(dir.path());
        assert!(!c.ok);
        assert!(
            matches!(c.fix, Some(Fix::Command { ref line }) if line.starts_with("chmod -R go-rwx"))
        );
    }
}
