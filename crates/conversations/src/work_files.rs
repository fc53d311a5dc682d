//! The work folder's files as a command may have changed them: walked
//! without following links, leaving out what tools keep for themselves
//! (rebuilt at will), up to a bound so a huge folder can't hold a turn up.
//! Both the marks ledger and undo look at a command's writes this way.

use std::path::{Path, PathBuf};

/// Folders not looked in: what tools keep for themselves, rebuilt at will.
pub(crate) const NOT_LOOKED_IN: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    ".venv",
    "__pycache__",
    ".cache",
];

/// The most entries looked at in one walk.
pub(crate) const MOST_LOOKED_AT: usize = 20_000;

/// Calls `each` with every plain file under `work` and its metadata.
/// False when the walk stopped at [`MOST_LOOKED_AT`].
pub(crate) fn each_file(work: &Path, mut each: impl FnMut(PathBuf, &std::fs::Metadata)) -> bool {
    let mut seen = 0usize;
    let mut stack = vec![(work.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MOST_LOOKED_AT {
                return false;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                let name = entry.file_name();
                if depth < 12 && !NOT_LOOKED_IN.iter().any(|n| name == *n) {
                    stack.push((path, depth + 1));
                }
            } else if kind.is_file() {
                if let Ok(meta) = entry.metadata() {
                    each(path, &meta);
                }
            }
        }
    }
    true
}
