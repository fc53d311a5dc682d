//! The few pages the gateway serves itself: the first-run setup form and a
//! home page. Plain HTML with no script at all, under a strict CSP.

use axum::extract::{Form, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use conversations::security::Tried;

use crate::auth::setup_link::LinkCheck;
use crate::auth::{password, Peer};
use crate::error::ApiError;
use crate::routes::session::session_cookie;
use crate::state::AppState;

const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const CSS: &str = include_str!("../../assets/conch.css");

fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} · Conch</title><link rel=\"stylesheet\" href=\"/assets/conch.css\"></head>\
         <body><main>{body}</main></body></html>"
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

pub async fn css() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=3600"),
        ],
        CSS,
    )
        .into_response()
}

pub async fn home(State(state): State<AppState>, headers: axum::http::HeaderMap) -> Response {
    if !password::is_set(&state.auth.home) {
        return page(
            StatusCode::OK,
            "Welcome",
            "<h1>Conch has no password yet</h1>\
             <p>Open the setup link that <code>conch serve</code> printed in the terminal, \
             or run <code>conch setup --password-stdin</code>.</p>",
        );
    }
    let signed_in = crate::auth::who(&state.auth, &headers).is_ok();
    if let Some(app) = crate::routes::web::index(signed_in) {
        return app;
    }
    page(
        StatusCode::OK,
        "Conch",
        "<h1>Conch is running, without its web pages</h1>\
         <p>This build has no web pages in it. Build them with <code>npm ci &amp;&amp; npm run build</code> \
         in <code>web/</code> (the README's <code>./conch</code> does), then build Conch again. \
         The API works: see <code>docs/api.md</code>.</p>",
    )
}

#[derive(Deserialize)]
pub struct SetupQuery {
    token: Option<String>,
}

fn setup_form(token: &str, error: Option<&str>) -> String {
    let error = error
        .map(|e| format!("<p class=\"error\" role=\"alert\">{}</p>", escape(e)))
        .unwrap_or_default();
    format!(
        "<h1>Choose a password</h1>\
         <p>You'll use it to sign in to Conch. At least {} characters.</p>{error}\
         <form method=\"post\" action=\"/setup\">\
         <input type=\"hidden\" name=\"token\" value=\"{}\">\
         <label for=\"password\">Password</label>\
         <input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"new-password\" required autofocus>\
         <label for=\"confirm\">The same again</label>\
         <input id=\"confirm\" name=\"confirm\" type=\"password\" autocomplete=\"new-password\" required>\
         <button type=\"submit\">Set password</button></form>",
        password::MIN_PASSWORD_CHARS,
        escape(token)
    )
}

/// The page for a link that can't be used, in its own words.
fn link_refused(check: LinkCheck, password_set: bool) -> Response {
    let (status, sentence) = match check {
        LinkCheck::Used => (
            StatusCode::CONFLICT,
            "This setup link was already used: a password was chosen with it. Sign in with that password, or run conch setup --password-stdin to set another.",
        ),
        LinkCheck::Gone if password_set => {
            return page(
                StatusCode::CONFLICT,
                "Already set",
                "<h1>A password is already set</h1><p>Sign in with it. To change it, run <code>conch setup --password-stdin</code> in the terminal.</p>",
            )
        }
        LinkCheck::Expired => (
            StatusCode::FORBIDDEN,
            "This setup link has expired (links last 15 minutes). Restart conch serve for a new one, or run conch setup --password-stdin.",
        ),
        LinkCheck::Valid | LinkCheck::Wrong | LinkCheck::Gone => (
            StatusCode::FORBIDDEN,
            "This setup link isn't valid. Use the link conch serve printed, or run conch setup --password-stdin.",
        ),
    };
    page(
        status,
        "Setup",
        &format!(
            "<h1>Can't set the password here</h1><p>{}</p>",
            escape(sentence)
        ),
    )
}

fn slow_down(error: ApiError) -> Response {
    let mut response = page(
        StatusCode::TOO_MANY_REQUESTS,
        "Setup",
        &format!("<h1>Wait a moment</h1><p>{}</p>", escape(&error.sentence)),
    );
    if let Some(secs) = error.retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, secs.into());
    }
    response
}

/// Checks `token` as one try from `peer`. The right token isn't a guess
/// and is never slowed down (so several uses at once all reach the claim,
/// and all but one hear the link was used); a wrong or expired one is
/// slowed down like a wrong password, and written down. `Ok` when the link
/// may be used.
async fn try_link(state: &AppState, peer: &Peer, token: &str) -> Result<(), Response> {
    let check = state.auth.setup.check(token);
    match check {
        LinkCheck::Valid => return Ok(()),
        // No token at all isn't a guess at one.
        LinkCheck::Wrong if token.is_empty() => {
            return Err(link_refused(check, password::is_set(&state.auth.home)))
        }
        LinkCheck::Used | LinkCheck::Gone => {
            return Err(link_refused(check, password::is_set(&state.auth.home)))
        }
        LinkCheck::Wrong | LinkCheck::Expired => {}
    }
    let _counted = state.auth.admit(peer).map_err(slow_down)?;
    state.auth.wrong(peer, Tried::SetupLink).await;
    Err(link_refused(check, password::is_set(&state.auth.home)))
}

/// `GET /setup?token=…`
pub async fn setup_page(
    State(state): State<AppState>,
    peer: Peer,
    Query(q): Query<SetupQuery>,
) -> Response {
    let token = q.token.unwrap_or_default();
    match try_link(&state, &peer, &token).await {
        Ok(()) => page(StatusCode::OK, "Setup", &setup_form(&token, None)),
        Err(refused) => refused,
    }
}

#[derive(Deserialize)]
pub struct SetupForm {
    token: String,
    password: String,
    confirm: String,
}

/// `POST /setup`: sets the password, signs this browser in, and goes home.
/// The link is claimed before the password is written, so of several
/// submissions at once exactly one sets it; the others are told the link
/// was used.
pub async fn setup_submit(
    State(state): State<AppState>,
    peer: Peer,
    Form(form): Form<SetupForm>,
) -> Response {
    if let Err(refused) = try_link(&state, &peer, &form.token).await {
        return refused;
    }
    let again =
        |status, sentence: &str| page(status, "Setup", &setup_form(&form.token, Some(sentence)));
    if form.password != form.confirm {
        return again(
            StatusCode::BAD_REQUEST,
            "The two passwords aren't the same. Type them again.",
        );
    }
    if let Err(e) = password::acceptable(&form.password) {
        return again(StatusCode::BAD_REQUEST, &e.to_string());
    }
    let claim = match state.auth.setup.claim(&form.token) {
        Ok(claim) => claim,
        Err(check) => return link_refused(check, password::is_set(&state.auth.home)),
    };
    let home = state.auth.home.clone();
    let chosen = form.password.clone();
    match tokio::task::spawn_blocking(move || password::set_first(&home, &chosen)).await {
        Ok(Ok(())) => claim.spend(),
        Ok(Err(password::PasswordError::AlreadySet)) => {
            claim.spend();
            return link_refused(LinkCheck::Gone, true);
        }
        Ok(Err(e)) => return again(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
        Err(_) => {
            return again(
                StatusCode::INTERNAL_SERVER_ERROR,
                "The password couldn't be saved. Try again.",
            )
        }
    }
    let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
    if let Ok(token) = crate::routes::session::start_session(&state).await {
        response
            .headers_mut()
            .insert(header::SET_COOKIE, session_cookie(&token));
    }
    response
}
