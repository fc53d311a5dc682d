//! What a script could do to leave its frame, read from its text.
//!
//! A small lexer (identifiers, punctuation, string and template literals,
//! comments skipped) and patterns over its tokens. It errs towards saying a
//! script navigates: a false alarm costs one "Run it anyway", a miss is
//! stopped only by Connection-Allowlist and the panel's runtime check.
//! Computed access is how payloads get past a text search
//! (`self[atob('bG9jYXRpb24=')] = url`), so anything that builds a name or
//! runs a string (atob, eval, Function, String.fromCharCode, a bracket on
//! window with a key that isn't a plain literal) counts as navigating.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Punct(char),
}

/// Lexes `src`; template literals contribute their text as a string and
/// their `${…}` parts as code.
fn lex(src: &str) -> Vec<Tok> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0usize;
    // Brace depth at each open `${`, to know when a template resumes.
    let mut templates: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
            continue;
        }
        if c == '"' || c == '\'' {
            let (s, next) = string(&chars, i + 1, c);
            out.push(Tok::Str(s));
            i = next;
            continue;
        }
        if c == '`' || (c == '}' && templates.last() == Some(&depth)) {
            if c == '}' {
                templates.pop();
            }
            let (s, next, opened) = template(&chars, i + 1);
            out.push(Tok::Str(s));
            i = next;
            if opened {
                templates.push(depth);
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            out.push(Tok::Ident(chars[start..i].iter().collect()));
            continue;
        }
        if c == '\\' && chars.get(i + 1) == Some(&'u') {
            // A unicode escape inside an identifier (`\u006cocation`) hides
            // its name: treat it as building a name.
            out.push(Tok::Ident("\\u".into()));
            i += 2;
            continue;
        }
        if !c.is_whitespace() {
            if c == '{' {
                depth += 1;
            } else if c == '}' {
                depth = depth.saturating_sub(1);
            }
            out.push(Tok::Punct(c));
        }
        i += 1;
    }
    out
}

fn string(chars: &[char], mut i: usize, quote: char) -> (String, usize) {
    let mut s = String::new();
    while i < chars.len() && chars[i] != quote && chars[i] != '\n' {
        if chars[i] == '\\' && i + 1 < chars.len() {
            s.push('\\');
            s.push(chars[i + 1]);
            i += 2;
            continue;
        }
        s.push(chars[i]);
        i += 1;
    }
    (s, i + 1)
}

/// A template's text up to its end or its next `${`; true when a `${` opened.
fn template(chars: &[char], mut i: usize) -> (String, usize, bool) {
    let mut s = String::new();
    while i < chars.len() {
        match chars[i] {
            '\\' if i + 1 < chars.len() => {
                s.push(chars[i + 1]);
                i += 2;
            }
            '`' => return (s, i + 1, false),
            '$' if chars.get(i + 1) == Some(&'{') => return (s, i + 2, true),
            c => {
                s.push(c);
                i += 1;
            }
        }
    }
    (s, i, false)
}

/// Names whose value is the window (or its document) when used bare. At a
/// page's top level `this` is the window too.
const WINDOWS: &[&str] = &[
    "window",
    "self",
    "globalThis",
    "top",
    "parent",
    "frames",
    "opener",
    "content",
    "this",
    "document",
];

/// Properties that give a window or its document whatever they are read
/// from (`el.ownerDocument.defaultView`, `frame.contentWindow`, an event's
/// `view`).
const WINDOW_PROPS: &[&str] = &[
    "defaultView",
    "view",
    "ownerDocument",
    "contentWindow",
    "contentDocument",
    "frameElement",
];

/// Properties and globals that take the frame somewhere.
const NAVIGATING: &[&str] = &[
    "location",
    "open",
    "opener",
    "top",
    "parent",
    "frameElement",
    "navigation",
];

/// Property names that navigate, click or reach out whatever they are
/// read from, when a bracket names them (`a['click']()`).
const SENSITIVE_KEYS: &[&str] = &[
    "location",
    "open",
    "opener",
    "top",
    "parent",
    "frameElement",
    "navigation",
    "click",
    "submit",
    "requestSubmit",
    "dispatchEvent",
    "createEvent",
    "defaultView",
    "ownerDocument",
    "contentWindow",
    "write",
    "writeln",
];

/// Names long enough to look for inside text a script builds from pieces
/// or spells backwards (lowercase).
const LONG_NAMES: &[&str] = &[
    "location",
    "click",
    "submit",
    "opener",
    "dispatchevent",
    "createevent",
    "initmouseevent",
    "defaultview",
    "ownerdocument",
    "frameelement",
    "contentwindow",
    "globalthis",
    "navigate",
];

/// Short names a built string must spell exactly (lowercase).
const SHORT_NAMES: &[&str] = &[
    "top", "open", "self", "href", "parent", "frames", "window", "assign", "replace", "write",
];

/// Names that make or fire an event by script: a synthetic click on a link
/// follows it.
const SYNTHETIC: &[&str] = &[
    "dispatchEvent",
    "createEvent",
    "initEvent",
    "initMouseEvent",
    "initUIEvent",
    "initPointerEvent",
];

/// Names that run or build code from a string.
const BUILDS: &[&str] = &[
    "eval",
    "Function",
    "atob",
    "fromCharCode",
    "fromCodePoint",
    "Reflect",
    "unescape",
    "decodeURIComponent",
    "decodeURI",
    "\\u",
];

/// Words after which `[` opens an array, not a property access.
const KEYWORDS: &[&str] = &[
    "return",
    "typeof",
    "case",
    "in",
    "of",
    "else",
    "do",
    "yield",
    "await",
    "void",
    "delete",
    "throw",
    "new",
    "instanceof",
    "export",
    "default",
];

/// Markup a script could insert that leaves the frame.
const MARKUP: &[&str] = &[
    "http-equiv",
    "<meta",
    "<iframe",
    "<frame",
    "<object",
    "<embed",
    "<form",
    "<link",
    "<portal",
    "<fencedframe",
    "javascript:",
    "speculationrules",
];

/// Elements a script could create that leave the frame.
const ELEMENTS: &[&str] = &[
    "a",
    "area",
    "form",
    "meta",
    "link",
    "iframe",
    "frame",
    "object",
    "embed",
    "portal",
    "fencedframe",
];

/// Names the script declares itself (`let top`, `const { top, left } =`,
/// `var self`): there they are its own variables, not the window's.
fn declared(toks: &[Tok]) -> Vec<String> {
    let mut names = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if matches!(&toks[i], Tok::Ident(k) if k == "let" || k == "const" || k == "var") {
            match toks.get(i + 1) {
                Some(Tok::Ident(name)) => names.push(name.clone()),
                Some(Tok::Punct('{' | '[')) => {
                    let mut j = i + 2;
                    while j < toks.len() && !matches!(toks[j], Tok::Punct('}' | ']')) {
                        // `{ location: l }` declares l, not location.
                        if let (Tok::Ident(name), false) =
                            (&toks[j], toks.get(j + 1) == Some(&Tok::Punct(':')))
                        {
                            names.push(name.clone());
                        }
                        j += 1;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    names
}

/// Whether a string a script builds (or spells backwards) names a way out.
fn names_a_way_out(built: &str) -> Option<&'static str> {
    let lower = built.trim().to_ascii_lowercase();
    LONG_NAMES
        .iter()
        .find(|n| lower.contains(*n))
        .or_else(|| SHORT_NAMES.iter().find(|n| lower == **n))
        .copied()
}

/// The script's tokens with what each one is.
struct Tokens<'a> {
    toks: &'a [Tok],
    own: Vec<String>,
    /// Per token: its value is the window or its document.
    windowish: Vec<bool>,
}

impl<'a> Tokens<'a> {
    fn new(toks: &'a [Tok]) -> Tokens<'a> {
        let mut t = Tokens {
            toks,
            own: declared(toks),
            windowish: vec![false; toks.len()],
        };
        for i in 0..toks.len() {
            t.windowish[i] = t.is_windowish(i);
        }
        t
    }

    fn ident(&self, i: usize) -> Option<&'a str> {
        match self.toks.get(i) {
            Some(Tok::Ident(s)) => Some(s.as_str()),
            _ => None,
        }
    }

    fn punct(&self, i: usize, c: char) -> bool {
        self.toks.get(i) == Some(&Tok::Punct(c))
    }

    fn own(&self, name: &str) -> bool {
        self.own.iter().any(|o| o == name)
    }

    /// `...x`: three dots, a spread, not a property.
    fn spread(&self, i: usize) -> bool {
        i >= 3 && self.punct(i - 1, '.') && self.punct(i - 2, '.') && self.punct(i - 3, '.')
    }

    /// The token a property is read from: `a.b` and `a?.b` give a's index.
    fn receiver(&self, i: usize) -> Option<usize> {
        if i == 0 || !self.punct(i - 1, '.') || self.spread(i) {
            return None;
        }
        let r = if i >= 2 && self.punct(i - 2, '?') {
            i.checked_sub(3)?
        } else {
            i.checked_sub(2)?
        };
        Some(r)
    }

    fn after_dot(&self, i: usize) -> bool {
        i > 0 && self.punct(i - 1, '.') && !self.spread(i)
    }

    fn is_windowish(&self, i: usize) -> bool {
        let Some(name) = self.ident(i) else {
            return false;
        };
        match self.receiver(i) {
            None if self.after_dot(i) => WINDOW_PROPS.contains(&name),
            None => WINDOWS.contains(&name) && !self.own(name),
            Some(r) => {
                WINDOW_PROPS.contains(&name) || (WINDOWS.contains(&name) && self.windowish[r])
            }
        }
    }

    /// The token after `i` reads a property of it: `.`, `?.` or `[`.
    fn read_on(&self, i: usize) -> bool {
        self.punct(i + 1, '.')
            || self.punct(i + 1, '[')
            || (self.punct(i + 1, '?') && self.punct(i + 2, '.'))
    }

    /// An object literal's key (`{ open: true }`), not a use of the name.
    fn key(&self, i: usize) -> bool {
        self.punct(i + 1, ':') && i > 0 && (self.punct(i - 1, '{') || self.punct(i - 1, ','))
    }

    /// The value at `i` is only looked at, not handed on: `typeof window`,
    /// `x in window`, `window === w`.
    fn only_looked_at(&self, i: usize) -> bool {
        let before = i.checked_sub(1).and_then(|b| self.ident(b));
        if matches!(before, Some("typeof" | "instanceof" | "in" | "delete")) {
            return true;
        }
        let compares_after =
            (self.punct(i + 1, '=') || self.punct(i + 1, '!')) && self.punct(i + 2, '=');
        let compares_before =
            i >= 2 && self.punct(i - 1, '=') && (self.punct(i - 2, '=') || self.punct(i - 2, '!'));
        compares_after || compares_before
    }

    /// Where the bracket opened at `open` closes.
    fn close_of(&self, open: usize) -> usize {
        let mut depth = 0usize;
        for j in open..self.toks.len() {
            match self.toks[j] {
                Tok::Punct('[') => depth += 1,
                Tok::Punct(']') => {
                    depth -= 1;
                    if depth == 0 {
                        return j;
                    }
                }
                _ => {}
            }
        }
        self.toks.len()
    }

    /// A `[` that reads a property (after a name, a call or another
    /// bracket), not one that opens an array.
    fn member_bracket(&self, i: usize) -> bool {
        if !self.punct(i, '[') || i == 0 {
            return false;
        }
        match &self.toks[i - 1] {
            Tok::Ident(k) => !KEYWORDS.contains(&k.as_str()),
            Tok::Punct(')' | ']') => true,
            _ => false,
        }
    }
}

/// Why the script navigates, or nothing.
pub fn scan(src: &str) -> Vec<String> {
    let toks = lex(src);
    let t = Tokens::new(&toks);
    let mut why: Vec<String> = Vec::new();
    let mut say = |s: String| {
        if !why.contains(&s) {
            why.push(s);
        }
    };
    for (i, tok) in toks.iter().enumerate() {
        match tok {
            Tok::Ident(name) => {
                let name = name.as_str();
                let after_dot = t.after_dot(i);
                let on_window = t.receiver(i).is_some_and(|r| t.windowish[r]);
                let bare = !after_dot;
                if BUILDS.contains(&name) {
                    say(format!("builds code or names at run time ({name})"));
                }
                if SYNTHETIC.contains(&name) {
                    say(format!("makes or fires an event by script ({name})"));
                }
                match name {
                    // Whatever it is read from: any object may be the
                    // window under another name.
                    "location" if after_dot || !t.own(name) => {
                        say("sets or reads the frame's location".into())
                    }
                    "open" if (bare && !t.own(name) && !t.key(i)) || on_window => {
                        say("opens a window (window.open)".into())
                    }
                    "top" | "parent" | "opener" | "frameElement"
                        if on_window
                            || (bare
                                && !t.own(name)
                                && (t.read_on(i)
                                    || (t.punct(i + 1, '=') && !t.punct(i + 2, '=')))) =>
                    {
                        say(format!("reaches the page around it ({name})"))
                    }
                    "navigation" if t.read_on(i) => say("uses the Navigation API".into()),
                    // `.click()`, and `.click` handed to call, apply,
                    // Reflect or a variable.
                    "click" | "submit" | "requestSubmit" if after_dot => {
                        say(format!("clicks or submits by script (.{name})"))
                    }
                    "MouseEvent" | "PointerEvent" if i > 0 && t.ident(i - 1) == Some("new") => {
                        say(format!("makes a synthetic click (new {name})"))
                    }
                    "write" | "writeln" if on_window => {
                        say("writes markup into the page (document.write)".into())
                    }
                    "RTCPeerConnection" | "webkitRTCPeerConnection" | "RTCDataChannel" => {
                        say("opens a WebRTC connection".into())
                    }
                    "prototype"
                        if t.receiver(i).and_then(|r| t.ident(r)).is_some_and(|r| {
                            matches!(
                                r,
                                "Element"
                                    | "Node"
                                    | "EventTarget"
                                    | "Document"
                                    | "Window"
                                    | "Location"
                                    | "HTMLDocument"
                            ) || (r.ends_with("Element")
                                && (r.starts_with("HTML") || r.starts_with("SVG")))
                        }) =>
                    {
                        say("reaches an element's built-in methods (prototype)".into())
                    }
                    "createElement" | "createElementNS" if t.punct(i + 1, '(') => {
                        // The element's name: a literal we can read, or not.
                        let arg = if name == "createElementNS" {
                            toks.get(i + 4)
                        } else {
                            toks.get(i + 2)
                        };
                        match arg {
                            Some(Tok::Str(el))
                                if !ELEMENTS.contains(&el.to_ascii_lowercase().as_str()) => {}
                            Some(Tok::Str(el)) => {
                                say(format!("creates a <{}> element", el.to_ascii_lowercase()))
                            }
                            _ => say("creates an element whose name it computes".into()),
                        }
                    }
                    "setTimeout" | "setInterval"
                        if t.punct(i + 1, '(') && matches!(toks.get(i + 2), Some(Tok::Str(_))) =>
                    {
                        say(format!("runs a string as code ({name})"))
                    }
                    _ => {}
                }
                // A window-like value handed on (to a variable, a call, an
                // array, a return) lets any of the above happen under
                // another name.
                if t.windowish[i]
                    && !t.read_on(i)
                    && !t.key(i)
                    && !t.only_looked_at(i)
                    && !t.punct(i + 1, '(')
                {
                    say(format!("passes {name} around"))
                }
                // Bracket access on a window-like value.
                if t.windowish[i] && t.punct(i + 1, '[') {
                    match (toks.get(i + 2), toks.get(i + 3)) {
                        (Some(Tok::Str(key)), Some(Tok::Punct(']'))) => {
                            if NAVIGATING.contains(&key.as_str()) || key.contains('\\') {
                                say(format!("reaches {name}[\"{key}\"]"));
                            }
                        }
                        _ => say(format!("reaches {name}[…] with a key it computes")),
                    }
                }
            }
            Tok::Punct('[') if t.member_bracket(i) => {
                let end = t.close_of(i);
                let inside = &toks[i + 1..end.min(toks.len())];
                let strings = inside.iter().filter(|k| matches!(k, Tok::Str(_))).count();
                match inside {
                    [Tok::Str(key)]
                        if SENSITIVE_KEYS.contains(&key.as_str()) || key.contains('\\') =>
                    {
                        say(format!("reaches [\"{key}\"]"))
                    }
                    [Tok::Str(_)] => {}
                    _ if strings > 0 => {
                        say("reaches a property whose name it builds from pieces".into())
                    }
                    _ => {}
                }
            }
            Tok::Str(s) => {
                let lower = s.to_ascii_lowercase();
                if s == "location" {
                    say("names the frame's location".into());
                }
                if let Some(m) = MARKUP.iter().find(|m| lower.contains(*m)) {
                    say(format!("holds markup that leaves the frame ({m})"));
                }
                if (lower.contains("href=") || lower.contains("action="))
                    && (lower.contains("://")
                        || lower.contains("=//")
                        || lower.contains("=\"//")
                        || lower.contains("='//"))
                {
                    say("holds a link out in markup".into());
                }
                if lower.contains("download") && lower.contains("<a") {
                    say("holds a download link in markup".into());
                }
                let backwards: String = lower.chars().rev().collect();
                if let Some(n) = LONG_NAMES.iter().find(|n| backwards.contains(*n)) {
                    say(format!("spells a name backwards ({n})"));
                }
            }
            Tok::Punct(_) => {}
        }
    }
    for (built, pieces) in pieces(&toks) {
        let one_piece_says_it = pieces
            .iter()
            .any(|p| names_a_way_out(p).is_some() && names_a_way_out(p) == names_a_way_out(&built));
        if let (Some(n), false) = (names_a_way_out(&built), one_piece_says_it) {
            say(format!("builds a name from pieces ({n})"));
        }
    }
    why
}

/// Strings a script joins from literal pieces: `'loc' + 'ation'`,
/// template pieces, `['cl', 'ick'].join('')`, `'cl'.concat('ick')`.
fn pieces(toks: &[Tok]) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let Tok::Str(first) = &toks[i] else {
            i += 1;
            continue;
        };
        let mut parts = vec![first.clone()];
        let mut j = i + 1;
        loop {
            match (toks.get(j), toks.get(j + 1)) {
                (Some(Tok::Str(s)), _) => {
                    parts.push(s.clone());
                    j += 1;
                }
                (Some(Tok::Punct('+')), Some(Tok::Str(s))) => {
                    parts.push(s.clone());
                    j += 2;
                }
                (Some(Tok::Punct(',')), Some(Tok::Str(s)))
                    if i > 0 && toks[i - 1] == Tok::Punct('[') =>
                {
                    parts.push(s.clone());
                    j += 2;
                }
                (Some(Tok::Punct('.')), Some(Tok::Ident(c))) if c == "concat" => {
                    match (toks.get(j + 2), toks.get(j + 3)) {
                        (Some(Tok::Punct('(')), Some(Tok::Str(s))) => {
                            parts.push(s.clone());
                            j += 4;
                            if toks.get(j) == Some(&Tok::Punct(')')) {
                                j += 1;
                            }
                        }
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        if parts.len() > 1 {
            out.push((parts.concat(), parts));
        }
        i = j.max(i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_app_code_is_quiet() {
        let code = r#"
            const rect = el.getBoundingClientRect(); const top = rect.top;
            document.getElementById('out').textContent = 'Location: Paris';
            let parentNode = node.parent; window.addEventListener('resize', f);
            const t = `Total: ${total} (location of the store)`;
            button.addEventListener('click', () => count++);
        "#;
        assert_eq!(scan(code), Vec::<String>::new());
    }

    #[test]
    fn templates_resume_after_interpolation() {
        assert!(scan("const s = `a ${x} b`; location.href = u;")
            .iter()
            .any(|w| w.contains("location")));
        assert!(scan("const s = `a ${ `inner ${y}` } location`;").is_empty());
    }
}
