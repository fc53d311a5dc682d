//! The few pages the gateway serves itself: the first-run setup form and a
//! home page. Plain HTML with no script at all (`html_page.rs`).

use axum::extract::{Form, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use conversations::security::Tried;

use crate::auth::setup_link::LinkCheck;
use crate::auth::{password, Peer};
use crate::error::ApiError;
use crate::html_page::{escape, page};
use crate::routes::session::session_cookie;
use crate::state::AppState;

const CSS: &str = include_str!("../../assets/conch.css");

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
         <input hidden name=\"username\" autocomplete=\"username\" value=\"owner\" aria-hidden=\"true\">\
         <label for=\"password\">Password</label>\
         <input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"new-password\" required autofocus>\
         <label for=\"confirm\">The same again</label>\
         <input id=\"confirm\" name=\"confirm\" type=\"password\" autocomplete=\"new-password\" required>\
         <button type=\"submit\">Set password</button></form>",
        password::MIN_PASSWORD_CHARS,
        escape(token)
    )
}

/// The page for a link that can't be used: what happened, and what to do
/// next. Nothing was changed by it.
fn link_refused(check: LinkCheck, password_set: bool, lasts: std::time::Duration) -> Response {
    const NEW_LINK: &str = "Run <code>conch setup</code> in the terminal for a new link, \
         or choose the password there with <code>conch setup --password-stdin</code>.";
    let (status, heading, said) = match check {
        LinkCheck::Used | LinkCheck::Gone if password_set => (
            StatusCode::CONFLICT,
            "This link has been used",
            "A password has been chosen for Conch. <a href=\"/\">Sign in</a> with it. \
             To change it, run <code>conch setup --password-stdin</code> in the terminal."
                .to_string(),
        ),
        LinkCheck::Used => (
            StatusCode::CONFLICT,
            "This link has been used",
            format!("Each setup link works once. {NEW_LINK}"),
        ),
        LinkCheck::Expired => (
            StatusCode::FORBIDDEN,
            "This link has expired",
            format!(
                "A setup link lasts {}. {NEW_LINK}",
                crate::auth::setup_link::lasting_words(lasts)
            ),
        ),
        LinkCheck::Gone => (
            StatusCode::FORBIDDEN,
            "This link is no longer valid",
            format!("Conch has started again since it was printed. {NEW_LINK}"),
        ),
        LinkCheck::Valid | LinkCheck::Wrong => (
            StatusCode::FORBIDDEN,
            "This link isn't right",
            format!("Copy the whole link Conch printed, or ask for a new one. {NEW_LINK}"),
        ),
    };
    page(
        status,
        heading,
        &format!("<h1>{heading}</h1><p>{said}</p><p class=\"quiet\">Nothing was changed.</p>"),
    )
}

fn refuse_link(state: &AppState, check: LinkCheck) -> Response {
    link_refused(
        check,
        password::is_set(&state.auth.home),
        state.auth.setup.lasts(),
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
        LinkCheck::Wrong if token.is_empty() => return Err(refuse_link(state, check)),
        LinkCheck::Used | LinkCheck::Gone => return Err(refuse_link(state, check)),
        LinkCheck::Wrong | LinkCheck::Expired => {}
    }
    let _counted = state.auth.admit(peer).map_err(slow_down)?;
    state.auth.wrong(peer, Tried::SetupLink).await;
    Err(refuse_link(state, check))
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
        Err(check) => return refuse_link(&state, check),
    };
    let home = state.auth.home.clone();
    let chosen = form.password.clone();
    match tokio::task::spawn_blocking(move || password::set_first(&home, &chosen)).await {
        Ok(Ok(())) => claim.spend(),
        Ok(Err(password::PasswordError::AlreadySet)) => {
            claim.spend();
            return link_refused(LinkCheck::Gone, true, state.auth.setup.lasts());
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
