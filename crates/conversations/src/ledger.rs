//! The marks ledger: a mark belongs to data and goes where the data goes.
//!
//! When a marked chat (or an engine in one) writes a file, the ledger notes
//! the file's path, its content's sha256 and the chat's marks in words.
//! Reading a file the ledger knows, by its path or by its content wherever
//! it now sits, marks the reader: "Took in what the chat that wrote TODO.md
//! (read news.example) read." Editing the file by hand (a hash Conch didn't write)
//! doesn't clear it: the path still carries the mark until the owner clears
//! it (`conch marks clear PATH`).
//!
//! `ledger.jsonl` in Conch's folder, one line a note, appended (0600). A
//! torn or unreadable line is passed over and the rest kept. Read into
//! memory the first time it is needed, and again whenever its length isn't
//! what this process last saw (`conch marks clear` in a terminal while
//! Conch runs).
//!
//! Known limit: only what a chat's file tools and an engine's own write and
//! read tools touch is noted; a command's writes (sealed or not) aren't.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use protocol::{Action, MarkSource};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::state::Core;

pub const LEDGER_FILE: &str = "ledger.jsonl";

/// The largest file hashed; a larger one is known by its path only.
const LARGEST: u64 = 256 * 1024 * 1024;

/// One note: what a marked chat wrote, or that the owner cleared a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub path: String,
    /// The content's hash, noted a moment after the write (off the call's
    /// path); empty on the write's own note.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sha256: String,
    /// The content's length, with its hash.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub len: u64,
    /// What the chat that wrote it had read, in words ("read news.example").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub chat: String,
    /// The owner cleared the path's mark.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cleared: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Default)]
struct Index {
    by_path: HashMap<String, Note>,
    by_hash: HashMap<String, Note>,
    /// The lengths of the hashed contents: a file of another length can't
    /// match one, so it isn't hashed.
    lens: std::collections::HashSet<u64>,
    /// The file's length when last read or written here.
    len: u64,
}

impl Index {
    fn take(&mut self, note: Note) {
        if note.cleared {
            if let Some(old) = self.by_path.remove(&note.path) {
                self.by_hash.remove(&old.sha256);
            }
            self.by_hash.retain(|_, n| n.path != note.path);
            return;
        }
        if !note.sha256.is_empty() {
            self.lens.insert(note.len);
            self.by_hash.insert(note.sha256.clone(), note.clone());
        }
        self.by_path.insert(note.path.clone(), note);
    }
}

pub struct Ledger {
    file: PathBuf,
    index: Mutex<Option<Index>>,
}

/// The sha256 of a file's content, in hex; `None` for what isn't a file
/// that can be read (or is too large to hash).
pub fn hash_file(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > LARGEST {
        return None;
    }
    let mut file = std::fs::File::open(path).ok()?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Some(
        hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    )
}

impl Ledger {
    pub fn new(home: &Path) -> Ledger {
        Ledger {
            file: home.join(LEDGER_FILE),
            index: Mutex::new(None),
        }
    }

    fn file_len(&self) -> u64 {
        std::fs::metadata(&self.file).map_or(0, |m| m.len())
    }

    fn with<T>(&self, f: impl FnOnce(&mut Index) -> T) -> T {
        let mut guard = self.index.lock().unwrap_or_else(|p| p.into_inner());
        let len = self.file_len();
        if guard.as_ref().is_none_or(|i| i.len != len) {
            *guard = Some(self.load());
        }
        let index = guard.get_or_insert_with(Index::default);
        let out = f(index);
        index.len = self.file_len();
        out
    }

    fn load(&self) -> Index {
        let mut index = Index::default();
        let Ok(text) = std::fs::read_to_string(&self.file) else {
            return index;
        };
        index.len = text.len() as u64;
        for line in text.lines() {
            if let Ok(note) = serde_json::from_str::<Note>(line) {
                index.take(note);
            }
        }
        index
    }

    fn append(&self, note: &Note) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(note).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&self.file)?;
        file.write_all(&line)
    }

    /// Notes that a chat with `marks` wrote `path`. Cheap: no hashing.
    pub fn wrote(&self, path: &str, marks: Vec<String>, chat: &str) {
        self.note(Note {
            path: path.to_owned(),
            sha256: String::new(),
            len: 0,
            marks,
            chat: chat.to_owned(),
            cleared: false,
        });
    }

    /// Notes what `path` (written by a marked chat) now holds, so a copy of
    /// it anywhere is known too. Hashes the file: call it off the call's
    /// path.
    pub fn hash_written(&self, path: &str) {
        let Some(written) = self.with(|index| index.by_path.get(path).cloned()) else {
            return;
        };
        let Some(sha) = hash_file(Path::new(path)) else {
            return;
        };
        let len = std::fs::metadata(path).map_or(0, |m| m.len());
        self.note(Note {
            sha256: sha,
            len,
            ..written
        });
    }

    fn note(&self, note: Note) {
        // Under the index's lock, so two writers append whole lines.
        self.with(|index| {
            if self.append(&note).is_ok() {
                index.take(note);
            }
        });
    }

    /// What the ledger knows of the file at `path`: by its path first (a
    /// hand edit doesn't clear it), else by its content anywhere (hashed
    /// only when a noted content has its length).
    pub fn known_file(&self, path: &str) -> Option<Note> {
        let len = std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        let (by_path, could) = self.with(|index| {
            (
                index.by_path.get(path).cloned(),
                len.is_some_and(|l| index.lens.contains(&l)),
            )
        });
        if by_path.is_some() || !could {
            return by_path;
        }
        let sha = hash_file(Path::new(path))?;
        self.known(path, Some(&sha))
    }

    /// What the ledger knows of `path` holding `sha256`.
    pub fn known(&self, path: &str, sha256: Option<&str>) -> Option<Note> {
        self.with(|index| {
            index.by_path.get(path).cloned().or_else(|| {
                sha256
                    .filter(|h| !h.is_empty())
                    .and_then(|h| index.by_hash.get(h).cloned())
            })
        })
    }

    /// The owner clears `path`: reading it marks nobody any more. `false`
    /// when it carried nothing.
    pub fn clear(&self, path: &str) -> std::io::Result<bool> {
        let known = self.with(|index| index.by_path.contains_key(path));
        if !known {
            return Ok(false);
        }
        let note = Note {
            path: path.to_owned(),
            sha256: String::new(),
            len: 0,
            marks: Vec::new(),
            chat: String::new(),
            cleared: true,
        };
        self.with(|index| {
            self.append(&note)?;
            index.take(note);
            Ok(true)
        })
    }

    /// The noted files inside the folder `dir` (by path).
    pub fn known_under(&self, dir: &str) -> Vec<Note> {
        let dir = dir.trim_end_matches('/');
        let prefix = format!("{dir}/");
        self.with(|index| {
            index
                .by_path
                .values()
                .filter(|n| n.path.starts_with(&prefix))
                .cloned()
                .collect()
        })
    }

    /// Every path that carries a mark now.
    pub fn list(&self) -> Vec<Note> {
        let mut out: Vec<Note> = self.with(|index| index.by_path.values().cloned().collect());
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }
}

/// After a call ran: a marked chat's write is noted; a read of a file the
/// ledger knows marks the chat, and so does a search of a folder whose
/// results (`found`, what the call gave back) quote a line of one
/// (`path:…`, as search_files and Grep show a match; a listing only names
/// it, and doesn't mark). For Conch's own tools and the engines'.
pub(crate) async fn after_call(
    chat: &Core,
    call: &str,
    action: &Action,
    ok: bool,
    found: Option<&str>,
) {
    if !ok {
        return;
    }
    let Some(chats) = chat.shared.chats.upgrade() else {
        return;
    };
    let ledger = chats.ledger().clone();
    match action {
        Action::FileChange { path, .. } => {
            let (mut marks, others) = chat.log.with_view(crate::carried::in_words);
            marks.extend(others.into_iter().map(|o| format!("had {o}'s words in it")));
            if marks.is_empty() {
                return;
            }
            ledger.wrote(path, marks, &chat.id);
            // Its content's hash, so a copy is known too: off the call's
            // path (a moment later, on a blocking thread).
            let path = path.clone();
            drop(tokio::task::spawn_blocking(move || {
                ledger.hash_written(&path)
            }));
        }
        Action::LookAround { paths } => {
            let paths = paths.clone();
            let output = found.map(str::to_owned).unwrap_or_default();
            let work = chat.work.clone();
            let found = tokio::task::spawn_blocking(move || {
                let mut out: Vec<(String, Note)> = Vec::new();
                for p in &paths {
                    if Path::new(p).is_dir() {
                        for n in ledger.known_under(p) {
                            if quoted(&output, &n.path, &work)
                                && !out.iter().any(|(q, _)| *q == n.path)
                            {
                                out.push((n.path.clone(), n));
                            }
                        }
                    } else if let Some(n) = ledger.known_file(p) {
                        out.push((p.clone(), n));
                    }
                }
                out
            })
            .await
            .unwrap_or_default();
            for (path, note) in found {
                let name = Path::new(&path)
                    .file_name()
                    .map_or(path.clone(), |n| n.to_string_lossy().into_owned());
                // Said as "Took in what <this> read."
                let what = format!("the chat that wrote {name} ({})", note.marks.join("; "));
                let already = chat.log.with_view(|v| {
                    v.held_taints()
                        .any(|m| m.source == MarkSource::Carried && m.what == what)
                });
                if !already {
                    let from = (!note.chat.is_empty()).then(|| note.chat.clone());
                    let _ = chat
                        .mark_with(
                            MarkSource::Carried,
                            what,
                            Some(call.to_owned()),
                            from,
                            Some(path),
                        )
                        .await;
                }
            }
        }
        _ => {}
    }
}

/// Files under `work` changed since `since` (not following links).
fn changed_since(work: &Path, since: std::time::SystemTime) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    crate::work_files::each_file(work, |path, meta| {
        if meta.modified().is_ok_and(|t| t >= since) {
            out.push(path);
        }
    });
    out
}

/// After a command in a marked chat: the work folder's files it changed
/// (changed since it began) are noted as the chat's writes, so a later
/// reader of them is marked as if a file tool had written them.
pub(crate) async fn after_command(chat: &Core, began: std::time::SystemTime) {
    let (mut marks, others) = chat.log.with_view(crate::carried::in_words);
    marks.extend(others.into_iter().map(|o| format!("had {o}'s words in it")));
    if marks.is_empty() {
        return;
    }
    let Some(chats) = chat.shared.chats.upgrade() else {
        return;
    };
    let ledger = chats.ledger().clone();
    let (work, id) = (chat.work.clone(), chat.id.clone());
    // Timestamps are as fine as the file system's: a second's slack.
    let since = began
        .checked_sub(std::time::Duration::from_secs(1))
        .unwrap_or(began);
    let _ = tokio::task::spawn_blocking(move || {
        for path in changed_since(&work, since) {
            let path = path.to_string_lossy().into_owned();
            ledger.wrote(&path, marks.clone(), &id);
            ledger.hash_written(&path);
        }
    })
    .await;
}

/// Whether a search's output quotes a line of `path` (shown whole, or
/// relative to the work folder, then `:`).
fn quoted(output: &str, path: &str, work: &Path) -> bool {
    let rel = Path::new(path)
        .strip_prefix(work)
        .ok()
        .map(|r| r.to_string_lossy().into_owned());
    output.lines().any(|line| {
        let shows = |p: &str| {
            line.strip_prefix(p)
                .is_some_and(|rest| rest.starts_with(':'))
        };
        shows(path) || rel.as_deref().is_some_and(shows)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_read_by_path_or_content_and_cleared_by_the_owner() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("w");
        std::fs::create_dir(&work).unwrap();
        let todo = work.join("TODO.md");
        std::fs::write(&todo, "- run the thing ünï\n").unwrap();
        let todo = todo.to_string_lossy().into_owned();
        let ledger = Ledger::new(dir.path());
        ledger.wrote(&todo, vec!["read news.example".into()], "c1");
        ledger.hash_written(&todo);
        // A copy elsewhere is known by its content; another file isn't.
        let copy = work.join("copy.md");
        std::fs::copy(&todo, &copy).unwrap();
        let copy = copy.to_string_lossy().into_owned();
        assert_eq!(ledger.known_file(&copy).unwrap().path, todo);
        let other = work.join("other.md");
        std::fs::write(&other, "- something else of another length\n").unwrap();
        assert_eq!(ledger.known_file(&other.to_string_lossy()), None);
        // A hand edit keeps it, by its path.
        std::fs::write(&todo, "- edited\n").unwrap();
        assert_eq!(ledger.known_file(&todo).unwrap().chat, "c1");
        // Read again from disk, with a torn line at the end.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(LEDGER_FILE))
            .unwrap();
        f.write_all(b"{\"path\": \"/w/torn\n").unwrap();
        let again = Ledger::new(dir.path());
        assert!(again.known_file(&todo).is_some());
        assert!(again.clear(&todo).unwrap());
        assert!(!again.clear(&todo).unwrap(), "nothing left to clear");
        assert_eq!(again.known_file(&todo), None);
        assert_eq!(again.known_file(&copy), None, "its copies too");
        assert_eq!(
            Ledger::new(dir.path()).known_file(&copy),
            None,
            "cleared for good"
        );
    }
}
