//! What both apps keep the same way: `.env` files, skill folders (each
//! with a SKILL.md), and memories written as Markdown.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

use super::FoundSkill;

/// The most files, and bytes, one skill brings: the scanner reads at most
/// 60 files, and a skill is instructions, not a data set.
const MAX_SKILL_FILES: usize = 200;
const MAX_SKILL_BYTES: u64 = 20 * 1024 * 1024;

/// `KEY=value` lines (`export`, quotes and `#` comments as a shell reads
/// them in the simple cases these files use).
pub fn dotenv(text: &str) -> BTreeMap<String, Zeroizing<String>> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let value = value.trim();
        let value = if let Some(inner) = value
            .strip_prefix('"')
            .and_then(|v| v.rsplit_once('"').map(|(v, _)| v))
        {
            inner.replace("\\\"", "\"").replace("\\n", "\n")
        } else if let Some(inner) = value
            .strip_prefix('\'')
            .and_then(|v| v.rsplit_once('\'').map(|(v, _)| v))
        {
            inner.to_owned()
        } else {
            // Unquoted: a ` #` starts a comment.
            value.split(" #").next().unwrap_or("").trim().to_owned()
        };
        if !value.is_empty() {
            out.insert(key.to_owned(), Zeroizing::new(value));
        }
    }
    out
}

/// Every folder under `root` (to `depth` levels, links not followed) that
/// holds a SKILL.md, named by its folder; names made unique with `-2`….
pub fn find_skills(root: &Path, depth: usize, out: &mut Vec<FoundSkill>) {
    // A linked folder is somewhere else: not walked.
    if fs::symlink_metadata(root).map_or(true, |m| !m.is_dir()) {
        return;
    }
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let skill_md = dir.join("SKILL.md");
        let is_skill = fs::symlink_metadata(&skill_md).is_ok_and(|m| m.is_file());
        if is_skill {
            let base = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let base = super::provider_name(&base);
            let mut name = base.clone();
            let mut n = 2;
            while out.iter().any(|s| s.name == name) {
                name = format!("{base}-{n}");
                n += 1;
            }
            out.push(FoundSkill { name, dir });
        } else if depth > 1 {
            find_skills(&dir, depth - 1, out);
        }
    }
}

/// Copies a skill folder to `to` (which must not exist): plain files and
/// folders only, links left behind, each file 0600 (0700 when its owner
/// could run it). Returns the files left behind, in words.
pub fn copy_skill(from: &Path, to: &Path) -> io::Result<Vec<String>> {
    let mut left = Vec::new();
    let mut budget = (MAX_SKILL_FILES, MAX_SKILL_BYTES);
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(to.parent().unwrap_or(Path::new(".")))?;
    fs::DirBuilder::new().mode(0o700).create(to)?;
    copy_dir(from, to, "", &mut budget, &mut left)?;
    Ok(left)
}

fn copy_dir(
    from: &Path,
    to: &Path,
    rel: &str,
    budget: &mut (usize, u64),
    left: &mut Vec<String>,
) -> io::Result<()> {
    let mut entries: Vec<fs::DirEntry> = fs::read_dir(from)?.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let here = format!("{rel}{name}");
        let meta = fs::symlink_metadata(&path)?;
        if meta.file_type().is_symlink() {
            left.push(format!("{here} (a link)"));
        } else if meta.is_dir() {
            fs::DirBuilder::new().mode(0o700).create(to.join(&name))?;
            copy_dir(&path, &to.join(&name), &format!("{here}/"), budget, left)?;
        } else if meta.is_file() {
            if budget.0 == 0 || budget.1 < meta.len() {
                left.push(format!("{here} (the skill is too big to bring whole)"));
                continue;
            }
            budget.0 -= 1;
            budget.1 -= meta.len();
            use std::os::unix::fs::PermissionsExt;
            let mode = 0o600 | (meta.permissions().mode() & 0o100);
            let mut out = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(mode)
                .open(to.join(&name))?;
            io::copy(&mut fs::File::open(&path)?, &mut out)?;
        } else {
            left.push(format!("{here} (not a plain file)"));
        }
    }
    Ok(())
}

/// Memories in a Markdown file: entries separated by a line holding only
/// `§` (Hermes), else each list item or paragraph (OpenClaw); headings
/// are structure, not memories.
pub fn memories_in(text: &str) -> Vec<String> {
    let text = text.replace("\r\n", "\n");
    if text.lines().any(|l| l.trim() == "§") {
        return text
            .split('\n')
            .collect::<Vec<_>>()
            .split(|l| l.trim() == "§")
            .map(|lines| lines.join("\n").trim().to_owned())
            .filter(|m| !m.is_empty())
            .collect();
    }
    let mut out = Vec::new();
    let mut para: Vec<String> = Vec::new();
    let flush = |para: &mut Vec<String>, out: &mut Vec<String>| {
        let joined = para.join(" ").trim().to_owned();
        if !joined.is_empty() {
            out.push(joined);
        }
        para.clear();
    };
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t == "---" {
            flush(&mut para, &mut out);
            continue;
        }
        let item = t
            .strip_prefix("- ")
            .or_else(|| t.strip_prefix("* "))
            .or_else(|| t.strip_prefix("+ "));
        match item {
            Some(rest) => {
                flush(&mut para, &mut out);
                para.push(rest.trim().to_owned());
            }
            None => para.push(t.to_owned()),
        }
    }
    flush(&mut para, &mut out);
    out
}

/// The most one imported file may be: a config, a `.env`, a memory file.
const MOST_TEXT: u64 = 4 << 20;

/// The text of `path`, a plain file inside `root` reached through no link.
/// None when it isn't there. A link anywhere on the way (`.env` linked to
/// `~/.aws/credentials`, a `workspace` linked elsewhere), anything that
/// isn't a plain file, or a file too big, is said in `left` and not read:
/// an import reads the folder it was given, never what a link points at.
pub fn read_plain(root: &Path, path: &Path, left: &mut Vec<String>) -> Option<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let rel = path.strip_prefix(root).ok()?;
    let shown = rel.display().to_string();
    let mut at = root.to_path_buf();
    for part in rel.components() {
        at.push(part);
        let meta = fs::symlink_metadata(&at).ok()?;
        if meta.file_type().is_symlink() {
            left.push(format!(
                "{shown}: {} is a link, and an import reads files, never links, so it wasn't read.",
                at.strip_prefix(root).unwrap_or(&at).display()
            ));
            return None;
        }
    }
    let mut file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        left.push(format!("{shown} isn't a plain file, so it wasn't read."));
        return None;
    }
    if meta.len() > MOST_TEXT {
        left.push(format!(
            "{shown} is larger than {} MiB, so it wasn't read.",
            MOST_TEXT >> 20
        ));
        return None;
    }
    let mut text = String::new();
    file.by_ref()
        .take(MOST_TEXT)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotenv_as_shells_write_it() {
        let env = dotenv(
            "# keys\nexport OPENAI_API_KEY=sk-a # mine\nANTHROPIC_API_KEY=\"sk-ant \\\"q\\\"\"\nEMPTY=\nNOT A KEY=x\nTELEGRAM_BOT_TOKEN='12:ab#c'\n",
        );
        assert_eq!(env["OPENAI_API_KEY"].as_str(), "sk-a");
        assert_eq!(env["ANTHROPIC_API_KEY"].as_str(), "sk-ant \"q\"");
        assert_eq!(env["TELEGRAM_BOT_TOKEN"].as_str(), "12:ab#c");
        assert!(!env.contains_key("EMPTY"));
        assert_eq!(env.len(), 3);
    }

    #[test]
    fn memories_by_section_sign_or_by_item() {
        assert_eq!(
            memories_in("User prefers metric units.\n§\nProject uses pnpm,\nnot npm.\n§\n"),
            vec!["User prefers metric units.", "Project uses pnpm,\nnot npm."]
        );
        assert_eq!(
            memories_in("# Memory\n\n- Ada lives in Lyon — 里昂.\n- Likes tea\n  with lemon.\n\nA paragraph\nover two lines.\n"),
            vec!["Ada lives in Lyon — 里昂.", "Likes tea with lemon.", "A paragraph over two lines."]
        );
    }
}
