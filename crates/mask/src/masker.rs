//! One search over a text for every spelling of every secret.

use std::borrow::Cow;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use sha2::{Digest, Sha256};

use crate::secret::{Hashed, Secret, MIN_SECRET};
use crate::variants::spellings;
use crate::view::View;

/// How the text is written: as it is, or as the inside of JSON strings
/// (a stored event's line), where a line break is the escape `\n` and a
/// quote or backslash in a secret is escaped too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Text,
    Json,
}

/// The secrets to look for, ready to search with. Cheap to search with
/// from many threads; made again when the secrets change.
#[derive(Default)]
pub struct Masker {
    names: Vec<String>,
    text: Option<Finder>,
    json: Option<Finder>,
    hashed: Vec<Hashed>,
}

/// Every spelling, found in two steps: an automaton of their first
/// [`MIN_SECRET`] bytes (small enough to stay in the cache, where one of
/// whole spellings of a dozen secrets wouldn't, and read several times
/// slower), then each spelling starting there compared whole.
struct Finder {
    automaton: AhoCorasick,
    /// For each distinct start, the spellings that begin with it.
    starting: Vec<Vec<usize>>,
    /// Each spelling and its secret, by index into `names`.
    patterns: Vec<(Vec<u8>, usize)>,
}

impl Finder {
    fn new(patterns: Vec<(Vec<u8>, usize)>) -> Option<Finder> {
        if patterns.is_empty() {
            return None;
        }
        let mut starts: Vec<&[u8]> = Vec::new();
        let mut starting: Vec<Vec<usize>> = Vec::new();
        for (i, (p, _)) in patterns.iter().enumerate() {
            let start = &p[..MIN_SECRET.min(p.len())];
            match starts.iter().position(|s| *s == start) {
                Some(at) => starting[at].push(i),
                None => {
                    starts.push(start);
                    starting.push(vec![i]);
                }
            }
        }
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&starts)
            .ok()?;
        Some(Finder {
            automaton,
            starting,
            patterns,
        })
    }

    /// Every whole spelling in `bytes`: (start, end, secret).
    fn find(&self, bytes: &[u8], found: &mut Vec<(usize, usize, usize)>) {
        for m in self.automaton.find_overlapping_iter(bytes) {
            for &i in &self.starting[m.pattern().as_usize()] {
                let (pattern, owner) = &self.patterns[i];
                let end = m.start() + pattern.len();
                if bytes.get(m.start()..end) == Some(pattern.as_slice()) {
                    found.push((m.start(), end, *owner));
                }
            }
        }
    }
}

impl Masker {
    pub fn new(secrets: &[Secret], hashed: Vec<Hashed>) -> Masker {
        let mut names = Vec::new();
        let mut text = Vec::new();
        let mut json = Vec::new();
        for secret in secrets {
            if secret.value.trim().len() < MIN_SECRET {
                continue;
            }
            let owner = names.len();
            names.push(secret.name.clone());
            for spelling in spellings(secret.value.as_bytes()) {
                // What is looked for is read as the text is (a PEM key's
                // line breaks left out, a `%` escape decoded).
                let flat = View::new(&spelling, Syntax::Text).bytes.into_owned();
                if flat.len() < MIN_SECRET {
                    continue;
                }
                let escaped = json_escaped(&spelling);
                json.push((View::new(&escaped, Syntax::Json).bytes.into_owned(), owner));
                text.push((flat, owner));
            }
        }
        let hashed: Vec<Hashed> = hashed
            .into_iter()
            .filter(|h| !h.prefix.is_empty() && h.prefix.len() + h.body >= MIN_SECRET)
            .collect();
        Masker {
            names,
            text: Finder::new(text),
            json: Finder::new(json),
            hashed,
        }
    }

    /// Whether there is anything to look for.
    pub fn is_empty(&self) -> bool {
        self.text.is_none() && self.hashed.is_empty()
    }

    /// How many secrets it looks for.
    pub fn len(&self) -> usize {
        self.names.len() + self.hashed.len()
    }

    /// `text` with every secret in it replaced by `[secret: NAME]`; the
    /// same text, not a copy, when there is none.
    pub fn mask<'t>(&self, text: &'t str, syntax: Syntax) -> Cow<'t, str> {
        if self.is_empty() || text.len() < MIN_SECRET {
            return Cow::Borrowed(text);
        }
        let view = View::new(text.as_bytes(), syntax);
        let mut found: Vec<(usize, usize, &str)> = Vec::new();
        let finder = match syntax {
            Syntax::Text => self.text.as_ref(),
            Syntax::Json => self.json.as_ref(),
        };
        if let Some(finder) = finder {
            let mut spans = Vec::new();
            finder.find(&view.bytes, &mut spans);
            found.extend(
                spans
                    .into_iter()
                    .map(|(s, e, o)| (s, e, self.names[o].as_str())),
            );
        }
        self.find_hashed(&view.bytes, &mut found);
        if found.is_empty() {
            return Cow::Borrowed(text);
        }
        found.sort_by_key(|f| (f.0, std::cmp::Reverse(f.1)));
        let mut out = String::with_capacity(text.len());
        let mut from = 0;
        for (start, end, name) in found {
            let (start, end) = view.original(start, end);
            // Whole characters only: a match never ends inside one, but if
            // it did, more is hidden rather than the text broken.
            let start = (0..=start)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            let end = (end..=text.len())
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(text.len());
            if start < from {
                continue;
            }
            out.push_str(&text[from..start]);
            out.push_str("[secret: ");
            out.push_str(name);
            out.push(']');
            from = end;
        }
        out.push_str(&text[from..]);
        Cow::Owned(out)
    }

    fn find_hashed<'m>(&'m self, bytes: &[u8], found: &mut Vec<(usize, usize, &'m str)>) {
        let mut prefixes: Vec<&str> = self.hashed.iter().map(|h| h.prefix.as_str()).collect();
        prefixes.sort_unstable();
        prefixes.dedup();
        for prefix in prefixes {
            for at in memchr::memmem::find_iter(bytes, prefix.as_bytes()) {
                let from = at + prefix.len();
                let body = bytes[from..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric())
                    .count();
                let candidates = self
                    .hashed
                    .iter()
                    .filter(|h| h.prefix == prefix && h.body == body);
                let mut digest = None;
                for h in candidates {
                    let hex = digest
                        .get_or_insert_with(|| lower_hex(&Sha256::digest(&bytes[at..from + body])));
                    if *hex == h.sha256 {
                        found.push((at, from + body, h.name.as_str()));
                        break;
                    }
                }
            }
        }
    }
}

fn lower_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    bytes
        .iter()
        .flat_map(|b| {
            [
                DIGITS[(b >> 4) as usize] as char,
                DIGITS[(b & 15) as usize] as char,
            ]
        })
        .collect()
}

/// As serde_json writes a string's inside.
fn json_escaped(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            c if c < 0x20 => out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
            c => out.push(c),
        }
    }
    out
}
