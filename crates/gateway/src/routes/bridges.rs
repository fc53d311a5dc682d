//! Settings → Chat apps over HTTP: the same controls as `conch bridges`.
//! Who the owner is and who may talk to the bot are the owner's to change,
//! so every route here is a person's only (an access key can't).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use bridges::state::StateFile;
use bridges::{access, setup};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::Person;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

fn app_of(name: &str) -> Result<&'static str, ApiError> {
    setup::app(name).map_err(|e| ApiError::new(StatusCode::NOT_FOUND, e.to_string()))
}

/// A setup error: what the person gave is refused (400); the rest failed.
fn refused(e: setup::SetupError) -> ApiError {
    match e {
        setup::SetupError::BadToken | setup::SetupError::BadAddress(_) => {
            ApiError::bad(e.to_string())
        }
        e => failed(e),
    }
}

fn failed(e: impl std::fmt::Display) -> ApiError {
    ApiError::internal(e.to_string())
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| ApiError::internal("Chat apps couldn't be read. Try again."))?
}

/// `GET /api/bridges`
pub async fn list(_: Person, State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let root = state.chats.home().root().to_path_buf();
    blocking(move || {
        let rows = setup::rows(&root, routines::now()).map_err(failed)?;
        Ok(Json(Value::Array(rows)))
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AddBody {
    token: String,
    #[serde(default)]
    api_base: Option<String>,
}

/// `POST /api/bridges/{app} {"token", "apiBase"?}`: the bot's token, kept
/// sealed. The bridge starts with Conch's next start.
pub async fn add(
    _: Person,
    State(state): State<AppState>,
    Path(app): Path<String>,
    JsonBody(body): JsonBody<AddBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let app = app_of(&app)?;
    let token = setup::token(&body.token).map_err(refused)?;
    let base = setup::api_base(body.api_base.as_deref()).map_err(refused)?;
    let root = state.chats.home().root().to_path_buf();
    blocking(move || setup::save_token(&root, app, token, base).map_err(failed)).await?;
    Ok((
        StatusCode::CREATED,
        Json(
            json!({ "app": app, "says": "Saved. Conch starts the bot from its next start; then link your account." }),
        ),
    ))
}

/// `POST /api/bridges/{app}/link` → `{"code", "expires"}`: a one-time code
/// to send as `/link CODE`.
pub async fn link(
    _: Person,
    State(state): State<AppState>,
    Path(app): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let app = app_of(&app)?;
    let root = state.chats.home().root().to_path_buf();
    let (code, expires) =
        blocking(move || setup::new_link(&root, app, routines::now()).map_err(failed)).await?;
    Ok(Json(
        json!({ "code": code, "send": format!("/link {code}"), "expires": expires }),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserBody {
    user: String,
}

/// `POST /api/bridges/{app}/allowed {"user"}`: a numeric id or @handle.
pub async fn allow(
    _: Person,
    State(state): State<AppState>,
    Path(app): Path<String>,
    JsonBody(body): JsonBody<UserBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let app = app_of(&app)?;
    let who = access::parse_user(&body.user).map_err(ApiError::bad)?;
    let root = state.chats.home().root().to_path_buf();
    let added =
        blocking(move || bridges::state::allow(&StateFile::new(&root), app, who).map_err(failed))
            .await?;
    Ok((
        if added {
            StatusCode::CREATED
        } else {
            StatusCode::OK
        },
        Json(json!({ "added": added })),
    ))
}

/// `DELETE /api/bridges/{app}/allowed/{user}`
pub async fn disallow(
    _: Person,
    State(state): State<AppState>,
    Path((app, user)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    let app = app_of(&app)?;
    let who = access::parse_user(&user).map_err(ApiError::bad)?;
    let root = state.chats.home().root().to_path_buf();
    let gone = blocking(move || {
        bridges::state::disallow(&StateFile::new(&root), app, &who).map_err(failed)
    })
    .await?;
    if gone {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "They weren't allowed, so nothing changed.",
        ))
    }
}

/// `POST /hooks/{app}`: an update the app pushed (a webhook). Not signed
/// in: the app proves itself with the secret it was given
/// (`X-Telegram-Bot-Api-Secret-Token`), checked before anything is read.
pub async fn hook(
    State(state): State<AppState>,
    Path(app): Path<String>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> StatusCode {
    let Some(relay) = state.hooks.get(&app).cloned() else {
        return StatusCode::NOT_FOUND;
    };
    let secret = headers
        .get("x-telegram-bot-api-secret-token")
        .and_then(|v| v.to_str().ok());
    StatusCode::from_u16(relay.pushed(secret, &body).await)
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}
