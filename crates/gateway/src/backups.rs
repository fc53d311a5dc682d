//! Backups made from the browser and on a schedule, into `backups/` in
//! Conch's folder (which backups themselves leave out). The backup itself
//! is the `backup` crate's; this is where they are kept, listed, pruned,
//! and made when one is due.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use conversations::{BackupSchedule, Secrets, Settings};

pub const FOLDER: &str = "backups";

/// One backup in the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub name: String,
    pub size: u64,
    pub made: SystemTime,
    /// Locked with a passphrase (so it carries the keys).
    pub locked: bool,
}

/// A name Conch gave a backup: `conch-…​.backup`, nothing that could
/// leave the folder.
pub fn good_name(name: &str) -> bool {
    name.starts_with("conch-")
        && name.ends_with(".backup")
        && name.len() <= 80
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.contains("..")
}

/// The backups in `home`'s folder, newest first.
pub fn list(home: &Path) -> Vec<Kept> {
    let mut out: Vec<Kept> = std::fs::read_dir(home.join(FOLDER))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let meta = e.metadata().ok()?;
            (good_name(&name) && meta.is_file()).then(|| Kept {
                locked: matches!(backup::locked(&e.path()), Ok(backup::Locked::Passphrase)),
                name,
                size: meta.len(),
                made: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            })
        })
        .collect();
    out.sort_by(|a, b| b.name.cmp(&a.name));
    out
}

/// Where a backup called `name` is, when it is one of Conch's.
pub fn path_of(home: &Path, name: &str) -> Option<PathBuf> {
    let path = home.join(FOLDER).join(name);
    (good_name(name) && path.is_file()).then_some(path)
}

/// Makes a backup of `home` now, into its folder; returns its name.
pub fn make(home: &Path, passphrase: Option<&str>) -> Result<(String, backup::Made), String> {
    let settings = Settings::load(home).map_err(|e| e.to_string())?;
    let dir = home.join(FOLDER);
    conversations::private_file::create_private_dir(&dir)
        .map_err(|e| format!("{} can't be made: {e}.", dir.display()))?;
    let mut path = backup::path_in(&dir);
    // Two in the same second: the second waits its turn by name.
    let mut n = 2;
    while path.exists() {
        let stem = backup::file_name(SystemTime::now());
        path = dir.join(stem.replace(".backup", &format!("-{n}.backup")));
        n += 1;
    }
    let made = backup::create(home, &path, passphrase, &settings.vault(home))
        .map_err(|e| e.to_string())?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((name, made))
}

/// Removes all but the newest `keep` backups.
pub fn prune(home: &Path, keep: usize) -> usize {
    let mut removed = 0;
    for old in list(home).into_iter().skip(keep.max(1)) {
        if std::fs::remove_file(home.join(FOLDER).join(&old.name)).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Whether a scheduled backup is due now (pure).
pub fn due(schedule: &BackupSchedule, newest: Option<SystemTime>, now: SystemTime) -> bool {
    let Some(period) = schedule.every.period() else {
        return false;
    };
    match newest {
        None => true,
        Some(t) => now.duration_since(t).unwrap_or(Duration::ZERO) >= period,
    }
}

/// One look at the schedule: makes a backup when one is due and prunes.
/// Returns the backup made, if any.
pub fn tick(home: &Path, now: SystemTime) -> Result<Option<String>, String> {
    let settings = Settings::load(home).map_err(|e| e.to_string())?;
    let Some(schedule) = settings.backups.clone() else {
        return Ok(None);
    };
    let newest = list(home).first().map(|k| k.made);
    if !due(&schedule, newest, now) {
        return Ok(None);
    }
    let passphrase = Secrets::load(&settings.vault(home))
        .map_err(|e| e.to_string())?
        .backup_passphrase;
    let (name, _) = make(home, passphrase.as_deref())?;
    prune(home, schedule.keep);
    Ok(Some(name))
}

/// Runs the schedule for as long as Conch runs: a look every ten
/// minutes. What goes wrong is said on standard error, and tried again.
pub async fn scheduled(home: PathBuf) {
    let mut every = tokio::time::interval(Duration::from_secs(600));
    loop {
        every.tick().await;
        let at = home.clone();
        let made = tokio::task::spawn_blocking(move || tick(&at, SystemTime::now())).await;
        if let Ok(Err(e)) = made {
            conversations::warn(&format!("The scheduled backup wasn't made: {e}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conversations::Every;

    #[test]
    fn due_by_the_schedule() {
        let daily = BackupSchedule {
            every: Every::Daily,
            keep: 3,
        };
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(10 * 86_400);
        assert!(due(&daily, None, now));
        assert!(!due(&daily, Some(now - Duration::from_secs(3600)), now));
        assert!(due(&daily, Some(now - Duration::from_secs(86_400)), now));
        // A clock set back doesn't make one every look.
        assert!(!due(&daily, Some(now + Duration::from_secs(60)), now));
        let off = BackupSchedule {
            every: Every::Off,
            keep: 3,
        };
        assert!(!due(&off, None, now));
    }

    #[test]
    fn names_that_leave_the_folder_are_not_backups() {
        assert!(good_name("conch-2026-11-29-090000.backup"));
        assert!(good_name("conch-2026-11-29-090000-2.backup"));
        for bad in [
            "../conch-x.backup",
            "conch-/x.backup",
            "x.backup",
            "conch-x",
            "conch-..backup",
            "conch-ü.backup",
        ] {
            assert!(!good_name(bad), "{bad}");
        }
    }
}
