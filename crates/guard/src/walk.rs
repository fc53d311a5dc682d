//! Walks (a search, a listing) check every entry they visit, not only where
//! they start: a walk that starts outside a protected place and reaches it
//! skips it. Checking an entry is one look-up of its folder and a compare
//! of its name with the few places directly in that folder, so a walk of a
//! large tree costs next to nothing more.
//!
//! The walker is expected to visit real paths: it starts from a resolved
//! folder and doesn't follow links (a link is reported, or resolved and
//! checked as a whole path, by the caller).

use std::collections::HashMap;

use crate::protect::{Protected, Why};

/// One place as seen from its folder.
#[derive(Debug, Clone)]
struct Entry {
    /// The exact name, or (for `*` places) the beginning of names.
    name: String,
    prefix: bool,
    why: Why,
}

/// The protected places a walk from one root could meet, by folder.
#[derive(Debug, Clone, Default)]
pub struct Walk {
    by_folder: HashMap<String, Vec<Entry>>,
}

fn split(path: &str) -> Option<(&str, &str)> {
    let (folder, name) = path.rsplit_once('/')?;
    Some((if folder.is_empty() { "/" } else { folder }, name))
}

impl Protected {
    /// What a walk starting at `root` (resolved) must skip.
    pub fn walk(&self, root: &str) -> Walk {
        let near = self.under(root);
        let mut walk = Walk::default();
        let mut add = |folder: &str, entry: Entry| {
            walk.by_folder
                .entry(folder.to_owned())
                .or_default()
                .push(entry);
        };
        for home in &near.conch_home {
            if let Some((folder, name)) = split(home) {
                add(
                    folder,
                    Entry {
                        name: name.to_owned(),
                        prefix: false,
                        why: Why::Conch,
                    },
                );
            }
        }
        for place in &near.keys {
            match &place.prefix {
                Some(prefix) => add(
                    &place.path,
                    Entry {
                        name: prefix.clone(),
                        prefix: true,
                        why: Why::Keys(place.what),
                    },
                ),
                None => {
                    if let Some((folder, name)) = split(&place.path) {
                        add(
                            folder,
                            Entry {
                                name: name.to_owned(),
                                prefix: false,
                                why: Why::Keys(place.what),
                            },
                        );
                    }
                }
            }
        }
        walk
    }
}

impl Walk {
    /// Why the entry `name` in `folder` (real, without a trailing `/`) must
    /// be skipped, if it must.
    pub fn skips(&self, folder: &str, name: &str) -> Option<Why> {
        let folder = if folder.is_empty() { "/" } else { folder };
        self.by_folder.get(folder)?.iter().find_map(|e| {
            let hit = if e.prefix {
                name.starts_with(e.name.as_str())
            } else {
                name == e.name
            };
            hit.then_some(e.why)
        })
    }

    /// Whether no entry anywhere needs skipping.
    pub fn is_empty(&self) -> bool {
        self.by_folder.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_agrees_with_the_whole_path_check() {
        let p = Protected::usual(Some("/home/ada"), "/home/ada/.conch");
        let walk = p.walk("/home/ada");
        // Every entry of a made-up tree: the walk skips exactly what the
        // whole-path check protects, at the first protected step.
        let tree = [
            "/home/ada/.ssh",
            "/home/ada/.conch",
            "/home/ada/.config",
            "/home/ada/.config/gh",
            "/home/ada/.config/git",
            "/home/ada/.config/git/credentials",
            "/home/ada/.config/git/config",
            "/home/ada/.cargo",
            "/home/ada/.cargo/credentials.toml",
            "/home/ada/.cargo/registry",
            "/home/ada/.npmrc",
            "/home/ada/project",
            "/home/ada/project/.npmrc",
            "/home/ada/.local/share/keyrings",
        ];
        for path in tree {
            let (folder, name) = split(path).unwrap();
            let parent_protected = p.protects(folder);
            if parent_protected {
                continue;
            }
            assert_eq!(
                walk.skips(folder, name).is_some(),
                p.protects(path),
                "{path}"
            );
        }
        assert!(p.walk("/home/ada/project").is_empty());
        assert!(!p.walk("/").is_empty());
    }
}
