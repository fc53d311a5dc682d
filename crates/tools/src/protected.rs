//! The guard's protected places for this computer: the shared list of
//! places where keys live, made absolute for this person from their home
//! folder and the variables that move those places, plus the real path of
//! each one that is itself a link. The list is the guard's; this is only
//! the reading of the environment it needs.

use std::path::Path;

use crate::paths::resolve;

/// What is protected here, for a Conch whose folder is `conch_root`.
pub fn here(conch_root: &Path) -> guard::Protected {
    listed(conch_root).with_real_paths(&real)
}

/// The same places without each one's real path added: for a box made once
/// (`conch seal run`), which resolves every place itself and hides both
/// spellings, so nothing is resolved twice. What is hidden is the same.
pub fn listed(conch_root: &Path) -> guard::Protected {
    listed_for(conch_root, std::env::var("HOME").ok().as_deref())
}

/// What is protected for a person whose home folder is `home`, when this
/// process's own `HOME` isn't theirs (a relay Claude Code started, with
/// its own private HOME).
pub fn here_for(conch_root: &Path, home: Option<&str>) -> guard::Protected {
    listed_for(conch_root, home).with_real_paths(&real)
}

fn listed_for(conch_root: &Path, home: Option<&str>) -> guard::Protected {
    let var = |name: &str| std::env::var(name).ok();
    let conch = resolve(Path::new("/"), &conch_root.to_string_lossy())
        .unwrap_or_else(|_| conch_root.to_path_buf());
    guard::Protected::usual_with(home, &conch.to_string_lossy(), &var)
}

/// A place's real path, following every link in it.
pub fn real(path: &str) -> Option<String> {
    resolve(Path::new("/"), path)
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
}
