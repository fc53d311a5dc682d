//! The web pages, built from `web/` and embedded at compile time (see
//! build.rs). Every path that isn't the API or a file is the app's own
//! (`/chats/…`, `/skills`, `/settings`), so it gets index.html.

use axum::extract::Path;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));

/// The page's own CSP: no inline script, every asset and request from here,
/// frames only from here (artifacts).
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; frame-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'";

fn asset(path: &str) -> Option<(&'static str, &'static [u8])> {
    ASSETS
        .iter()
        .find(|(p, _, _)| *p == path)
        .map(|(_, mime, bytes)| (*mime, *bytes))
}

/// The path of the one built file whose path starts with `prefix` (the
/// hashed name of a script built beside the app, like the diagram
/// renderer's).
pub fn asset_path_starting(prefix: &str) -> Option<&'static str> {
    ASSETS
        .iter()
        .find(|(p, _, _)| p.starts_with(prefix))
        .map(|(p, _, _)| *p)
}

fn respond(mime: &'static str, bytes: &'static [u8], cache: &'static str) -> Response {
    let mut res = (StatusCode::OK, bytes).into_response();
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    res
}

/// The app's page, for `/` and every path of its own, saying whether this
/// browser is signed in (so a signed-out page doesn't ask first).
pub fn index(signed_in: bool) -> Option<Response> {
    let (_, bytes) = asset("/index.html")?;
    let text = String::from_utf8_lossy(bytes).replacen(
        r#"<meta name="conch-session" content="unknown""#,
        if signed_in {
            r#"<meta name="conch-session" content="in""#
        } else {
            r#"<meta name="conch-session" content="out""#
        },
        1,
    );
    let mut res = respond("text/html; charset=utf-8", b"", "no-store");
    *res.body_mut() = axum::body::Body::from(text);
    Some(res)
}

/// `/favicon.svg` and other files at the top of the build.
pub async fn top_file(uri: axum::http::Uri) -> Response {
    match asset(uri.path()) {
        Some((mime, bytes)) => respond(mime, bytes, "public, max-age=86400"),
        None => (StatusCode::NOT_FOUND, "Not found.").into_response(),
    }
}

/// `/assets/{file}`: hashed names, so they can be kept a year.
pub async fn file(Path(file): Path<String>) -> Response {
    match asset(&format!("/assets/{file}")) {
        Some((mime, bytes)) => respond(mime, bytes, "public, max-age=31536000, immutable"),
        None => (StatusCode::NOT_FOUND, "Not found.").into_response(),
    }
}
