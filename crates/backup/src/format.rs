//! The archive inside a backup: streamed, one file after another, never
//! held whole.
//!
//! ```text
//! conch-backup/1\n
//! {"format":"conch-backup/1","created":"…","keys":"carried"|"left-out","says":"…"}\n
//! {"file":"chats/k3v9/log.jsonl","size":1234,"mode":384}\n <1234 bytes> \n
//! …
//! {"end":{"files":N,"bytes":M,"sha256":"<hex>"}}\n
//! ```
//!
//! `sha256` is over every byte before the `end` line, so a backup cut short
//! (no `end`) or changed (another hash) is refused whole. Without a
//! passphrase that is all the protection there is: it catches damage, not
//! someone who rewrites the hash too. With a passphrase the archive is
//! inside age's authenticated stream as well.

use std::io::{self, BufRead, Read, Write};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub const MAGIC: &[u8] = b"conch-backup/1\n";
pub const FORMAT: &str = "conch-backup/1";
/// The longest record line a reader takes (a path, a size, a mode).
const MAX_LINE: usize = 64 * 1024;

/// Whether the backup carries keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Keys {
    /// Open, inside a passphrase-locked backup.
    Carried,
    /// Left out: the backup has no passphrase.
    LeftOut,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub format: String,
    pub created: String,
    pub keys: Keys,
    /// In words, what it holds and what it doesn't.
    pub says: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct End {
    pub files: u64,
    pub bytes: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
enum Record {
    File { file: String, size: u64, mode: u32 },
    End { end: End },
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes an archive to `out`, hashing as it goes.
pub struct ArchiveWriter<W: Write> {
    out: W,
    hash: Sha256,
    files: u64,
    bytes: u64,
}

impl<W: Write> ArchiveWriter<W> {
    pub fn begin(out: W, header: &Header) -> io::Result<ArchiveWriter<W>> {
        let mut w = ArchiveWriter {
            out,
            hash: Sha256::new(),
            files: 0,
            bytes: 0,
        };
        w.put(MAGIC)?;
        w.line(&serde_json::to_vec(header).map_err(io::Error::other)?)?;
        Ok(w)
    }

    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.hash.update(bytes);
        self.out.write_all(bytes)
    }

    fn line(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.put(bytes)?;
        self.put(b"\n")
    }

    /// One file: exactly `size` bytes from `from`. A source that ends
    /// early is an error (it changed while it was read).
    pub fn file(&mut self, path: &str, mode: u32, size: u64, from: impl Read) -> io::Result<()> {
        let record = Record::File {
            file: path.to_owned(),
            size,
            mode,
        };
        self.line(&serde_json::to_vec(&record).map_err(io::Error::other)?)?;
        let mut from = from.take(size);
        let mut buf = vec![0u8; 64 * 1024];
        let mut left = size;
        while left > 0 {
            let n = from.read(&mut buf)?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("{path} got shorter while it was read"),
                ));
            }
            self.put(&buf[..n])?;
            left -= n as u64;
        }
        self.put(b"\n")?;
        self.files += 1;
        self.bytes += size;
        Ok(())
    }

    /// Writes the end line; returns what is underneath.
    pub fn finish(mut self) -> io::Result<(W, End)> {
        let end = End {
            files: self.files,
            bytes: self.bytes,
            sha256: hex(&self.hash.clone().finalize()),
        };
        let line =
            serde_json::to_vec(&Record::End { end: end.clone() }).map_err(io::Error::other)?;
        self.out.write_all(&line)?;
        self.out.write_all(b"\n")?;
        self.out.flush()?;
        Ok((self.out, end))
    }
}

/// Why an archive can't be read.
#[derive(Debug)]
pub enum ReadError {
    NotABackup,
    /// Damaged, cut short or changed: the reason in words.
    Damaged(String),
    Io(io::Error),
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        // age reports a cut or changed stream as an I/O error.
        match e.kind() {
            io::ErrorKind::UnexpectedEof => ReadError::Damaged("it ends too soon".into()),
            io::ErrorKind::InvalidData => ReadError::Damaged(e.to_string()),
            _ => ReadError::Io(e),
        }
    }
}

/// Hashes what is read through it.
struct Hashing<R> {
    inner: R,
    hash: Sha256,
}

impl<R: BufRead> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Hashing<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        if let Ok(buf) = self.inner.fill_buf() {
            let n = amt.min(buf.len());
            self.hash.update(&buf[..n]);
        }
        self.inner.consume(amt);
    }
}

/// One file as it streams out of the archive.
pub struct Entry<'a> {
    pub path: String,
    pub mode: u32,
    pub size: u64,
    pub data: &'a mut dyn Read,
}

/// Reads an archive, handing each file to `each` as a stream, and checks
/// the end line. `each` must read its entry whole (or fail).
pub fn read_archive<R: BufRead>(
    from: R,
    mut each: impl FnMut(&Header, Entry<'_>) -> Result<(), ReadError>,
) -> Result<(Header, End), ReadError> {
    let mut r = Hashing {
        inner: from,
        hash: Sha256::new(),
    };
    let mut magic = [0u8; 15];
    let got = read_up_to(&mut r, &mut magic)?;
    if got < MAGIC.len() || magic != MAGIC {
        return Err(ReadError::NotABackup);
    }
    let header: Header = serde_json::from_slice(&line(&mut r)?)
        .map_err(|_| ReadError::Damaged("its first line isn't a backup's".into()))?;
    if header.format != FORMAT {
        return Err(ReadError::Damaged(format!(
            "it is a {} backup, which this Conch doesn't know",
            header.format
        )));
    }
    let (mut files, mut bytes) = (0u64, 0u64);
    loop {
        let before = r.hash.clone();
        let text = line(&mut r)?;
        let record: Record = serde_json::from_slice(&text)
            .map_err(|_| ReadError::Damaged(format!("a record after {files} files isn't one")))?;
        match record {
            Record::End { end } => {
                let sum = hex(&before.finalize());
                if end.sha256 != sum || end.files != files || end.bytes != bytes {
                    return Err(ReadError::Damaged(
                        "it was changed after it was made (its checksum doesn't match)".into(),
                    ));
                }
                let mut rest = [0u8; 1];
                if r.inner.read(&mut rest)? != 0 {
                    return Err(ReadError::Damaged("it has more after its end".into()));
                }
                return Ok((header, end));
            }
            Record::File { file, size, mode } => {
                let mut data = (&mut r).take(size);
                each(
                    &header,
                    Entry {
                        path: file.clone(),
                        mode,
                        size,
                        data: &mut data,
                    },
                )?;
                // Whatever the taker left unread is read and hashed here.
                let left = io::copy(&mut data, &mut io::sink())?;
                if left > 0 || data.limit() > 0 {
                    return Err(ReadError::Damaged(format!("{file} is cut short")));
                }
                let mut nl = [0u8; 1];
                if read_up_to(&mut r, &mut nl)? != 1 || nl[0] != b'\n' {
                    return Err(ReadError::Damaged(format!("{file} is cut short")));
                }
                files += 1;
                bytes += size;
            }
        }
    }
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        let n = r.read(&mut buf[got..])?;
        if n == 0 {
            break;
        }
        got += n;
    }
    Ok(got)
}

/// One record line, without its newline; bounded, so a damaged file can't
/// make the reader hold it whole.
fn line(r: &mut impl BufRead) -> Result<Vec<u8>, ReadError> {
    let mut out = Vec::new();
    (&mut *r)
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut out)?;
    if out.last() != Some(&b'\n') {
        return Err(ReadError::Damaged(if out.len() > MAX_LINE {
            "a record line is far too long".into()
        } else {
            "it ends too soon".into()
        }));
    }
    out.pop();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            format: FORMAT.into(),
            created: "2026-11-29T09:00:00.000Z".into(),
            keys: Keys::LeftOut,
            says: "test".into(),
        }
    }

    fn sample() -> Vec<u8> {
        let mut w = ArchiveWriter::begin(Vec::new(), &header()).unwrap();
        w.file("chats/a/log.jsonl", 0o600, 6, &b"{\"a\"}\n"[..])
            .unwrap();
        w.file("skills/ünï/SKILL.md", 0o600, 3, &b"h\ni"[..])
            .unwrap();
        w.finish().unwrap().0
    }

    fn files(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, ReadError> {
        let mut out = Vec::new();
        read_archive(bytes, |_, e| {
            let mut data = Vec::new();
            e.data.read_to_end(&mut data)?;
            out.push((e.path, data));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn reads_back_what_it_wrote() {
        let got = files(&sample()).unwrap();
        assert_eq!(got[0], ("chats/a/log.jsonl".into(), b"{\"a\"}\n".to_vec()));
        assert_eq!(got[1].1, b"h\ni");
    }

    #[test]
    fn cut_at_every_length_or_changed_at_every_byte_is_refused() {
        let good = sample();
        for len in 0..good.len() {
            assert!(files(&good[..len]).is_err(), "cut at {len}");
        }
        for at in 0..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0x20;
            assert!(files(&bad).is_err(), "changed at {at}");
        }
        let mut longer = good.clone();
        longer.push(b'x');
        assert!(files(&longer).is_err());
    }

    #[test]
    fn a_source_that_shrinks_is_an_error() {
        let mut w = ArchiveWriter::begin(Vec::new(), &header()).unwrap();
        assert!(w.file("settings.json", 0o600, 10, &b"abc"[..]).is_err());
    }
}
