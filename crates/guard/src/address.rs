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
