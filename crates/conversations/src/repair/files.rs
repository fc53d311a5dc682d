//! The folder itself: who can read it, what a stopped Conch left behind,
//! and sessions whose chat is gone.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::{Item, State};

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Every file and folder under `dir` (links are not followed) whose mode
/// lets others in, with the mode it should have: folders 0700, files
/// 0600 keeping the owner's execute bit (a skill's script).
fn loose(dir: &Path, out: &mut Vec<(PathBuf, u32)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            continue;
        }
        let mode = meta.permissions().mode() & 0o7777;
        if meta.is_dir() {
            if mode & 0o077 != 0 || mode & 0o700 != 0o700 {
                out.push((path.clone(), 0o700));
            }
            loose(&path, out);
        } else if mode & 0o077 != 0 {
            out.push((path, 0o600 | (mode & 0o100)));
        }
    }
}

pub fn permissions(home: &Path, repair: bool) -> Option<Item> {
    let mut found = Vec::new();
    if let Ok(meta) = fs::metadata(home) {
        if meta.permissions().mode() & 0o077 != 0 {
            found.push((home.to_path_buf(), 0o700));
        }
    }
    loose(home, &mut found);
    if found.is_empty() {
        return None;
    }
    let what = plural(found.len(), "file or folder", "files and folders");
    let example = found[0].0.display().to_string();
    if !repair {
        return Some(Item::new(
            "permissions",
            State::Found,
            format!("Others on this computer can read into Conch's folder: {what} (such as {example}). Repair makes them yours alone."),
        ));
    }
    let mut failed = Vec::new();
    for (path, mode) in &found {
        if fs::set_permissions(path, fs::Permissions::from_mode(*mode)).is_err() {
            failed.push(path.display().to_string());
        }
    }
    Some(if failed.is_empty() {
        Item::new(
            "permissions",
            State::Fixed,
            format!("Others on this computer could read into Conch's folder ({what}, such as {example}); they are yours alone now."),
        )
    } else {
        Item::new(
            "permissions",
            State::NeedsYou,
            format!(
                "Some of Conch's files can't be made yours alone ({}). Run: chmod -R go-rwx '{}'",
                failed.join(", "),
                home.display().to_string().replace('\'', "'\\''")
            ),
        )
    })
}

/// `run/serve.lock` left by a Conch that was killed.
pub fn stale_lock(home: &Path, repair: bool) -> Option<Item> {
    let crate::running::Serving::Stale(pid) = crate::running::serving(home) else {
        return None;
    };
    let who = if pid.is_empty() {
        String::new()
    } else {
        format!(" (process {pid})")
    };
    if !repair {
        return Some(Item::new(
            "stale-lock",
            State::Found,
            format!("A lock file says Conch is running here{who}, but it isn't: it stopped without cleaning up. Repair removes the file."),
        ));
    }
    Some(
        match fs::remove_file(home.join(crate::running::LOCK_FILE)) {
            Ok(()) => Item::new(
                "stale-lock",
                State::Fixed,
                format!("A lock file left by a Conch that stopped without cleaning up{who} was removed."),
            ),
            Err(e) => Item::new(
                "stale-lock",
                State::NeedsYou,
                format!("A stale lock file ({}) can't be removed: {e}.", crate::running::LOCK_FILE),
            ),
        },
    )
}

fn alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only asks whether the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The process that wrote a temporary file or a socket, from its name:
/// `.name.tmp-<pid>[-n]`, `.name.tmp<pid>`, `claude-code-<pid>.sock`.
fn writer(name: &str) -> Option<i32> {
    let digits = |s: &str| -> Option<i32> {
        let d: String = s.chars().take_while(char::is_ascii_digit).collect();
        d.parse().ok()
    };
    if name.starts_with('.') {
        let (_, rest) = name.rsplit_once(".tmp")?;
        return digits(rest.trim_start_matches('-'));
    }
    let rest = name.strip_prefix("claude-code-")?.strip_suffix(".sock")?;
    digits(rest)
}

/// Temporary files of writers that were stopped mid-way, and sockets of
/// Conches that are gone. Only files whose name says which process wrote
/// them, and only when that process is gone.
pub fn leftovers(home: &Path, repair: bool) -> Option<Item> {
    let mut dirs = vec![home.to_path_buf(), home.join("run"), home.join("keystore")];
    if let Ok(entries) = fs::read_dir(home.join("artifacts")) {
        dirs.extend(entries.flatten().map(|e| e.path()));
    }
    let mut found = Vec::new();
    for dir in dirs {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if writer(&name).is_some_and(|pid| !alive(pid)) {
                found.push(entry.path());
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    let what = plural(found.len(), "file", "files");
    if !repair {
        return Some(Item::new(
            "leftovers",
            State::Found,
            format!("{what} left half-written by a Conch that was stopped mid-way. Repair removes them (they never held anything that isn't kept elsewhere)."),
        ));
    }
    for path in &found {
        let _ = fs::remove_file(path);
    }
    Some(Item::new(
        "leftovers",
        State::Fixed,
        format!("{what} left half-written by a Conch that was stopped mid-way were removed."),
    ))
}

/// Sessions Claude Code and Codex kept for chats that no longer exist.
pub fn orphaned_sessions(home: &Path, repair: bool) -> Option<Item> {
    let chats: Vec<String> = fs::read_dir(home.join("chats"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let claude_root = home.join("engines").join("claude-code");
    let codex_root = home.join("engines").join("codex");
    let kept: std::collections::HashSet<PathBuf> = chats
        .iter()
        .flat_map(|c| {
            [
                engines::claude_code::session::chat_home(&claude_root, c),
                engines::codex::chat_folder(home, c),
            ]
        })
        .collect();
    let mut found = Vec::new();
    for (root, app) in [
        (claude_root.join("chats"), "Claude Code"),
        (codex_root, "Codex"),
    ] {
        for entry in fs::read_dir(&root).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) && !kept.contains(&path) {
                found.push((path, app));
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    let what = plural(found.len(), "session", "sessions");
    let example = found[0]
        .0
        .strip_prefix(home)
        .unwrap_or(&found[0].0)
        .display()
        .to_string();
    if !repair {
        return Some(Item::new(
            "orphaned-sessions",
            State::Found,
            format!("{what} kept by {} for chats that no longer exist (such as {example}). Repair removes them.", found[0].1),
        ));
    }
    let mut left = 0;
    for (path, _) in &found {
        if fs::remove_dir_all(path).is_err() {
            left += 1;
        }
    }
    Some(if left == 0 {
        Item::new(
            "orphaned-sessions",
            State::Fixed,
            format!("{what} kept by {} for chats that no longer exist (such as {example}) were removed.", found[0].1),
        )
    } else {
        Item::new(
            "orphaned-sessions",
            State::NeedsYou,
            format!(
                "{} for chats that no longer exist can't be removed.",
                plural(left, "session", "sessions")
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writers_are_read_from_names() {
        assert_eq!(writer(".secrets.json.tmp-4242-0"), Some(4242));
        assert_eq!(writer(".skills.trust.json.tmp77"), Some(77));
        assert_eq!(writer(".v3.html.tmp-9"), Some(9));
        assert_eq!(writer("claude-code-31.sock"), Some(31));
        assert_eq!(writer(".owner.json.ab12cd.tmp"), None);
        assert_eq!(writer("settings.json"), None);
    }
}
