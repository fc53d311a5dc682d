//! A page's HTML as text a model can read: scripts, styles and markup gone,
//! blocks on their own lines, links kept as `[text](address)`.
//!
//! A small scanner rather than a full HTML parser: it only has to produce
//! readable text, never decide anything about the page's safety.

/// The page's title and its text.
pub fn to_text(html: &str, base: Option<&reqwest::Url>) -> (Option<String>, String) {
    let mut out = Text::default();
    let mut title: Option<String> = None;
    let bytes = html.as_bytes();
    let mut i = 0usize;
    let mut skip_until: Option<&'static str> = None;
    let mut in_title = false;
    let mut title_text = String::new();
    let mut link: Option<(String, usize)> = None;
    while i < bytes.len() {
        if bytes[i] == b'<' {
            if html[i..].starts_with("<!--") {
                i = html[i..].find("-->").map_or(bytes.len(), |e| i + e + 3);
                continue;
            }
            let Some(end) = tag_end(html, i) else {
                out.push_text(&html[i..]);
                break;
            };
            let tag = &html[i + 1..end];
            i = end + 1;
            let closing = tag.starts_with('/');
            let name: String = tag
                .trim_start_matches('/')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect::<String>()
                .to_ascii_lowercase();
            if let Some(wanted) = skip_until {
                if closing && name == wanted {
                    skip_until = None;
                }
                continue;
            }
            match name.as_str() {
                "script" | "style" | "noscript" | "template" | "svg" | "iframe" | "object"
                    if !closing && !tag.ends_with('/') =>
                {
                    skip_until = Some(static_name(&name));
                }
                "title" => {
                    in_title = !closing;
                    if closing && title.is_none() {
                        title = Some(collapse(&decode(&title_text)));
                    }
                }
                "br" | "hr" => out.newline(),
                "li" if !closing => {
                    out.newline();
                    out.raw("- ");
                }
                "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                    out.blank_line();
                    if !closing {
                        let level = name[1..].parse::<usize>().unwrap_or(1);
                        out.raw(&"#".repeat(level));
                        out.raw(" ");
                    }
                }
                "p" | "div" | "section" | "article" | "header" | "footer" | "ul" | "ol"
                | "table" | "blockquote" | "pre" | "nav" | "main" | "aside" | "figure"
                | "figcaption" | "form" | "dl" => out.blank_line(),
                "tr" | "dd" | "dt" | "td" | "th" => {
                    if name == "tr" || name == "dt" {
                        out.newline();
                    } else if !closing {
                        out.raw(" ");
                    }
                }
                "a" => {
                    if closing {
                        if let Some((href, start)) = link.take() {
                            if out.text.len() > start {
                                out.raw(&format!("]({href})"));
                                out.text.insert(start, '[');
                            }
                        }
                    } else if let Some(href) = attribute(tag, "href") {
                        let href = decode(&href);
                        let absolute = match base {
                            Some(b) => b.join(&href).map(|u| u.to_string()).ok(),
                            None => Some(href),
                        };
                        if let Some(url) = absolute.filter(|u| u.starts_with("http")) {
                            out.pending_space();
                            link = Some((url, out.text.len()));
                        }
                    }
                }
                "img" if !closing => {
                    if let Some(alt) = attribute(tag, "alt").filter(|a| !a.trim().is_empty()) {
                        out.push_text(&format!(" [image: {}] ", decode(&alt)));
                    }
                }
                _ => {}
            }
            continue;
        }
        let next = html[i..].find('<').map_or(bytes.len(), |n| i + n);
        if skip_until.is_none() {
            let chunk = &html[i..next];
            if in_title {
                title_text.push_str(chunk);
            } else {
                out.push_text(&decode(chunk));
            }
        }
        i = next;
    }
    (title.filter(|t| !t.is_empty()), out.finish())
}

fn static_name(name: &str) -> &'static str {
    match name {
        "script" => "script",
        "style" => "style",
        "noscript" => "noscript",
        "template" => "template",
        "svg" => "svg",
        "iframe" => "iframe",
        _ => "object",
    }
}

/// Where the tag starting at `start` ends, minding quoted attributes.
fn tag_end(html: &str, start: usize) -> Option<usize> {
    let mut quote: Option<u8> = None;
    for (offset, &b) in html.as_bytes()[start + 1..].iter().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => return Some(start + 1 + offset),
            _ => {}
        }
    }
    None
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = lower[from..].find(name) {
        let at = from + found;
        from = at + name.len();
        let before_ok = at > 0 && lower.as_bytes()[at - 1].is_ascii_whitespace();
        let rest = lower[at + name.len()..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let value_start = tag.len() - rest.len() + 1;
        let value = tag[value_start..].trim_start();
        return Some(match value.chars().next() {
            Some(q @ ('"' | '\'')) => value[1..].split(q).next().unwrap_or("").to_owned(),
            _ => value
                .split(|c: char| c.is_whitespace() || c == '>')
                .next()
                .unwrap_or("")
                .to_owned(),
        });
    }
    None
}

/// Decodes character references.
pub fn decode(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest[1..].find(';').map(|e| e + 1).filter(|&e| e <= 12);
        let decoded = end.and_then(|e| entity(&rest[1..e]).map(|c| (c, e)));
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code);
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "mdash" => '—',
        "ndash" => '–',
        "hellip" => '…',
        "copy" => '©',
        "reg" => '®',
        "rsquo" => '’',
        "lsquo" => '‘',
        "rdquo" => '”',
        "ldquo" => '“',
        "middot" => '·',
        "bull" => '•',
        "euro" => '€',
        "pound" => '£',
        _ => return None,
    })
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[derive(Default)]
struct Text {
    text: String,
    space: bool,
}

impl Text {
    fn push_text(&mut self, chunk: &str) {
        if chunk.starts_with(char::is_whitespace) {
            self.space = true;
        }
        for word in chunk.split_whitespace() {
            if self.space && !self.text.is_empty() && !self.text.ends_with(['\n', ' ']) {
                self.text.push(' ');
            }
            self.text.push_str(word);
            self.space = true;
        }
        if chunk.ends_with(char::is_whitespace) {
            self.space = true;
        } else if !chunk.trim().is_empty() {
            self.space = false;
        }
    }

    fn pending_space(&mut self) {
        if self.space && !self.text.is_empty() && !self.text.ends_with(['\n', ' ']) {
            self.text.push(' ');
        }
        self.space = false;
    }

    fn raw(&mut self, s: &str) {
        self.text.push_str(s);
        self.space = false;
    }

    fn newline(&mut self) {
        while self.text.ends_with(' ') {
            self.text.pop();
        }
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        self.space = false;
    }

    fn blank_line(&mut self) {
        self.newline();
        if !self.text.is_empty() && !self.text.ends_with("\n\n") {
            self.text.push('\n');
        }
    }

    fn finish(self) -> String {
        self.text.trim().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_text_from_a_page() {
        let html = r#"<!doctype html><html><head><title>News &amp; Views</title>
<style>body{color:red}</style><script>alert("x<y>")</script></head>
<body><h1>Hello</h1><p>First <b>bold</b> para&nbsp;here.</p><!-- hidden -->
<ul><li>one</li><li>two</li></ul><p>See <a href="/more?a=1&amp;b=2">the rest</a>.</p>
<img src=x alt="a cat"><noscript>enable js</noscript></body></html>"#;
        let base = reqwest::Url::parse("https://news.example/a/b").unwrap();
        let (title, text) = to_text(html, Some(&base));
        assert_eq!(title.as_deref(), Some("News & Views"));
        assert!(text.starts_with("# Hello"), "{text}");
        assert!(text.contains("First bold para here."), "{text}");
        assert!(text.contains("- one\n- two"), "{text}");
        assert!(
            text.contains("[the rest](https://news.example/more?a=1&b=2)"),
            "{text}"
        );
        assert!(text.contains("[image: a cat]"), "{text}");
        for gone in ["alert", "color:red", "hidden", "enable js"] {
            assert!(!text.contains(gone), "{gone} in {text}");
        }
    }

    #[test]
    fn entities_and_broken_markup() {
        assert_eq!(
            decode("a &lt;b&gt; &#65;&#x42; &bogus; & c"),
            "a <b> AB &bogus; & c"
        );
        let (_, text) = to_text("<p>unclosed <b>tag", None);
        assert_eq!(text, "unclosed tag");
        let (_, text) = to_text("<a href='x'>a > b</a><p attr=\"1>2\">ok</p>", None);
        assert!(text.contains("ok"), "{text}");
        let (_, text) = to_text("<p>tail <", None);
        assert!(text.starts_with("tail"), "{text}");
    }
}
