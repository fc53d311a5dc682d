//! Properties over generated secrets, texts, encodings and line breaks.
//! The oracle doesn't use the masker's spellings: it decodes the masked
//! text every way a command could have encoded it, and looks for any
//! eight bytes of the secret.

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD, URL_SAFE};
use base64::engine::DecodePaddingMode;
use base64::Engine;

use crate::{Hashed, Masker, Secret, Syntax, MIN_SECRET};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[self.below(from.len())]
    }
}

const WORDS: &[&str] = &[
    "build",
    "ok",
    "Straße",
    "東京",
    "données",
    "café",
    "error:",
    "=>",
    "{\"a\":1}",
    "path/to/file.rs",
    "0x1f",
    "\t",
    "naïve",
    "😀",
    "Привет",
    "a\\nb",
    "\"quoted\"",
    "ls -la",
    "12:00",
    "%20",
];

fn secret(rng: &mut Rng) -> String {
    const CHARS: &[u8] =
        b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_+/=.:@ !$";
    let len = MIN_SECRET + rng.below(56);
    let prefix: &str = rng.pick::<&str>(&["", "sk-", "ghp_", "xoxb-", ""]);
    let mut s: String = prefix.to_owned();
    while s.trim().len() < len {
        s.push(*rng.pick(CHARS) as char);
    }
    s
}

fn words(rng: &mut Rng, n: usize) -> String {
    let mut s = String::new();
    for _ in 0..n {
        let word: &str = rng.pick::<&str>(WORDS);
        s.push_str(word);
        s.push(*rng.pick(&[' ', ' ', '\n', ',']));
    }
    s
}

/// The secret as a command might print it, with up to two bytes of
/// something else before and after inside the same encoding.
fn encoded(rng: &mut Rng, secret: &str) -> String {
    let mut bytes: Vec<u8> = (0..rng.below(3))
        .map(|_| b'a' + rng.below(26) as u8)
        .collect();
    bytes.extend_from_slice(secret.as_bytes());
    bytes.extend((0..rng.below(3)).map(|_| b'a' + rng.below(26) as u8));
    match rng.below(7) {
        0 => secret.to_owned(),
        1 => STANDARD.encode(&bytes),
        2 => URL_SAFE.encode(&bytes),
        3 => bytes.iter().map(|b| format!("{b:02x}")).collect(),
        4 => bytes.iter().map(|b| format!("{b:02X}")).collect(),
        5 => percent(secret.as_bytes(), rng.below(3)),
        _ => secret.replace(' ', "+"),
    }
}

/// Every byte but the unreserved ones, as RFC 3986 says; or as
/// `encodeURIComponent` does; or as Python's `quote` does (`/` kept).
fn percent(bytes: &[u8], how: usize) -> String {
    let kept: &[u8] = [&b"-._~"[..], b"-_.!~*'()", b"-._~/"][how];
    bytes
        .iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() || kept.contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Split across lines at a random width, as `fold` or `base64` would.
fn folded(rng: &mut Rng, text: &str) -> String {
    if rng.below(2) == 0 || !text.is_ascii() {
        return text.to_owned();
    }
    let width = 1 + rng.below(40);
    let brk: &str = rng.pick::<&str>(&["\n", "\r\n", "\n\n"]);
    text.as_bytes()
        .chunks(width)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join(brk)
}

/// Every way to read bytes back out of `text`.
fn decodings(text: &str) -> Vec<Vec<u8>> {
    let flat: String = text.chars().filter(|c| !matches!(c, '\n' | '\r')).collect();
    let mut out = vec![flat.clone().into_bytes(), percent_decoded(&flat)];
    let runs = |keep: fn(char) -> bool| -> Vec<String> {
        flat.split(|c: char| !keep(c))
            .filter(|r| r.len() >= 4)
            .map(str::to_owned)
            .collect()
    };
    for run in runs(|c| c.is_ascii_hexdigit()) {
        for skip in 0..2 {
            let r = &run[skip..];
            let bytes: Vec<u8> = r
                .as_bytes()
                .chunks_exact(2)
                .filter_map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
                .collect();
            out.push(bytes);
        }
    }
    // Padding ends an encoded text, so a run stops at `=`.
    for run in runs(|c| c.is_ascii_alphanumeric() || "+/-_".contains(c)) {
        let run = run.as_str();
        for skip in 0..4.min(run.len()) {
            let r = &run[skip..];
            // A last group without its padding is read too.
            let r = &r[..r.len() - usize::from(r.len() % 4 == 1)];
            for engine in [&loose(&alphabet::STANDARD), &loose(&alphabet::URL_SAFE)] {
                if let Ok(bytes) = engine.decode(r) {
                    out.push(bytes);
                }
            }
        }
    }
    out
}

fn loose(alphabet: &alphabet::Alphabet) -> GeneralPurpose {
    GeneralPurpose::new(
        alphabet,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    )
}

fn percent_decoded(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() && text.is_char_boundary(i + 3) {
            if let Ok(v) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn readable(masked: &str, secret: &str) -> bool {
    let piece = &secret.as_bytes()[secret.len() / 2 - MIN_SECRET / 2..][..MIN_SECRET];
    // A form writes a space as `+`.
    let plus: Vec<u8> = piece
        .iter()
        .map(|&b| if b == b' ' { b'+' } else { b })
        .collect();
    decodings(masked)
        .iter()
        .any(|d| d.windows(piece.len()).any(|w| w == piece || w == plus))
}

#[test]
fn no_piece_of_a_secret_can_be_read_back_whatever_its_spelling() {
    for seed in 1..3000u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let held: Vec<Secret> = (0..1 + rng.below(4))
            .map(|i| Secret::new(&format!("KEY_{i}"), &secret(&mut rng)))
            .collect();
        let masker = Masker::new(&held, Vec::new());
        let which = &held[rng.below(held.len())];
        let n = rng.below(30);
        let before = words(&mut rng, n);
        let n = rng.below(30);
        let after = words(&mut rng, n);
        let shown = encoded(&mut rng, &which.value);
        let shown = folded(&mut rng, &shown);
        let text = format!("{before}{shown}{after}");
        assert!(
            readable(&text, &which.value),
            "seed {seed}: the oracle can't read the planted secret in {text:?}"
        );
        let masked = masker.mask(&text, Syntax::Text);
        assert!(
            !readable(&masked, &which.value),
            "seed {seed}: {:?} still in {masked:?}",
            which.value
        );
        assert!(
            masked.contains(&format!("[secret: {}]", which.name)),
            "seed {seed}"
        );
        // The same text stored as a JSON string comes out the same.
        let line = serde_json::to_string(&text).unwrap_or_default();
        let json = masker.mask(&line, Syntax::Json);
        let back: String = serde_json::from_str(&json).unwrap_or_else(|e| {
            panic!("seed {seed}: masking broke the JSON ({e}): {json}");
        });
        assert_eq!(back, masked, "seed {seed}");
    }
}

#[test]
fn text_without_a_secret_comes_back_untouched() {
    for seed in 1..500u64 {
        let mut rng = Rng(seed.wrapping_mul(0xD1B5_4A32_D192_ED03));
        let held: Vec<Secret> = (0..3)
            .map(|i| Secret::new(&format!("S{i}"), &secret(&mut rng)))
            .collect();
        let masker = Masker::new(&held, Vec::new());
        // Other secret-looking values, encoded the same ways.
        let mut text = words(&mut rng, 50);
        for _ in 0..5 {
            let other = secret(&mut rng);
            let shown = encoded(&mut rng, &other);
            text.push_str(&folded(&mut rng, &shown));
            text.push_str(&words(&mut rng, 5));
        }
        let masked = masker.mask(&text, Syntax::Text);
        assert!(
            matches!(masked, std::borrow::Cow::Borrowed(_)),
            "seed {seed}: {masked}"
        );
    }
}

#[test]
fn a_short_value_isnt_looked_for() {
    let masker = Masker::new(&[Secret::new("PIN", "1234")], Vec::new());
    assert!(masker.is_empty());
    assert_eq!(masker.mask("code 1234 ok", Syntax::Text), "code 1234 ok");
}

#[test]
fn an_access_key_is_found_by_its_hash() {
    use sha2::{Digest, Sha256};
    let key = "conch_abcdefghijkmnpqrstuvwxyz23456789abcdefgh";
    let hash: String = Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let masker = Masker::new(
        &[],
        vec![Hashed::new("access key laptop", "conch_", 40, &hash)],
    );
    let text = format!("curl -H 'Authorization: Bearer {}' x", &key);
    assert_eq!(
        masker.mask(&text, Syntax::Text),
        "curl -H 'Authorization: Bearer [secret: access key laptop]' x"
    );
    // Split across lines too; another key of the same shape isn't touched.
    let split = format!("{}\n{}", &key[..20], &key[20..]);
    assert_eq!(
        masker.mask(&split, Syntax::Text),
        "[secret: access key laptop]"
    );
    let other = "conch_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz";
    assert_eq!(masker.mask(other, Syntax::Text), other);
}

#[test]
fn a_multiline_secret_is_found_with_its_lines() {
    let pem = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END KEY-----";
    let masker = Masker::new(&[Secret::new("DEPLOY_KEY", pem)], Vec::new());
    let text = format!("key:\n{pem}\ndone");
    assert_eq!(
        masker.mask(&text, Syntax::Text),
        "key:\n[secret: DEPLOY_KEY]\ndone"
    );
}
