//! The static navigation check (ADR 0034 §3): could this page send its own
//! frame somewhere, or reach the network another way CSP doesn't cover?
//! A version that could is marked `navigates` and served with no scripts
//! until the person presses "Run it anyway".
//!
//! The page is parsed as HTML (lol_html's spec tokenizer, so `<scr<script>`
//! games, odd quoting and SVG inside HTML read as a browser reads them);
//! scripts, event handlers and `javascript:` addresses go through the
//! script scan in js.rs. It is a heuristic: Connection-Allowlist on the
//! frame is the boundary.

use std::cell::RefCell;

use serde::Serialize;

/// One reason a page navigates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// `link-out`, `download`, `form`, `meta-refresh`, `nested-frame`,
    /// `resource-hint`, `speculation-rules`, `script`, `handler`,
    /// `javascript-url`, `svg-animation`, `ping`.
    pub rule: &'static str,
    pub detail: String,
}

const FRAMES: &[&str] = &[
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "portal",
    "fencedframe",
    "applet",
];
const HINTS: &[&str] = &[
    "dns-prefetch",
    "preconnect",
    "prefetch",
    "prerender",
    "preload",
    "modulepreload",
    "next",
];
const URL_ATTRS: &[&str] = &[
    "href",
    "xlink:href",
    "src",
    "action",
    "formaction",
    "data",
    "poster",
    "background",
    "ping",
];

/// Whether an address stays inside the page: empty, or a `#fragment`.
fn stays(value: &str) -> bool {
    let v = value.trim();
    v.is_empty() || v.starts_with('#')
}

/// Whether a `<script>` with this `type` (and `language`) runs as a
/// script (HTML's rule: no type, an empty one, `module`, or a JavaScript
/// MIME type). Anything else is a data block: it runs nothing, but a
/// script may insert it, so it is read as markup.
fn runs_as_script(kind: Option<&str>, language: Option<&str>) -> bool {
    let kind = match (kind.map(str::trim), language.map(str::trim)) {
        (Some(t), _) if !t.is_empty() => t.to_ascii_lowercase(),
        (_, Some(l)) if !l.is_empty() => format!("text/{}", l.to_ascii_lowercase()),
        _ => return true,
    };
    let essence = kind.split(';').next().unwrap_or("").trim();
    essence == "module"
        || matches!(
            essence,
            "application/ecmascript"
                | "application/javascript"
                | "application/x-ecmascript"
                | "application/x-javascript"
                | "text/ecmascript"
                | "text/javascript"
                | "text/javascript1.0"
                | "text/javascript1.1"
                | "text/javascript1.2"
                | "text/javascript1.3"
                | "text/javascript1.4"
                | "text/javascript1.5"
                | "text/jscript"
                | "text/livescript"
                | "text/x-ecmascript"
                | "text/x-javascript"
        )
}

fn is_javascript(value: &str) -> bool {
    // Browsers drop ASCII whitespace and control characters anywhere in a
    // scheme ("java\tscript:").
    let squeezed: String = value
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && !c.is_ascii_control())
        .take(11)
        .collect();
    squeezed.to_ascii_lowercase().starts_with("javascript:")
}

/// Why `html` navigates; empty when it doesn't.
pub fn navigation(html: &str) -> Vec<Finding> {
    let found: RefCell<Vec<Finding>> = RefCell::new(Vec::new());
    let add = |rule: &'static str, detail: String| {
        let mut f = found.borrow_mut();
        let finding = Finding { rule, detail };
        if !f.contains(&finding) {
            f.push(finding);
        }
    };
    let script = RefCell::new(String::new());
    let runs = std::cell::Cell::new(true);
    let data_blocks = RefCell::new(String::new());
    let noscript = RefCell::new(String::new());
    let settings = lol_html::RewriteStrSettings {
        element_content_handlers: vec![
            lol_html::element!("*", |el| {
                let tag = el.tag_name().to_ascii_lowercase();
                let attr = |name: &str| {
                    el.get_attribute(name)
                        .map(|v| crate::entities::decode(&v).0)
                };
                if FRAMES.contains(&tag.as_str()) {
                    add("nested-frame", format!("a <{tag}> element"));
                }
                if tag == "form" {
                    add("form", "a form".into());
                }
                if tag == "meta"
                    && attr("http-equiv").is_some_and(|v| v.trim().eq_ignore_ascii_case("refresh"))
                {
                    add("meta-refresh", "a meta refresh".into());
                }
                if tag == "link" {
                    let rel = attr("rel").unwrap_or_default().to_ascii_lowercase();
                    if let Some(hint) = rel.split_ascii_whitespace().find(|r| HINTS.contains(r)) {
                        add("resource-hint", format!("<link rel={hint}>"));
                    }
                }
                if tag == "script"
                    && attr("type")
                        .is_some_and(|t| t.trim().eq_ignore_ascii_case("speculationrules"))
                {
                    add("speculation-rules", "speculation rules".into());
                }
                if tag == "script" {
                    runs.set(runs_as_script(
                        attr("type").as_deref(),
                        attr("language").as_deref(),
                    ));
                }
                if (tag == "animate" || tag == "set" || tag == "animatemotion")
                    && attr("attributename")
                        .is_some_and(|a| a.to_ascii_lowercase().contains("href"))
                {
                    add(
                        "svg-animation",
                        format!("an SVG <{tag}> that changes a link"),
                    );
                }
                for a in el.attributes() {
                    let name = a.name().to_ascii_lowercase();
                    let (value, unreadable) = crate::entities::decode(&a.value());
                    if unreadable
                        && (name.starts_with("on")
                            || URL_ATTRS.contains(&name.as_str())
                            || name == "srcdoc")
                    {
                        add(
                            "handler",
                            format!("a {name} with character references it can't read"),
                        );
                    }
                    if name == "download" {
                        add("download", format!("a download link on <{tag}>"));
                    }
                    if name == "ping" {
                        add("ping", "a link that pings".into());
                    }
                    if name == "formaction" {
                        add("form", "a form action".into());
                    }
                    if name.starts_with("on") && name.len() > 2 {
                        for why in crate::js::scan(&value) {
                            add("handler", format!("an {name} handler that {why}"));
                        }
                    }
                    if URL_ATTRS.contains(&name.as_str()) || name == "srcdoc" {
                        if is_javascript(&value) {
                            add("javascript-url", format!("a javascript: address in {name}"));
                            for why in crate::js::scan(value.trim_start().get(11..).unwrap_or("")) {
                                add(
                                    "javascript-url",
                                    format!("a javascript: address that {why}"),
                                );
                            }
                        }
                        if name == "srcdoc" {
                            add(
                                "nested-frame",
                                "a frame with its own document (srcdoc)".into(),
                            );
                        }
                    }
                    if (name == "href" || name == "xlink:href")
                        && !stays(&value)
                        && !is_javascript(&value)
                    {
                        // A stylesheet is blocked by CSP before any request;
                        // hints are counted above.
                        if tag != "link" && tag != "use" && tag != "image" && tag != "base" {
                            let shown: String = value.chars().take(80).collect();
                            add("link-out", format!("a link out (<{tag}> to {shown})"));
                        }
                    }
                }
                Ok(())
            }),
            lol_html::text!("script", |t| {
                script.borrow_mut().push_str(t.as_str());
                if t.last_in_text_node() {
                    let text = std::mem::take(&mut *script.borrow_mut());
                    if runs.get() {
                        for why in crate::js::scan(&text) {
                            add("script", format!("a script that {why}"));
                        }
                    } else {
                        let mut blocks = data_blocks.borrow_mut();
                        blocks.push_str(&text);
                        blocks.push('\n');
                    }
                }
                Ok(())
            }),
            lol_html::text!("noscript", |t| {
                noscript.borrow_mut().push_str(t.as_str());
                Ok(())
            }),
        ],
        ..lol_html::RewriteStrSettings::new()
    };
    if let Err(e) = lol_html::rewrite_str(html, settings) {
        // What can't be read can't be cleared.
        add(
            "script",
            format!("a page that couldn't be read whole ({e})"),
        );
    }
    let mut found = found.take();
    // What a page holds as text but could become markup: <noscript>, and
    // data blocks a script may insert (`<script type=text/template>`).
    for inner in [noscript.take(), data_blocks.take()] {
        if !inner.trim().is_empty() && inner.contains('<') {
            for f in navigation(&inner) {
                if !found.contains(&f) {
                    found.push(f);
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests;
