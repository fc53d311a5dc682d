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

use crate::fold::Digested;

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
    /// Addresses seen, and the shorter ones they pass through.
    addresses: Digests,
    /// Addresses the owner wrote, exactly.
    owner_addresses: Digests,
    /// Values the owner wrote whole (see [`Seen::owner_wrote`]).
    owner_values: Digests,
}

impl Seen {
    /// The owner wrote `text`.
    pub fn owner(&mut self, text: &str) {
        for word in word_slices(text) {
            self.owner_words.insert(word_digest(word));
        }
        for url in addresses(text) {
            let mut last = None;
            address_digests(url, |d| last = Some(d));
            self.owner_addresses.extend(last);
        }
        for value in values(text) {
            self.owner_values.insert(value_digest(&value));
        }
        self.addresses_in(text);
    }

    /// Whether the owner wrote `value` whole: as one token of their words
    /// (surrounding punctuation aside, any case), or as a run of short
    /// groups ("DE89 3704 0044 0532 0130 00"), compared without spaces.
    /// `bob@corp.com` isn't the owner's because they wrote `bob@example.com`
    /// and `alice@corp.com`.
    pub fn owner_wrote(&self, value: &str) -> bool {
        let compact: String = value.split_whitespace().collect();
        let compact = trim_value(&compact);
        !compact.is_empty() && self.owner_values.contains(&value_digest(compact))
    }

    /// Whether the owner wrote `url` word for word.
    pub fn owner_said(&self, url: &str) -> bool {
        let mut last = None;
        address_digests(url, |d| last = Some(d));
        last.is_some_and(|d| self.owner_addresses.contains(&d))
    }

    /// The chat read `text` from outside.
    pub fn read(&mut self, text: &str) {
        for word in word_slices(text) {
            if self.read_words.len() >= MAX_READ_WORDS {
                break;
            }
            self.read_words.insert(word_digest(word));
        }
        self.addresses_in(text);
    }

    fn addresses_in(&mut self, text: &str) {
        for url in addresses(text) {
            let full = self.addresses.len() >= MAX_ADDRESSES;
            if full {
                return;
            }
            let set = &mut self.addresses;
            address_digests(url, |d| {
                set.insert(d);
            });
        }
    }

    /// Whether `url` was seen word for word (or is the start of an address
    /// that was: the same place, with less said).
    pub fn address_seen(&self, url: &str) -> bool {
        let mut last = None;
        address_digests(url, |d| last = Some(d));
        last.is_some_and(|d| self.addresses.contains(&d))
    }

    /// Where the word (as [`words`] makes them) was seen first: the owner's
    /// words count before what was read.
    pub fn word(&self, word: &str) -> SeenIn {
        let d = word_digest(word);
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
    word_slices(text).map(|w| w.chars().flat_map(char::to_lowercase).collect())
}

/// The words of a text as written (see [`words`]), without copying them.
pub fn word_slices(text: &str) -> impl Iterator<Item = &str> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0usize;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let b = bytes[at];
            if b.is_ascii_alphanumeric() {
                let start = at;
                while at < bytes.len() && bytes[at].is_ascii_alphanumeric() {
                    at += 1;
                }
                return Some(&text[start..at]);
            }
            if b < 0x80 {
                at += 1;
                continue;
            }
            let c = text[at..].chars().next()?;
            let start = at;
            at += c.len_utf8();
            if c.is_alphanumeric() {
                return Some(&text[start..at]);
            }
        }
        None
    })
}

/// FNV-1a, 64 bits: the digest words and addresses are kept as. Fast, and
/// with nothing to gain for a page from colliding with a word it doesn't
/// know.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn byte(&mut self, b: u8) {
        self.0 ^= u64::from(b);
        self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
    }

    fn lower(&mut self, text: &str) {
        for c in text.chars() {
            if c.is_ascii() {
                self.byte(c.to_ascii_lowercase() as u8);
            } else {
                let mut buf = [0u8; 4];
                for l in c.to_lowercase() {
                    for b in l.encode_utf8(&mut buf).bytes() {
                        self.byte(b);
                    }
                }
            }
        }
    }
}

/// A word's digest, lowercased as it is read.
/// Surrounding punctuation isn't part of a value.
fn trim_value(t: &str) -> &str {
    t.trim_matches(|c: char| {
        matches!(
            c,
            ',' | '.'
                | ';'
                | ':'
                | '!'
                | '?'
                | '('
                | ')'
                | '['
                | ']'
                | '<'
                | '>'
                | '"'
                | '\''
                | '`'
                | '*'
                | '“'
                | '”'
                | '‘'
                | '’'
        )
    })
}

/// The values of a text as [`Seen::owner_wrote`] compares them: each token,
/// and each run of two or more short groups with digits, joined.
fn values(text: &str) -> Vec<String> {
    let tokens: Vec<&str> = text.split_whitespace().map(trim_value).collect();
    let mut out: Vec<String> = tokens
        .iter()
        .filter(|t| !t.is_empty())
        .map(|t| (*t).to_owned())
        .collect();
    let group = |t: &str| {
        !t.is_empty()
            && t.chars().count() <= 6
            && t.chars().any(|c| c.is_ascii_digit())
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-')
    };
    let mut i = 0;
    while i < tokens.len() {
        if !group(tokens[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < tokens.len() && group(tokens[i]) {
            i += 1;
        }
        // Every run of two to eight, so a part of a longer number counts
        // (an IBAN is at most nine groups; a pasted table stays linear).
        for a in start..i {
            for b in a + 2..=i.min(a + 9) {
                out.push(tokens[a..b].concat());
            }
        }
    }
    out
}

fn value_digest(value: &str) -> u64 {
    let mut h = Fnv::new();
    h.lower(value);
    h.0 ^ 0x9e37_79b9_7f4a_7c15
}

fn word_digest(word: &str) -> u64 {
    let mut h = Fnv::new();
    h.lower(word);
    h.0
}

/// The digest of an address as compared ([`key`]), and of each shorter
/// address it passes through (at each `/`, `?` and `&`), the whole one last.
fn address_digests(url: &str, mut each: impl FnMut(u64)) {
    let Some((scheme, rest)) = url.split_once("://") else {
        return;
    };
    let rest = rest.split('#').next().unwrap_or("");
    let at = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(at);
    let mut h = Fnv::new();
    h.lower(scheme);
    for b in b"://" {
        h.byte(*b);
    }
    h.lower(authority);
    // The digest up to the last character that isn't a trailing `/`.
    let mut committed = h.0;
    let mut slashes = 0usize;
    let mut shorter = !authority.is_empty();
    for b in tail.bytes() {
        if matches!(b, b'/' | b'?' | b'&') && shorter {
            each(committed);
        }
        if b == b'/' {
            slashes += 1;
            continue;
        }
        let mut g = Fnv(committed);
        for _ in 0..slashes {
            g.byte(b'/');
        }
        slashes = 0;
        g.byte(b);
        committed = g.0;
        shorter = true;
    }
    each(committed);
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
