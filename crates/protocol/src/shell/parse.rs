//! Reading a command the way bash reads it: lists, pipelines, subshells,
//! groups, reserved words, redirections (here-documents included), and
//! words with their quoting kept character by character. Substitutions are
//! read as commands of their own, and stay in their word as a computed
//! atom. Nothing here expands: see `word.rs`.

use super::word::Atom;

/// One simple command as written.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawSimple {
    pub words: Vec<Vec<Atom>>,
    /// Each redirection's operator and target; a here-document's target is
    /// its body (quoted: it isn't expanded here).
    pub redirects: Vec<(String, Vec<Atom>)>,
}

/// Nesting deeper than this is read as one computed word: no command needs
/// it, and a reader must not be made to recurse without end.
const MAX_DEPTH: usize = 32;

pub(crate) fn parse(command: &str) -> Vec<RawSimple> {
    let mut out = Vec::new();
    Parser {
        chars: command.chars().collect(),
        pos: 0,
        depth: 0,
    }
    .list(&mut out, Close::End);
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Close {
    End,
    Paren,
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

/// What the reserved word at a command's start asks of what follows.
enum Reserved {
    /// Nothing: the command starts after it (`if`, `then`, `!`, `{`…).
    Skip,
    /// Its words up to the next separator aren't a command (`for x in …`).
    ToSeparator,
    /// `case WORD in`: then patterns before each command.
    Case,
    /// `[[ … ]]`: a test, not a command.
    Test,
    /// `function NAME`: the name isn't a command.
    Function,
}

fn reserved(word: &[Atom]) -> Option<Reserved> {
    let text: String = word
        .iter()
        .map(|a| match a {
            Atom::Char(c, false) => Some(*c),
            _ => None,
        })
        .collect::<Option<String>>()?;
    Some(match text.as_str() {
        "if" | "then" | "else" | "elif" | "fi" | "do" | "done" | "while" | "until" | "!" | "{"
        | "}" | "esac" | "coproc" => Reserved::Skip,
        "time" => Reserved::Skip,
        "for" | "select" => Reserved::ToSeparator,
        "case" => Reserved::Case,
        "[[" => Reserved::Test,
        "function" => Reserved::Function,
        _ => return None,
    })
}

fn is_separator(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')'
    )
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn starts_with(&self, text: &str) -> bool {
        text.chars()
            .enumerate()
            .all(|(i, c)| self.peek_at(i) == Some(c))
    }

    fn written(&self, from: usize) -> String {
        self.chars[from..self.pos.min(self.chars.len())]
            .iter()
            .collect()
    }

    /// Commands until `close`, pushing each simple command to `out`.
    fn list(&mut self, out: &mut Vec<RawSimple>, close: Close) {
        self.depth += 1;
        let mut current = RawSimple::default();
        // Words of a reserved construct that aren't a command.
        let mut skip_to_separator = false;
        let mut in_test = false;
        let mut skip_name = false;
        let mut case_words = false;
        let mut case_patterns = false;
        let flush = |current: &mut RawSimple, out: &mut Vec<RawSimple>| {
            if !current.words.is_empty() || !current.redirects.is_empty() {
                out.push(std::mem::take(current));
            }
        };
        while let Some(c) = self.peek() {
            if close == Close::Paren && c == ')' {
                self.pos += 1;
                break;
            }
            if case_patterns && current.words.is_empty() && !matches!(c, ' ' | '\t' | '\n' | ';') {
                // `esac` ends the patterns; anything else is a pattern up
                // to its `)`.
                if self.starts_with("esac") && self.peek_at(4).is_none_or(is_separator) {
                    self.pos += 4;
                    case_patterns = false;
                    continue;
                }
                self.pattern();
                case_patterns = false;
                continue;
            }
            match c {
                ' ' | '\t' => self.pos += 1,
                '\\' if self.peek_at(1) == Some('\n') => self.pos += 2,
                '\n' | ';' => {
                    // `;;`, `;&`, `;;&` end a case item: a pattern follows.
                    let ends_item = c == ';' && matches!(self.peek_at(1), Some(';' | '&'));
                    self.pos += 1;
                    while ends_item && matches!(self.peek(), Some(';' | '&')) {
                        self.pos += 1;
                    }
                    flush(&mut current, out);
                    skip_to_separator = false;
                    if ends_item {
                        case_patterns = true;
                    }
                }
                '&' if self.peek_at(1) == Some('>') => self.redirect(&mut current, out),
                '&' | '|' => {
                    self.pos += 1;
                    flush(&mut current, out);
                    skip_to_separator = false;
                }
                '(' if current.words.is_empty() => {
                    if self.peek_at(1) == Some('(') {
                        self.arithmetic();
                    } else {
                        self.pos += 1;
                        self.nested(out, Close::Paren);
                    }
                }
                '(' => {
                    // `name()`: a function's name, not a command.
                    if self.peek_at(1) == Some(')') {
                        self.pos += 2;
                        current.words.clear();
                    } else {
                        self.pos += 1;
                    }
                }
                ')' => {
                    self.pos += 1;
                    flush(&mut current, out);
                }
                '#' if current.words.is_empty()
                    || self.pos == 0
                    || self.chars[self.pos - 1].is_whitespace() =>
                {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                '<' | '>' if self.peek_at(1) == Some('(') => {
                    let word = self.process_substitution(out);
                    current.words.push(word);
                }
                '<' | '>' => self.redirect(&mut current, out),
                _ => {
                    let word = self.word(out);
                    // `2>file`, `{fd}>file`: a number right before a
                    // redirection is its descriptor.
                    if matches!(self.peek(), Some('<' | '>'))
                        && !word.is_empty()
                        && word
                            .iter()
                            .all(|a| matches!(a, Atom::Char(c, false) if c.is_ascii_digit()))
                    {
                        continue;
                    }
                    if skip_to_separator || skip_name {
                        skip_name = false;
                        if case_words && reserved_text(&word) == Some("in") {
                            case_words = false;
                            skip_to_separator = false;
                            case_patterns = true;
                        }
                        continue;
                    }
                    if in_test {
                        if reserved_text(&word) == Some("]]") {
                            in_test = false;
                        }
                        continue;
                    }
                    if current.words.is_empty() {
                        match reserved(&word) {
                            Some(Reserved::Skip) => continue,
                            Some(Reserved::ToSeparator) => {
                                skip_to_separator = true;
                                continue;
                            }
                            Some(Reserved::Case) => {
                                skip_to_separator = true;
                                case_words = true;
                                continue;
                            }
                            Some(Reserved::Test) => {
                                in_test = true;
                                continue;
                            }
                            Some(Reserved::Function) => {
                                skip_name = true;
                                continue;
                            }
                            None => {}
                        }
                    }
                    current.words.push(word);
                }
            }
        }
        flush(&mut current, out);
        self.depth -= 1;
    }

    /// A nested list (a subshell, a substitution), unless nesting is too
    /// deep, when it is skipped to its close.
    fn nested(&mut self, out: &mut Vec<RawSimple>, close: Close) {
        if self.depth >= MAX_DEPTH {
            let mut depth = 1usize;
            while let Some(c) = self.peek() {
                self.pos += 1;
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            return;
                        }
                    }
                    _ => {}
                }
            }
            return;
        }
        self.list(out, close);
    }

    /// A case pattern, up to and including its unquoted `)`.
    fn pattern(&mut self) {
        if self.peek() == Some('(') {
            self.pos += 1;
        }
        let mut sink = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                ')' => {
                    self.pos += 1;
                    return;
                }
                ' ' | '\t' | '\n' | '|' => self.pos += 1,
                _ => {
                    let before = self.pos;
                    self.word(&mut sink);
                    if self.pos == before {
                        self.pos += 1;
                    }
                }
            }
        }
    }

    /// `((…))`: arithmetic, not a command.
    fn arithmetic(&mut self) {
        self.pos += 2;
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '(' => depth += 1,
                ')' if depth > 0 => depth -= 1,
                ')' if self.peek() == Some(')') => {
                    self.pos += 1;
                    return;
                }
                _ => {}
            }
        }
    }

    /// `<(…)` or `>(…)`: its commands run, and the word is a computed path.
    fn process_substitution(&mut self, out: &mut Vec<RawSimple>) -> Vec<Atom> {
        let start = self.pos;
        self.pos += 2;
        self.nested(out, Close::Paren);
        vec![Atom::Computed(self.written(start))]
    }

    fn redirect(&mut self, current: &mut RawSimple, out: &mut Vec<RawSimple>) {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| matches!(c, '<' | '>' | '&' | '|'))
        {
            self.pos += 1;
            // `<<<` is three; `>&` and `<&` take a descriptor next.
            if self.pos - start >= 3 {
                break;
            }
        }
        let op = self.written(start);
        let strip_tabs = op == "<<" && self.peek() == Some('-');
        if strip_tabs {
            self.pos += 1;
        }
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.pos += 1;
        }
        if matches!(op.as_str(), "<&" | ">&")
            && self.peek().is_some_and(|c| c.is_ascii_digit() || c == '-')
        {
            while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '-') {
                self.pos += 1;
            }
            return;
        }
        let target = if matches!(self.peek(), Some('<' | '>')) && self.peek_at(1) == Some('(') {
            self.process_substitution(out)
        } else {
            self.word(out)
        };
        if op == "<<" {
            let delimiter: String = target
                .iter()
                .filter_map(|a| match a {
                    Atom::Char(c, _) => Some(*c),
                    _ => None,
                })
                .collect();
            let body = self.here_document(&delimiter, strip_tabs);
            current
                .redirects
                .push((op, body.chars().map(|c| Atom::Char(c, true)).collect()));
        } else {
            current.redirects.push((op, target));
        }
    }

    /// Takes a here-document's body out of what is left to read: the lines
    /// after the current one, up to the delimiter's line.
    fn here_document(&mut self, delimiter: &str, strip_tabs: bool) -> String {
        let Some(newline) = self.chars[self.pos..].iter().position(|c| *c == '\n') else {
            return String::new();
        };
        let body_start = self.pos + newline + 1;
        let mut line_start = body_start;
        let mut body = String::new();
        let mut end = self.chars.len();
        while line_start < self.chars.len() {
            let line_end = self.chars[line_start..]
                .iter()
                .position(|c| *c == '\n')
                .map_or(self.chars.len(), |i| line_start + i);
            let line: String = self.chars[line_start..line_end].iter().collect();
            let line = if strip_tabs {
                line.trim_start_matches('\t').to_owned()
            } else {
                line
            };
            if line == delimiter {
                end = (line_end + 1).min(self.chars.len());
                break;
            }
            body.push_str(&line);
            body.push('\n');
            line_start = line_end + 1;
        }
        self.chars.drain(body_start..end);
        body
    }

    /// One word, its quoting kept; substitutions in it are read into `out`.
    fn word(&mut self, out: &mut Vec<RawSimple>) -> Vec<Atom> {
        let mut atoms = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                c if is_separator(c) => break,
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some('\n') => self.pos += 1,
                        Some(next) => {
                            atoms.push(Atom::Char(next, true));
                            self.pos += 1;
                        }
                        None => {}
                    }
                }
                '\'' => {
                    self.pos += 1;
                    atoms.push(Atom::Quoted);
                    while let Some(q) = self.peek() {
                        self.pos += 1;
                        if q == '\'' {
                            break;
                        }
                        atoms.push(Atom::Char(q, true));
                    }
                }
                '"' => {
                    self.pos += 1;
                    self.quoted_string(&mut atoms, out);
                }
                '$' => self.dollar(&mut atoms, out, false),
                '`' => atoms.push(self.backticks(out)),
                _ => {
                    atoms.push(Atom::Char(c, false));
                    self.pos += 1;
                }
            }
        }
        atoms
    }

    /// `"…"`: a word even when empty, except that `"$@"` with no
    /// arguments is no word at all.
    fn quoted_string(&mut self, atoms: &mut Vec<Atom>, out: &mut Vec<RawSimple>) {
        let mut inside = Vec::new();
        self.double_quoted(&mut inside, out);
        let only_all_args = !inside.is_empty()
            && inside
                .iter()
                .all(|a| matches!(a, Atom::Param(p, true) if p == "@"));
        if !only_all_args {
            atoms.push(Atom::Quoted);
        }
        atoms.extend(inside);
    }

    fn double_quoted(&mut self, atoms: &mut Vec<Atom>, out: &mut Vec<RawSimple>) {
        while let Some(q) = self.peek() {
            match q {
                '"' => {
                    self.pos += 1;
                    return;
                }
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some('\n') => self.pos += 1,
                        Some(n @ ('$' | '`' | '"' | '\\')) => {
                            atoms.push(Atom::Char(n, true));
                            self.pos += 1;
                        }
                        Some(_) | None => atoms.push(Atom::Char('\\', true)),
                    }
                }
                '$' => self.dollar(atoms, out, true),
                '`' => atoms.push(self.backticks(out)),
                _ => {
                    atoms.push(Atom::Char(q, true));
                    self.pos += 1;
                }
            }
        }
    }

    /// Everything that starts with `$`.
    fn dollar(&mut self, atoms: &mut Vec<Atom>, out: &mut Vec<RawSimple>, quoted: bool) {
        let start = self.pos;
        match self.peek_at(1) {
            Some('\'') if !quoted => {
                self.pos += 2;
                atoms.push(Atom::Quoted);
                self.ansi_c(atoms);
            }
            Some('"') if !quoted => {
                self.pos += 2;
                self.quoted_string(atoms, out);
            }
            Some('(') if self.peek_at(2) == Some('(') => {
                self.pos += 1;
                self.arithmetic();
                atoms.push(Atom::Computed(self.written(start)));
            }
            Some('(') => {
                self.pos += 2;
                self.nested(out, Close::Paren);
                atoms.push(Atom::Computed(self.written(start)));
            }
            Some('{') => {
                self.pos += 2;
                let inner_start = self.pos;
                let mut depth = 1usize;
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let inner: String = self.chars
                    [inner_start..self.pos.saturating_sub(1).max(inner_start)]
                    .iter()
                    .collect();
                if is_name(&inner) || is_special(&inner) {
                    atoms.push(Atom::Param(inner, quoted));
                } else {
                    // `${x:-$(…)}`: the commands in it run too.
                    if inner.contains("$(") || inner.contains('`') {
                        out.extend(substitutions_in(&inner, self.depth));
                    }
                    atoms.push(Atom::Computed(self.written(start)));
                }
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                self.pos += 1;
                let name_start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.pos += 1;
                }
                atoms.push(Atom::Param(self.written(name_start), quoted));
            }
            Some(c)
                if c.is_ascii_digit() || matches!(c, '@' | '*' | '#' | '?' | '$' | '!' | '-') =>
            {
                self.pos += 2;
                atoms.push(Atom::Param(c.to_string(), quoted));
            }
            _ => {
                atoms.push(Atom::Char('$', quoted));
                self.pos += 1;
            }
        }
    }

    /// `$'…'`: bash's escapes decoded.
    fn ansi_c(&mut self, atoms: &mut Vec<Atom>) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '\'' => return,
                '\\' => {
                    let Some(e) = self.peek() else {
                        atoms.push(Atom::Char('\\', true));
                        return;
                    };
                    self.pos += 1;
                    let decoded = match e {
                        'n' => Some('\n'),
                        't' => Some('\t'),
                        'r' => Some('\r'),
                        'a' => Some('\u{7}'),
                        'b' => Some('\u{8}'),
                        'e' | 'E' => Some('\u{1b}'),
                        'f' => Some('\u{c}'),
                        'v' => Some('\u{b}'),
                        '\\' | '\'' | '"' | '?' => Some(e),
                        'x' => self.hex(2),
                        'u' => self.hex(4),
                        'U' => self.hex(8),
                        'c' => {
                            let ctl = self.peek().map(|c| ((c as u32) & 0x1f) as u8 as char);
                            self.pos += 1;
                            ctl
                        }
                        '0'..='7' => {
                            let mut n = e.to_digit(8).unwrap_or(0);
                            for _ in 0..2 {
                                match self.peek().and_then(|c| c.to_digit(8)) {
                                    Some(d) => {
                                        n = n * 8 + d;
                                        self.pos += 1;
                                    }
                                    None => break,
                                }
                            }
                            char::from_u32(n & 0xff)
                        }
                        other => {
                            atoms.push(Atom::Char('\\', true));
                            Some(other)
                        }
                    };
                    if let Some(d) = decoded.filter(|d| *d != '\0') {
                        atoms.push(Atom::Char(d, true));
                    }
                }
                _ => atoms.push(Atom::Char(c, true)),
            }
        }
    }

    fn hex(&mut self, max: usize) -> Option<char> {
        let mut n = 0u32;
        let mut digits = 0;
        while digits < max {
            match self.peek().and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    n = n * 16 + d;
                    self.pos += 1;
                    digits += 1;
                }
                None => break,
            }
        }
        if digits == 0 {
            return Some('\\');
        }
        char::from_u32(n)
    }

    /// `` `…` ``: its commands, after the backslashes that protect `` ` ``,
    /// `\` and `$` inside it.
    fn backticks(&mut self, out: &mut Vec<RawSimple>) -> Atom {
        let start = self.pos;
        self.pos += 1;
        let mut inner = String::new();
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '`' => break,
                '\\' if matches!(self.peek(), Some('`' | '\\' | '$')) => {
                    inner.push(self.peek().unwrap_or('\\'));
                    self.pos += 1;
                }
                _ => inner.push(c),
            }
        }
        out.extend(parse_nested(&inner, self.depth));
        Atom::Computed(self.written(start))
    }
}

fn parse_nested(text: &str, depth: usize) -> Vec<RawSimple> {
    let mut out = Vec::new();
    if depth < MAX_DEPTH {
        Parser {
            chars: text.chars().collect(),
            pos: 0,
            depth,
        }
        .list(&mut out, Close::End);
    }
    out
}

/// The commands of the substitutions inside a parameter expansion's text.
fn substitutions_in(text: &str, depth: usize) -> Vec<RawSimple> {
    let mut out = Vec::new();
    if depth >= MAX_DEPTH {
        return out;
    }
    let mut p = Parser {
        chars: text.chars().collect(),
        pos: 0,
        depth,
    };
    let mut sink = Vec::new();
    while let Some(c) = p.peek() {
        match c {
            '$' if p.peek_at(1) == Some('(') => p.dollar(&mut sink, &mut out, false),
            '`' => {
                p.backticks(&mut out);
            }
            _ => p.pos += 1,
        }
    }
    out
}

fn reserved_text(word: &[Atom]) -> Option<&'static str> {
    let text: String = word
        .iter()
        .map(|a| match a {
            Atom::Char(c, false) => Some(*c),
            _ => None,
        })
        .collect::<Option<String>>()?;
    match text.as_str() {
        "in" => Some("in"),
        "]]" => Some("]]"),
        _ => None,
    }
}

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_special(text: &str) -> bool {
    matches!(text, "@" | "*" | "#" | "?" | "$" | "!" | "-")
        || (!text.is_empty() && text.chars().all(|c| c.is_ascii_digit()))
}
