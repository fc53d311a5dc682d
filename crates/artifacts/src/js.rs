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

/// Objects that are the window (or reach it).
const WINDOWS: &[&str] = &[
    "window",
    "self",
    "globalThis",
    "top",
    "parent",
    "frames",
    "opener",
    "document",
    "content",
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
                        if let Tok::Ident(name) = &toks[j] {
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

/// Why the script navigates, or nothing.
pub fn scan(src: &str) -> Vec<String> {
    let toks = lex(src);
    let own = declared(&toks);
    let is_window = |name: &str| WINDOWS.contains(&name) && !own.iter().any(|o| o == name);
    let mut why: Vec<String> = Vec::new();
    let mut say = |s: String| {
        if !why.contains(&s) {
            why.push(s);
        }
    };
    let ident = |i: usize| match toks.get(i) {
        Some(Tok::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    let punct = |i: usize, c: char| toks.get(i) == Some(&Tok::Punct(c));
    for (i, tok) in toks.iter().enumerate() {
        match tok {
            Tok::Ident(name) => {
                let after_dot = i > 0 && punct(i - 1, '.');
                let before = if after_dot && i >= 2 {
                    ident(i - 2)
                } else {
                    None
                };
                let on_window = before.is_some_and(is_window);
                let bare = !after_dot;
                let name = name.as_str();
                if BUILDS.contains(&name) {
                    say(format!("builds code or names at run time ({name})"));
                }
                match name {
                    "location" if bare || on_window => {
                        say("sets or reads the frame's location".into())
                    }
                    "open" if (bare && punct(i + 1, '(')) || on_window => {
                        say("opens a window (window.open)".into())
                    }
                    "top" | "parent" | "opener" | "frameElement"
                        if on_window
                            || (bare
                                && !own.iter().any(|o| o == name)
                                && (punct(i + 1, '.')
                                    || punct(i + 1, '[')
                                    || (punct(i + 1, '=') && !punct(i + 2, '=')))
                                && !matches!(
                                    i.checked_sub(1).and_then(ident),
                                    Some("let" | "const" | "var")
                                )) =>
                    {
                        say(format!("reaches the page around it ({name})"))
                    }
                    "navigation" if punct(i + 1, '.') => say("uses the Navigation API".into()),
                    "click" | "submit" | "requestSubmit" if after_dot && punct(i + 1, '(') => {
                        say(format!("clicks or submits by script (.{name}())"))
                    }
                    "MouseEvent" | "PointerEvent" if i > 0 && ident(i - 1) == Some("new") => {
                        say(format!("makes a synthetic click (new {name})"))
                    }
                    "write" | "writeln" if before == Some("document") => {
                        say("writes markup into the page (document.write)".into())
                    }
                    "RTCPeerConnection" | "webkitRTCPeerConnection" | "RTCDataChannel" => {
                        say("opens a WebRTC connection".into())
                    }
                    "createElement" | "createElementNS" if punct(i + 1, '(') => {
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
                        if punct(i + 1, '(') && matches!(toks.get(i + 2), Some(Tok::Str(_))) =>
                    {
                        say(format!("runs a string as code ({name})"))
                    }
                    _ => {}
                }
                // A window-like object handed around (an alias) lets any of
                // the above happen under another name.
                if is_window(name)
                    && bare
                    && name != "document"
                    && !matches!(toks.get(i + 1), Some(Tok::Punct('.' | '[' | ':')))
                    && i > 0
                    && matches!(
                        toks.get(i - 1),
                        Some(Tok::Punct('=' | '(' | ',' | '?' | '|' | '&'))
                    )
                {
                    say(format!("passes {name} around"))
                }
                // Bracket access on a window-like object.
                if is_window(name) && punct(i + 1, '[') {
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
            Tok::Str(s) => {
                let lower = s.to_ascii_lowercase();
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
            }
            Tok::Punct(_) => {}
        }
    }
    why
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
