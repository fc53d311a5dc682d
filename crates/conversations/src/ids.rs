//! Random ids for chats and events: lowercase letters and digits only, so an
//! id is always safe as a folder name and in a URL.

const ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";

/// `len` characters, 5 random bits each.
pub fn random_id(len: usize) -> String {
    let mut bytes = vec![0u8; len];
    // getrandom fails only when the OS has no randomness at all; ids must
    // still never repeat, so fall back to the clock and a counter.
    if getrandom::fill(&mut bytes).is_err() {
        fallback_fill(&mut bytes);
    }
    bytes
        .iter()
        .map(|b| ALPHABET[(b & 31) as usize] as char)
        .collect()
}

fn fallback_fill(bytes: &mut [u8]) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut x = now ^ COUNTER.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
    for b in bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
}

/// A chat id: 16 characters (80 bits).
pub fn chat_id() -> String {
    random_id(16)
}

/// An event id: 20 characters (100 bits), unique across chats.
pub fn event_id() -> String {
    random_id(20)
}

/// Whether `text` could be an id this module made. Checked before an id from
/// a request becomes part of a path.
pub fn is_valid_id(text: &str) -> bool {
    (1..=64).contains(&text.len()) && text.bytes().all(|b| ALPHABET.contains(&b))
}

/// The chats' folders in `chats_dir` (their ids), in order.
pub fn chat_dirs(chats_dir: &std::path::Path) -> Vec<String> {
    let mut dirs: Vec<String> = std::fs::read_dir(chats_dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|id| is_valid_id(id))
        .collect();
    dirs.sort();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_safe_and_distinct() {
        let a = chat_id();
        let b = chat_id();
        assert_ne!(a, b);
        assert!(is_valid_id(&a) && is_valid_id(&event_id()));
        for bad in ["", "../x", "ABC", "a/b", "a.b", &"a".repeat(65)] {
            assert!(!is_valid_id(bad), "{bad}");
        }
    }
}
