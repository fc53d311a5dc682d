//! Conch's home folder: `--home DIR`, else `CONCH_HOME`, else `~/.conch`.
//! Everything Conch keeps lives here, created 0700 with files 0600.

use std::path::{Path, PathBuf};

use crate::private_file::{create_private_dir, open_to_others};

/// Where deleted chats wait before they are gone for good.
pub const TRASH_DIR: &str = "trash";

#[derive(Debug)]
pub enum HomeError {
    /// No `--home`, no `CONCH_HOME`, and no `HOME` to put `.conch` in.
    NoneGiven,
    Create {
        path: PathBuf,
        error: std::io::Error,
    },
    NotAFolder(PathBuf),
}

impl std::fmt::Display for HomeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HomeError::NoneGiven => f.write_str(
                "Conch doesn't know where to keep its files: HOME isn't set. Pass --home DIR or set CONCH_HOME.",
            ),
            HomeError::Create { path, error } => write!(
                f,
                "Conch couldn't create its folder {}: {error}. Pick another with --home DIR.",
                path.display()
            ),
            HomeError::NotAFolder(path) => write!(
                f,
                "{} isn't a folder, so Conch can't keep its files there. Pick another with --home DIR.",
                path.display()
            ),
        }
    }
}

impl std::error::Error for HomeError {}

#[derive(Debug, Clone)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// Where the home folder is, by the usual order of precedence.
    pub fn locate(flag: Option<&Path>) -> Result<PathBuf, HomeError> {
        if let Some(dir) = flag {
            return Ok(dir.to_path_buf());
        }
        if let Some(dir) = std::env::var_os("CONCH_HOME").filter(|v| !v.is_empty()) {
            return Ok(PathBuf::from(dir));
        }
        match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            Some(home) => Ok(PathBuf::from(home).join(".conch")),
            None => Err(HomeError::NoneGiven),
        }
    }

    /// Opens the home folder, creating it (0700) and `chats/` when missing.
    pub fn open(root: &Path) -> Result<Home, HomeError> {
        let create = |path: &Path| {
            create_private_dir(path).map_err(|error| HomeError::Create {
                path: path.to_path_buf(),
                error,
            })
        };
        create(root)?;
        if !root.is_dir() {
            return Err(HomeError::NotAFolder(root.to_path_buf()));
        }
        let root = root.canonicalize().map_err(|error| HomeError::Create {
            path: root.to_path_buf(),
            error,
        })?;
        create(&root.join("chats"))?;
        Ok(Home { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn chats_dir(&self) -> PathBuf {
        self.root.join("chats")
    }

    pub fn chat_dir(&self, id: &str) -> PathBuf {
        self.chats_dir().join(id)
    }

    /// A file at the top of the home folder (`owner.json`, `settings.json`…).
    pub fn file(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Plain sentences about parts of the home that others can read or enter.
    pub fn permission_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut check = |path: PathBuf| {
            if let Ok(Some(mode)) = open_to_others(&path) {
                problems.push(format!(
                    "{} can be read by other users on this computer (mode {mode:o}). Run: chmod go-rwx {}",
                    path.display(),
                    path.display()
                ));
            }
        };
        check(self.root.clone());
        for name in [
            "chats",
            "owner.json",
            "access-keys.json",
            "settings.json",
            "secrets.json",
        ] {
            check(self.root.join(name));
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn creates_a_private_home_and_reports_open_ones() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::open(&dir.path().join("h")).unwrap();
        assert!(home.chats_dir().is_dir());
        assert!(home.permission_problems().is_empty());
        std::fs::set_permissions(home.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let problems = home.permission_problems();
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("mode 755"), "{}", problems[0]);
    }

    #[test]
    fn a_file_is_not_a_home() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert!(Home::open(&file).is_err());
    }

    #[test]
    fn the_flag_wins() {
        let p = Path::new("/somewhere");
        assert_eq!(Home::locate(Some(p)).unwrap(), p);
    }
}
