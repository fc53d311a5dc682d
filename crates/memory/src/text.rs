//! Text as the reader sees it: one spelling for everything that looks the
//! same to a person.
//!
//! A planted memory can hide what it says from a careless reader in ways a
//! person never notices: characters that don't show (zero-width spaces,
//! bidi overrides, tag characters that spell ASCII invisibly), letters
//! from another alphabet that look like Latin ones (Cyrillic `а` in
//! `аlways`), full-width and mathematical letters (`ｓｅｎｄ`, `𝐬𝐞𝐧𝐝`),
//! digits for letters (`s3nd`), and letters spaced out (`s e n d`). Every
//! rule reads the text after this one pass, so each spelling is decided
//! once, here, and no rule has to know about it. What was hidden is said
//! too: a memory that hides characters is held for that alone.

/// The text cleaned for reading.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cleaned {
    /// Visible text, with look-alikes folded to one spelling (case kept).
    pub text: String,
    /// Characters that don't show were in it.
    pub hidden: bool,
    /// ASCII spelled invisibly with tag characters, decoded.
    pub smuggled: String,
}

/// Characters a person can't see in running text.
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{200B}' | '\u{200E}' | '\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}'
        | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{180E}' | '\u{00AD}'
        | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}')
}

/// Joiners are part of emoji and of some scripts; between two Latin letters
/// they only hide a word's spelling.
fn joiner(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}')
}

/// Variation selectors change how a character is drawn, not what it says.
fn drawn_only(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// Full-width, mathematical, circled and small-capital letters and digits,
/// as the ASCII they look like.
fn ascii_look(c: char) -> Option<char> {
    let u = c as u32;
    let from = |base: u32, first: u8| char::from(first + (u - base) as u8);
    match u {
        0xFF01..=0xFF5E => char::from_u32(u - 0xFF01 + 0x21),
        0x3000 => Some(' '),
        // Mathematical alphanumerics: 13 alphabets of 52 letters.
        0x1D400..=0x1D6A3 => {
            let i = (u - 0x1D400) % 52;
            Some(if i < 26 {
                char::from(b'A' + i as u8)
            } else {
                char::from(b'a' + (i - 26) as u8)
            })
        }
        0x1D7CE..=0x1D7FF => Some(char::from(b'0' + ((u - 0x1D7CE) % 10) as u8)),
        0x24B6..=0x24CF => Some(from(0x24B6, b'A')),
        0x24D0..=0x24E9 => Some(from(0x24D0, b'a')),
        0x1F130..=0x1F149 => Some(from(0x1F130, b'A')),
        0x1F150..=0x1F169 => Some(from(0x1F150, b'A')),
        0x1F170..=0x1F189 => Some(from(0x1F170, b'A')),
        0x1F1E6..=0x1F1FF => Some(from(0x1F1E6, b'A')),
        _ => match c {
            '\u{2018}' | '\u{2019}' | '\u{201B}' | '\u{2032}' | '\u{02BC}' => Some('\''),
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{00AB}' | '\u{00BB}' => Some('"'),
            '\u{2010}'..='\u{2015}' | '\u{2212}' => Some('-'),
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' => Some(' '),
            '\u{2024}' | '\u{FF0E}' => Some('.'),
            'ı' => Some('i'),
            'ſ' => Some('s'),
            'ɑ' => Some('a'),
            'ɡ' => Some('g'),
            'ℓ' => Some('l'),
            _ => None,
        },
    }
}

/// Cyrillic and Greek letters that look like Latin ones.
fn latin_look(c: char) -> Option<char> {
    Some(match c {
        'а' | 'α' => 'a',
        'А' | 'Α' => 'A',
        'В' | 'Β' => 'B',
        'в' | 'β' => 'b',
        'с' | 'ϲ' => 'c',
        'С' | 'Ϲ' => 'C',
        'ԁ' => 'd',
        'е' | 'ё' | 'ε' => 'e',
        'Е' | 'Ё' | 'Ε' => 'E',
        'һ' => 'h',
        'Н' | 'Η' => 'H',
        'і' | 'ї' | 'ι' | 'ӏ' => 'i',
        'І' | 'Ї' | 'Ι' => 'I',
        'ј' => 'j',
        'Ј' => 'J',
        'к' | 'κ' => 'k',
        'К' | 'Κ' => 'K',
        'М' | 'Μ' => 'M',
        'м' => 'm',
        'Ν' => 'N',
        'ν' => 'v',
        'о' | 'ο' | 'σ' => 'o',
        'О' | 'Ο' => 'O',
        'р' | 'ρ' => 'p',
        'Р' | 'Ρ' => 'P',
        'ԛ' => 'q',
        'ѕ' => 's',
        'Ѕ' => 'S',
        'т' | 'τ' => 't',
        'Т' | 'Τ' => 'T',
        'υ' => 'u',
        'ѵ' => 'v',
        'ԝ' | 'ѡ' | 'ω' => 'w',
        'х' | 'χ' => 'x',
        'Х' | 'Χ' => 'X',
        'у' | 'ү' | 'γ' => 'y',
        'У' | 'Υ' | 'Ү' => 'Y',
        'Ζ' => 'Z',
        _ => return None,
    })
}

fn is_latin(c: char) -> bool {
    c.is_ascii_alphabetic() || ('\u{00C0}'..='\u{024F}').contains(&c)
}

fn is_cyrillic_or_greek(c: char) -> bool {
    ('\u{0370}'..='\u{03FF}').contains(&c) || ('\u{0400}'..='\u{052F}').contains(&c)
}

/// Letters written in shapes compatibility folding doesn't undo: small
/// capitals (`ᴀʟᴡᴀʏꜱ`) and parenthesized letters (`⒜`).
fn shape(c: char) -> Option<char> {
    const SMALL_CAPS: &[(char, char)] = &[
        ('ᴀ', 'a'),
        ('ʙ', 'b'),
        ('ᴄ', 'c'),
        ('ᴅ', 'd'),
        ('ᴇ', 'e'),
        ('ꜰ', 'f'),
        ('ɢ', 'g'),
        ('ʜ', 'h'),
        ('ɪ', 'i'),
        ('ᴊ', 'j'),
        ('ᴋ', 'k'),
        ('ʟ', 'l'),
        ('ᴍ', 'm'),
        ('ɴ', 'n'),
        ('ᴏ', 'o'),
        ('ᴘ', 'p'),
        ('ʀ', 'r'),
        ('ꜱ', 's'),
        ('ᴛ', 't'),
        ('ᴜ', 'u'),
        ('ᴠ', 'v'),
        ('ᴡ', 'w'),
        ('ʏ', 'y'),
        ('ᴢ', 'z'),
        ('ꞯ', 'q'),
        ('ᴫ', 'l'),
    ];
    let u = c as u32;
    match u {
        0x249C..=0x24B5 => char::from_u32('a' as u32 + (u - 0x249C)),
        0x2474..=0x247C => char::from_u32('1' as u32 + (u - 0x2474)),
        _ => SMALL_CAPS.iter().find(|(k, _)| *k == c).map(|(_, v)| *v),
    }
}

/// A combining mark left over after composing: strokes and overlays drawn
/// through letters (`s̶e̶n̶d̶`), never part of a letter a language writes.
fn stray_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

/// Compatibility letters read as the letters they stand for (NFKC: `ᵃ`,
/// `ﬁ`, `Ａ`), odd shapes folded, and stray combining marks dropped.
fn compatible(raw: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    raw.chars()
        .map(|c| shape(c).unwrap_or(c))
        .nfkc()
        .filter(|c| !stray_mark(*c))
        .collect()
}

/// Cleans `raw` for reading (see the module's header).
pub fn clean(raw: &str) -> Cleaned {
    let folded = compatible(raw);
    let chars: Vec<char> = folded.chars().collect();
    let mut hidden = false;
    let mut smuggled = String::new();
    let mut visible: Vec<char> = Vec::with_capacity(chars.len());
    for (i, &c) in chars.iter().enumerate() {
        let u = c as u32;
        if (0xE0000..=0xE007F).contains(&u) {
            hidden = true;
            if (0xE0020..=0xE007E).contains(&u) {
                smuggled.push(char::from((u - 0xE0000) as u8));
            }
            continue;
        }
        if invisible(c) {
            // A byte-order mark at the very start is only an encoding's habit.
            hidden |= !(c == '\u{FEFF}' && i == 0);
            continue;
        }
        if drawn_only(c) {
            continue;
        }
        if joiner(c) {
            let before = i.checked_sub(1).and_then(|j| chars.get(j));
            let after = chars.get(i + 1);
            if before.is_some_and(|b| b.is_alphanumeric())
                && after.is_some_and(|a| a.is_alphanumeric())
            {
                hidden = true;
                continue;
            }
            continue;
        }
        visible.push(ascii_look(c).unwrap_or(c));
    }
    // Look-alike letters: in a word that mixes alphabets, or anywhere in a
    // text that is mostly Latin, they are read as the Latin letters they
    // look like. Real Russian or Greek text is left as it is.
    let latin = visible.iter().filter(|c| is_latin(**c)).count();
    let other = visible.iter().filter(|c| is_cyrillic_or_greek(**c)).count();
    let mostly_latin = latin > other;
    let mut text = String::with_capacity(visible.len());
    let mut start = 0;
    while start < visible.len() {
        let mut end = start;
        while end < visible.len() && visible[end].is_alphanumeric() {
            end += 1;
        }
        if end == start {
            text.push(visible[start]);
            start += 1;
            continue;
        }
        let word = &visible[start..end];
        let mixed =
            word.iter().any(|c| is_latin(*c)) && word.iter().any(|c| is_cyrillic_or_greek(*c));
        let all_look_alike = word.iter().all(|c| latin_look(*c).is_some());
        let fold = mixed || (mostly_latin && all_look_alike);
        for &c in word {
            text.push(if fold { latin_look(c).unwrap_or(c) } else { c });
        }
        start = end;
    }
    Cleaned {
        text,
        hidden,
        smuggled,
    }
}

/// Digits and signs used for letters (`s3nd`, `@lways`, `1gnore`), read as
/// the letters, for a word that has letters too.
pub fn unleet(word: &str) -> Option<String> {
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    let swaps = word
        .chars()
        .filter(|c| matches!(c, '0' | '1' | '3' | '4' | '5' | '7' | '8' | '@' | '$'))
        .count();
    if letters < 1 || swaps == 0 || word.chars().count() < 2 {
        return None;
    }
    Some(
        word.chars()
            .map(|c| match c {
                '0' => 'o',
                '1' => 'i',
                '3' => 'e',
                '4' | '@' => 'a',
                '5' | '$' => 's',
                '7' => 't',
                '8' => 'b',
                c => c,
            })
            .collect(),
    )
}

/// Han, Hiragana, Katakana and Hangul: scripts written without spaces.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF | 0xAC00..=0xD7AF | 0x20000..=0x2FA1F | 0xFF66..=0xFF9F)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_looks_the_same_reads_the_same() {
        for (raw, read) in [
            ("ａｌｗａｙｓ ｓｅｎｄ", "always send"),
            ("𝐀𝐥𝐰𝐚𝐲𝐬 𝐬𝐞𝐧𝐝", "Always send"),
            ("\u{0430}lw\u{0430}ys send", "always send"),
            ("Ⓐⓛⓦⓐⓨⓢ", "Always"),
            ("don’t", "don't"),
            ("я всегда пью чай", "я всегда пью чай"),
        ] {
            assert_eq!(clean(raw).text, read, "{raw}");
        }
    }

    #[test]
    fn hidden_characters_are_said_and_tag_text_is_read() {
        let c = clean("al\u{200B}ways");
        assert_eq!(c.text, "always");
        assert!(c.hidden);
        let tags: String = "send"
            .chars()
            .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
            .collect();
        let c = clean(&format!("hello{tags}"));
        assert_eq!(c.text, "hello");
        assert_eq!(c.smuggled, "send");
        assert!(c.hidden);
        // An emoji's joiner and a leading byte-order mark hide nothing.
        assert!(!clean("👨\u{200D}👩\u{200D}👧 family").hidden);
        assert!(!clean("\u{FEFF}hello").hidden);
        assert!(!clean("❤\u{FE0F} tea").hidden);
    }

    #[test]
    fn digits_for_letters() {
        assert_eq!(unleet("s3nd").as_deref(), Some("send"));
        assert_eq!(unleet("1gn0re").as_deref(), Some("ignore"));
        assert_eq!(unleet("send"), None);
        assert_eq!(unleet("42"), None);
    }
}

#[cfg(test)]
mod respellings {
    use super::clean;

    /// Each way of drawing the same letters reads as those letters: small
    /// capitals, modifier letters, parenthesized and circled letters,
    /// strokes drawn through, full-width and ligatures.
    #[test]
    fn every_respelling_reads_as_the_plain_words() {
        for (spelled, plain) in [
            ("ᴀʟᴡᴀʏꜱ ꜰᴏʀᴡᴀʀᴅ", "always forward"),
            ("ᵃˡʷᵃʸˢ forward", "always forward"),
            ("⒜⒧⒲⒜⒴⒮ ⒡⒪⒭⒲⒜⒭⒟", "always forward"),
            ("A̶l̶w̶a̶y̶s̶ f̶o̶r̶w̶a̶r̶d̶", "always forward"),
            ("ⓐⓛⓦⓐⓨⓢ forward", "always forward"),
            ("Ａｌｗａｙｓ ｆｏｒｗａｒｄ", "always forward"),
            ("ﬁle the invoices", "file the invoices"),
        ] {
            assert_eq!(clean(spelled).text.to_lowercase(), plain, "{spelled}");
        }
        // Accents a language writes stay.
        assert_eq!(clean("Transfère à Zoë").text, "Transfère à Zoë");
    }
}
