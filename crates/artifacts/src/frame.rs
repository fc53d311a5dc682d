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

/// The headers of `/frame`, in order. `navigates` is the version's flag;
/// `scripts` whether the request asked `scripts=1`.
pub fn frame_headers(kind: Kind, navigates: bool, scripts: bool) -> Vec<(&'static str, String)> {
    let content_type = match kind {
        Kind::Html => "text/html; charset=utf-8",
        Kind::Svg => "image/svg+xml",
        // Conch draws the others itself; opened directly they are text.
        _ => "text/plain; charset=utf-8",
    };
    let csp = if navigates && !scripts {
        CSP_NO_SCRIPTS
    } else {
        CSP_SCRIPTS
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
/// attributes (for browsers without Connection-Allowlist). The stored
/// version stays exactly as it was; downloads serve it as it was.
pub fn served_text(kind: Kind, text: &str) -> String {
    if !kind.can_run() {
        return text.to_owned();
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
        ],
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
        let out = served_text(Kind::Html, page);
        assert!(!out.contains("dns-prefetch"));
        assert!(!out.contains("Refresh"));
        assert!(!out.contains("download"));
        assert!(!out.contains("speculationrules"));
        assert!(out.contains("<link rel=stylesheet href=a.css>"));
        assert!(out.contains("<meta charset=utf-8>"));
        assert!(out.contains("<p>kept</p>"));
        // Other kinds are served as they are.
        assert_eq!(
            served_text(Kind::Markdown, "<meta http-equiv=refresh>"),
            "<meta http-equiv=refresh>"
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
