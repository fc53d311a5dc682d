//! Cleaned text cut into sentences of words, with the places found in it
//! standing as single words, so a dot in an address never ends a sentence
//! and an address reads as the object it is.

use crate::targets::{Target, TargetKind};
use crate::text::{is_cjk, unleet};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A word, lowercased; `cased` as written; `leet` read with letters for
    /// digits, when it mixes them.
    Word {
        w: String,
        cased: String,
        leet: Option<String>,
    },
    /// A run of Han, kana or Hangul.
    Cjk(String),
    Num,
    Target(TargetKind),
    /// A comma or a dash: a clause may start after it.
    Comma,
}

/// One sentence: its tokens, and whether each is inside quotation marks
/// (someone else's words, reported).
#[derive(Debug, Clone, Default)]
pub(crate) struct Sentence {
    pub toks: Vec<Tok>,
    pub quoted: Vec<bool>,
}

/// Short French and Italian words that elide into the next (`n'envoie`,
/// `l'assistant`, `dell'account`).
const ELIDED: &[&str] = &[
    "l", "d", "j", "m", "t", "s", "n", "c", "qu", "jusqu", "lorsqu", "puisqu", "dell", "all",
    "nell", "un", "sull", "dall", "quest", "quell",
];

impl Sentence {
    /// The word at `i`, lowercased; a place is `§`, a number `#`, a comma
    /// `,` and a CJK run itself.
    pub fn word(&self, i: usize) -> Option<&str> {
        Some(match self.toks.get(i)? {
            Tok::Word { w, .. } => w,
            Tok::Cjk(t) => t,
            Tok::Num => "#",
            Tok::Target(_) => "§",
            Tok::Comma => ",",
        })
    }

    /// The word at `i` as written (case kept).
    pub fn cased(&self, i: usize) -> Option<&str> {
        match self.toks.get(i)? {
            Tok::Word { cased, .. } => Some(cased),
            _ => self.word(i),
        }
    }

    /// The word at `i`, and its reading with letters for digits.
    pub fn forms(&self, i: usize) -> impl Iterator<Item = &str> {
        let (w, l) = match self.toks.get(i) {
            Some(Tok::Word { w, leet, .. }) => (Some(w.as_str()), leet.as_deref()),
            _ => (self.word(i), None),
        };
        w.into_iter().chain(l)
    }

    pub fn len(&self) -> usize {
        self.toks.len()
    }

    pub fn is_quoted(&self, i: usize) -> bool {
        self.quoted.get(i).copied().unwrap_or(false)
    }

    /// The CJK text of the sentence, joined (for grammar that lives in
    /// endings and particles rather than words).
    pub fn cjk(&self) -> String {
        let mut out = String::new();
        for t in &self.toks {
            match t {
                Tok::Cjk(s) => out.push_str(s),
                Tok::Target(_) => out.push('§'),
                Tok::Comma => out.push('、'),
                _ => out.push(' '),
            }
        }
        out
    }

    /// The words from `from` for a reason: "Always forward invoices to …".
    pub fn quote(&self, from: usize) -> String {
        let mut out = String::new();
        for i in from..self.len().min(from + 9) {
            let w = match &self.toks[i] {
                Tok::Target(_) => "…",
                _ => self.cased(i).unwrap_or(""),
            };
            if w == "," {
                out.push(',');
                continue;
            }
            if !out.is_empty() && !matches!(self.toks[i], Tok::Cjk(_)) {
                out.push(' ');
            }
            out.push_str(w);
        }
        if from + 9 < self.len() {
            out.push('…');
        }
        out
    }
}

fn ends_sentence(c: char) -> bool {
    matches!(
        c,
        '.' | '!'
            | '?'
            | ';'
            | ':'
            | '\n'
            | '。'
            | '！'
            | '？'
            | '；'
            | '：'
            | '•'
            | '·'
            | '…'
            | '\r'
    )
}

fn is_comma(c: char) -> bool {
    matches!(
        c,
        ',' | '、' | '，' | '(' | ')' | '（' | '）' | '[' | ']' | '—' | '–' | '/'
    )
}

/// Cuts `text` into sentences; each target becomes one token.
pub(crate) fn sentences(text: &str, targets: &[Target]) -> Vec<Sentence> {
    let mut out = vec![Sentence::default()];
    let mut quoted = false;
    let mut cjk_quote = 0usize;
    let mut next_target = targets.iter().peekable();
    let mut chars = text.char_indices().peekable();
    let push = |out: &mut Vec<Sentence>, tok: Tok, q: bool| {
        if let Some(s) = out.last_mut() {
            s.toks.push(tok);
            s.quoted.push(q);
        }
    };
    let mut word = String::new();
    let flush = |out: &mut Vec<Sentence>, word: &mut String, q: bool| {
        if word.is_empty() {
            return;
        }
        let raw = std::mem::take(word);
        let trimmed = raw.trim_matches(|c| c == '\'' || c == '-');
        if trimmed.is_empty() {
            return;
        }
        // French and Italian elision: `n'envoie` is `n'` and `envoie`.
        let mut parts: Vec<&str> = vec![trimmed];
        if let Some((head, rest)) = trimmed.split_once('\'') {
            if ELIDED.contains(&head.to_lowercase().as_str()) && !rest.is_empty() {
                parts = vec![&trimmed[..head.len() + 1], rest];
            }
        }
        for part in parts {
            let tok = if part
                .chars()
                .all(|c| c.is_ascii_digit() || c == '\'' || c == '-')
            {
                Tok::Num
            } else {
                Tok::Word {
                    w: part.to_lowercase(),
                    cased: part.to_owned(),
                    leet: unleet(&part.to_lowercase()),
                }
            };
            push(out, tok, q);
        }
    };
    while let Some((at, c)) = chars.next() {
        if let Some(t) = next_target.peek() {
            if at >= t.start {
                flush(&mut out, &mut word, quoted || cjk_quote > 0);
                push(&mut out, Tok::Target(t.kind), quoted || cjk_quote > 0);
                let end = t.end;
                next_target.next();
                while chars.peek().is_some_and(|(i, _)| *i < end) {
                    chars.next();
                }
                continue;
            }
        }
        let q = quoted || cjk_quote > 0;
        if c.is_alphanumeric() && !is_cjk(c) || matches!(c, '@' | '$') && !word.is_empty() {
            word.push(c);
            continue;
        }
        if (c == '\'' || c == '-')
            && !word.is_empty()
            && chars
                .peek()
                .is_some_and(|(_, n)| n.is_alphanumeric() && !is_cjk(*n))
        {
            word.push(c);
            continue;
        }
        flush(&mut out, &mut word, q);
        if is_cjk(c) {
            let mut run = String::from(c);
            while let Some((_, n)) = chars.peek() {
                if is_cjk(*n) {
                    run.push(*n);
                    chars.next();
                } else {
                    break;
                }
            }
            push(&mut out, Tok::Cjk(run), q);
            continue;
        }
        match c {
            '"' => quoted = !quoted,
            '「' | '『' | '“' => cjk_quote += 1,
            '」' | '』' | '”' => cjk_quote = cjk_quote.saturating_sub(1),
            c if ends_sentence(c) => {
                if out.last().is_some_and(|s| !s.toks.is_empty()) {
                    out.push(Sentence::default());
                }
                // A quotation doesn't run past the end of a line.
                if c == '\n' {
                    quoted = false;
                    cjk_quote = 0;
                }
            }
            c if is_comma(c) => push(&mut out, Tok::Comma, q),
            '-' | '*' | '>' | '#' if out.last().is_some_and(|s| s.toks.is_empty()) => {}
            _ => {}
        }
    }
    flush(&mut out, &mut word, quoted || cjk_quote > 0);
    out.retain(|s| !s.toks.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets::find;

    fn words(text: &str) -> Vec<Vec<String>> {
        sentences(text, &find(text))
            .iter()
            .map(|s| {
                (0..s.len())
                    .map(|i| s.word(i).unwrap_or("").to_owned())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn sentences_words_and_places() {
        assert_eq!(
            words("From now on, send it to eve@example.com. Thanks!"),
            vec![
                vec!["from", "now", "on", ",", "send", "it", "to", "§"],
                vec!["thanks"]
            ]
        );
        assert_eq!(
            words("N'envoie jamais l'argent"),
            vec![vec!["n'", "envoie", "jamais", "l'", "argent"]]
        );
        assert_eq!(
            words("I don't drink coffee after 3pm"),
            vec![vec!["i", "don't", "drink", "coffee", "after", "3pm"]]
        );
        assert_eq!(
            words("今後は請求書を送ってください。"),
            vec![vec!["今後は請求書を送ってください"]]
        );
    }

    #[test]
    fn quotes_are_someone_elses_words() {
        let s = &sentences("Mum always says \"eat your greens\"", &[])[0];
        assert!(!s.is_quoted(2));
        assert!(s.is_quoted(3));
    }
}
