//! A memory's text, read once: what it tells its reader to do, what it
//! says of the assistant's own rules, the places it names, and whether it
//! hides anything.

use std::sync::LazyLock;

use regex::Regex;

use crate::clause::sentences;
use crate::grammar::{self, Cue};
use crate::targets::{self, Target};
use crate::text::clean;

/// What a memory's text says, as the checks read it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reading {
    /// The first sentence that tells its reader to do something.
    pub instruction: Option<Cue>,
    /// The first sentence that talks of the assistant's own rules.
    pub rules: Option<Cue>,
    /// Places something could be sent, paid or run.
    pub targets: Vec<Target>,
    /// "Payee: …", "the recipient is …".
    pub recipient: Option<String>,
    /// Characters that don't show.
    pub hidden: bool,
}

/// Words that name who receives something, followed by who it is.
static RECIPIENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(recipients?|payees?|beneficiar(?:y|ies)|destinataires?|bénéficiaires?|empfänger|zahlungsempfänger|destinatari[oa]s?|beneficiari[oa]s?|destinatários?|beneficiários?|получател[ья])\b(?:\s+[\p{L}\p{N}'’]+){0,4}?\s*(?::|=|—|–|\bis\b|\bare\b|\bshould be\b|\bwill be\b|\best\b|\bist\b|\bes\b|\bè\b|\bé\b|\bson\b|\bsind\b|\bsont\b|\b—\b)\s*\S|(受取人|收款人|收件人)\s*(?:は|：|:|是|为|為)",
    )
    .unwrap_or_else(|e| panic!("the recipient pattern: {e}"))
});

/// Letters spelled out one by one (`s e n d`, `s.e.n.d`), joined: runs of
/// four or more always, and shorter runs too in a text that spells out.
fn join_spelled(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let lone = |k: usize| {
        chars.get(k).is_some_and(|c| c.is_alphanumeric())
            && !k
                .checked_sub(1)
                .and_then(|j| chars.get(j))
                .is_some_and(|c| c.is_alphanumeric())
            && !chars.get(k + 1).is_some_and(|c| c.is_alphanumeric())
    };
    // Each run: where it starts, its letters, where it ends.
    let mut runs: Vec<(usize, String, usize)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !lone(i) {
            i += 1;
            continue;
        }
        let start = i;
        let mut letters = String::new();
        let mut k = i;
        loop {
            letters.push(chars[k]);
            if matches!(chars.get(k + 1), Some(' ' | '.' | '-' | '_')) && lone(k + 2) {
                k += 2;
            } else if chars.get(k + 1) == Some(&' ')
                && matches!(chars.get(k + 2), Some('\'' | '-'))
                && chars.get(k + 3) == Some(&' ')
                && lone(k + 4)
            {
                // "d o n ' t"
                letters.push(chars[k + 2]);
                k += 4;
            } else {
                break;
            }
        }
        runs.push((start, letters, k + 1));
        i = k + 1;
    }
    let spelling = runs.iter().any(|(_, l, _)| l.chars().count() >= 4);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, letters, end) in runs {
        let n = letters.chars().count();
        if n >= 4 || (spelling && n >= 2) {
            out.extend(&chars[at..start]);
            out.push_str(&letters);
            at = end;
        }
    }
    out.extend(&chars[at..]);
    out
}

/// Reads `text` (see the module's header).
pub fn read(text: &str) -> Reading {
    let cleaned = clean(text);
    let mut full = join_spelled(&cleaned.text);
    if !cleaned.smuggled.is_empty() {
        full.push('\n');
        full.push_str(&cleaned.smuggled);
    }
    let targets = targets::find(&full);
    let said = sentences(&full, &targets);
    Reading {
        instruction: said.iter().find_map(grammar::instruction),
        rules: said.iter().find_map(grammar::rules),
        recipient: RECIPIENT.find(&full).map(|m| m.as_str().to_owned()),
        targets,
        hidden: cleaned.hidden,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelled_out_letters_are_joined() {
        assert_eq!(join_spelled("a l w a y s  s e n d"), "always  send");
        assert_eq!(join_spelled("I O U"), "I O U");
        assert_eq!(join_spelled("a.l.w.a.y.s"), "always");
    }

    #[test]
    fn a_recipient_named() {
        assert!(read("Payee: Eve Holdings").recipient.is_some());
        assert!(read("The recipient is Eve").recipient.is_some());
        assert!(read("Ada was the beneficiary of her aunt's will")
            .recipient
            .is_none());
    }
}
