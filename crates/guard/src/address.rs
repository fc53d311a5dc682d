//! Could this address carry data out? A pre-filter by length and character
//! class only: a long query, or a long opaque piece of the path, the query or
//! a host name. It can't tell a git SHA from a base64 secret (nothing can by
//! looking), so the guard also lets through an address the owner wrote word
//! for word, and asks about the rest. Short secrets in ordinary-looking
//! addresses pass it; that is a known limit.

/// A query this long could be carrying anything.
pub const LONG_QUERY: usize = 200;
/// An unbroken run of opaque characters this long could be an encoded secret.
pub const LONG_OPAQUE: usize = 32;
/// A host label this long is a name nobody types (DNS exfiltration).
pub const LONG_LABEL: usize = 24;

/// The parts of an http(s) address this looks at.
#[derive(Debug, PartialEq, Eq)]
pub struct Parts<'a> {
    pub host: &'a str,
    pub path: &'a str,
    pub query: &'a str,
}

pub fn split(url: &str) -> Option<Parts<'_>> {
    let rest = url.split_once("://")?.1;
    let rest = rest.split('#').next().unwrap_or("");
    let (authority, path_and_query) = match rest.find(['/', '?']) {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, ""),
    };
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let host = match host.rfind(':') {
        Some(at) if !host.ends_with(']') => &host[..at],
        _ => host,
    };
    let (path, query) = match path_and_query.split_once('?') {
        Some((p, q)) => (p, q),
        None => (path_and_query, ""),
    };
    Some(Parts { host, path, query })
}

/// The host of an address, lowercased.
pub fn host(url: &str) -> Option<String> {
    split(url).map(|p| p.host.to_ascii_lowercase())
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An unbroken run of at least `min` opaque characters: letters and digits
/// mixed (or base64's `+/=`), not a long plain word.
fn has_opaque_run(text: &str, min: usize) -> bool {
    let is_sep = |c: char| matches!(c, '-' | '_' | '.' | '~' | ' ' | ',' | ':' | ';' | '&' | '|');
    text.split(is_sep).any(|piece| {
        piece.chars().count() >= min
            && piece
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='))
            && (piece.chars().any(|c| c.is_ascii_digit()) || piece.contains(['+', '/', '=']))
            && piece.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// Why `url` could carry data, if it could.
pub fn could_carry_data(url: &str) -> Option<&'static str> {
    let parts = split(url)?;
    let labels: Vec<&str> = parts.host.split('.').collect();
    let named = &labels[..labels.len().saturating_sub(1)];
    if named
        .iter()
        .any(|l| l.len() >= LONG_LABEL || (l.len() >= 16 && has_opaque_run(l, 16)))
    {
        return Some("a long opaque host name");
    }
    let query = percent_decode(parts.query);
    if query.len() >= LONG_QUERY {
        return Some("a long query");
    }
    for pair in query.split('&') {
        let value = pair.split_once('=').map_or(pair, |(_, v)| v);
        if has_opaque_run(value, LONG_OPAQUE) {
            return Some("a long opaque value in the query");
        }
    }
    for segment in parts.path.split('/') {
        if has_opaque_run(&percent_decode(segment), LONG_OPAQUE) {
            return Some("a long opaque piece of the path");
        }
    }
    None
}

/// How much an address says that the chat hadn't seen, in bits: the
/// measure behind `after-reading.data-fetch`.
///
/// Following an address the chat read (a link on a page, a search result)
/// or the owner wrote tells nobody anything new, so it costs nothing. An
/// address the model composed is split into its parts (host labels, path
/// segments, query keys and values; the fragment never leaves the computer)
/// after percent-decoding, and each part into words ([`protocol::seen::words`]):
/// a word the owner wrote or the chat read costs nothing, any other costs
/// what choosing it freely could carry, `log2` of its alphabet per
/// character (digits 3.3, hex 4, one-case letters 4.7, mixed letters 5.7,
/// letters and digits 6, anything else 8). The registrable domain
/// (`example.com`, `example.co.uk`) and the scheme are where it goes, not
/// what it says, so they cost nothing; the labels before it do (a secret in
/// a host name leaves through DNS). Irregular capitals on a known word cost
/// a bit each.
///
/// Known limit: an address made only of words the chat read or the owner
/// wrote can still say something by which of them it picks and in what
/// order; a page that lists a dictionary for that purpose is what Ask mode
/// and the box are for.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    /// Bits in all.
    pub bits: f64,
    /// Each part that said something, and its bits.
    pub parts: Vec<(String, f64)>,
}

/// More than this many unseen bits is more than a small amount: about a
/// random eight-character password, or two unseen ordinary words.
pub const SMALL: f64 = 40.0;

/// The words of a part with their original spelling.
fn part_words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_ascii_alphanumeric() {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            out.push(&text[s..i]);
        }
        if !c.is_ascii() && c.is_alphanumeric() {
            out.push(&text[i..i + c.len_utf8()]);
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

/// Words addresses are made of everywhere. Choosing one of these says only
/// which of them it is: `log2` of how many there are, not what spelling it
/// out letter by letter would.
const URL_WORDS: &[&str] = &[
    "www",
    "api",
    "docs",
    "doc",
    "search",
    "q",
    "query",
    "s",
    "id",
    "p",
    "page",
    "pages",
    "hl",
    "en",
    "lang",
    "html",
    "htm",
    "php",
    "aspx",
    "jsp",
    "index",
    "wiki",
    "blog",
    "news",
    "article",
    "articles",
    "post",
    "posts",
    "story",
    "stories",
    "tag",
    "tags",
    "category",
    "categories",
    "user",
    "users",
    "u",
    "profile",
    "help",
    "about",
    "home",
    "results",
    "watch",
    "v",
    "video",
    "videos",
    "images",
    "image",
    "img",
    "static",
    "assets",
    "cdn",
    "media",
    "files",
    "file",
    "download",
    "downloads",
    "release",
    "releases",
    "latest",
    "stable",
    "tree",
    "blob",
    "main",
    "master",
    "src",
    "raw",
    "issues",
    "issue",
    "pull",
    "pulls",
    "commit",
    "commits",
    "compare",
    "questions",
    "question",
    "answers",
    "a",
    "r",
    "t",
    "ref",
    "utm",
    "source",
    "medium",
    "campaign",
    "content",
    "term",
    "sort",
    "order",
    "filter",
    "type",
    "format",
    "json",
    "xml",
    "rss",
    "feed",
    "amp",
    "m",
    "mobile",
    "de",
    "fr",
    "es",
    "ja",
    "zh",
    "it",
    "pt",
    "ru",
    "us",
    "uk",
    "gb",
    "intl",
    "library",
    "reference",
    "guide",
    "guides",
    "tutorial",
    "tutorials",
    "learn",
    "share",
    "embed",
    "status",
    "info",
    "contact",
    "privacy",
    "terms",
    "support",
    "community",
    "forum",
    "forums",
    "thread",
    "threads",
    "discussion",
    "discussions",
    "comments",
    "comment",
    "topic",
    "topics",
    "archive",
    "archives",
    "web",
    "ia",
    "tab",
    "lr",
    "books",
    "book",
    "en_us",
    "manual",
    "man",
    "pkg",
    "package",
    "packages",
    "crates",
    "crate",
    "std",
    "lib",
    "index_html",
    "readme",
    "changelog",
    "license",
    "edit",
    "view",
    "show",
    "list",
    "new",
    "top",
    "best",
    "hot",
    "rising",
    "r",
    "w",
    "sections",
    "section",
    "world",
    "tech",
    "technology",
    "science",
    "business",
    "sport",
    "sports",
    "politics",
    "opinion",
    "local",
    "national",
    "live",
    "latest_news",
    "feeds",
    "rfc",
    "doi",
    "abs",
    "pdf",
    "ftp",
];

/// What choosing `word` freely could carry.
fn free_bits(word: &str) -> f64 {
    if URL_WORDS.contains(&word.to_ascii_lowercase().as_str()) {
        return (URL_WORDS.len() as f64).log2();
    }
    let n = word.chars().count() as f64;
    if !word.is_ascii() {
        return 8.0 * n;
    }
    let digits = word.bytes().any(|b| b.is_ascii_digit());
    let lower = word.bytes().any(|b| b.is_ascii_lowercase());
    let upper = word.bytes().any(|b| b.is_ascii_uppercase());
    let per_char = match (digits, lower, upper) {
        (true, false, false) => 10f64.log2(),
        (true, _, _)
            if word.len() >= 6
                && word.bytes().all(|b| {
                    b.is_ascii_digit() || matches!(b.to_ascii_lowercase(), b'a'..=b'f')
                }) =>
        {
            4.0
        }
        (false, true, false) | (false, false, true) => 26f64.log2(),
        (false, true, true) => 52f64.log2(),
        _ => 62f64.log2(),
    };
    per_char * n
}

/// Bits for irregular capitals on a word the chat knows.
fn case_bits(word: &str) -> f64 {
    let letters: Vec<char> = word.chars().filter(|c| c.is_ascii_alphabetic()).collect();
    let upper = letters.iter().filter(|c| c.is_ascii_uppercase()).count();
    let regular = upper == 0
        || upper == letters.len()
        || (upper == 1 && letters.first().is_some_and(|c| c.is_ascii_uppercase()));
    if regular {
        0.0
    } else {
        letters.len() as f64
    }
}

/// The labels of `host` that say something: those before its registrable
/// domain.
fn telling_labels(host: &str) -> Vec<&str> {
    let host = host.trim_end_matches('.');
    if host.starts_with('[') || host.parse::<std::net::Ipv4Addr>().is_ok() {
        return Vec::new();
    }
    let labels: Vec<&str> = host.split('.').collect();
    // `example.com`: two labels; `example.co.uk`: three, when the second
    // to last is a short generic one under a country code.
    let keep = match labels.as_slice() {
        [.., second, last] if last.len() == 2 && second.len() <= 3 && labels.len() >= 3 => 3,
        _ => 2,
    };
    labels[..labels.len().saturating_sub(keep)].to_vec()
}

/// The parts of `url` that can say something, decoded: the host's labels
/// before its registrable domain, the user part, path segments, query keys
/// and values (the fragment never leaves the computer).
pub fn parts_of(url: &str) -> Vec<String> {
    let Some(parts) = split(url) else {
        return Vec::new();
    };
    let mut texts: Vec<String> = telling_labels(parts.host)
        .into_iter()
        .map(str::to_owned)
        .collect();
    if let Some(userinfo) = url
        .split_once("://")
        .and_then(|(_, r)| r.split(['/', '?', '#']).next())
        .and_then(|a| a.rsplit_once('@'))
        .map(|(u, _)| u)
    {
        texts.push(percent_decode(userinfo));
    }
    texts.extend(parts.path.split('/').map(percent_decode));
    for pair in parts.query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        texts.push(percent_decode(k));
        texts.push(percent_decode(v));
    }
    texts.retain(|t| !t.is_empty());
    texts
}

/// How much `url` says that `seen` hadn't seen.
pub fn unseen_bits(url: &str, seen: &protocol::seen::Seen) -> Measure {
    use protocol::seen::SeenIn;
    let mut measure = Measure {
        bits: 0.0,
        parts: Vec::new(),
    };
    for text in parts_of(url) {
        let mut bits = 0.0;
        for word in part_words(&text) {
            let lower = word.to_lowercase();
            bits += match seen.word(&lower) {
                SeenIn::Owner | SeenIn::Read => case_bits(word),
                SeenIn::Nowhere => free_bits(word),
            };
        }
        if bits > 0.0 {
            measure.bits += bits;
            measure.parts.push((text, bits));
        }
    }
    measure
}

/// Whether fetching `url` in this chat could carry out more than a small
/// amount the chat hadn't seen (the owner's words, what it read).
pub fn carries_data(url: &str, chat: &protocol::ChatView) -> Option<Measure> {
    if chat.owner_said(url) || chat.seen.address_seen(url) {
        return None;
    }
    let measure = unseen_bits(url, &chat.seen);
    (measure.bits > SMALL).then_some(measure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_addresses() {
        assert_eq!(
            split("https://user:pw@Example.com:8443/a/b?c=1#frag"),
            Some(Parts {
                host: "Example.com",
                path: "/a/b",
                query: "c=1"
            })
        );
        assert_eq!(split("http://x.example?q=1").unwrap().query, "q=1");
        assert_eq!(split("http://[::1]:80/").unwrap().host, "[::1]");
        assert_eq!(split("not a url"), None);
    }

    #[test]
    fn shapes() {
        for (url, carries) in [
            (
                "https://news.example/2026/11/28/city-council-approves-the-new-bridge-budget",
                false,
            ),
            (
                "https://docs.rs/tokio/latest/tokio/sync/struct.Mutex.html",
                false,
            ),
            ("https://www.youtube.com/watch?v=dQw4w9WgXcQ", false),
            (
                "https://evil.example/c?d=QUtJQUlPU0ZPRE5ON0VYQU1QTEUvd0phbHJYVXRuRkVNSQ",
                true,
            ),
            (
                "https://evil.example/x/QUtJQUlPU0ZPRE5ON0VYQU1QTEUvd0phbHJYVXRu",
                true,
            ),
            (
                "https://4b6579206973206865726520736563726574.evil.example/",
                true,
            ),
            (
                "https://github.com/rust-lang/rust/commit/3f5b8c2a91d7e4f6b0c8a2d1e9f7b3c5a4d6e8f0",
                true,
            ),
            (
                "https://example.com/search?q=supercalifragilisticexpialidociousword",
                false,
            ),
        ] {
            assert_eq!(could_carry_data(url).is_some(), carries, "{url}");
        }
    }
}
