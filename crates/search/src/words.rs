//! The words of a text as a search sees them.
//!
//! Each character is folded on its own, so a word keeps the place it came
//! from in the original text (the matching line is marked there): the
//! compatible form (full width, ligatures, circled letters), without its
//! accents, in lower case. A run of letters and digits is one word. Chinese
//! and Japanese don't space their words, so each of their characters starts
//! a word of two (itself and the next one), and a run's last character is a
//! word of one: a query's "東京" then has to appear as written, not as two
//! characters anywhere in the text.

use unicode_normalization::char::{decompose_compatible, is_combining_mark};

/// Longer words are cut here: a query's word is cut the same way, so a long
/// one still finds itself, and a hash in a tool's output doesn't grow the
/// index without end.
pub const MAX_WORD_BYTES: usize = 40;

/// One word: where it is in the text (bytes), and its folded spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word<'a> {
    pub start: usize,
    pub end: usize,
    pub folded: &'a str,
}

/// Scripts written without spaces between words.
fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF     // Hiragana, Katakana
        | 0x31F0..=0x31FF   // Katakana extensions
        | 0x3400..=0x4DBF   // CJK extension A
        | 0x4E00..=0x9FFF   // CJK unified ideographs
        | 0xF900..=0xFAFF   // CJK compatibility ideographs
        | 0x20000..=0x3134F // CJK extensions B to G
    )
}

/// `c` folded: its compatible decomposition without marks, in lower case.
fn fold_char(c: char, mut out: impl FnMut(char)) {
    if c.is_ascii() {
        out(c.to_ascii_lowercase());
        return;
    }
    // The one letter whose lower case isn't its case-folded form: a German
    // reader writes "ß" as "ss" when it can't be typed.
    if c == 'ß' || c == 'ẞ' {
        out('s');
        out('s');
        return;
    }
    decompose_compatible(c, |d| {
        if is_combining_mark(d) {
            return;
        }
        for l in d.to_lowercase() {
            if !is_combining_mark(l) {
                out(l);
            }
        }
    });
}

/// A query's word as the index keeps it (folded and cut).
pub fn fold_word(word: &str) -> String {
    let mut out = String::new();
    words(word, |w| {
        if out.is_empty() {
            out.push_str(w.folded);
        }
    });
    out
}

/// What a word is built of while the text is read.
struct Pending {
    folded: String,
    start: usize,
    end: usize,
}

impl Pending {
    fn push(&mut self, c: char, start: usize, end: usize) {
        if self.folded.is_empty() {
            self.start = start;
        }
        if self.folded.len() + c.len_utf8() <= MAX_WORD_BYTES {
            self.folded.push(c);
        }
        self.end = end;
    }

    fn flush(&mut self, each: &mut impl FnMut(Word<'_>)) {
        if !self.folded.is_empty() {
            each(Word {
                start: self.start,
                end: self.end,
                folded: &self.folded,
            });
            self.folded.clear();
        }
    }
}

/// Calls `each` with every word of `text`, in order.
pub fn words(text: &str, mut each: impl FnMut(Word<'_>)) {
    let mut word = Pending {
        folded: String::new(),
        start: 0,
        end: 0,
    };
    // The unspaced character before this one: its folded form and place.
    let mut previous: Option<(char, usize, usize)> = None;
    let mut pair = String::new();
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        fold_char(c, |f| {
            if unspaced(f) {
                word.flush(&mut each);
                if let Some((p, p_start, _)) = previous {
                    pair.clear();
                    pair.push(p);
                    pair.push(f);
                    each(Word {
                        start: p_start,
                        end,
                        folded: &pair,
                    });
                }
                previous = Some((f, i, end));
                return;
            }
            end_run(&mut previous, &mut pair, &mut each);
            if f.is_alphanumeric() {
                word.push(f, i, end);
            } else {
                word.flush(&mut each);
            }
        });
    }
    word.flush(&mut each);
    end_run(&mut previous, &mut pair, &mut each);
}

/// An unspaced run's last character is a word of its own.
fn end_run(
    previous: &mut Option<(char, usize, usize)>,
    buf: &mut String,
    each: &mut impl FnMut(Word<'_>),
) {
    if let Some((p, start, end)) = previous.take() {
        buf.clear();
        buf.push(p);
        each(Word {
            start,
            end,
            folded: buf,
        });
    }
}
