//! Character references in attribute values (`&#x6a;avascript:`,
//! `&lpar;`), decoded as a browser would before the checks read them.
//! Only numeric references and the names an escape needs are known; any
//! other name is reported, and the caller treats it as unreadable.

const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("colon", ':'),
    ("lpar", '('),
    ("rpar", ')'),
    ("lsqb", '['),
    ("rsqb", ']'),
    ("lbrack", '['),
    ("rbrack", ']'),
    ("lcub", '{'),
    ("rcub", '}'),
    ("period", '.'),
    ("comma", ','),
    ("sol", '/'),
    ("bsol", '\\'),
    ("semi", ';'),
    ("equals", '='),
    ("excl", '!'),
    ("quest", '?'),
    ("num", '#'),
    ("plus", '+'),
    ("grave", '`'),
    ("Tab", '\t'),
    ("NewLine", '\n'),
    ("nbsp", '\u{a0}'),
];

/// The decoded text, and whether a reference it doesn't know was in it.
pub fn decode(value: &str) -> (String, bool) {
    if !value.contains('&') {
        return (value.to_owned(), false);
    }
    let mut out = String::with_capacity(value.len());
    let mut unknown = false;
    let mut rest = value;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        if let Some(num) = rest.strip_prefix('#') {
            let (hex, digits) = match num.strip_prefix(['x', 'X']) {
                Some(h) => (true, h),
                None => (false, num),
            };
            let len = digits
                .chars()
                .take_while(|c| {
                    if hex {
                        c.is_ascii_hexdigit()
                    } else {
                        c.is_ascii_digit()
                    }
                })
                .count();
            if len > 0 {
                let code = u32::from_str_radix(&digits[..len], if hex { 16 } else { 10 }).ok();
                out.push(code.and_then(char::from_u32).unwrap_or('\u{fffd}'));
                let consumed = (num.len() - digits.len()) + len + 1;
                rest = &rest[consumed..];
                rest = rest.strip_prefix(';').unwrap_or(rest);
                continue;
            }
            out.push('&');
            continue;
        }
        let name_len = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        if name_len == 0 {
            out.push('&');
            continue;
        }
        let name = &rest[..name_len];
        match NAMED.iter().find(|(n, _)| *n == name) {
            Some((_, c)) => {
                out.push(*c);
                rest = &rest[name_len..];
                rest = rest.strip_prefix(';').unwrap_or(rest);
            }
            None => {
                unknown = true;
                out.push('&');
            }
        }
    }
    out.push_str(rest);
    (out, unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_what_escapes_use() {
        assert_eq!(
            decode("jav&#x61;script&colon;go&lpar;&rpar;").0,
            "javascript:go()"
        );
        assert_eq!(decode("&#108;ocation").0, "location");
        assert_eq!(decode("a &amp b").0, "a & b");
        assert_eq!(decode("x&zwnj;y"), ("x&zwnj;y".to_owned(), true));
        assert_eq!(decode("no refs"), ("no refs".to_owned(), false));
    }
}
