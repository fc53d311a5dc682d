//! Pages a person lands on without the app's scripts: the setup form and
//! every refusal a browser navigates to. Plain HTML with no script at all,
//! under a strict CSP.
//!
//! A refusal is one sentence. API clients get it as `{"error": "…"}`; a
//! browser that asked for a page (its `Accept` ranks `text/html` above JSON,
//! as every navigation does) gets the same sentence as a page that says what
//! happened and where to go next. `fetch()` and `curl` send `*/*` and get
//! JSON.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The largest error body turned into a page; larger ones aren't errors
/// the gateway wrote, and are passed on as they are.
const LARGEST_ERROR: usize = 64 * 1024;

/// A whole page: `body` is HTML, already escaped.
pub fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · Conch</title><link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\
         <link rel=\"stylesheet\" href=\"/assets/conch.css\"></head>\
         <body><main>{body}</main></body></html>",
        escape(title)
    );
    let mut response = (status, html).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Whether the client asked for a page rather than JSON: `text/html` is in
/// its `Accept` with a weight above zero and at least that of any JSON type
/// it names. `*/*` alone asks for nothing in particular, and gets JSON.
pub fn wants_page(headers: &HeaderMap) -> bool {
    let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let mut html: Option<f32> = None;
    let mut json: Option<f32> = None;
    for item in accept.split(',') {
        let mut parts = item.split(';');
        let kind = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let weight = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        let best = |slot: &mut Option<f32>| *slot = Some(slot.map_or(weight, |w| w.max(weight)));
        match kind.as_str() {
            "text/html" | "application/xhtml+xml" => best(&mut html),
            "application/json" => best(&mut json),
            k if k.ends_with("+json") => best(&mut json),
            _ => {}
        }
    }
    match html {
        Some(h) if h > 0.0 => json.is_none_or(|j| h >= j),
        _ => false,
    }
}

/// The page for a refusal: what happened (the API's sentence) and what to
/// do next.
pub fn error_page(status: StatusCode, sentence: &str) -> Response {
    let (heading, next) = match status {
        StatusCode::UNAUTHORIZED => (
            "Sign in first",
            "<a href=\"/\">Sign in to Conch</a>, then try again.",
        ),
        StatusCode::FORBIDDEN => (
            "Conch refused this",
            "<a href=\"/\">Open Conch</a> and do it from there.",
        ),
        StatusCode::NOT_FOUND => ("Nothing here", "<a href=\"/\">Go to Conch</a>."),
        StatusCode::TOO_MANY_REQUESTS => ("Wait a moment", "Then try again."),
        StatusCode::CONFLICT => ("That can't be done now", "<a href=\"/\">Go to Conch</a>."),
        s if s.is_server_error() => (
            "Something went wrong",
            "Try again. If it keeps happening, run <code>conch doctor</code> in the terminal.",
        ),
        _ => ("Conch couldn't do that", "<a href=\"/\">Go to Conch</a>."),
    };
    page(
        status,
        heading,
        &format!("<h1>{heading}</h1><p>{}</p><p>{next}</p>", escape(sentence)),
    )
}

/// Turns a refusal the API wrote as JSON into its page, keeping its status
/// and `Retry-After`. Anything else is given back as it was.
pub async fn as_page(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || !is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let bytes = match axum::body::to_bytes(body, LARGEST_ERROR).await {
        Ok(bytes) => bytes,
        Err(_) => return error_page(status, "Conch's answer couldn't be read."),
    };
    let sentence = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_owned));
    let Some(sentence) = sentence else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    let mut page = error_page(status, &sentence);
    if let Some(wait) = parts.headers.get(header::RETRY_AFTER) {
        page.headers_mut().insert(header::RETRY_AFTER, wait.clone());
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Ok(v) = HeaderValue::from_str(value) {
            headers.insert(header::ACCEPT, v);
        }
        headers
    }

    #[test]
    fn navigations_get_pages_and_api_clients_get_json() {
        for page in [
            // Chromium's and Firefox's navigations.
            "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            "TEXT/HTML",
            "application/json;q=0.5, text/html",
            "text/html, application/json",
        ] {
            assert!(wants_page(&accept(page)), "{page}");
        }
        for json in [
            "",
            "*/*",
            "application/json",
            "application/json, text/html;q=0.9",
            "text/html;q=0",
            "text/event-stream",
            "application/problem+json, text/html;q=0.1",
            "text/plain",
        ] {
            assert!(!wants_page(&accept(json)), "{json}");
        }
        assert!(!wants_page(&HeaderMap::new()));
    }

    async fn text(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    #[tokio::test]
    async fn a_page_escapes_the_sentence() {
        let sentence = "There's nothing at GET /<script>alert(1)</script>.";
        let html = text(error_page(StatusCode::NOT_FOUND, sentence)).await;
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[tokio::test]
    async fn a_json_refusal_becomes_its_page_with_its_wait() {
        let refusal = crate::ApiError::slow_down(7).into_response();
        let page = as_page(refusal).await;
        assert_eq!(page.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(page.headers()[header::RETRY_AFTER], "7");
        let html = text(page).await;
        assert!(html.contains("Wait 7 seconds and try again."), "{html}");
        // What isn't a refusal is passed on untouched.
        let fine = as_page((StatusCode::OK, "{\"error\":\"no\"}").into_response()).await;
        assert_eq!(text(fine).await, "{\"error\":\"no\"}");
    }
}
