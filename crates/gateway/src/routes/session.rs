//! Signing in and out.

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;

use crate::auth::{password, sessions, Who};
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

/// `POST /api/session {"password": …}`
pub async fn sign_in(
    State(state): State<AppState>,
    JsonBody(body): JsonBody<SignIn>,
) -> Result<Response, ApiError> {
    if !check_password(&state, body.password).await? {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "That password isn't right.",
        ));
    }
    let token =
        state.auth.sessions.start().map_err(|_| {
            ApiError::internal("This computer gave Conch no randomness for a session.")
        })?;
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

/// `DELETE /api/session`: signs this browser out. Harmless without a session.
pub async fn sign_out(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(token) = crate::auth::cookie(&headers, sessions::COOKIE) {
        state.auth.sessions.end(&token);
    }
    let mut response = (StatusCode::OK, Json(json!({ "ok": true }))).into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, cleared_cookie());
    response
}

/// `POST /api/session/confirm {"password": …}`: the password again, for
/// what needs a recent one (turning a Safety preference off). A person only.
pub async fn confirm(
    person: crate::auth::Person,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<SignIn>,
) -> Result<Json<serde_json::Value>, ApiError> {
    if !check_password(&state, body.password).await? {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "That password isn't right.",
        ));
    }
    state.auth.sessions.confirm(&person.token);
    Ok(Json(json!({ "recentPassword": true })))
}
