//! Restoring a backup: all of it or nothing.
//!
//! The archive streams into a folder beside the target (`.<name>.restoring-
//! <pid>`), checked file by file against the rule a backup is made by, and
//! only when its end line proves it whole are the files moved into place.
//! A wrong passphrase, a backup cut short or changed, or one holding what no
//! backup holds leaves the target exactly as it was.
//!
//! Keys come out open (the backup carried them open); the next start locks
//! them with this computer's own key (`lockIfClear`).

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use age::secrecy::SecretString;

use crate::classify::{place, Place};
use crate::error::{io, BackupError};
use crate::format::{read_archive, Keys, ReadError, MAGIC};

const AGE_MAGIC: &[u8] = b"age-encryption.org/";

/// What kind of file a backup is, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Locked {
    /// An age file: needs its passphrase.
    Passphrase,
    /// A backup without a passphrase (and without keys).
    No,
}

/// What a restore brought back.
#[derive(Debug, Clone)]
pub struct Restored {
    pub into: PathBuf,
    pub files: u64,
    pub bytes: u64,
    pub chats: u64,
    pub keys: Keys,
    pub says: String,
    pub created: String,
}

/// Whether `file` is a backup, and whether it needs a passphrase.
pub fn locked(file: &Path) -> Result<Locked, BackupError> {
    let mut head = [0u8; 32];
    let mut f = File::open(file).map_err(io(format!("{} can't be read", file.display())))?;
    let mut got = 0;
    while got < head.len() {
        let n = f
            .read(&mut head[got..])
            .map_err(io(format!("{} can't be read", file.display())))?;
        if n == 0 {
            break;
        }
        got += n;
    }
    if head[..got].starts_with(AGE_MAGIC) {
        Ok(Locked::Passphrase)
    } else if head[..got].starts_with(MAGIC) {
        Ok(Locked::No)
    } else {
        Err(BackupError::NotABackup(file.to_path_buf()))
    }
}

/// What in `home` a restore would mix with, in words (None: nothing). What
/// a backup never carries (this computer's key, a running Conch's own
/// files) and an empty `chats/` don't count.
pub fn already_there(home: &Path) -> Option<String> {
    let entries = fs::read_dir(home).ok()?;
    let mut chats = 0usize;
    let mut other: Vec<String> = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "chats" {
            chats = fs::read_dir(entry.path()).map(|d| d.count()).unwrap_or(0);
            continue;
        }
        if matches!(place(&name), Place::Out(_)) {
            continue;
        }
        other.push(name);
    }
    other.sort();
    let mut said = Vec::new();
    if chats > 0 {
        said.push(format!("{chats} chat{}", if chats == 1 { "" } else { "s" }));
    }
    if !other.is_empty() {
        let shown: Vec<String> = other.iter().take(4).cloned().collect();
        said.push(if other.len() > 4 {
            format!("{} and {} more", shown.join(", "), other.len() - 4)
        } else {
            shown.join(", ")
        });
    }
    (!said.is_empty()).then(|| said.join(" and "))
}

/// A folder beside `home` to restore into: `<home>-restored-<time>`.
pub fn beside(home: &Path) -> PathBuf {
    let name = home
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "conch".into());
    let stamp = crate::create::file_name(std::time::SystemTime::now())
        .trim_start_matches("conch-")
        .trim_end_matches(".backup")
        .to_owned();
    home.with_file_name(format!("{name}-restored-{stamp}"))
}

/// Restores `file` into `into`, which must not exist or hold nothing a
/// restore would mix with (see [`already_there`]).
pub fn restore(
    file: &Path,
    passphrase: Option<&str>,
    into: &Path,
) -> Result<Restored, BackupError> {
    let kind = locked(file)?;
    if let Some(found) = already_there(into) {
        return Err(BackupError::NotEmpty {
            home: into.to_path_buf(),
            found,
        });
    }
    let source = File::open(file).map_err(io(format!("{} can't be read", file.display())))?;
    let source = BufReader::with_capacity(256 * 1024, source);
    let parent = into
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(parent)
        .map_err(io(format!("{} can't be made", parent.display())))?;
    let name = into
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "conch".into());
    let staging = parent.join(format!(".{name}.restoring-{}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    fs::DirBuilder::new()
        .mode(0o700)
        .create(&staging)
        .map_err(io(format!("{} can't be made", staging.display())))?;
    let result = (|| {
        let mut restored = match kind {
            Locked::No => unpack(source, &staging, false)?,
            Locked::Passphrase => {
                let Some(pass) = passphrase else {
                    return Err(BackupError::NeedsPassphrase);
                };
                let decryptor = age::Decryptor::new_buffered(source).map_err(from_age)?;
                let mut identity = age::scrypt::Identity::new(SecretString::from(pass.to_owned()));
                identity.set_max_work_factor(crate::create::SCRYPT_MAX_LOG_N);
                let stream = decryptor
                    .decrypt(std::iter::once(&identity as &dyn age::Identity))
                    .map_err(from_age)?;
                unpack(BufReader::with_capacity(256 * 1024, stream), &staging, true)?
            }
        };
        // Checked again: something may have appeared while it streamed.
        if let Some(found) = already_there(into) {
            return Err(BackupError::NotEmpty {
                home: into.to_path_buf(),
                found,
            });
        }
        move_into_place(&staging, into)?;
        restored.into = into.to_path_buf();
        Ok(restored)
    })();
    let _ = fs::remove_dir_all(&staging);
    result
}

fn from_age(e: age::DecryptError) -> BackupError {
    match e {
        age::DecryptError::DecryptionFailed
        | age::DecryptError::NoMatchingKeys
        | age::DecryptError::KeyDecryptionFailed => BackupError::WrongPassphrase,
        age::DecryptError::ExcessiveWork { .. } => BackupError::Damaged(
            "it asks for far more work to open than a backup made by Conch".into(),
        ),
        age::DecryptError::Io(e) => BackupError::Damaged(format!("it can't be read ({e})")),
        other => BackupError::Damaged(format!("its encryption header is damaged ({other})")),
    }
}

/// `opened`: the archive was actually opened with a passphrase. Keys are
/// taken only then, whatever its header claims: a plain file's header is
/// the crafter's word.
fn unpack(from: impl BufRead, staging: &Path, opened: bool) -> Result<Restored, BackupError> {
    let mut seen = std::collections::HashSet::new();
    let mut chats = std::collections::HashSet::new();
    let outcome = read_archive(from, |header, entry| {
        // The same rule a backup is made by: what it wouldn't carry, a
        // restore doesn't take.
        let carried = match place(&entry.path) {
            Place::Carried => true,
            Place::Key => opened && header.keys == Keys::Carried,
            Place::Out(_) => false,
        };
        if !carried {
            return Err(ReadError::Damaged(format!(
                "it holds {}, which no Conch backup like it carries",
                entry.path.chars().take(200).collect::<String>()
            )));
        }
        if !seen.insert(entry.path.clone()) {
            return Err(ReadError::Damaged(format!("it holds {} twice", entry.path)));
        }
        if let Some(rest) = entry.path.strip_prefix("chats/") {
            if let Some((chat, _)) = rest.split_once('/') {
                chats.insert(chat.to_owned());
            }
        }
        let path = staging.join(&entry.path);
        if let Some(dir) = path.parent() {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(ReadError::Io)?;
        }
        // Files are the owner's alone; a program in a skill keeps its
        // owner's execute bit.
        let mode = 0o600 | (entry.mode & 0o100);
        let mut out = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&path)
            .map_err(ReadError::Io)?;
        let copied = io::copy(entry.data, &mut out)?;
        if copied != entry.size {
            return Err(ReadError::Damaged(format!("{} is cut short", entry.path)));
        }
        out.flush().map_err(ReadError::Io)?;
        Ok(())
    });
    match outcome {
        Ok((header, end)) => Ok(Restored {
            into: staging.to_path_buf(),
            files: end.files,
            bytes: end.bytes,
            chats: chats.len() as u64,
            keys: header.keys,
            says: header.says,
            created: header.created,
        }),
        Err(ReadError::NotABackup) => Err(BackupError::Damaged(
            "what is inside isn't a Conch backup".into(),
        )),
        Err(ReadError::Damaged(why)) => Err(BackupError::Damaged(why)),
        Err(ReadError::Io(e)) => Err(BackupError::Io(
            "Nothing was restored: its files can't be written".into(),
            e,
        )),
    }
}

/// Syncs every file and folder under `dir`, so the restore is on disk
/// before it is said to be done. fsync waits on the disk, not the CPU, so
/// several run at once: a restore of thousands of files is bound by how
/// many the disk takes together, not by one after another.
fn sync_tree(dir: &Path) -> io::Result<()> {
    const AT_ONCE: usize = 8;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    list_tree(dir, &mut files, &mut dirs)?;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed: std::sync::Mutex<Option<io::Error>> = std::sync::Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..AT_ONCE.min(files.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(path) = files.get(i) else {
                    break;
                };
                if let Err(e) = File::open(path).and_then(|f| f.sync_all()) {
                    if let Ok(mut slot) = failed.lock() {
                        slot.get_or_insert(e);
                    }
                    break;
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().ok().flatten() {
        return Err(e);
    }
    // Folders after what is in them, deepest first.
    for d in dirs.iter().rev() {
        File::open(d)?.sync_all()?;
    }
    Ok(())
}

fn list_tree(dir: &Path, files: &mut Vec<PathBuf>, dirs: &mut Vec<PathBuf>) -> io::Result<()> {
    dirs.push(dir.to_path_buf());
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            list_tree(&entry.path(), files, dirs)?;
        } else {
            files.push(entry.path());
        }
    }
    Ok(())
}

/// Moves what was unpacked into `into`: the whole folder when `into` isn't
/// there, else each top-level entry (`into` holds only what a backup never
/// carries, and maybe an empty `chats/`).
fn move_into_place(staging: &Path, into: &Path) -> Result<(), BackupError> {
    let failed = io("The restored files can't be moved into place");
    sync_tree(staging).map_err(io("The restored files can't be written"))?;
    if !into.exists() {
        fs::rename(staging, into).map_err(failed)?;
    } else {
        for entry in fs::read_dir(staging).map_err(io("The restore can't be read"))? {
            let entry = entry.map_err(io("The restore can't be read"))?;
            let to = into.join(entry.file_name());
            if to.is_dir()
                && fs::read_dir(&to)
                    .map(|mut d| d.next().is_none())
                    .unwrap_or(false)
            {
                let _ = fs::remove_dir(&to);
            }
            fs::rename(entry.path(), &to)
                .map_err(io(format!("{} can't be restored", to.display())))?;
        }
    }
    let parent = into.parent().unwrap_or(Path::new("."));
    File::open(into)
        .and_then(|d| d.sync_all())
        .and_then(|()| File::open(parent).and_then(|d| d.sync_all()))
        .map_err(io("The restore can't be written"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{ArchiveWriter, Header, FORMAT};

    /// An age file locked with `pass` at scrypt cost 2^`log_n`, holding one
    /// chat.
    fn locked_backup(pass: &str, log_n: u8) -> Vec<u8> {
        let mut recipient = age::scrypt::Recipient::new(SecretString::from(pass.to_owned()));
        recipient.set_work_factor(log_n);
        let encryptor =
            age::Encryptor::with_recipients(std::iter::once(&recipient as &dyn age::Recipient))
                .unwrap();
        let mut out = Vec::new();
        let stream = encryptor.wrap_output(&mut out).unwrap();
        let header = Header {
            format: FORMAT.into(),
            created: "2026-11-29T09:00:00.000Z".into(),
            keys: Keys::Carried,
            says: "test".into(),
        };
        let mut w = ArchiveWriter::begin(stream, &header).unwrap();
        w.file("chats/a/log.jsonl", 0o600, 3, &b"{}\n"[..]).unwrap();
        let (stream, _) = w.finish().unwrap();
        stream.finish().unwrap();
        out
    }

    #[test]
    fn a_backup_asking_for_more_work_than_any_conch_makes_is_refused_before_it_costs() {
        let tmp = tempfile::tempdir().unwrap();
        let good = locked_backup("a good passphrase", 10);
        let file = tmp.path().join("good.backup");
        std::fs::write(&file, &good).unwrap();
        let restored = restore(&file, Some("a good passphrase"), &tmp.path().join("a")).unwrap();
        assert_eq!(restored.files, 1);
        // The same file, its stanza asking for 2^30 (128 GiB of memory).
        let text = String::from_utf8_lossy(&good).into_owned();
        let at = text.find(" 10\n").unwrap();
        let mut bad = good.clone();
        bad.splice(at..at + 4, b" 30\n".iter().copied());
        let file = tmp.path().join("bad.backup");
        std::fs::write(&file, &bad).unwrap();
        let err = restore(&file, Some("a good passphrase"), &tmp.path().join("b")).unwrap_err();
        assert!(err.to_string().contains("far more work"), "{err}");
        assert!(!tmp.path().join("b").exists());
    }
}
