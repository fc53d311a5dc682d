//! Cutting a long text after its secrets are out: on a character's edge
//! and never through a `[secret: NAME]` mark. The cut comes after the
//! masking, over text kept with a margin past it, so a secret lying
//! across the cut is whole when it is looked for (a secret cut in two
//! first would leave each half unrecognised, and in the clear).

const MARK: &str = "[secret: ";

/// How much more than it keeps a cut text should be read with: more than
/// any secret's longest spelling, line breaks included.
pub const MARGIN: usize = 8 * 1024;

/// At most `max` bytes from the start of `text`.
pub fn keep_start(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut at = (0..=max)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    if let Some(open) = mark_before(text, at) {
        if !text[open..at].contains(']') {
            at = open;
        }
    }
    &text[..at]
}

/// At most `max` bytes from the end of `text`.
pub fn keep_end(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut at = (text.len() - max..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    if let Some(open) = mark_before(text, at) {
        if let Some(close) = text[open..].find(']').map(|c| open + c + 1) {
            if close > at {
                at = close;
            }
        }
    }
    &text[at..]
}

/// The last mark that opens before `at` (perhaps only partly before it).
fn mark_before(text: &str, at: usize) -> Option<usize> {
    let open = text[..at].rfind('[')?;
    text[open..].starts_with(MARK).then_some(open)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_never_splits_a_mark_or_a_character() {
        let text = "ab [secret: openai key] é cd";
        for max in 0..=text.len() {
            for kept in [keep_start(text, max), keep_end(text, max)] {
                assert!(kept.len() <= max);
                let opens = kept.matches('[').count();
                assert_eq!(opens, kept.matches(']').count(), "{max}: {kept:?}");
            }
        }
    }
}
