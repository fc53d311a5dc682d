//! How a version is served in its frame, and as a download (ADR 0034 §3,
//! with what testing in Chromium showed the record's headers still let
//! out).
//!
//! Every frame response carries `Connection-Allowlist: ()`: with it,
//! Chromium 152+ blocks the frame navigating itself, `<a download>`, DNS
//! prefetch and preconnect, and WebRTC, while scripts and data:/blob:
//! images still work. A `navigates` version is served with no scripts at all
//! (`sandbox` with no tokens, `script-src 'none'`) unless the request says
//! `scripts=1`: `script-src 'none'` alone still lets a static meta refresh
//! navigate, because Chromium refuses the refresh only when the sandbox
//! lacks allow-scripts. For browsers without Connection-Allowlist the
//! served text loses resource hints, meta refreshes and `download`
//! attributes; that can't catch what a running script inserts.

use crate::kind::Kind;

/// Every Permissions-Policy feature, off.
pub const PERMISSIONS_POLICY: &str = "accelerometer=(), ambient-light-sensor=(), attribution-reporting=(), autoplay=(), bluetooth=(), browsing-topics=(), camera=(), clipboard-read=(), clipboard-write=(), compute-pressure=(), display-capture=(), encrypted-media=(), fullscreen=(), gamepad=(), geolocation=(), gyroscope=(), hid=(), identity-credentials-get=(), idle-detection=(), interest-cohort=(), keyboard-map=(), local-fonts=(), magnetometer=(), microphone=(), midi=(), otp-credentials=(), payment=(), picture-in-picture=(), publickey-credentials-create=(), publickey-credentials-get=(), screen-wake-lock=(), serial=(), speaker-selection=(), storage-access=(), usb=(), web-share=(), window-management=(), xr-spatial-tracking=()";

/// The CSP of a frame that may run its scripts.
pub const CSP_SCRIPTS: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; form-action 'none'; base-uri 'none'; frame-src 'none'; worker-src 'none'; frame-ancestors 'self'; sandbox allow-scripts";

/// The CSP of a frame that runs nothing (a `navigates` version, until Run
/// it anyway).
pub const CSP_NO_SCRIPTS: &str = "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; form-action 'none'; base-uri 'none'; frame-src 'none'; worker-src 'none'; frame-ancestors 'self'; sandbox";

/// The CSP of a download.
pub const CSP_DOWNLOAD: &str = "default-src 'none'; sandbox";

/// The CSP of the diagram renderer's frame: Mermaid's one script from
/// Conch itself, inline styles (Mermaid writes its own), pictures and
/// fonts only from data:, no requests, sealed off like a page.
pub const CSP_DIAGRAM: &str = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'; frame-src 'none'; worker-src 'none'; frame-ancestors 'self'; sandbox allow-scripts";

/// What every page's frame starts with: `<base target="_blank">`, so a
/// link tries to open a new tab, which the sandbox refuses (no popups),
/// instead of taking the frame somewhere (ADR 0034 §3).
pub const BASE: &str = r#"<base target="_blank">"#;

/// The bridge a page's frame gets when its scripts run: it tells the panel
/// the page's height, scrolls to a `#fragment` itself (the base target
/// would send it to a new tab), and asks the panel to open any other link
/// instead of following it. The panel believes only these two messages,
/// only from that frame, and asks the person before opening anything. A
/// page can remove it or send the same messages itself: it is a
/// convenience, not a boundary.
pub const BRIDGE: &str = r##"<script>(()=>{"use strict";const up=m=>{try{parent.postMessage(m,"*")}catch(_){}};let last=-1;const size=()=>{const d=document.documentElement;if(!d)return;const h=Math.ceil(d.getBoundingClientRect().height);if(h!==last){last=h;up({conch:"height",height:h})}};addEventListener("load",size);if(typeof ResizeObserver==="function"){const ro=new ResizeObserver(size);const watch=()=>{ro.observe(document.documentElement);if(document.body)ro.observe(document.body)};if(document.readyState==="loading")addEventListener("DOMContentLoaded",watch);else watch()}addEventListener("click",e=>{const t=e.target;const a=t&&t.closest?t.closest("a[href],area[href]"):null;if(!a)return;const raw=(a.getAttribute("href")||"").trim();e.preventDefault();if(raw.startsWith("#")){let id=raw.slice(1);try{id=decodeURIComponent(id)}catch(_){}const el=id?document.getElementById(id)||document.getElementsByName(id)[0]:document.documentElement;if(el)el.scrollIntoView();return}let url="";try{url=new URL(raw,document.baseURI).href}catch(_){return}up({conch:"open",url})},true)})();</script>"##;

/// A page as its frame serves it: the base target first, then the bridge
/// when its scripts run, after a doctype (and the comments and spaces
/// before it) so the page keeps its standards mode.
pub fn sealed_page(text: &str, scripts_run: bool) -> String {
    let at = head_start(text);
    let mut out = String::with_capacity(text.len() + BASE.len() + BRIDGE.len());
    out.push_str(&text[..at]);
    out.push_str(BASE);
    if scripts_run {
        out.push_str(BRIDGE);
    }
    out.push_str(&text[at..]);
    out
}

/// Where a page's own content starts: after its doctype, or at 0.
fn head_start(text: &str) -> usize {
    let mut at = 0usize;
    loop {
        let rest = &text[at..];
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        if trimmed.starts_with("<!--") {
            match trimmed.find("-->") {
                Some(end) => at += end + 3,
                None => return 0,
            }
        } else if trimmed
            .get(..9)
            .is_some_and(|t| t.eq_ignore_ascii_case("<!doctype"))
        {
            return match trimmed.find('>') {
                Some(end) => at + end + 1,
                None => 0,
            };
        } else {
            return 0;
        }
    }
}

/// Whether a version's scripts run in its frame.
pub fn scripts_run(navigates: bool, scripts: bool) -> bool {
    !navigates || scripts
}

/// The headers of the diagram renderer's frame: like a page's, but with
/// its own CSP, and connections only to Conch itself (for its one script).
pub fn diagram_headers() -> Vec<(&'static str, String)> {
    vec![
        ("content-type", "text/html; charset=utf-8".to_owned()),
        ("content-security-policy", CSP_DIAGRAM.to_owned()),
        ("connection-allowlist", "(response-origin)".to_owned()),
        ("x-frame-options", "SAMEORIGIN".to_owned()),
        ("x-content-type-options", "nosniff".to_owned()),
        ("content-disposition", "inline".to_owned()),
        ("referrer-policy", "no-referrer".to_owned()),
        ("cross-origin-resource-policy", "same-origin".to_owned()),
        ("cross-origin-opener-policy", "same-origin".to_owned()),
        ("permissions-policy", PERMISSIONS_POLICY.to_owned()),
        ("cache-control", "no-store".to_owned()),
    ]
}

/// The diagram renderer's page: nothing but its script.
pub fn diagram_page(script: &str) -> String {
    let attr: String = script
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '.'))
        .collect();
    format!("<!doctype html><html><head><meta charset=\"utf-8\"><title>Diagram</title></head><body><script src=\"{attr}\"></script></body></html>")
}

/// The headers of `/frame`, in order. `navigates` is the version's flag;
/// `scripts` whether the request asked `scripts=1`.
pub fn frame_headers(kind: Kind, navigates: bool, scripts: bool) -> Vec<(&'static str, String)> {
    let content_type = match kind {
        Kind::Html => "text/html; charset=utf-8",
        Kind::Svg => "image/svg+xml",
        // Conch draws the others itself; opened directly they are text.
        _ => "text/plain; charset=utf-8",
    };
    let csp = if scripts_run(navigates, scripts) {
        CSP_SCRIPTS
    } else {
        CSP_NO_SCRIPTS
    };
    vec![
        ("content-type", content_type.to_owned()),
        ("content-security-policy", csp.to_owned()),
        ("connection-allowlist", "()".to_owned()),
        ("x-frame-options", "SAMEORIGIN".to_owned()),
        ("x-content-type-options", "nosniff".to_owned()),
        ("content-disposition", "inline".to_owned()),
        ("referrer-policy", "no-referrer".to_owned()),
        ("cross-origin-resource-policy", "same-origin".to_owned()),
        ("cross-origin-opener-policy", "same-origin".to_owned()),
        ("permissions-policy", PERMISSIONS_POLICY.to_owned()),
        ("cache-control", "no-store".to_owned()),
    ]
}

/// A filename for a download: the title's safe characters, and the kind's
/// extension.
pub fn download_name(title: &str, kind: Kind) -> String {
    let mut name: String = title
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("-");
    name.truncate(80);
    if name.is_empty() {
        name = "artifact".to_owned();
    }
    format!("{name}.{}", kind.ext())
}

/// The headers of `/download`: always an attachment, sandboxed, nosniff.
pub fn download_headers(kind: Kind, title: &str) -> Vec<(&'static str, String)> {
    vec![
        ("content-type", kind.mime().to_owned()),
        (
            "content-disposition",
            format!("attachment; filename=\"{}\"", download_name(title, kind)),
        ),
        ("content-security-policy", CSP_DOWNLOAD.to_owned()),
        ("connection-allowlist", "()".to_owned()),
        ("x-content-type-options", "nosniff".to_owned()),
        ("referrer-policy", "no-referrer".to_owned()),
        ("cross-origin-resource-policy", "same-origin".to_owned()),
        ("cache-control", "no-store".to_owned()),
    ]
}

const HINTS: &[&str] = &["dns-prefetch", "preconnect", "prefetch", "prerender"];

/// The text a frame serves for a page or picture: the version without
/// resource hints, meta refreshes, speculation rules and `download`
/// attributes (for browsers without Connection-Allowlist); a page gets
/// its base target and, when its scripts run, the bridge (`sealed_page`).
/// The stored version stays exactly as it was; downloads serve it as it
/// was.
pub fn served_text(kind: Kind, text: &str, scripts_run: bool) -> String {
    if !kind.can_run() {
        return text.to_owned();
    }
    let rewritten = rewrite(text, scripts_run);
    if kind == Kind::Html && !rewritten.is_empty() {
        sealed_page(&rewritten, scripts_run)
    } else {
        rewritten
    }
}

/// The served text: what leaks without Connection-Allowlist removed, and,
/// when scripts won't run, the scripts and `on…` handlers too (they can't
/// run there; left in, the browser reports each one it refused).
fn rewrite(text: &str, scripts_run: bool) -> String {
    let mut quiet = Vec::new();
    if !scripts_run {
        quiet.push(lol_html::element!("script", |el| {
            el.remove();
            Ok(())
        }));
        quiet.push(lol_html::element!("*", |el| {
            let handlers: Vec<String> = el
                .attributes()
                .iter()
                .map(|a| a.name())
                .filter(|n| n.len() > 2 && n.to_ascii_lowercase().starts_with("on"))
                .collect();
            for name in handlers {
                el.remove_attribute(&name);
            }
            Ok(())
        }));
    }
    let settings = lol_html::RewriteStrSettings {
        element_content_handlers: vec![
            lol_html::element!("link[rel]", |el| {
                let rel = crate::entities::decode(&el.get_attribute("rel").unwrap_or_default())
                    .0
                    .to_ascii_lowercase();
                if rel.split_ascii_whitespace().any(|r| HINTS.contains(&r)) {
                    el.remove();
                }
                Ok(())
            }),
            lol_html::element!("meta[http-equiv]", |el| {
                let v =
                    crate::entities::decode(&el.get_attribute("http-equiv").unwrap_or_default()).0;
                if v.trim().eq_ignore_ascii_case("refresh") {
                    el.remove();
                }
                Ok(())
            }),
            lol_html::element!("script[type]", |el| {
                let v = el.get_attribute("type").unwrap_or_default();
                if v.trim().eq_ignore_ascii_case("speculationrules") {
                    el.remove();
                }
                Ok(())
            }),
            lol_html::element!("[download]", |el| {
                el.remove_attribute("download");
                Ok(())
            }),
        ]
        .into_iter()
        .chain(quiet)
        .collect(),
        ..lol_html::RewriteStrSettings::new()
    };
    // A page the rewriter can't read is served with nothing in it rather
    // than unrewritten.
    lol_html::rewrite_str(text, settings).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_text_drops_what_leaks_without_connection_allowlist() {
        let page = "<head><link rel=\"dns-prefetch\" href=\"//x.evil\"><link rel=stylesheet href=a.css><meta http-equiv=Refresh content=\"0;url=https://evil\"><meta charset=utf-8></head><a href=\"#\" download=\"x\">s</a><script type=speculationrules>{}</script><p>kept</p>";
        let out = served_text(Kind::Html, page, false);
        assert!(out.starts_with(BASE));
        assert!(!out.contains("dns-prefetch"));
        assert!(!out.contains("Refresh"));
        assert!(!out.contains("download"));
        assert!(!out.contains("speculationrules"));
        assert!(out.contains("<link rel=stylesheet href=a.css>"));
        assert!(out.contains("<meta charset=utf-8>"));
        assert!(out.contains("<p>kept</p>"));
        // Other kinds are served as they are.
        assert_eq!(
            served_text(Kind::Markdown, "<meta http-equiv=refresh>", true),
            "<meta http-equiv=refresh>"
        );
    }

    #[test]
    fn the_base_and_bridge_go_after_the_doctype() {
        let at = |page: &str| sealed_page(page, true).find(BASE).unwrap();
        assert_eq!(at("<!doctype html><p>x"), 15);
        assert_eq!(at("<!-- made by a model -->\n <!DOCTYPE html>\n<p>x"), 41);
        assert_eq!(at("<p>no doctype</p>"), 0);
        assert_eq!(at("<!-- only a comment --><p>x"), 0);
        assert_eq!(at("<!-- never closed"), 0);
        assert_eq!(
            sealed_page("<!doctype html><p>x", true),
            format!("<!doctype html>{BASE}{BRIDGE}<p>x")
        );
        // Only pages whose scripts run get the bridge; every page the base.
        assert_eq!(
            served_text(Kind::Html, "<p>x</p>", true),
            format!("{BASE}{BRIDGE}<p>x</p>")
        );
        assert_eq!(
            served_text(Kind::Html, "<p>x</p>", false),
            format!("{BASE}<p>x</p>")
        );
        assert_eq!(served_text(Kind::Svg, "<svg/>", true), "<svg/>");
    }

    #[test]
    fn a_page_served_without_scripts_has_none_left() {
        let page = "<p onclick=\"go()\" ONMOUSEOVER=x title=on>hi</p><script>location='x'</script><svg><script>x</script></svg>";
        assert_eq!(
            served_text(Kind::Html, page, false),
            format!("{BASE}<p title=on>hi</p><svg></svg>")
        );
        assert_eq!(
            served_text(Kind::Html, page, true),
            format!("{BASE}{BRIDGE}{page}")
        );
    }

    #[test]
    fn the_diagram_page_names_only_a_plain_path() {
        assert_eq!(
            diagram_page("/assets/mermaid-frame-Ab_1.js\"><script>x"),
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>Diagram</title></head><body><script src=\"/assets/mermaid-frame-Ab_1.jsscriptx\"></script></body></html>"
        );
    }

    #[test]
    fn download_names_are_plain() {
        assert_eq!(
            download_name("Weekly numbers: Q3/2026", Kind::Chart),
            "Weekly-numbers-Q3-2026.json"
        );
        assert_eq!(download_name("\"; rm -rf", Kind::Table), "rm--rf.csv");
        assert_eq!(download_name("✨", Kind::Html), "artifact.html");
    }
}
