//! What the reviewer must not see of a page (ADR 0144): the values of
//! password and other secret fields (done where the snapshot is drawn),
//! and in every other text, tokens and long opaque strings: anything that
//! looks like a key, a session id or a card number is replaced by
//! `[redacted N characters]`. The reviewer needs what a click does, not the
//! secrets on the page.
//!
//! A run is the longest stretch of letters, digits and `+/_-` (with base64's `=` padding); it is
//! opaque when it is 20 or more, mixes letters and digits, and one of its
//! pieces (split at `/ _ -`) does too; or when a piece mixes them (or
//! capitals and small letters, irregularly) over 15 characters, or any
//! piece is 28 or more; or when it starts like a known token (`sk-`,
//! `ghp_`, `xoxb-`, `AKIA`, `eyJ`…). A path of words and numbers
//! (`2026/11/28/city-council`) isn't. Twelve or more digits in a row
//! (spaces and dashes allowed) are a card or account number.

const TOKEN_STARTS: &[&str] = &[
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "pk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxs-",
    "akia",
    "asia",
    "aiza",
    "eyj",
    "ya29.",
    "npm_",
    "pypi-",
];

fn run_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '_' | '-')
}

fn opaque(run: &str) -> bool {
    let lower = run.to_ascii_lowercase();
    if run.len() >= 16 && TOKEN_STARTS.iter().any(|t| lower.starts_with(t)) {
        return true;
    }
    let mixed = |p: &str| {
        p.chars().any(|c| c.is_ascii_digit()) && p.chars().any(|c| c.is_ascii_alphabetic())
    };
    // Capitals after small letters, more than a name's one or two.
    let irregular = |p: &str| {
        p.as_bytes()
            .windows(2)
            .filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
            .count()
            >= 3
    };
    let pieces: Vec<&str> = run
        .split(['/', '_', '-'])
        .map(|p| p.trim_end_matches('='))
        .collect();
    (run.len() >= 20 && mixed(run) && pieces.iter().any(|p| p.len() >= 4 && mixed(p)))
        || pieces
            .iter()
            .any(|p| p.len() >= 28 || (p.len() >= 16 && (mixed(p) || irregular(p))))
}

/// Whether `chars[i..]` starts twelve or more digits (spaces and dashes
/// between them allowed); how far they go.
fn number_run(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    let mut digits = 0;
    let mut end = i;
    while j < chars.len() {
        let c = chars[j];
        if c.is_ascii_digit() {
            digits += 1;
            end = j + 1;
        } else if !(c == ' ' || c == '-') || digits == 0 {
            break;
        }
        j += 1;
    }
    (digits >= 12).then_some(end)
}

/// `text` with its opaque runs and long numbers replaced.
pub fn redact(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !run_char(chars[i - 1]);
        if starts_word && chars[i].is_ascii_digit() {
            if let Some(end) = number_run(&chars, i) {
                out.push_str(&format!("[redacted {} characters]", end - i));
                i = end;
                continue;
            }
        }
        if run_char(chars[i]) {
            let start = i;
            while i < chars.len() && run_char(chars[i]) {
                i += 1;
            }
            // Base64's padding ends a run; an `=` inside one (`key=value`)
            // separates two.
            let mut pad = i;
            while pad < chars.len() && chars[pad] == '=' {
                pad += 1;
            }
            if pad > i && chars.get(pad).is_none_or(|c| !run_char(*c)) {
                i = pad;
            }
            let run: String = chars[start..i].iter().collect();
            if opaque(&run) {
                out.push_str(&format!("[redacted {} characters]", run.chars().count()));
            } else {
                out.push_str(&run);
            }
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_go_and_words_stay() {
        for (text, want) in [
            (
                "Your key: sk-live-4eC39HqLyjWDarjtT1zdp7dc",
                "Your key: [redacted 32 characters]",
            ),
            (
                "token=ghp_16C7e42F292c6912E7710c838347Ae178B4a now",
                "token=[redacted 40 characters] now",
            ),
            (
                "session AKIAIOSFODNN7EXAMPLE",
                "session [redacted 20 characters]",
            ),
            (
                "card 4111 1111 1111 1111 ok",
                "card [redacted 19 characters] ok",
            ),
            (
                "https://a.example/reset?t=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA",
                "https://a.example/reset?t=[redacted 30 characters]",
            ),
            (
                "commit 3f5b8c2a91d7e4f6b0c8a2d1e9f7b3c5a4d6e8f0",
                "commit [redacted 40 characters]",
            ),
            (
                "https://news.example/2026/11/28/city-council-approves-the-new-bridge",
                "https://news.example/2026/11/28/city-council-approves-the-new-bridge",
            ),
            (
                "button \"Send\" [ref=e123456]",
                "button \"Send\" [ref=e123456]",
            ),
            (
                "Téléphone: +33 1 23 45 67 89",
                "Téléphone: +33 1 23 45 67 89",
            ),
            ("東京 2026年11月28日", "東京 2026年11月28日"),
            ("internationalization", "internationalization"),
        ] {
            assert_eq!(redact(text), want, "{text}");
        }
    }

    /// Random secrets of every usual alphabet and length, anywhere in
    /// ordinary text, never survive; the text around them does.
    #[test]
    fn property_generated_secrets_never_survive() {
        let mut seed = 0x51ed_270b_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabets = [
            "0123456789abcdef",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
        ];
        let around = [
            "Ihr Schlüssel: ",
            "key=",
            "« ",
            "鍵は ",
            "Bearer ",
            "\"",
            "(",
            "",
        ];
        for _ in 0..3_000 {
            let alphabet: Vec<char> = alphabets[(next() % 4) as usize].chars().collect();
            let len = 20 + (next() % 45) as usize;
            let secret: String = loop {
                let s: String = (0..len)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect();
                // A secret has both letters and digits (or is long).
                if (s.chars().any(|c| c.is_ascii_digit())
                    && s.chars().any(|c| c.is_ascii_alphabetic()))
                    || len >= 28
                {
                    break s;
                }
            };
            let before = around[(next() % around.len() as u64) as usize];
            let text = format!("{before}{secret} — merci.");
            let got = redact(&text);
            assert!(!got.contains(&secret), "{text} -> {got}");
            assert!(
                got.starts_with(before) && got.ends_with(" — merci."),
                "{text} -> {got}"
            );
        }
    }
}
