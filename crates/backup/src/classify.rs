//! What a backup holds, decided once per path (pure, no I/O).
//!
//! One rule for every path, used both when a backup is made and when one is
//! restored: a restore takes only what a backup would have carried, so a
//! file crafted to hold `keystore/device.key` or `../x` is refused whole.
//!
//! - Carried: chats, artifacts, skills and their trust file, settings,
//!   memories, routines, apps, and anything else Conch keeps that isn't
//!   named below (what a newer Conch adds is carried by default).
//! - Keys (`SEALED_FILES`, `owner.json`, `access-keys.json`): carried only
//!   inside a passphrase-locked backup, open; left out otherwise.
//! - Left out: this computer's device key, what a running Conch keeps for
//!   itself (sockets, lock files, engines' own sessions and caches, the
//!   sandbox's probe, the browser profile), browser sign-ins, other
//!   backups, broken copies set aside, and files being written.

/// Where a path goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Carried,
    /// A key: only in a passphrase-locked backup.
    Key,
    /// Left out, and why (in words).
    Out(&'static str),
}

/// Top-level names that never go in a backup, and why.
const LEFT_OUT: &[(&str, &str)] = &[
    ("keystore", "this computer's own key stays with it"),
    ("run", "what a running Conch keeps for itself"),
    (
        "engines",
        "Claude Code's and Codex's own sessions and caches",
    ),
    ("seal", "what this computer's sandbox can do"),
    ("browser", "the browser profile"),
    ("cache", "caches"),
    ("caches", "caches"),
    ("backups", "other backups"),
    ("sessions.json", "signed-in browsers (sign in again)"),
];

/// Files at the top that hold keys or what signs you in.
pub const KEY_FILES: &[&str] = &["owner.json", "access-keys.json"];

/// Where `rel` (a path inside Conch's folder, `/`-separated) goes.
pub fn place(rel: &str) -> Place {
    let parts: Vec<&str> = rel.split('/').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == ".." || p.contains('\\') || p.contains('\0'))
    {
        return Place::Out("not a plain path inside Conch's folder");
    }
    if let Some((_, why)) = LEFT_OUT.iter().find(|(name, _)| *name == parts[0]) {
        return Place::Out(why);
    }
    for part in &parts {
        if part.contains(".broken-") || part.contains(".damaged-") {
            return Place::Out("a broken copy set aside");
        }
        if part.starts_with('.') && part.contains(".tmp") {
            return Place::Out("being written at that moment");
        }
        if *part == ".lock" || part.ends_with(".lock") {
            return Place::Out("lock files");
        }
    }
    if parts.len() == 1
        && (vault::SEALED_FILES.contains(&parts[0]) || KEY_FILES.contains(&parts[0]))
    {
        return Place::Key;
    }
    Place::Carried
}

/// A file whose every line is one record, appended to in place: it is
/// taken up to its last whole line.
pub fn is_log(rel: &str) -> bool {
    rel.ends_with(".jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_path_has_its_place() {
        for carried in [
            "chats/k3v9/log.jsonl",
            "chats/k3v9/log.jsonl.torn",
            "artifacts/abcdefgh/artifact.json",
            "artifacts/abcdefgh/v1.html",
            "skills/quick-setup/SKILL.md",
            "skills.trust.json",
            "settings.json",
            "security.jsonl",
            "memories.json",
            "routines.json",
            "apps.json",
            "imported/openclaw/skills/weather/SKILL.md",
            "chats/ünï-日本/log.jsonl",
        ] {
            assert_eq!(place(carried), Place::Carried, "{carried}");
        }
        for key in [
            "secrets.json",
            "skills.signing.json",
            "owner.json",
            "access-keys.json",
        ] {
            assert_eq!(place(key), Place::Key, "{key}");
        }
        for out in [
            "keystore/device.key",
            "run/serve.lock",
            "run/claude-code-12.sock",
            "engines/claude-code/chats/a/.claude/projects/x/s.jsonl",
            "seal/probe.json",
            "browser/Default/Cookies",
            "sessions.json",
            "backups/conch-2026.backup",
            "skills.signing.json.broken-1795000000",
            "artifacts/abcdefgh/artifact.json.damaged-17",
            ".secrets.json.tmp-12-0",
            "artifacts/abcdefgh/.v2.html.tmp-99",
            "artifacts/abcdefgh/.lock",
            ".sessions.lock",
            "../outside",
            "chats/../keystore/device.key",
            "/etc/passwd",
            "chats//log.jsonl",
            "chats/./log.jsonl",
            "",
        ] {
            assert!(matches!(place(out), Place::Out(_)), "{out}");
        }
        // A key file's name is a key only at the top.
        assert_eq!(place("skills/x/secrets.json"), Place::Carried);
    }

    /// Generated paths, from pieces an attacker would use: whatever is
    /// taken (carried or a key) stays inside the folder once joined, never
    /// names this computer's key, and is never a half-written or broken
    /// copy.
    #[test]
    fn whatever_is_taken_stays_inside_and_is_never_what_stays_out() {
        const PIECES: &[&str] = &[
            "chats",
            "k3v9",
            "log.jsonl",
            "..",
            ".",
            "",
            "keystore",
            "device.key",
            "run",
            "serve.lock",
            "secrets.json",
            "skills.signing.json",
            "a\\b",
            "日本",
            ".x.tmp-1",
            "v1.html.broken-2",
            "artifacts",
            "engines",
            "sessions.json",
            "..\u{0}",
            "/",
            "owner.json",
            "backups",
            " ",
            "imported",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as usize % n
        };
        for _ in 0..50_000 {
            let len = 1 + next(5);
            let path: Vec<&str> = (0..len).map(|_| PIECES[next(PIECES.len())]).collect();
            let rel = path.join("/");
            let taken = !matches!(place(&rel), Place::Out(_));
            if !taken {
                continue;
            }
            let root = std::path::Path::new("/home/ada/.conch");
            let joined = root.join(&rel);
            let mut depth = 0i32;
            for c in std::path::Path::new(&rel).components() {
                match c {
                    std::path::Component::Normal(_) => depth += 1,
                    _ => panic!("{rel:?} is taken but isn't a plain path"),
                }
            }
            assert!(depth >= 1 && joined.starts_with(root), "{rel:?}");
            let first = rel.split('/').next().unwrap_or("");
            assert!(
                !["keystore", "run", "engines", "backups", "sessions.json"].contains(&first),
                "{rel:?}"
            );
            assert!(
                !rel.contains(".broken-") && !rel.contains(".tmp"),
                "{rel:?}"
            );
            if place(&rel) == Place::Key {
                assert!(!rel.contains('/'), "a key is only at the top: {rel:?}");
            }
        }
    }
}
