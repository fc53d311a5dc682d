//! Reading, listing, searching, writing and editing files. Each works on the
//! path as it was classified (already resolved), so the file judged is the
//! file touched.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::toolbox::Outcome;

/// Text a read returns at most.
pub const MAX_READ: usize = 256 * 1024;
/// Entries a listing returns at most.
const MAX_LIST: usize = 1000;
/// Matching lines a search returns at most.
const MAX_MATCHES: usize = 200;
/// Files a search looks at, and the largest it reads.
const MAX_SEARCH_FILES: usize = 20_000;
const MAX_SEARCH_FILE_BYTES: u64 = 1024 * 1024;
/// Folders a search doesn't go into: tools' caches, not the project.
const SKIP_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    ".venv",
    "__pycache__",
    "dist",
    ".cache",
];
/// How much of a diff a change reports.
const MAX_DIFF: usize = 20_000;

fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8192)].contains(&0)
}

pub fn read_file(path: &Path) -> Outcome {
    let shown = path.display();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Outcome::failed(format!(
                "There's no file at {shown}. List the folder to see what's there."
            ))
        }
        Err(e) => return Outcome::failed(format!("{shown} can't be read: {e}.")),
    };
    if meta.is_dir() {
        return Outcome::failed(format!(
            "{shown} is a folder. Use list_files to see inside it."
        ));
    }
    let mut bytes = Vec::new();
    let read =
        std::fs::File::open(path).and_then(|f| f.take(MAX_READ as u64 + 1).read_to_end(&mut bytes));
    if let Err(e) = read {
        return Outcome::failed(format!("{shown} can't be read: {e}."));
    }
    if looks_binary(&bytes) {
        return Outcome::failed(format!(
            "{shown} is a binary file ({} bytes); it can't be shown as text.",
            meta.len()
        ));
    }
    let truncated = bytes.len() > MAX_READ;
    bytes.truncate(MAX_READ);
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if truncated {
        text.push_str(&format!(
            "\n\n[The file is {} bytes; only the first {MAX_READ} are shown.]",
            meta.len()
        ));
    }
    Outcome::ok(
        text,
        Some(json!({ "path": path, "bytes": meta.len(), "truncated": truncated })),
    )
}

pub fn list_files(path: &Path) -> Outcome {
    let shown = path.display();
    let entries = match std::fs::read_dir(path) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Outcome::failed(format!("There's no folder at {shown}."))
        }
        Err(e) => return Outcome::failed(format!("{shown} can't be listed: {e}.")),
    };
    let mut rows: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            match entry.file_type() {
                Ok(t) if t.is_dir() => format!("{name}/"),
                Ok(t) if t.is_symlink() => format!("{name} (link)"),
                _ => {
                    let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                    format!("{name} ({size} bytes)")
                }
            }
        })
        .collect();
    rows.sort();
    let total = rows.len();
    rows.truncate(MAX_LIST);
    let mut text = if total == 0 {
        format!("{shown} is empty.")
    } else {
        rows.join("\n")
    };
    if total > MAX_LIST {
        text.push_str(&format!(
            "\n[{total} entries; the first {MAX_LIST} are shown.]"
        ));
    }
    Outcome::ok(text, Some(json!({ "path": path, "entries": total })))
}

pub fn search_files(pattern: &str, root: &Path, work: &Path) -> Outcome {
    let regex = match regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            return Outcome::failed(format!(
                "\"{pattern}\" isn't a regular expression this can use: {e}"
            ))
        }
    };
    let mut matches = Vec::new();
    let mut files = 0usize;
    let mut stack: Vec<PathBuf> = vec![root.to_path_buf()];
    let mut more = false;
    'walk: while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.file_name()));
        for entry in entries {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                let name = entry.file_name();
                if !SKIP_DIRS.iter().any(|s| name == *s) {
                    stack.push(path);
                }
                continue;
            }
            if !kind.is_file() {
                continue;
            }
            files += 1;
            if files > MAX_SEARCH_FILES {
                more = true;
                break 'walk;
            }
            if entry.metadata().map(|m| m.len()).unwrap_or(0) > MAX_SEARCH_FILE_BYTES {
                continue;
            }
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            if looks_binary(&bytes) {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            let shown = path
                .strip_prefix(work)
                .unwrap_or(&path)
                .display()
                .to_string();
            for (n, line) in text.lines().enumerate() {
                if regex.is_match(line) {
                    if matches.len() == MAX_MATCHES {
                        more = true;
                        break 'walk;
                    }
                    let line: String = line.chars().take(300).collect();
                    matches.push(format!("{shown}:{}: {line}", n + 1));
                }
            }
        }
    }
    let mut text = if matches.is_empty() {
        format!("Nothing under {} matches \"{pattern}\".", root.display())
    } else {
        matches.join("\n")
    };
    if more {
        text.push_str("\n[There are more matches; narrow the search.]");
    }
    Outcome::ok(
        text,
        Some(json!({ "path": root, "matches": matches.len() })),
    )
}

fn diff(path: &Path, old: &str, new: &str) -> String {
    let name = path.display().to_string();
    let mut text = similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string();
    if text.len() > MAX_DIFF {
        let mut cut = MAX_DIFF;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("\n[…]");
    }
    text
}

fn existing_text(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{} can't be read: {e}.", path.display())),
    }
}

pub fn write_file(path: &Path, content: &str) -> Outcome {
    if path.is_dir() {
        return Outcome::failed(format!("{} is a folder, not a file.", path.display()));
    }
    let before = match existing_text(path) {
        Ok(b) => b,
        Err(e) => return Outcome::failed(e),
    };
    if let Some(parent) = path.parent() {
        if let Err(e) = std::fs::create_dir_all(parent) {
            return Outcome::failed(format!(
                "The folder {} can't be made: {e}.",
                parent.display()
            ));
        }
    }
    if let Err(e) = std::fs::write(path, content) {
        return Outcome::failed(format!("{} can't be written: {e}.", path.display()));
    }
    let verb = if before.is_some() {
        "Replaced"
    } else {
        "Created"
    };
    Outcome::ok(
        format!("{verb} {} ({} bytes).", path.display(), content.len()),
        Some(json!({
            "path": path,
            "created": before.is_none(),
            "diff": diff(path, before.as_deref().unwrap_or(""), content),
        })),
    )
}

pub fn edit_file(path: &Path, old: &str, new: &str) -> Outcome {
    let shown = path.display();
    let before = match existing_text(path) {
        Ok(Some(b)) => b,
        Ok(None) => {
            return Outcome::failed(format!(
                "There's no file at {shown}. Use write_file to create it."
            ))
        }
        Err(e) => return Outcome::failed(e),
    };
    if old.is_empty() {
        return Outcome::failed(
            "The text to replace is empty. Copy the exact lines to change from the file.",
        );
    }
    match before.matches(old).count() {
        0 => Outcome::failed(format!(
            "The text to replace isn't in {shown}. Read the file again and copy the exact text, whitespace included."
        )),
        1 => {
            let after = before.replacen(old, new, 1);
            if let Err(e) = std::fs::write(path, &after) {
                return Outcome::failed(format!("{shown} can't be written: {e}."));
            }
            Outcome::ok(
                format!("Edited {shown}."),
                Some(json!({ "path": path, "diff": diff(path, &before, &after) })),
            )
        }
        n => Outcome::failed(format!(
            "The text to replace appears {n} times in {shown}. Include more of the lines around it so it appears once."
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_list_and_search() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.txt"), "alpha\nbeta\n").unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/b.rs"), "fn beta() {}\n").unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/c"), "beta\n").unwrap();
        std::fs::write(root.join("bin"), b"\0\x01beta").unwrap();

        let r = read_file(&root.join("a.txt"));
        assert!(r.ok && r.output == "alpha\nbeta\n");
        assert!(read_file(&root.join("bin")).output.contains("binary file"));
        assert!(read_file(&root.join("nope"))
            .output
            .contains("There's no file"));
        assert!(read_file(&root.join("sub")).output.contains("is a folder"));

        let l = list_files(root);
        assert!(
            l.output.contains("a.txt (11 bytes)") && l.output.contains("sub/"),
            "{}",
            l.output
        );

        let s = search_files("beta", root, root);
        assert_eq!(
            s.output, "a.txt:2: beta\nsub/b.rs:1: fn beta() {}",
            "skips .git and binaries"
        );
        assert!(search_files("(", root, root)
            .output
            .contains("isn't a regular expression"));
        assert!(search_files("zeta", root, root)
            .output
            .starts_with("Nothing under"));
    }

    #[test]
    fn a_big_file_is_cut_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big");
        std::fs::write(&p, "x".repeat(MAX_READ + 10)).unwrap();
        let r = read_file(&p);
        assert!(r
            .output
            .ends_with(&format!("only the first {MAX_READ} are shown.]")));
    }

    #[test]
    fn write_and_edit_with_diffs() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("new/dir/f.txt");
        let w = write_file(&p, "one\ntwo\n");
        assert!(w.ok && w.output.starts_with("Created"), "{}", w.output);
        let e = edit_file(&p, "two", "TWO");
        assert!(e.ok);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "one\nTWO\n");
        let diff = e.detail.unwrap()["diff"].as_str().unwrap().to_owned();
        assert!(diff.contains("-two\n+TWO"), "{diff}");
        assert!(edit_file(&p, "zzz", "y").output.contains("isn't in"));
        write_file(&p, "a a").ok.then_some(()).unwrap();
        assert!(edit_file(&p, "a", "b").output.contains("appears 2 times"));
        assert!(edit_file(&dir.path().join("missing"), "a", "b")
            .output
            .contains("There's no file"));
        assert!(write_file(dir.path(), "x").output.contains("is a folder"));
    }
}
