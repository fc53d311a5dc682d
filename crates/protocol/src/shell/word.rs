//! A word as written, piece by piece, and the words the shell makes of it.
//!
//! The parser keeps each character with whether it was quoted, and keeps
//! expansions as atoms. Expansion then does what bash does, in bash's order:
//! braces, the tilde, parameters (the few whose value is known: `$@` and
//! friends are empty in `bash -c`, `$IFS` splits, `$HOME` is the home
//! folder), word splitting on what `$IFS` made, and quote removal. A glob
//! is kept as the pattern it is, because what it matches is the file
//! system's business: rules ask whether it *could be* a name.

/// One piece of a word as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Atom {
    /// A character, and whether quotes or a backslash made it literal.
    Char(char, bool),
    /// Quotes were here (`""` is a word even with nothing in it).
    Quoted,
    /// `$NAME` or `${NAME}`, and whether it was inside double quotes.
    Param(String, bool),
    /// Something only running it would tell (`$(…)`, `` `…` ``, `$((…))`,
    /// `${x:-y}`, `<(…)`), kept as written.
    Computed(String),
}

/// A word after the shell's expansions.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// The word as the program will see it; a computed part stays as written.
    pub text: String,
    /// Part of it is only known when it runs (a substitution, a variable
    /// that isn't known).
    pub computed: bool,
    /// An unquoted `*`, `?` or `[`: the pattern, with quoted characters
    /// escaped, which the shell matches against files.
    pub glob: Option<String>,
}

impl Word {
    pub fn plain(text: &str) -> Word {
        Word {
            text: text.to_owned(),
            computed: false,
            glob: None,
        }
    }

    /// Whether this word could be `name` when it runs: it is, or it is a
    /// pattern that matches it. A computed word could be anything, but that
    /// is the caller's to decide (`computed`).
    pub fn could_be(&self, name: &str) -> bool {
        match &self.glob {
            Some(pattern) => crate::shell::glob::matches(pattern, name),
            None => self.text == name,
        }
    }

    /// The last part of the word's path (`/usr/bin/curl` → `curl`); for a
    /// pattern, the last part of the pattern.
    pub fn base(&self) -> Word {
        if self.computed {
            return self.clone();
        }
        let cut = |s: &str| s.rsplit('/').next().unwrap_or(s).to_owned();
        Word {
            text: cut(&self.text),
            computed: self.computed,
            glob: self.glob.as_deref().map(cut),
        }
    }
}

/// What the reader knows of the world the command will run in.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context<'a> {
    /// `$HOME` and `~`.
    pub home: Option<&'a str>,
}

/// Words made from one word as written, at most this many (brace expansion
/// can multiply; more than this is not a command anyone types).
const MAX_WORDS: usize = 256;

/// Brace expansion over atoms: `{a,b}` and `{1..3}`, unquoted only.
fn braces(atoms: &[Atom], out: &mut Vec<Vec<Atom>>) {
    if out.len() >= MAX_WORDS {
        return;
    }
    let open = |i: usize| matches!(atoms.get(i), Some(Atom::Char('{', false)));
    for start in 0..atoms.len() {
        if !open(start) {
            continue;
        }
        // Find the matching close and the top-level commas.
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut close = None;
        for (i, atom) in atoms.iter().enumerate().skip(start) {
            match atom {
                Atom::Char('{', false) => depth += 1,
                Atom::Char('}', false) => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                Atom::Char(',', false) if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        let Some(close) = close else {
            continue;
        };
        let (prefix, inner, suffix) = (
            &atoms[..start],
            &atoms[start + 1..close],
            &atoms[close + 1..],
        );
        let alternatives: Vec<Vec<Atom>> = if !commas.is_empty() {
            let mut parts = Vec::new();
            let mut from = start + 1;
            for &c in &commas {
                parts.push(atoms[from..c].to_vec());
                from = c + 1;
            }
            parts.push(atoms[from..close].to_vec());
            parts
        } else if let Some(seq) = sequence(inner) {
            seq
        } else {
            continue;
        };
        for alt in alternatives {
            let mut word = prefix.to_vec();
            word.extend(alt);
            word.extend_from_slice(suffix);
            braces(&word, out);
            if out.len() >= MAX_WORDS {
                return;
            }
        }
        return;
    }
    out.push(atoms.to_vec());
}

/// `{1..5}`, `{a..e}`, `{1..10..2}`: the words of a sequence expression.
fn sequence(inner: &[Atom]) -> Option<Vec<Vec<Atom>>> {
    let text: String = inner
        .iter()
        .map(|a| match a {
            Atom::Char(c, false) => Some(*c),
            _ => None,
        })
        .collect::<Option<String>>()?;
    let parts: Vec<&str> = text.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse::<i64>().ok()?.abs().max(1),
        None => 1,
    };
    let chars = |s: &str| {
        let mut c = s.chars();
        match (c.next(), c.next()) {
            (Some(ch), None) if ch.is_ascii_alphabetic() => Some(ch as i64),
            _ => None,
        }
    };
    let (a, b, letters) = match (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
        (Ok(a), Ok(b)) => (a, b, false),
        _ => (chars(parts[0])?, chars(parts[1])?, true),
    };
    let mut out = Vec::new();
    let mut n = a;
    loop {
        let text = if letters {
            char::from_u32(n as u32)?.to_string()
        } else {
            n.to_string()
        };
        out.push(text.chars().map(|c| Atom::Char(c, true)).collect());
        if n == b || out.len() >= MAX_WORDS {
            break;
        }
        n += if b > a { step } else { -step };
        if (b > a && n > b) || (b < a && n < b) {
            break;
        }
    }
    Some(out)
}

/// What a parameter expands to, when it can be known.
enum Value {
    Known(String),
    /// `$IFS`: splits a word where it's unquoted.
    Split,
    Unknown,
}

fn value(name: &str, ctx: &Context<'_>) -> Value {
    match name {
        // `bash -c COMMAND` has no arguments: these are empty.
        "@" | "*" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" => {
            Value::Known(String::new())
        }
        "#" => Value::Known("0".to_owned()),
        "0" => Value::Known("bash".to_owned()),
        "IFS" => Value::Split,
        "HOME" => match ctx.home {
            Some(h) => Value::Known(h.to_owned()),
            None => Value::Unknown,
        },
        _ => Value::Unknown,
    }
}

/// The words the shell makes of one word as written.
pub(crate) fn expand(atoms: &[Atom], ctx: &Context<'_>) -> Vec<Word> {
    let mut out = Vec::new();
    // Most words have no braces to expand.
    if !atoms.iter().any(|a| matches!(a, Atom::Char('{', false))) {
        expand_one(atoms, ctx, &mut out);
        return out;
    }
    let mut alternatives = Vec::new();
    braces(atoms, &mut alternatives);
    for atoms in alternatives {
        expand_one(&atoms, ctx, &mut out);
        if out.len() >= MAX_WORDS {
            break;
        }
    }
    out
}

struct Building {
    text: String,
    /// The pattern, once an unquoted `*`, `?` or `[` has made the word one.
    pattern: Option<String>,
    computed: bool,
    /// Whether anything quoted or any text was seen: `""` is a word, an
    /// unquoted empty expansion is not.
    real: bool,
}

impl Building {
    fn new() -> Building {
        Building {
            text: String::new(),
            pattern: None,
            computed: false,
            real: false,
        }
    }

    fn push(&mut self, c: char, literal: bool) {
        let special = |c: char| matches!(c, '*' | '?' | '[' | ']' | '\\');
        if !literal && matches!(c, '*' | '?' | '[') && self.pattern.is_none() {
            // Everything before was literal: escape what would be special.
            let mut p = String::with_capacity(self.text.len() + 8);
            for t in self.text.chars() {
                if special(t) {
                    p.push('\\');
                }
                p.push(t);
            }
            self.pattern = Some(p);
        }
        if let Some(p) = &mut self.pattern {
            if literal && special(c) {
                p.push('\\');
            }
            p.push(c);
        }
        self.text.push(c);
        self.real = true;
    }

    fn finish(self, out: &mut Vec<Word>) {
        if self.real {
            out.push(Word {
                glob: self.pattern,
                text: self.text,
                computed: self.computed,
            });
        }
    }
}

fn expand_one(atoms: &[Atom], ctx: &Context<'_>, out: &mut Vec<Word>) {
    let mut word = Building::new();
    for (i, atom) in atoms.iter().enumerate() {
        match atom {
            // The tilde: at the start, unquoted, before `/` or the end.
            Atom::Char('~', false)
                if i == 0
                    && matches!(atoms.get(1), None | Some(Atom::Char('/', _)))
                    && ctx.home.is_some() =>
            {
                for c in ctx.home.unwrap_or_default().chars() {
                    word.push(c, true);
                }
            }
            Atom::Char(c, quoted) => word.push(*c, *quoted),
            Atom::Quoted => word.real = true,
            Atom::Param(name, quoted) => match value(name, ctx) {
                Value::Known(v) => {
                    // `"$*"` is one empty word; `"$@"` with no arguments
                    // is none.
                    if *quoted && name != "@" {
                        word.real = true;
                    }
                    for c in v.chars() {
                        word.push(c, true);
                    }
                }
                Value::Split if !quoted => {
                    let done = std::mem::replace(&mut word, Building::new());
                    done.finish(out);
                }
                Value::Split => {
                    for c in [' ', '\t', '\n'] {
                        word.push(c, true);
                    }
                }
                Value::Unknown => {
                    word.computed = true;
                    let written = format!("${name}");
                    for c in written.chars() {
                        word.push(c, true);
                    }
                }
            },
            Atom::Computed(written) => {
                word.computed = true;
                for c in written.chars() {
                    word.push(c, true);
                }
            }
        }
    }
    word.finish(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atoms(text: &str) -> Vec<Atom> {
        text.chars().map(|c| Atom::Char(c, false)).collect()
    }

    fn texts(text: &str) -> Vec<String> {
        expand(&atoms(text), &Context::default())
            .into_iter()
            .map(|w| w.text)
            .collect()
    }

    #[test]
    fn brace_expansion() {
        assert_eq!(texts("c{u,}rl"), ["curl", "crl"]);
        assert_eq!(texts("{ls,-la}"), ["ls", "-la"]);
        assert_eq!(texts("a{1..3}"), ["a1", "a2", "a3"]);
        assert_eq!(texts("{a..c}x"), ["ax", "bx", "cx"]);
        assert_eq!(texts("{a,{b,c}}"), ["a", "b", "c"]);
        assert_eq!(texts("{}"), ["{}"]);
        assert_eq!(texts("{x}"), ["{x}"]);
        assert_eq!(texts("{a,b"), ["{a,b"]);
        assert!(texts("{1..100000}").len() <= MAX_WORDS);
    }

    #[test]
    fn globs_are_patterns() {
        let w = &expand(&atoms("c?rl"), &Context::default())[0];
        assert!(w.could_be("curl") && !w.could_be("wget"));
        let quoted: Vec<Atom> = "c?rl".chars().map(|c| Atom::Char(c, c == '?')).collect();
        let w = &expand(&quoted, &Context::default())[0];
        assert!(w.glob.is_none() && !w.could_be("curl"));
    }
}
