//! One Claude Code session per chat, so a later turn continues the same
//! conversation (`--resume`). Each chat gets its own HOME inside Conch's
//! folder: its sessions live there, and a command in one chat can't read
//! another chat's transcripts. The session's id is made from the chat's id,
//! so nothing beside Claude Code's own files needs keeping: the session
//! exists when its transcript does.

use std::path::{Path, PathBuf};

/// The chat's own HOME for Claude Code. A chat id that isn't a plain name
/// is made into one, so it can't reach outside `chats/`.
pub fn chat_home(state: &Path, chat: &str) -> PathBuf {
    let plain = !chat.is_empty()
        && chat.len() <= 64
        && chat
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let name = if plain {
        chat.to_owned()
    } else {
        format!("h{}", session_id(chat).replace('-', ""))
    };
    state.join("chats").join(name)
}

/// FNV-1a, 64 bits, from `basis`: stable forever, which is all a name
/// needs (the chat ids it reads are random already).
fn fnv(basis: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(basis, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The chat's session id: a UUID (Claude Code accepts only those) made
/// from the chat's id.
pub fn session_id(chat: &str) -> String {
    let a = fnv(0xcbf2_9ce4_8422_2325, chat.as_bytes());
    let b = fnv(0x6c62_272e_07bb_0142, chat.as_bytes());
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&a.to_be_bytes());
    bytes[8..].copy_from_slice(&b.to_be_bytes());
    // Version 4 and the RFC 4122 variant, so every parser takes it.
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// Whether the session has a transcript in `home` (then `--resume`, else
/// `--session-id`).
pub fn exists(home: &Path, session: &str) -> bool {
    let file = format!("{session}.jsonl");
    std::fs::read_dir(home.join(".claude").join("projects"))
        .map(|dirs| {
            dirs.flatten()
                .any(|project| project.path().join(&file).is_file())
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chat_has_one_stable_session() {
        let id = session_id("k3v9q2");
        assert_eq!(id, session_id("k3v9q2"));
        assert_ne!(id, session_id("k3v9q3"));
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"));
    }

    #[test]
    fn a_chat_home_stays_inside_chats() {
        let state = Path::new("/s");
        assert_eq!(chat_home(state, "abc"), Path::new("/s/chats/abc"));
        for odd in ["../x", "", "a/b", "ünï", &"x".repeat(65)] {
            let home = chat_home(state, odd);
            assert_eq!(home.parent(), Some(Path::new("/s/chats")), "{odd}");
            assert!(home
                .file_name()
                .unwrap()
                .to_string_lossy()
                .chars()
                .all(|c| c.is_ascii_alphanumeric()));
        }
    }
}
