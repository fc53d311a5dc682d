//! A chat's title as plain text: what a list shows and a person edits.
//!
//! A first message is often Markdown (`` `ls -la` ``, `**why**`, a link);
//! a title shows what it says, without the marks. One line, at most
//! [`TITLE_CHARS`] characters, no control characters.

/// The longest title a list shows.
pub const TITLE_CHARS: usize = 80;

/// `text` as a title: Markdown's marks taken out (backticks, emphasis,
/// a heading's or a quote's leading marks, a link's address), whitespace
/// made single spaces, shortened with an ellipsis.
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4 * TITLE_CHARS));
    for line in text.lines() {
        let line = line.trim_start();
        let line = line.trim_start_matches(['#', '>']).trim_start();
        let line = line
            .strip_prefix("- ")
            .or_else(|| line.strip_prefix("* "))
            .unwrap_or(line);
        out.push_str(&unmark(line));
        out.push(' ');
        if out.len() > 8 * TITLE_CHARS {
            break;
        }
    }
    let words: Vec<&str> = out.split_whitespace().collect();
    let line = words.join(" ");
    if line.chars().count() <= TITLE_CHARS {
        return line;
    }
    let mut short: String = line.chars().take(TITLE_CHARS - 1).collect();
    short = short.trim_end().to_owned();
    short.push('…');
    short
}

/// One line without backticks, `**`/`__`/`~~`, and with `[text](address)`
/// as its text.
fn unmark(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '`' => {}
            '*' | '_' | '~' if next == Some(c) => i += 1,
            '[' => {
                // A link: keep its text, drop the address.
                if let Some(close) = chars[i + 1..].iter().position(|&c| c == ']') {
                    let close = i + 1 + close;
                    if chars.get(close + 1) == Some(&'(') {
                        if let Some(end) = chars[close + 2..].iter().position(|&c| c == ')') {
                            out.extend(&chars[i + 1..close]);
                            i = close + 2 + end + 1;
                            continue;
                        }
                    }
                }
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_plain_text() {
        let rows = [
            ("run `ls -la` please", "run ls -la please"),
            ("**Why** is __this__ ~~slow~~?", "Why is this slow?"),
            ("# Plan\n\n- one\n- two", "Plan one two"),
            ("> quoted words", "quoted words"),
            ("see [the docs](https://docs.rs/x) now", "see the docs now"),
            ("a [bracket] stays", "a [bracket] stays"),
            ("snake_case_name stays", "snake_case_name stays"),
            ("2 * 3 = 6", "2 * 3 = 6"),
            ("héllo\tワールド 🌊", "héllo ワールド 🌊"),
            ("```\ncode\n```", "code"),
        ];
        for (text, want) in rows {
            assert_eq!(plain(text), want, "{text:?}");
        }
    }

    #[test]
    fn long_titles_end_with_an_ellipsis() {
        let title = plain(&"mot ".repeat(60));
        assert!(title.chars().count() <= TITLE_CHARS);
        assert!(title.ends_with('…'));
        assert!(!title.contains('`'));
    }
}
