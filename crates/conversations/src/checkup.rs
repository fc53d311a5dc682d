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
    /// `sealing-available`, `listening`, `home-folder`, `wrong-passwords`,
    /// `held-memories`.
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
        if safety.engines_in_box {
            check(
                "engines-in-box",
                true,
                "Run engines in the box: on (Claude Code and Codex run in it).",
                None,
            )
        } else {
            check(
                "engines-in-box",
                false,
                "Run engines in the box is off: Claude Code and Codex run with your full access where the box can't hold them, checked only by what each call says.",
                Some(Fix::TurnOn { setting: "enginesInBox" }),
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
    out.push(tries_to_get_in(
        &crate::security::read(&home.join(crate::security::SECURITY_FILE)),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64),
    ));
    out.push(held_memories(home));
    out
}

/// Wrong tries within an hour that are more than slips of the fingers (the
/// gateway starts slowing them down there too).
const BURST: u64 = 5;

/// How far back the checkup looks for tries to get in.
const TRIES_WINDOW_MS: i64 = 7 * 24 * 3600 * 1000;

/// Wrong passwords and setup links in the last week (`security.jsonl`).
fn tries_to_get_in(attempts: &[crate::security::Attempt], now_ms: i64) -> Check {
    let recent: Vec<_> = attempts
        .iter()
        .filter(|a| protocol::parse_rfc3339(&a.at).is_some_and(|at| now_ms - at < TRIES_WINDOW_MS))
        .cloned()
        .collect();
    let Some(last) = recent.last() else {
        return check(
            "wrong-passwords",
            true,
            "Nobody has tried a wrong password in the last week.",
            None,
        );
    };
    let spells = crate::security::spells(&recent);
    let mut all = crate::security::Spell {
        seq: 0,
        at: last.at.clone(),
        at_ms: 0,
        passwords: 0,
        links: 0,
        from: Default::default(),
        more: 0,
    };
    for spell in &spells {
        all.passwords += spell.passwords;
        all.links += spell.links;
        all.from.extend(spell.from.iter().cloned());
        all.more += spell.more;
    }
    // A few slips from this computer are typing; a burst, or anyone from
    // elsewhere, is someone trying.
    let burst = spells.iter().any(|s| s.passwords + s.links >= BURST);
    let from_elsewhere = all.more > 0
        || all.from.iter().any(|a| {
            a.parse::<std::net::IpAddr>()
                .map_or(true, |ip| !ip.to_canonical().is_loopback())
        });
    let says = format!(
        "{} in the last week ({}; the last at {}).",
        all.says(),
        all.state(),
        last.at
    );
    if !burst && !from_elsewhere {
        return check(
            "wrong-passwords",
            true,
            format!("{says} All from this computer, never {BURST} within an hour."),
            None,
        );
    }
    check(
        "wrong-passwords",
        false,
        format!("{says} Each further try has to wait longer."),
        Some(Fix::Advice {
            says: "If that wasn't you: sign out everywhere (Settings, or conch sessions revoke), choose a new password with conch setup --password-stdin, and keep Conch on 127.0.0.1.".into(),
        }),
    )
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
        // The browser's profile: the sites it is signed in to.
        "browser",
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
            engines_in_box: false,
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
        assert_eq!(
            fixes[3],
            (
                "engines-in-box",
                Some(Fix::TurnOn {
                    setting: "enginesInBox"
                })
            )
        );
        assert_eq!(fixes[4].0, "listening");
        assert!(checks.iter().any(|c| c.id == "home-folder" && c.ok));
        assert!(checks.iter().any(|c| c.id == "wrong-passwords" && c.ok));
        // A folder others can read is said, with the line that fixes it.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let c = home_folder(dir.path());
        assert!(!c.ok);
        assert!(
            matches!(c.fix, Some(Fix::Command { ref line }) if line.starts_with("chmod -R go-rwx"))
        );
    }

    #[test]
    fn tries_to_get_in_are_counted_for_a_week() {
        use crate::security::{Attempt, Tried};
        let at = |day: u32, from: &str, tried| Attempt {
            seq: day as u64,
            at: format!("2026-11-{day:02}T09:00:00.000Z"),
            kind: "attempt.failed".into(),
            from: from.into(),
            tried,
        };
        let now = protocol::parse_rfc3339("2026-11-29T10:00:00.000Z").unwrap();
        let old = [at(1, "192.0.2.1", Tried::SignIn)];
        assert!(tries_to_get_in(&old, now).ok);
        let recent = [
            at(1, "192.0.2.1", Tried::SignIn),
            at(27, "127.0.0.1", Tried::SignIn),
            at(28, "127.0.0.1", Tried::Confirm),
            at(29, "127.0.0.1", Tried::SignIn),
        ];
        // A few slips from this computer, a day apart, are shown, not flagged.
        let c = tries_to_get_in(&recent, now);
        assert!(c.ok);
        assert!(
            c.says
                .starts_with("Someone tried 3 wrong passwords in the last week (from 127.0.0.1;"),
            "{}",
            c.says
        );
        // Five within an hour is someone trying.
        let burst: Vec<Attempt> = (0..5)
            .map(|i| Attempt {
                seq: 10 + i,
                at: format!("2026-11-29T09:0{i}:00.000Z"),
                kind: "attempt.failed".into(),
                from: "127.0.0.1".into(),
                tried: Tried::SignIn,
            })
            .collect();
        let c = tries_to_get_in(&burst, now);
        assert!(!c.ok);
        assert!(
            c.says.starts_with("Someone tried 5 wrong passwords"),
            "{}",
            c.says
        );
        assert!(matches!(c.fix, Some(Fix::Advice { .. })));
        // One from elsewhere is someone trying.
        let away = [at(28, "192.0.2.7", Tried::SignIn)];
        assert!(!tries_to_get_in(&away, now).ok);
    }
}
