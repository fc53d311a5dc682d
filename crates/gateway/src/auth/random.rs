//! Secrets from the OS's random source, as text safe in headers and URLs.

const ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";

pub fn fill(buf: &mut [u8]) -> Result<(), getrandom::Error> {
    getrandom::fill(buf)
}

/// `chars` characters of 5 random bits each.
pub fn token(chars: usize) -> Result<String, getrandom::Error> {
    let mut bytes = vec![0u8; chars];
    fill(&mut bytes)?;
    Ok(bytes
        .iter()
        .map(|b| ALPHABET[(b & 31) as usize] as char)
        .collect())
}

/// sha256 of a secret, as hex: what is kept instead of the secret.
pub fn digest(secret: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Equality that looks at every byte, whatever the first difference.
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}
