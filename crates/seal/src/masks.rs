//! What the box lets a command write, and what it hides.
//!
//! Writable: the work folder, temp, and the caches installs and builds use.
//! Hidden: where keys live, browser profiles, password managers, and Conch's
//! own folder. A hidden folder becomes an empty read-only folder, a hidden
//! file becomes /dev/null, each one mount (the fewest that hold).
//!
//! Paths are resolved with realpath, and both spellings are masked when they
//! differ. A hidden path that doesn't exist yet is masked at its first
//! missing component when the box could otherwise create it (its parent is
//! writable inside); the empty folder this leaves on the host is removed
//! after the run. A writable path that resolves into a hidden one is refused.

use std::path::{Path, PathBuf};

use crate::profile::SealError;

/// Under the person's home folder: where keys, sign-ins and passwords live.
pub const HIDDEN_IN_HOME: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh",
    ".password-store",
    ".local/share/keyrings",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/1Password",
    ".config/Bitwarden",
    ".config/KeePassXC",
    ".local/share/KeePassXC",
];

/// Under the person's home folder: caches installs and builds write to.
pub const CACHES_IN_HOME: &[&str] = &[
    ".npm",
    ".cache/npm",
    ".local/share/pnpm",
    ".cache/pnpm",
    ".pnpm-store",
    ".cache/yarn",
    ".yarn",
    ".bun",
    ".cargo/registry",
    ".cargo/git",
    "go/pkg/mod",
    ".cache/go-build",
    ".gradle",
    ".m2",
    ".nuget/packages",
    ".cache/deno",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mask {
    /// An empty read-only folder over it.
    Folder(PathBuf),
    /// /dev/null over it.
    File(PathBuf),
}

impl Mask {
    pub fn path(&self) -> &Path {
        match self {
            Mask::Folder(p) | Mask::File(p) => p,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Masks {
    /// Bound writable, in this order.
    pub writable: Vec<PathBuf>,
    /// Masked after every bind, in this order.
    pub hidden: Vec<Mask>,
    /// Mount points that don't exist on the host yet: bubblewrap creates them,
    /// and they are removed after the run.
    pub created: Vec<PathBuf>,
}

fn realpath(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// The first component of `path` that doesn't exist, and whether its parent
/// exists.
fn first_missing(path: &Path) -> Option<PathBuf> {
    let mut current = PathBuf::new();
    for component in path.components() {
        current.push(component);
        if std::fs::symlink_metadata(&current).is_err() {
            return Some(current);
        }
    }
    None
}

fn inside(path: &Path, of: &Path) -> bool {
    path.starts_with(of)
}

/// Works out the writable binds and the masks for `hidden` and `writable`
/// (both as given; they are resolved here).
pub fn plan(writable: &[PathBuf], hidden: &[PathBuf]) -> Result<Masks, SealError> {
    let mut masks = Masks::default();
    for path in writable {
        if let Some(real) = realpath(path) {
            if real.is_dir() && !masks.writable.contains(&real) {
                masks.writable.push(real);
            }
        }
    }
    // Hidden paths, resolved: both spellings of those that exist.
    let mut targets: Vec<Mask> = Vec::new();
    let mut add = |m: Mask| {
        if !targets.contains(&m) {
            targets.push(m);
        }
    };
    for path in hidden {
        match std::fs::symlink_metadata(path) {
            Ok(_) => {
                let Some(real) = realpath(path) else {
                    // A dangling link: mask the link's own place.
                    add(Mask::File(path.clone()));
                    continue;
                };
                let folder = real.is_dir();
                let wrap = |p: PathBuf| {
                    if folder {
                        Mask::Folder(p)
                    } else {
                        Mask::File(p)
                    }
                };
                add(wrap(real.clone()));
                if *path != real
                    && std::fs::symlink_metadata(path)
                        .map(|m| !m.file_type().is_symlink())
                        .unwrap_or(false)
                {
                    add(wrap(path.clone()));
                }
            }
            Err(_) => {
                // Not there yet: mask where it would be created, if the box
                // could create it.
                let Some(missing) = first_missing(path) else {
                    continue;
                };
                let parent = missing.parent().and_then(realpath);
                let creatable = parent
                    .as_ref()
                    .is_some_and(|p| masks.writable.iter().any(|w| inside(p, w)));
                if creatable {
                    let at = parent.map(|p| p.join(missing.file_name().unwrap_or_default()));
                    if let Some(at) = at {
                        masks.created.push(at.clone());
                        add(Mask::Folder(at));
                    }
                }
            }
        }
    }
    // A writable path inside a hidden one would uncover it.
    for w in &masks.writable {
        if let Some(h) = targets.iter().find(|h| inside(w, h.path())) {
            return Err(SealError::WritableIsHidden {
                writable: w.clone(),
                hidden: h.path().to_path_buf(),
            });
        }
    }
    // A mask inside another mask can't be mounted (the outer one is empty
    // and read-only) and isn't needed.
    let outer: Vec<PathBuf> = targets
        .iter()
        .filter(|m| matches!(m, Mask::Folder(_)))
        .map(|m| m.path().to_path_buf())
        .collect();
    targets.retain(|m| !outer.iter().any(|o| m.path() != o && inside(m.path(), o)));
    masks
        .created
        .retain(|c| targets.iter().any(|t| t.path() == c));
    masks.hidden = targets;
    Ok(masks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        (dir, root)
    }

    #[test]
    fn folders_and_files_that_exist() {
        let (_d, root) = setup();
        std::fs::create_dir_all(root.join("home/.ssh")).unwrap();
        std::fs::write(root.join("home/.netrc"), "x").unwrap();
        std::fs::create_dir_all(root.join("home/work")).unwrap();
        let m = plan(
            &[root.join("home/work")],
            &[root.join("home/.ssh"), root.join("home/.netrc")],
        )
        .unwrap();
        assert_eq!(m.writable, [root.join("home/work")]);
        assert_eq!(
            m.hidden,
            [
                Mask::Folder(root.join("home/.ssh")),
                Mask::File(root.join("home/.netrc"))
            ]
        );
        assert!(m.created.is_empty());
    }

    #[test]
    fn both_spellings_of_a_hidden_path() {
        let (_d, root) = setup();
        std::fs::create_dir_all(root.join("vault/ssh")).unwrap();
        std::fs::create_dir_all(root.join("real-home")).unwrap();
        symlink(root.join("real-home"), root.join("home")).unwrap();
        symlink(root.join("vault/ssh"), root.join("real-home/.ssh")).unwrap();
        let m = plan(&[], &[root.join("home/.ssh")]).unwrap();
        assert!(
            m.hidden.contains(&Mask::Folder(root.join("vault/ssh"))),
            "{m:?}"
        );
    }

    #[test]
    fn missing_paths_are_masked_where_they_could_be_created() {
        let (_d, root) = setup();
        std::fs::create_dir_all(root.join("home")).unwrap();
        // The work folder is the whole home: ~/.aws could be created in it.
        let m = plan(&[root.join("home")], &[root.join("home/.aws/credentials")]).unwrap();
        assert_eq!(m.hidden, [Mask::Folder(root.join("home/.aws"))]);
        assert_eq!(m.created, [root.join("home/.aws")]);
        // Read-only there: nothing could create it, so no mount.
        let m = plan(&[], &[root.join("home/.aws/credentials")]).unwrap();
        assert!(m.hidden.is_empty());
    }

    #[test]
    fn a_writable_path_inside_a_hidden_one_is_refused() {
        let (_d, root) = setup();
        std::fs::create_dir_all(root.join("home/.ssh/work")).unwrap();
        let err = plan(&[root.join("home/.ssh/work")], &[root.join("home/.ssh")]).unwrap_err();
        assert!(matches!(err, SealError::WritableIsHidden { .. }));
        // Through a link too.
        symlink(root.join("home/.ssh"), root.join("innocent")).unwrap();
        assert!(plan(&[root.join("innocent")], &[root.join("home/.ssh")]).is_err());
    }

    #[test]
    fn nested_masks_keep_only_the_outer_one() {
        let (_d, root) = setup();
        std::fs::create_dir_all(root.join("conch/browser")).unwrap();
        let m = plan(&[], &[root.join("conch"), root.join("conch/browser")]).unwrap();
        assert_eq!(m.hidden, [Mask::Folder(root.join("conch"))]);
    }
}
