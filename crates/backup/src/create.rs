//! Making a backup: walk Conch's folder once, in a fixed order, and stream
//! every file that goes in straight into the (encrypted) archive.
//!
//! A consistent snapshot without stopping Conch:
//! - a log (`*.jsonl`, appended to in whole lines) is taken up to its last
//!   whole line at the moment it is opened;
//! - an artifact's folder is read under the same lock its writers take
//!   (shared, so writers wait and readers don't);
//! - every other file is replaced whole by a rename, so the open file is
//!   one version, read to the size it had when opened;
//! - temporary files being written are left out (see `classify`).

use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use age::secrecy::SecretString;
use vault::{Stored, Vault};

use crate::classify::{is_log, place, Place};
use crate::error::{io, BackupError};
use crate::format::{ArchiveWriter, Header, Keys, FORMAT};

/// The shortest passphrase a backup takes.
pub const MIN_PASSPHRASE: usize = 8;

/// scrypt's cost for a backup's passphrase: N = 2^18 (256 MiB, about a
/// third of a second here). age's own default measures the computer and
/// lands near 2^20, which is 1 GiB of memory to make or open a backup: too
/// much for the small servers Conch runs on. 2^18 is above OWASP's 2^17.
pub const SCRYPT_LOG_N: u8 = 18;

/// The most a backup may ask to be opened with: 2^20 (1 GiB), enough for
/// files made by `age -p` on a fast computer, and a bound on what a
/// crafted file can make a restore spend.
pub const SCRYPT_MAX_LOG_N: u8 = 20;

/// What went into a backup, and what was left out.
#[derive(Debug, Default, Clone)]
pub struct Made {
    pub files: u64,
    pub bytes: u64,
    pub chats: u64,
    pub artifacts: u64,
    pub keys: Vec<String>,
    /// Paths left out, with why.
    pub left_out: Vec<(String, &'static str)>,
    pub says: String,
}

/// What a sealed file starts with (`vault`'s format), to know a key file
/// anywhere without parsing it.
const SEALED_PREFIX: &[u8] = br#"{"sealed":"conch-system/"#;

fn says(keys: Keys) -> String {
    match keys {
        Keys::Carried => "Made with a passphrase: it carries your keys (provider keys, the key for signing skills, your password and access keys) open inside its encryption. This computer's own key stays here; a restore writes the keys, and the next start locks them with the new computer's key.".into(),
        Keys::LeftOut => "Made without a passphrase, so it holds no keys: provider keys, app tokens, the key for signing skills, your password and access keys were left out. After a restore, add them again (conch providers add …, conch setup).".into(),
    }
}

/// Makes a backup of `home` at `out`. With a passphrase it is an age file
/// (scrypt) and carries the keys open inside; without one it holds no key.
/// Written to a temporary file beside `out` and renamed into place, so a
/// failed backup leaves nothing behind.
pub fn create(
    home: &Path,
    out: &Path,
    passphrase: Option<&str>,
    vault: &Vault,
) -> Result<Made, BackupError> {
    if passphrase.is_some_and(|p| p.chars().count() < MIN_PASSPHRASE) {
        return Err(BackupError::WeakPassphrase);
    }
    if fs::symlink_metadata(out).is_ok() {
        return Err(BackupError::Exists(out.to_path_buf()));
    }
    let keys = if passphrase.is_some() {
        Keys::Carried
    } else {
        Keys::LeftOut
    };
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "backup".into());
    let temp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temp)
            .map_err(io(format!("{} can't be written", temp.display())))?;
        let made = match passphrase {
            Some(p) => {
                let mut recipient = age::scrypt::Recipient::new(SecretString::from(p.to_owned()));
                recipient.set_work_factor(SCRYPT_LOG_N);
                let encryptor = age::Encryptor::with_recipients(std::iter::once(
                    &recipient as &dyn age::Recipient,
                ))
                .map_err(|e| {
                    BackupError::Io(
                        "The backup can't be encrypted".into(),
                        std::io::Error::other(e.to_string()),
                    )
                })?;
                let stream = encryptor
                    .wrap_output(BufWriter::with_capacity(256 * 1024, file))
                    .map_err(io("The backup can't be encrypted"))?;
                let (stream, made) = write_all(home, stream, keys, vault)?;
                let inner = stream
                    .finish()
                    .map_err(io("The backup can't be finished"))?;
                finish_file(inner)?;
                made
            }
            None => {
                let (inner, made) = write_all(
                    home,
                    BufWriter::with_capacity(256 * 1024, file),
                    keys,
                    vault,
                )?;
                finish_file(inner)?;
                made
            }
        };
        // A link, not a rename: it fails rather than write over a file
        // that appeared meanwhile. Where links can't be made (a FAT
        // memory stick), a rename after one more look.
        match fs::hard_link(&temp, out) {
            Ok(()) => {
                let _ = fs::remove_file(&temp);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(BackupError::Exists(out.to_path_buf()));
            }
            Err(_) if fs::symlink_metadata(out).is_ok() => {
                return Err(BackupError::Exists(out.to_path_buf()));
            }
            Err(_) => {
                fs::rename(&temp, out).map_err(io(format!("{} can't be written", out.display())))?
            }
        }
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(io(format!("{} can't be written", out.display())))?;
        Ok(made)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

fn finish_file(inner: BufWriter<File>) -> Result<(), BackupError> {
    let file = inner
        .into_inner()
        .map_err(|e| BackupError::Io("The backup can't be written".into(), e.into_error()))?;
    file.sync_all().map_err(io("The backup can't be written"))
}

fn write_all<W: Write>(
    home: &Path,
    out: W,
    keys: Keys,
    vault: &Vault,
) -> Result<(W, Made), BackupError> {
    let header = Header {
        format: FORMAT.into(),
        created: protocol::format_rfc3339(std::time::SystemTime::now()),
        keys,
        says: says(keys),
    };
    let mut made = Made {
        says: header.says.clone(),
        ..Made::default()
    };
    let mut archive =
        ArchiveWriter::begin(out, &header).map_err(io("The backup can't be written"))?;
    walk(home, "", &mut archive, keys, vault, &mut made)?;
    let (out, _) = archive
        .finish()
        .map_err(io("The backup can't be written"))?;
    Ok((out, made))
}

/// Holds an artifact's lock (shared) while its folder is read.
struct Shared(#[allow(dead_code)] Option<File>);

impl Shared {
    fn take(dir: &Path) -> Shared {
        let Ok(file) = File::open(dir.join(".lock")) else {
            return Shared(None);
        };
        // SAFETY: flock on a descriptor we own; released when it closes.
        let _ = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH) };
        Shared(Some(file))
    }
}

fn sorted(dir: &Path) -> Result<Vec<fs::DirEntry>, BackupError> {
    let mut entries: Vec<fs::DirEntry> = fs::read_dir(dir)
        .map_err(io(format!("{} can't be read", dir.display())))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    Ok(entries)
}

fn walk<W: Write>(
    dir: &Path,
    prefix: &str,
    archive: &mut ArchiveWriter<W>,
    keys: Keys,
    vault: &Vault,
    made: &mut Made,
) -> Result<(), BackupError> {
    let _lock = (prefix.starts_with("artifacts/") && prefix.matches('/').count() == 2)
        .then(|| Shared::take(dir));
    for entry in sorted(dir)? {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = format!("{prefix}{name}");
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue; // gone since it was listed
        };
        let kind = place(&rel);
        if let Place::Out(why) = kind {
            made.left_out.push((rel, why));
            continue;
        }
        if meta.file_type().is_symlink() {
            made.left_out.push((rel, "links aren't followed"));
            continue;
        }
        if meta.is_dir() {
            if rel == "artifacts" {
                made.artifacts = sorted(&path)?.len() as u64;
            }
            if prefix == "chats/" {
                made.chats += 1;
            }
            walk(&path, &format!("{rel}/"), archive, keys, vault, made)?;
            continue;
        }
        if !meta.is_file() {
            made.left_out.push((rel, "not a plain file"));
            continue;
        }
        let mode = meta.permissions().mode() & 0o700;
        if kind == Place::Key {
            if keys == Keys::LeftOut {
                made.left_out
                    .push((rel, "a key, and the backup has no passphrase"));
                continue;
            }
            let plain = match vault.read(&rel) {
                Ok(Stored::Sealed(p)) | Ok(Stored::Clear(p)) => p,
                Ok(Stored::Missing) => continue,
                Err(e) => return Err(BackupError::Key(rel, e.to_string())),
            };
            archive
                .file(&rel, 0o600, plain.len() as u64, &plain[..])
                .map_err(io("The backup can't be written"))?;
            made.keys.push(rel);
            made.files += 1;
            made.bytes += plain.len() as u64;
            continue;
        }
        let Some((file, size)) = open_snapshot(&path, &rel)? else {
            continue;
        };
        let mut file = file;
        // A sealed file anywhere is a key under this computer's key: it
        // means nothing elsewhere, and never goes in without a passphrase.
        let mut head = [0u8; 64];
        let got = read_head(&mut file, &mut head)?;
        if head[..got].starts_with(SEALED_PREFIX) {
            made.left_out.push((rel, "sealed with this computer's key"));
            continue;
        }
        file.seek(SeekFrom::Start(0))
            .map_err(io(format!("{} can't be read", path.display())))?;
        archive
            .file(&rel, mode, size, file)
            .map_err(io(format!("{} can't be read whole", path.display())))?;
        made.files += 1;
        made.bytes += size;
    }
    Ok(())
}

fn read_head(file: &mut File, head: &mut [u8]) -> Result<usize, BackupError> {
    let mut got = 0;
    while got < head.len() {
        match file.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => return Err(BackupError::Io("A file can't be read".into(), e)),
        }
    }
    Ok(got)
}

/// The file open, with how much of it to take: a log up to its last whole
/// line, anything else as long as it was when opened.
fn open_snapshot(path: &Path, rel: &str) -> Result<Option<(File, u64)>, BackupError> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(BackupError::Io(
                format!("{} can't be read", path.display()),
                e,
            ))
        }
    };
    let len = file
        .metadata()
        .map(|m| m.size())
        .map_err(io(format!("{} can't be read", path.display())))?;
    if !is_log(rel) {
        return Ok(Some((file, len)));
    }
    let cut =
        last_line_end(&mut file, len).map_err(io(format!("{} can't be read", path.display())))?;
    Ok(Some((file, cut)))
}

/// Where the last whole line of the first `len` bytes ends (after its
/// newline), reading backwards a block at a time.
fn last_line_end(file: &mut File, len: u64) -> io::Result<u64> {
    const BLOCK: u64 = 64 * 1024;
    let mut end = len;
    let mut buf = vec![0u8; BLOCK as usize];
    while end > 0 {
        let start = end.saturating_sub(BLOCK);
        let n = (end - start) as usize;
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut buf[..n])?;
        if let Some(i) = buf[..n].iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// A backup's file name for now: `conch-2026-11-29-090000.backup`.
pub fn file_name(now: std::time::SystemTime) -> String {
    let t = protocol::format_rfc3339(now);
    // 2026-11-29T09:00:00.000Z → 2026-11-29-090000
    let date = t.get(..10).unwrap_or("backup");
    let time: String = t
        .get(11..19)
        .unwrap_or("")
        .chars()
        .filter(|c| *c != ':')
        .collect();
    format!("conch-{date}-{time}.backup")
}

/// Where a backup made into `dir` would go now.
pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(file_name(std::time::SystemTime::now()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_is_cut_at_its_last_whole_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, "one\ntwo\nthr").unwrap();
        let mut f = File::open(&path).unwrap();
        assert_eq!(last_line_end(&mut f, 11).unwrap(), 8);
        assert_eq!(last_line_end(&mut f, 3).unwrap(), 0);
        let big = "x".repeat(200_000) + "\n" + &"y".repeat(100_000);
        std::fs::write(&path, &big).unwrap();
        let mut f = File::open(&path).unwrap();
        assert_eq!(last_line_end(&mut f, big.len() as u64).unwrap(), 200_001);
    }

    #[test]
    fn names_sort_by_time() {
        assert_eq!(
            file_name(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_000_000)),
            "conch-2026-11-18-110640.backup"
        );
    }
}
