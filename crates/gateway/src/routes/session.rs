//! Signing in and out.

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;

use conversations::security::Tried;

use crate::auth::{password, sessions, Peer, Who};
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignIn {
    password: String,
}

/// The cookie that carries a session: script can't read it, other sites
/// don't send it.
pub fn session_cookie(token: &str) -> HeaderValue {
    let value = format!(
        "{}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}",
        sessions::COOKIE,
        sessions::IDLE.as_secs()
    );
    HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static(""))
}

fn cleared_cookie() -> HeaderValue {
    HeaderValue::from_static("conch_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0")
}

/// Checks the owner's password off the async threads, two at a time.
pub async fn check_password(state: &AppState, attempt: String) -> Result<bool, ApiError> {
    let _slot = state
        .auth
        .password_slots
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| ApiError::internal("Conch is shutting down."))?;
    let home = state.auth.home.clone();
    let verdict = tokio::task::spawn_blocking(move || password::verify(&home, &attempt))
        .await
        .map_err(|_| ApiError::internal("The password check failed. Try again."))?;
    match verdict {
        Ok(Some(ok)) => Ok(ok),
        Ok(None) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "No password has been set yet. Open the setup link conch serve printed, or run conch setup --password-stdin.",
        )),
        Err(e) => Err(ApiError::internal(e.to_string())),
    }
}

/// Checks a password as one try from `peer`: let in by the throttle first
/// (429 when it must wait), then checked, then settled: right clears the
/// address's count, wrong is written down, anything else doesn't count.
pub async fn try_password(
    state: &AppState,
    peer: &Peer,
    tried: Tried,
    attempt: String,
) -> Result<(), ApiError> {
    let admitted = state.auth.admit(peer)?;
    match check_password(state, attempt).await {
        Ok(true) => {
            state.auth.right(admitted);
            Ok(())
        }
        Ok(false) => {
            state.auth.wrong(peer, tried).await;
            Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "That password isn't right.",
            ))
        }
        Err(e) => {
            state.auth.not_a_guess(admitted);
            Err(e)
        }
    }
}

/// `POST /api/session {"password": …}`
pub async fn sign_in(
    State(state): State<AppState>,
    peer: Peer,
    JsonBody(body): JsonBody<SignIn>,
) -> Result<Response, ApiError> {
    try_password(&state, &peer, Tried::SignIn, body.password).await?;
    let token = start_session(&state).await?;
    let mut response = Json(json!({ "ok": true })).into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, session_cookie(&token));
    Ok(response)
}

/// `GET /api/session`: who this request is signed in as.
pub async fn current(who: Who) -> Json<serde_json::Value> {
    Json(match who {
        Who::Owner { session, .. } => json!({
            "who": "owner",
            "recentPassword": session.recent_password(),
        }),
        Who::Key(key) => json!({ "who": "key", "name": key.name, "id": key.id }),
    })
}

/// Starts a session, on disk before its token is handed out.
pub async fn start_session(state: &AppState) -> Result<String, ApiError> {
    let app = state.clone();
    tokio::task::spawn_blocking(move || app.auth.sessions.start())
        .await
        .map_err(|_| ApiError::internal("The session couldn't be started. Try again."))?
        .map_err(|e| ApiError::internal(e.to_string()))
}

/// `DELETE /api/session`: signs this browser out. Harmless without a session.
pub async fn sign_out(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Some(token) = crate::auth::cookie(&headers, sessions::COOKIE) {
        let app = state.clone();
        tokio::task::spawn_blocking(move || app.auth.sessions.end(&token))
            .await
            .map_err(|_| ApiError::internal("Signing out failed. Try again."))?
            .map_err(|e| ApiError::internal(e.to_string()))?;
    }
    Ok(signed_out(json!({ "ok": true })))
}

fn signed_out(body: serde_json::Value) -> Response {
    let mut response = (StatusCode::OK, Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, cleared_cookie());
    response
}

/// `DELETE /api/sessions`: signs every browser out, this one too. A person
/// only.
pub async fn sign_out_everywhere(
    _: crate::auth::Person,
    State(state): State<AppState>,
) -> Result<Response, ApiError> {
    let app = state.clone();
    let ended = tokio::task::spawn_blocking(move || app.auth.sessions.end_all())
        .await
        .map_err(|_| ApiError::internal("Signing out everywhere failed. Try again."))?
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(signed_out(json!({ "ended": ended })))
}

/// `POST /api/session/confirm {"password": …}`: the password again, for
/// what needs a recent one (turning a Safety preference off). A person only.
/// Slowed down like sign-in, and one at a time per session.
pub async fn confirm(
    person: crate::auth::Person,
    State(state): State<AppState>,
    peer: Peer,
    JsonBody(body): JsonBody<SignIn>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let Some(_confirming) = state.auth.start_confirming(&person.token) else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "Your password is already being checked for this session. Wait for that answer.",
        ));
    };
    try_password(&state, &peer, Tried::Confirm, body.password).await?;
    let app = state.clone();
    let token = person.token.clone();
    let kept = tokio::task::spawn_blocking(move || app.auth.sessions.confirm(&token))
        .await
        .map_err(|_| ApiError::internal("The password couldn't be noted. Try again."))?
        .map_err(|e| ApiError::internal(e.to_string()))?;
    if !kept {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "Your session has ended. Sign in again.",
        ));
    }
    Ok(Json(json!({ "recentPassword": true })))
}
