//! A skill's fingerprint: sha256 over the sorted lines `path:sha256(file)` of
//! every file in it (paths relative to the skill's folder, `/`-separated,
//! each line ending in `\n`), in lowercase hex. The same formula ClawHub
//! uses, so a fingerprint here agrees with the hub's.

use sha2::{Digest, Sha256};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn file_hash(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `files`: (relative path, the file's bytes).
pub fn fingerprint<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let hashed: Vec<(String, String)> = files
        .into_iter()
        .map(|(p, b)| (p.to_owned(), file_hash(b)))
        .collect();
    from_hashes(hashed.iter().map(|(p, h)| (p.as_str(), h.as_str())))
}

/// The same, from each file's sha256 already computed (hex). A link counts
/// as a file whose content is `link:` and its target.
pub fn from_hashes<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut lines: Vec<String> = files
        .into_iter()
        .map(|(path, hash)| format!("{path}:{hash}\n"))
        .collect();
    lines.sort();
    let mut h = Sha256::new();
    for line in &lines {
        h.update(line.as_bytes());
    }
    hex(&h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_doesnt_matter_and_a_byte_does() {
        let a = fingerprint([("SKILL.md", &b"hi"[..]), ("x/y.sh", b"echo")]);
        let b = fingerprint([("x/y.sh", &b"echo"[..]), ("SKILL.md", b"hi")]);
        assert_eq!(a, b);
        assert_ne!(
            a,
            fingerprint([("SKILL.md", &b"hi"[..]), ("x/y.sh", b"echo ")])
        );
        assert_eq!(a.len(), 64);
        // The formula, spelled out.
        let lines = format!(
            "SKILL.md:{}\nx/y.sh:{}\n",
            file_hash(b"hi"),
            file_hash(b"echo")
        );
        assert_eq!(a, hex(&Sha256::digest(lines.as_bytes())));
    }
}
