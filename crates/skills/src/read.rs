//! Reading a skill's folder for the scanner: no links followed (a link is
//! reported, and is itself a finding when it points outside), at most 60
//! files read, each up to a size limit, and every file hashed for the
//! fingerprint whatever its size. What wasn't read is listed, with why.

use std::io::Read as _;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

pub const MAX_FILES: usize = 60;
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Files hashed at most, for a folder that is really a whole disk.
const MAX_HASHED: usize = 10_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    /// Relative to the skill's folder, `/`-separated.
    pub path: String,
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkFound {
    pub path: String,
    pub target: String,
    /// It points outside the skill's folder.
    pub outside: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unread {
    pub path: String,
    pub why: String,
}

#[derive(Debug, Default)]
pub struct Folder {
    pub files: Vec<SkillFile>,
    pub links: Vec<LinkFound>,
    pub unread: Vec<Unread>,
    /// (path, sha256) of every file and link, for the fingerprint.
    pub hashes: Vec<(String, String)>,
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Where a link's target lands, lexically (without following anything).
fn lands(link: &Path, target: &Path) -> PathBuf {
    let base = if target.is_absolute() {
        PathBuf::from("/")
    } else {
        link.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let mut out = base;
    for c in target.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            Component::RootDir => out = PathBuf::from("/"),
            _ => {}
        }
    }
    out
}

fn hash_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Reads the skill at `root`.
pub fn read_folder(root: &Path) -> std::io::Result<Folder> {
    let root = root.canonicalize()?;
    let mut out = Folder::default();
    let mut stack = vec![root.clone()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)?.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.file_name()));
        for entry in entries {
            let path = entry.path();
            let rel = relative(&root, &path);
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let kind = meta.file_type();
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap_or_default();
                let landed = lands(&path, &target);
                let outside = !landed.starts_with(&root);
                let target_text = target.to_string_lossy().into_owned();
                out.hashes.push((
                    rel.clone(),
                    crate::fingerprint::file_hash(format!("link:{target_text}").as_bytes()),
                ));
                out.links.push(LinkFound {
                    path: rel,
                    target: target_text,
                    outside,
                });
            } else if kind.is_dir() {
                // Version control's own files aren't part of the skill.
                if entry.file_name() != ".git" {
                    stack.push(path);
                }
            } else if kind.is_file() {
                seen += 1;
                if seen <= MAX_HASHED {
                    if let Ok(h) = hash_file(&path) {
                        out.hashes.push((rel.clone(), h));
                    }
                }
                if out.files.len() >= MAX_FILES {
                    out.unread.push(Unread {
                        path: rel,
                        why: format!(
                            "more than {MAX_FILES} files; only the first {MAX_FILES} were read"
                        ),
                    });
                } else if meta.len() > MAX_FILE_BYTES {
                    out.unread.push(Unread {
                        path: rel,
                        why: format!(
                            "too big to read whole ({} bytes; the limit is {MAX_FILE_BYTES})",
                            meta.len()
                        ),
                    });
                } else {
                    match std::fs::read(&path) {
                        Ok(bytes) => out.files.push(SkillFile { path: rel, bytes }),
                        Err(e) => out.unread.push(Unread {
                            path: rel,
                            why: format!("can't be read ({e})"),
                        }),
                    }
                }
            } else {
                out.unread.push(Unread {
                    path: rel,
                    why: "not a regular file".into(),
                });
            }
        }
    }
    if seen > MAX_HASHED {
        out.hashes.push(("(more files)".into(), seen.to_string()));
    }
    Ok(out)
}

impl Folder {
    pub fn fingerprint(&self) -> String {
        crate::fingerprint::from_hashes(self.hashes.iter().map(|(p, h)| (p.as_str(), h.as_str())))
    }
}
