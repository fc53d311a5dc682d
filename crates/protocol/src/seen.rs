//! What a chat has seen in words: what the owner wrote, and what it read
//! from outside (pages, search results, apps, other people's messages).
//! The guard asks it two things: whether an address was seen word for word
//! (following a link tells nobody anything new), and, for an address the
//! model composed, which of its words were seen before (see
//! `guard::address`). Kept as 64-bit digests, so a long chat's fold stays
//! small, and capped, so a chat that reads a library can't grow it without
//! end (past the cap, new words count as unseen: the careful side).

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

use crate::fold::{digest, Digested};

type Digests = HashSet<u64, BuildHasherDefault<Digested>>;

/// Words read from outside remembered at most (about 4 MB of digests).
const MAX_READ_WORDS: usize = 262_144;
/// Addresses remembered at most.
const MAX_ADDRESSES: usize = 65_536;

/// Where a word was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeenIn {
    Owner,
    Read,
    Nowhere,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seen {
    owner_words: Digests,
    read_words: Digests,
    addresses: Digests,
}

impl Seen {
    /// The owner wrote `text`.
    pub fn owner(&mut self, text: &str) {
        for word in words(text) {
            self.owner_words.insert(digest(&word));
        }
        self.addresses_in(text);
    }

    /// The chat read `text` from outside.
    pub fn read(&mut self, text: &str) {
        for word in words(text) {
            if self.read_words.len() >= MAX_READ_WORDS {
                break;
            }
            self.read_words.insert(digest(&word));
        }
        self.addresses_in(text);
    }

    fn addresses_in(&mut self, text: &str) {
        for url in addresses(text) {
            for key in prefixes(url) {
                if self.addresses.len() >= MAX_ADDRESSES {
                    return;
                }
                self.addresses.insert(digest(&key));
            }
        }
    }

    /// Whether `url` was seen word for word (or is the start of an address
    /// that was: the same place, with less said).
    pub fn address_seen(&self, url: &str) -> bool {
        key(url).is_some_and(|k| self.addresses.contains(&digest(&k)))
    }

    /// Where the word (as [`words`] makes them) was seen first: the owner's
    /// words count before what was read.
    pub fn word(&self, word: &str) -> SeenIn {
        let d = digest(word);
        if self.owner_words.contains(&d) {
            SeenIn::Owner
        } else if self.read_words.contains(&d) {
            SeenIn::Read
        } else {
            SeenIn::Nowhere
        }
    }

    /// How many different words the owner wrote, and the chat read.
    pub fn vocabulary(&self) -> (usize, usize) {
        (self.owner_words.len(), self.read_words.len())
    }
}

/// The words of a text as the address check compares them: runs of ASCII
/// letters and digits, lowercased, and every other letter or digit on its
/// own (scripts written without spaces have no runs to compare).
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || loop {
        let (start, c) = chars.next()?;
        if c.is_ascii_alphanumeric() {
            let mut end = start + 1;
            while let Some(&(i, n)) = chars.peek() {
                if !n.is_ascii_alphanumeric() {
                    break;
                }
                end = i + n.len_utf8();
                chars.next();
            }
            return Some(text[start..end].to_ascii_lowercase());
        }
        if !c.is_ascii() && c.is_alphanumeric() {
            return Some(c.to_lowercase().collect());
        }
    })
}

/// Every `http(s)://` address in a text, as written (without the quotes,
/// brackets or closing punctuation around it).
pub fn addresses(text: &str) -> impl Iterator<Item = &str> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        while let Some(at) = text[from..].find("http") {
            let start = from + at;
            from = start + 4;
            let rest = &text[start..];
            if !(rest.starts_with("http://") || rest.starts_with("https://")) {
                continue;
            }
            let end = rest
                .find(|c: char| {
                    c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`' | '|' | '\\')
                })
                .unwrap_or(rest.len());
            let mut url = &rest[..end];
            // Closing punctuation and brackets the address sat in.
            loop {
                let trimmed = url.trim_end_matches(['.', ',', ';', ':', '!', '?']);
                let unopened = (trimmed.ends_with(')') && !trimmed.contains('('))
                    || (trimmed.ends_with(']') && !trimmed.contains('['));
                let trimmed = if unopened {
                    &trimmed[..trimmed.len() - 1]
                } else {
                    trimmed
                };
                if trimmed == url {
                    break;
                }
                url = trimmed;
            }
            from = start + end;
            return Some(url);
        }
        None
    })
}

/// An address as compared: scheme and host lowercased, no fragment (it
/// never leaves the computer), no trailing `/`.
pub fn key(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let rest = rest.split('#').next().unwrap_or("");
    let at = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(at);
    let tail = tail.trim_end_matches('/');
    Some(format!(
        "{}://{}{}",
        scheme.to_ascii_lowercase(),
        authority.to_ascii_lowercase(),
        tail
    ))
}

/// The address and every shorter one it passes through (at each `/`, `?`
/// and `&`): fetching less of a seen address says no more than it did.
fn prefixes(url: &str) -> Vec<String> {
    let Some(full) = key(url) else {
        return Vec::new();
    };
    let start = full.find("://").map_or(0, |i| i + 3);
    let mut out = vec![full.clone()];
    for (i, c) in full.char_indices().skip(start) {
        if matches!(c, '/' | '?' | '&') {
            let p = full[..i].trim_end_matches('/');
            if p.len() > start {
                out.push(p.to_owned());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_in_text() {
        let text =
            "See (https://a.example/x?y=1). Also <https://b.example/p>, and \"http://c.example\".";
        let got: Vec<&str> = addresses(text).collect();
        assert_eq!(
            got,
            [
                "https://a.example/x?y=1",
                "https://b.example/p",
                "http://c.example"
            ]
        );
    }

    #[test]
    fn seen_addresses_and_their_shorter_forms() {
        let mut seen = Seen::default();
        seen.read("a link: https://News.example/2026/story?id=42#top and more");
        assert!(seen.address_seen("https://news.example/2026/story?id=42"));
        assert!(seen.address_seen("https://news.example/2026/story?id=42#other"));
        assert!(seen.address_seen("https://news.example/2026/"));
        assert!(seen.address_seen("https://news.example"));
        assert!(!seen.address_seen("https://news.example/2026/story?id=43"));
        assert!(!seen.address_seen("https://news.example/2026/story?id=42&s=AKIA"));
    }

    #[test]
    fn words_and_where_they_were_seen() {
        let mut seen = Seen::default();
        seen.owner("Email the Q3 report to bob@example.com");
        seen.read("Quarterly results: 東京 revenue");
        assert_eq!(seen.word("bob"), SeenIn::Owner);
        assert_eq!(seen.word("q3"), SeenIn::Owner);
        assert_eq!(seen.word("quarterly"), SeenIn::Read);
        assert_eq!(seen.word("東"), SeenIn::Read);
        assert_eq!(seen.word("secret"), SeenIn::Nowhere);
        let w: Vec<String> = words("AKIA-x_9 東京").collect();
        assert_eq!(w, ["akia", "x", "9", "東", "京"]);
    }
}
