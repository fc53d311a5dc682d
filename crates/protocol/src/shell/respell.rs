//! Other spellings of a word that bash reads as the same word: quotes
//! split into it, backslashes, `$'…'` escapes, empty `$@`. Every rule that
//! reads commands is tested against these, so a rule that only knows the
//! plain spelling fails its tests rather than its owner.

/// A small deterministic generator (SplitMix64).
pub struct Spellings(u64);

impl Spellings {
    pub fn new(seed: u64) -> Spellings {
        Spellings(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `word` (plain text) spelled another way bash reads as the same word.
    pub fn respell(&mut self, word: &str) -> String {
        let mut out = String::new();
        for c in word.chars() {
            let plain = c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '-' | '_');
            let choice = if plain { self.next() % 7 } else { 1 };
            match choice {
                0 => out.push_str(&format!("'{c}'")),
                1 if c == '\'' => out.push_str("\"'\""),
                1 => out.push_str(&format!("\"{c}\"")),
                2 if c != '/' => out.push_str(&format!("\\{c}")),
                3 if c.is_ascii() => out.push_str(&format!("$'\\x{:02x}'", c as u32)),
                4 => {
                    out.push(c);
                    out.push_str("$@");
                }
                5 => {
                    out.push(c);
                    out.push_str("''");
                }
                _ => out.push(c),
            }
        }
        out
    }

    /// Each word of `words` respelled, joined by spaces.
    pub fn command(&mut self, words: &[&str]) -> String {
        words
            .iter()
            .map(|w| self.respell(w))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::{read, Context};

    #[test]
    fn respellings_read_as_the_word() {
        let mut s = Spellings::new(7);
        for _ in 0..500 {
            let words = ["curl", "-fsSL", "files.example/i.sh", "~/.npmrc"];
            let command = s.command(&words);
            let got: Vec<String> = read(&command, &Context::default()).simples[0]
                .words
                .iter()
                .map(|w| w.text.clone())
                .collect();
            assert_eq!(got, words, "{command}");
        }
    }
}
