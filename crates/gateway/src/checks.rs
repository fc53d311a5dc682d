//! What every request passes before anything else looks at it.
//!
//! - Host: only loopback names and names the owner configured. A page on
//!   another site whose name resolves to 127.0.0.1 (DNS rebinding) sends its
//!   own name as Host, and is refused.
//! - Where it came from: a browser says which site sent a request
//!   (Sec-Fetch-Site, Origin); `from_where.rs` holds the rule. Nothing from
//!   another site may change state, and nothing from another site may read
//!   the API.
//! - Headers that keep responses from being sniffed, framed or cached.
//! - A refusal a browser navigated to is a page, not JSON (`html_page.rs`).

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::from_where::{self, Sent};
use crate::state::AppState;

/// Host names the gateway answers to.
#[derive(Debug, Clone)]
pub struct AllowedHosts {
    names: Vec<String>,
}

const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

impl AllowedHosts {
    /// The loopback names plus `extra` (configured names, or the address a
    /// public gateway listens on).
    pub fn new(extra: impl IntoIterator<Item = String>) -> AllowedHosts {
        let mut names: Vec<String> = LOOPBACK.iter().map(|s| s.to_string()).collect();
        names.extend(extra.into_iter().map(|n| normalise(&n)));
        AllowedHosts { names }
    }

    pub fn allows(&self, host_header: &str) -> bool {
        let name = normalise(host_name(host_header));
        !name.is_empty() && self.names.contains(&name)
    }

    /// Whether `origin` is this gateway's own origin, reached as `host`.
    /// The gateway speaks plain HTTP, so that is `http://` and the host;
    /// a name the owner configured may also be reached through an HTTPS
    /// proxy in front of it. `https://127.0.0.1:PORT` is somebody else.
    pub fn is_own_origin(&self, origin: &str, host: &str) -> bool {
        let (scheme, rest) = match origin.split_once("://") {
            Some(pair) => pair,
            None => return false,
        };
        if !rest.eq_ignore_ascii_case(host) {
            return false;
        }
        match scheme.to_ascii_lowercase().as_str() {
            "http" => true,
            "https" => {
                let name = normalise(host_name(host));
                !LOOPBACK.contains(&name.as_str()) && self.names.contains(&name)
            }
            _ => false,
        }
    }
}

fn normalise(name: &str) -> String {
    let name = name.trim().trim_end_matches('.').to_ascii_lowercase();
    // A bare IPv6 address is written in brackets in a Host header.
    if name.contains(':') && !name.starts_with('[') {
        format!("[{name}]")
    } else {
        name
    }
}

/// The name part of a Host header (without the port).
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return match host.find(']') {
            Some(end) => &host[..=end],
            None => "",
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        Some(_) => "",
        None => host,
    }
}

fn is_unsafe(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

fn header_text(request: &Request, name: header::HeaderName) -> Option<&str> {
    request
        .headers()
        .get(name)
        .map(|v| v.to_str().unwrap_or("\u{fffd}"))
}

/// Host and origin checks, for every route.
pub async fn check_request(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let page = crate::html_page::wants_page(request.headers());
    let host = header_text(&request, header::HOST).unwrap_or("");
    if !state.hosts.allows(host) {
        let refused = ApiError::new(
            StatusCode::FORBIDDEN,
            format!(
                "Conch doesn't answer to the name \"{}\". Open it at http://127.0.0.1 or http://localhost, or add the name to allowedHosts in settings.json.",
                host.chars().take(100).collect::<String>()
            ),
        )
        .into_response();
        return finish(refused, false, page).await;
    }
    let api = request.uri().path().starts_with("/api/");
    let sent = Sent {
        changes: is_unsafe(request.method()),
        api,
        fetch_site: header_text(&request, header::HeaderName::from_static("sec-fetch-site")),
        origin: header_text(&request, header::ORIGIN),
        host,
    };
    if let Err(refusal) = from_where::judge(&state.hosts, &sent) {
        let refused = ApiError::new(StatusCode::FORBIDDEN, refusal.to_string()).into_response();
        return finish(refused, api, page).await;
    }
    let mut response = next.run(request).await;
    // The whole-request timeout (tower-http's) answers with a bare status.
    if response.status() == StatusCode::REQUEST_TIMEOUT
        && !response.headers().contains_key(header::CONTENT_TYPE)
    {
        response = ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "The request took too long to arrive or to answer. Send it again.",
        )
        .into_response();
    }
    finish(response, api, page).await
}

/// A refusal a browser navigated to becomes a page; then every response
/// gets the headers it lacks.
async fn finish(response: Response, api: bool, page: bool) -> Response {
    let mut response = if page {
        crate::html_page::as_page(response).await
    } else {
        response
    };
    // A route that set its own (the artifact frame allows SAMEORIGIN)
    // keeps it; everything else gets the strict default.
    let headers = response.headers_mut();
    let mut default = |name: header::HeaderName, value: &'static str| {
        if !headers.contains_key(&name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    };
    default(header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    default(header::REFERRER_POLICY, "no-referrer");
    default(header::X_FRAME_OPTIONS, "DENY");
    if api {
        default(header::CACHE_CONTROL, "no-store");
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        let hosts = AllowedHosts::new(["conch.lan".to_string(), "::1".to_string()]);
        for ok in [
            "127.0.0.1:7777",
            "localhost",
            "LOCALHOST:80",
            "[::1]:7777",
            "conch.lan:7777",
            "conch.lan.",
            "127.0.0.1",
        ] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for bad in [
            "",
            "evil.example:7777",
            "127.0.0.1.evil.example",
            "localhost.evil.example:7777",
            "127.0.0.2:7777",
            "[::2]:7777",
            "localhost:77x",
            "[::1",
            "0.0.0.0:7777",
        ] {
            assert!(!hosts.allows(bad), "{bad}");
        }
    }

    #[test]
    fn the_origin_check_compares_the_scheme_too() {
        let hosts = AllowedHosts::new(["conch.lan".to_string()]);
        let own = |origin: &str, host: &str| hosts.is_own_origin(origin, host);
        assert!(own("http://127.0.0.1:7777", "127.0.0.1:7777"));
        assert!(own("HTTP://LOCALHOST:7777", "localhost:7777"));
        assert!(own("http://conch.lan", "conch.lan"));
        // A configured name may sit behind an HTTPS proxy.
        assert!(own("https://conch.lan", "conch.lan"));
        for (origin, host) in [
            ("https://127.0.0.1:7777", "127.0.0.1:7777"),
            ("https://localhost:7777", "localhost:7777"),
            ("https://[::1]:7777", "[::1]:7777"),
            ("ws://127.0.0.1:7777", "127.0.0.1:7777"),
            ("http://127.0.0.1:7778", "127.0.0.1:7777"),
            ("http://127.0.0.1:7777/", "127.0.0.1:7777"),
            ("127.0.0.1:7777", "127.0.0.1:7777"),
            ("null", "127.0.0.1:7777"),
            ("http://evil.example", "127.0.0.1:7777"),
        ] {
            assert!(!own(origin, host), "{origin} for {host}");
        }
    }
}
