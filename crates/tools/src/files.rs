//! Reading, listing, searching, writing and editing files. Each works on the
//! path as it was classified (already resolved), so the file judged is the
//! file touched.

use std::io::Read;
use std::path::{Path, PathBuf};

use guard::{Protected, Why};
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

/// The sentence that refuses a protected path to a file tool.
pub fn refusal(shown: &dyn std::fmt::Display, why: Why) -> String {
    match why {
        Why::Conch => format!(
            "{shown} is in Conch's own folder, which the assistant never touches. Don't try another way; ask the owner if it's needed."
        ),
        Why::Keys(what) => format!(
            "{shown} is where {what} are kept, which the assistant never reads. Don't try another way; ask the owner if it's needed."
        ),
    }
}

/// Where an open file really is, as the kernel names it: after every link,
/// `..` and `/proc/*/root` the path went through.
fn real_path_of(file: &std::fs::File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

/// The protection that applies to what was opened, checked on the open file
/// itself so a link swapped in after the call was judged still can't lead
/// the read somewhere protected.
fn opened_is_protected(file: &std::fs::File, path: &Path, protected: &Protected) -> Option<Why> {
    let real = real_path_of(file).unwrap_or_else(|| path.to_path_buf());
    protected
        .why(&real.to_string_lossy())
        .or_else(|| protected.why(&path.to_string_lossy()))
}

pub fn read_file(path: &Path, protected: &Protected) -> Outcome {
    let shown = path.display();
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Outcome::failed(format!(
                "There's no file at {shown}. List the folder to see what's there."
            ))
        }
        Err(e) => return Outcome::failed(format!("{shown} can't be read: {e}.")),
    };
    if let Some(why) = opened_is_protected(&file, path, protected) {
        return Outcome::failed(refusal(&shown, why));
    }
    let meta = match file.metadata() {
        Ok(m) => m,
        Err(e) => return Outcome::failed(format!("{shown} can't be read: {e}.")),
    };
    if meta.is_dir() {
        return Outcome::failed(format!(
            "{shown} is a folder. Use list_files to see inside it."
        ));
    }
    let mut bytes = Vec::new();
    if let Err(e) = file.take(MAX_READ as u64 + 1).read_to_end(&mut bytes) {
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

/// Whether `dir` holds the kernel's own files rather than anyone's (proc,
/// sysfs, debugfs…): reading those can block forever or change the system,
/// and they hold nothing a search is for.
fn is_kernel_filesystem(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    const KERNEL: &[i64] = &[
        0x9fa0,      // proc
        0x6265_6572, // sysfs
        0x6462_6720, // debugfs
        0x7472_6163, // tracefs
        0x0027_e0eb, // cgroup
        0x6367_7270, // cgroup2
        0x7363_6673, // securityfs
        0xcafe_4a11, // bpf
        0x6165_676c, // pstore
        0x6265_6570, // configfs
        0x6573_5543, // fusectl
        0x1cd1,      // devpts
        0x4249_4e4d, // binfmt_misc
        0xde5e_81e4, // efivarfs
        0xf97c_ff8c, // selinuxfs
    ];
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return true;
    };
    // SAFETY: `statfs` is plain old data that the kernel fills in; zeroed
    // is a valid value for it, and `c` is a NUL-terminated path that
    // outlives the call.
    let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: see above; `stat` is a valid, writable statfs.
    if unsafe { libc::statfs(c.as_ptr(), &mut stat) } != 0 {
        return false;
    }
    #[allow(clippy::unnecessary_cast)]
    let kind = stat.f_type as i64;
    KERNEL.contains(&kind)
}

/// The line that says a walk left protected places out.
fn skipped_line(skipped: usize) -> String {
    let places = if skipped == 1 { "place" } else { "places" };
    format!("[Left out {skipped} protected {places} (where keys are kept, or Conch's own folder): the assistant never reads them.]")
}

pub fn list_files(path: &Path, protected: &Protected) -> Outcome {
    let shown = path.display();
    let real = crate::paths::resolve(Path::new("/"), &path.to_string_lossy())
        .unwrap_or_else(|_| path.to_path_buf());
    let real_text = real.to_string_lossy().into_owned();
    if let Some(why) = protected.why(&real_text) {
        return Outcome::failed(refusal(&shown, why));
    }
    let walk = protected.walk(&real_text);
    let entries = match std::fs::read_dir(&real) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Outcome::failed(format!("There's no folder at {shown}."))
        }
        Err(e) => return Outcome::failed(format!("{shown} can't be listed: {e}.")),
    };
    let mut skipped = 0usize;
    let mut rows: Vec<String> = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if walk.skips(&real_text, &name).is_some() {
            skipped += 1;
            continue;
        }
        let row = match entry.file_type() {
            Ok(t) if t.is_dir() => format!("{name}/"),
            Ok(t) if t.is_symlink() => {
                // A link into a protected place is left out like the place.
                let target = crate::paths::resolve(&real, &name).ok();
                if target.is_some_and(|t| protected.protects(&t.to_string_lossy())) {
                    skipped += 1;
                    continue;
                }
                format!("{name} (link)")
            }
            _ => {
                let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                format!("{name} ({size} bytes)")
            }
        };
        rows.push(row);
    }
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
    if skipped > 0 {
        text.push('\n');
        text.push_str(&skipped_line(skipped));
    }
    Outcome::ok(
        text,
        Some(json!({ "path": path, "entries": total, "skipped": skipped })),
    )
}

pub fn search_files(pattern: &str, root: &Path, work: &Path, protected: &Protected) -> Outcome {
    let root_real = crate::paths::resolve(Path::new("/"), &root.to_string_lossy())
        .unwrap_or_else(|_| root.to_path_buf());
    if let Some(why) = protected.why(&root_real.to_string_lossy()) {
        return Outcome::failed(refusal(&root.display(), why));
    }
    let walk = protected.walk(&root_real.to_string_lossy());
    let mut skipped = 0usize;
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
    let mut stack: Vec<PathBuf> = vec![root_real];
    let mut more = false;
    'walk: while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let dir_text = dir.to_string_lossy().into_owned();
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.file_name()));
        for entry in entries {
            // Links aren't followed, so every path here is real: checking
            // its folder and name is checking the whole path.
            if !walk.is_empty()
                && walk
                    .skips(&dir_text, &entry.file_name().to_string_lossy())
                    .is_some()
            {
                skipped += 1;
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                let name = entry.file_name();
                if !SKIP_DIRS.iter().any(|s| name == *s) && !is_kernel_filesystem(&path) {
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
            // Empty files have nothing to find; what the kernel shows as an
            // empty file (`/proc/kmsg`) may never finish being read.
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            if size == 0 || size > MAX_SEARCH_FILE_BYTES {
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
    if skipped > 0 {
        text.push('\n');
        text.push_str(&skipped_line(skipped));
    }
    Outcome::ok(
        text,
        Some(json!({ "path": root, "matches": matches.len(), "skipped": skipped })),
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

/// A change's path checked again just before it is made: a link swapped in
/// since the call was judged can't lead it somewhere protected.
fn change_refused(path: &Path, protected: &Protected) -> Option<String> {
    let real = crate::paths::resolve(Path::new("/"), &path.to_string_lossy()).ok()?;
    protected
        .why(&real.to_string_lossy())
        .map(|why| refusal(&path.display(), why))
}

pub fn write_file(path: &Path, content: &str, protected: &Protected) -> Outcome {
    if let Some(sentence) = change_refused(path, protected) {
        return Outcome::failed(sentence);
    }
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

pub fn edit_file(path: &Path, old: &str, new: &str, protected: &Protected) -> Outcome {
    if let Some(sentence) = change_refused(path, protected) {
        return Outcome::failed(sentence);
    }
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

    fn none() -> Protected {
        Protected::default()
    }

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

        let r = read_file(&root.join("a.txt"), &none());
        assert!(r.ok && r.output == "alpha\nbeta\n");
        assert!(read_file(&root.join("bin"), &none())
            .output
            .contains("binary file"));
        assert!(read_file(&root.join("nope"), &none())
            .output
            .contains("There's no file"));
        assert!(read_file(&root.join("sub"), &none())
            .output
            .contains("is a folder"));

        let l = list_files(root, &none());
        assert!(
            l.output.contains("a.txt (11 bytes)") && l.output.contains("sub/"),
            "{}",
            l.output
        );

        let s = search_files("beta", root, root, &none());
        assert_eq!(
            s.output, "a.txt:2: beta\nsub/b.rs:1: fn beta() {}",
            "skips .git and binaries"
        );
        assert!(search_files("(", root, root, &none())
            .output
            .contains("isn't a regular expression"));
        assert!(search_files("zeta", root, root, &none())
            .output
            .starts_with("Nothing under"));
    }

    #[test]
    fn a_big_file_is_cut_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big");
        std::fs::write(&p, "x".repeat(MAX_READ + 10)).unwrap();
        let r = read_file(&p, &none());
        assert!(r
            .output
            .ends_with(&format!("only the first {MAX_READ} are shown.]")));
    }

    #[test]
    fn write_and_edit_with_diffs() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("new/dir/f.txt");
        let w = write_file(&p, "one\ntwo\n", &none());
        assert!(w.ok && w.output.starts_with("Created"), "{}", w.output);
        let e = edit_file(&p, "two", "TWO", &none());
        assert!(e.ok);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "one\nTWO\n");
        let diff = e.detail.unwrap()["diff"].as_str().unwrap().to_owned();
        assert!(diff.contains("-two\n+TWO"), "{diff}");
        assert!(edit_file(&p, "zzz", "y", &none())
            .output
            .contains("isn't in"));
        write_file(&p, "a a", &none()).ok.then_some(()).unwrap();
        assert!(edit_file(&p, "a", "b", &none())
            .output
            .contains("appears 2 times"));
        assert!(edit_file(&dir.path().join("missing"), "a", "b", &none())
            .output
            .contains("There's no file"));
        assert!(write_file(dir.path(), "x", &none())
            .output
            .contains("is a folder"));
    }
}
