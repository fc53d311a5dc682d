//! The text as the masker reads it: line breaks left out and `%XX`
//! escapes decoded, with the way back to where each byte was. A secret
//! split across lines is one run here, and a secret percent-encoded any
//! way at all (every byte, or only some, as `encodeURIComponent` or a
//! shell's `printf %q` leave some alone) reads as itself. What is looked
//! for goes through the same reading, so both sides agree.

use std::borrow::Cow;

use crate::masker::Syntax;

pub(crate) struct View<'a> {
    pub(crate) bytes: Cow<'a, [u8]>,
    /// How many bytes the reading took out before each point: (a position
    /// in `bytes`, the total taken out before it). A break is counted
    /// before the byte after it; a decoded escape after its own byte.
    cuts: Vec<(usize, usize)>,
    /// Positions in `bytes` that were a `%XX` escape, and how many bytes
    /// it took (three, more with a break inside it).
    decoded: Vec<(usize, usize)>,
}

impl<'a> View<'a> {
    pub(crate) fn new(text: &'a [u8], syntax: Syntax) -> View<'a> {
        let mut bytes: Vec<u8> = Vec::new();
        let mut cuts: Vec<(usize, usize)> = Vec::new();
        let mut decoded = Vec::new();
        let mut removed = 0;
        let mut from = 0;
        let mut at = 0;
        while at < text.len() {
            let found = match syntax {
                Syntax::Text => memchr::memchr3(b'\n', b'\r', b'%', &text[at..]),
                Syntax::Json => memchr::memchr2(b'\\', b'%', &text[at..]),
            };
            let Some(i) = found.map(|i| i + at) else {
                break;
            };
            match text[i] {
                b'\n' | b'\r' => {
                    bytes.extend_from_slice(&text[from..i]);
                    removed += 1;
                    push_cut(&mut cuts, bytes.len(), removed);
                    from = i + 1;
                    at = from;
                }
                b'\\' => {
                    // Only `\n` and `\r` are breaks; any other escape is
                    // kept whole, so `\\n` stays a backslash and an n.
                    if matches!(text.get(i + 1), Some(b'n' | b'r')) {
                        bytes.extend_from_slice(&text[from..i]);
                        removed += 2;
                        push_cut(&mut cuts, bytes.len(), removed);
                        from = i + 2;
                    }
                    at = i + 2;
                }
                _ => match escape(text, i, syntax) {
                    Some((byte, width)) => {
                        bytes.extend_from_slice(&text[from..i]);
                        bytes.push(byte);
                        decoded.push((bytes.len() - 1, width));
                        removed += width - 1;
                        push_cut(&mut cuts, bytes.len(), removed);
                        from = i + width;
                        at = from;
                    }
                    None => at = i + 1,
                },
            }
        }
        if from == 0 {
            return View {
                bytes: Cow::Borrowed(text),
                cuts,
                decoded,
            };
        }
        bytes.extend_from_slice(&text[from..]);
        View {
            bytes: Cow::Owned(bytes),
            cuts,
            decoded,
        }
    }

    fn removed_through(&self, at: usize) -> usize {
        match self.cuts.partition_point(|c| c.0 <= at) {
            0 => 0,
            n => self.cuts[n - 1].1,
        }
    }

    /// Where `start..end` of the view was in the text: from its first byte
    /// to its last, line breaks inside included.
    pub(crate) fn original(&self, start: usize, end: usize) -> (usize, usize) {
        let last = end.saturating_sub(1).max(start);
        let width = match self.decoded.binary_search_by_key(&last, |d| d.0) {
            Ok(i) => self.decoded[i].1,
            Err(_) => 1,
        };
        (
            start + self.removed_through(start),
            last + self.removed_through(last) + width,
        )
    }
}

fn push_cut(cuts: &mut Vec<(usize, usize)>, key: usize, removed: usize) {
    match cuts.last_mut() {
        Some(last) if last.0 == key => last.1 = removed,
        _ => cuts.push((key, removed)),
    }
}

/// The byte the `%` escape at `at` stands for and how long it is, its
/// two digits perhaps on the next lines (`fold` cuts anywhere).
fn escape(text: &[u8], at: usize, syntax: Syntax) -> Option<(u8, usize)> {
    let mut i = at + 1;
    let mut digit = || loop {
        match (syntax, text.get(i)?, text.get(i + 1)) {
            (Syntax::Text, b'\n' | b'\r', _) => i += 1,
            (Syntax::Json, b'\\', Some(b'n' | b'r')) => i += 2,
            (_, b, _) => {
                i += 1;
                return hex(b);
            }
        }
    };
    let hi = digit()?;
    let lo = digit()?;
    Some((hi << 4 | lo, i - at))
}

fn hex(b: &u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_maps_back_over_the_breaks_inside_it_only() {
        let text = b"ab\ncd\r\nef\n";
        let view = View::new(text, Syntax::Text);
        assert_eq!(&*view.bytes, b"abcdef");
        // "bcde" -> from b to e, both breaks inside.
        let (s, e) = view.original(1, 5);
        assert_eq!(&text[s..e], b"b\ncd\r\ne");
        // "cd" -> the break before c stays outside.
        let (s, e) = view.original(2, 4);
        assert_eq!(&text[s..e], b"cd");
    }

    #[test]
    fn an_escape_maps_back_whole() {
        let text = b"x%41%2fb\nc%zz";
        let view = View::new(text, Syntax::Text);
        assert_eq!(&*view.bytes, b"xA/bc%zz");
        let (s, e) = view.original(1, 3);
        assert_eq!(&text[s..e], b"%41%2f");
        let (s, e) = view.original(2, 5);
        assert_eq!(&text[s..e], b"%2fb\nc");
        let text = b"a%\n4\r\n1b";
        let view = View::new(text, Syntax::Text);
        assert_eq!(&*view.bytes, b"aAb");
        let (s, e) = view.original(1, 2);
        assert_eq!(&text[s..e], b"%\n4\r\n1");
    }

    #[test]
    fn json_keeps_an_escaped_backslash_before_n() {
        let text = br#"a\\nb\nc"#;
        let view = View::new(text, Syntax::Json);
        assert_eq!(&*view.bytes, br#"a\\nbc"#);
    }
}
