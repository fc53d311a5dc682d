//! The trash: a deleted chat's folder moved aside (`trash/chats/<id>`,
//! with the time it was deleted), kept [`TRASH_DAYS`] days, listed, and
//! put back where it was. Activity keeps a deleted chat's rows, marked.

use serde::Serialize;

use super::{peek, Chats, DELETED_FILE, TRASH_DAYS, TRASH_DIR};
use crate::error::ChatError;
use crate::ids;
use crate::log::LOG_FILE;
use crate::private_file::create_private_dir;

/// A chat in the trash, as the Trash page lists it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trashed {
    pub id: String,
    pub title: Option<String>,
    /// When it was deleted (RFC 3339).
    pub deleted_at: Option<String>,
}

impl Chats {
    fn trash_dir(&self) -> std::path::PathBuf {
        self.home.root().join(TRASH_DIR).join("chats")
    }

    /// Moves a chat to the trash (`trash/chats/<id>`, with the time it was
    /// deleted), where it is kept [`TRASH_DAYS`] days; Activity keeps its rows, marked
    /// deleted.
    /// The caller stops a running turn first.
    pub fn delete(&self, id: &str) -> Result<(), ChatError> {
        if !ids::is_valid_id(id) || !self.home.chat_dir(id).join(LOG_FILE).is_file() {
            return Err(ChatError::NotFound(id.chars().take(64).collect()));
        }
        if self.lock_open().get(id).is_some_and(|c| c.is_running()) {
            return Err(ChatError::Working);
        }
        let trash = self.trash_dir();
        let trash_err = |e: std::io::Error| ChatError::Trash(e.to_string());
        create_private_dir(&self.home.root().join(TRASH_DIR)).map_err(trash_err)?;
        create_private_dir(&trash).map_err(trash_err)?;
        let mut to = trash.join(id);
        let mut n = 1;
        while to.exists() {
            n += 1;
            to = trash.join(format!("{id}.{n}"));
        }
        std::fs::rename(self.home.chat_dir(id), &to).map_err(trash_err)?;
        let when = protocol::format_rfc3339(std::time::SystemTime::now());
        // The folder is in the trash already; without this file its own
        // time says when.
        let _ = crate::private_file::write_private(&to.join(DELETED_FILE), when.as_bytes());
        self.lock_open().remove(id);
        self.peeked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
        self.activity.forget(id);
        self.search.deleted(id);
        self.purge_trash();
        Ok(())
    }

    /// Removes what the trash has kept longer than [`TRASH_DAYS`] days.
    pub fn purge_trash(&self) {
        let trash = self.trash_dir();
        let Ok(entries) = std::fs::read_dir(&trash) else {
            return;
        };
        let keep = std::time::Duration::from_secs(TRASH_DAYS * 24 * 60 * 60);
        let now = std::time::SystemTime::now();
        for entry in entries.flatten() {
            let path = entry.path();
            let deleted = std::fs::read_to_string(path.join(DELETED_FILE))
                .ok()
                .and_then(|t| protocol::parse_rfc3339(t.trim()))
                .map(|ms| {
                    std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms.max(0) as u64)
                })
                .or_else(|| entry.metadata().and_then(|m| m.modified()).ok());
            let old = deleted
                .and_then(|d| now.duration_since(d).ok())
                .is_some_and(|age| age > keep);
            if old && path.is_dir() {
                if let Err(e) = std::fs::remove_dir_all(&path) {
                    crate::warn(&format!(
                        "A chat in the trash couldn't be removed ({}): {e}",
                        path.display()
                    ));
                }
            }
        }
    }

    /// The chats in the trash, the latest deleted first. A chat deleted
    /// twice (restored between) is listed once, by its latest deletion.
    pub fn trashed(&self) -> Vec<Trashed> {
        let Ok(entries) = std::fs::read_dir(self.trash_dir()) else {
            return Vec::new();
        };
        let mut out: Vec<Trashed> = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let id = name.split('.').next().unwrap_or("").to_owned();
            if !ids::is_valid_id(&id) || !entry.path().join(LOG_FILE).is_file() {
                continue;
            }
            let deleted_at = std::fs::read_to_string(entry.path().join(DELETED_FILE))
                .ok()
                .map(|t| t.trim().to_owned());
            let (view, _) = peek(&entry.path().join(LOG_FILE));
            let t = Trashed {
                id,
                title: view.title.clone(),
                deleted_at,
            };
            match out.iter_mut().find(|o| o.id == t.id) {
                Some(o) if o.deleted_at < t.deleted_at => *o = t,
                Some(_) => {}
                None => out.push(t),
            }
        }
        out.sort_by(|a, b| b.deleted_at.cmp(&a.deleted_at));
        out
    }

    /// Puts a chat back from the trash (its latest deletion), with
    /// everything it had; Activity shows its rows as a chat's again.
    pub fn restore(&self, id: &str) -> Result<(), ChatError> {
        let not_found = || ChatError::NotFound(id.chars().take(64).collect());
        if !ids::is_valid_id(id) {
            return Err(not_found());
        }
        let trash = self.trash_dir();
        let latest = std::fs::read_dir(&trash)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name == id || name.strip_prefix(id).is_some_and(|r| r.starts_with('.'))
            })
            .filter(|e| e.path().join(LOG_FILE).is_file())
            .max_by_key(|e| {
                std::fs::read_to_string(e.path().join(DELETED_FILE)).unwrap_or_default()
            })
            .ok_or_else(not_found)?;
        if self.home.chat_dir(id).exists() {
            return Err(ChatError::AlreadyHere);
        }
        let from = latest.path();
        // The mark goes first: a folder put back with it would be purged
        // with the trash's old ones if this stopped between the two.
        let _ = std::fs::remove_file(from.join(DELETED_FILE));
        std::fs::rename(&from, self.home.chat_dir(id))
            .map_err(|e| ChatError::Restore(e.to_string()))?;
        self.activity.restored(id);
        self.search.restored(id);
        Ok(())
    }
}
