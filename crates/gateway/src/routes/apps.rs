//! The Apps page over HTTP: `GET /api/apps` (each app, how it's doing, its
//! tools with their annotations, choices, standing and last use) and
//! `POST /api/apps/{app}/tools/{tool}` (`{"choice": "follow"|"ask"|
//! "read-only"|"off", "writes"?: bool}`; `tool` may be `*`). Choosing is
//! for a person only: an access key can't turn a tool on.
//!
//! The gateway doesn't know MCP: the binary hands it an [`AppsPage`].

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::Person;
use crate::error::ApiError;
use crate::state::AppState;

/// Why a choice wasn't made: the owner's mistake (a name, a loosening), or
/// no such app or tool.
#[derive(Debug)]
pub enum Refused {
    NotFound(String),
    Invalid(String),
}

/// What the Apps page reads and changes.
pub trait AppsPage: Send + Sync {
    /// Every app, as `apps::view` shows it (camelCase).
    fn list(&self) -> Value;
    /// Makes the owner's choice; the app as it is after.
    fn choose(
        &self,
        app: &str,
        tool: &str,
        choice: &str,
        writes: Option<bool>,
    ) -> Result<Value, Refused>;
    /// Turns the app on (Conch starts it) or off; the app as it is after.
    fn set_on(&self, app: &str, on: bool) -> Result<Value, Refused>;
}

fn page(state: &AppState) -> Result<std::sync::Arc<dyn AppsPage>, ApiError> {
    state
        .apps
        .clone()
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "Apps aren't set up in this Conch."))
}

/// `GET /api/apps`
pub async fn list(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let page = page(&state)?;
    let apps = tokio::task::spawn_blocking(move || page.list())
        .await
        .map_err(|_| ApiError::internal("Apps couldn't be read. Try again."))?;
    Ok(Json(json!({ "apps": apps })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChoiceBody {
    choice: String,
    #[serde(default)]
    writes: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnBody {
    on: bool,
}

/// `POST /api/apps/{app} {"on": bool}`: an app that is off isn't started.
pub async fn set_on(
    _person: Person,
    State(state): State<AppState>,
    Path(app): Path<String>,
    Json(body): Json<OnBody>,
) -> Result<Json<Value>, ApiError> {
    let page = page(&state)?;
    let done = tokio::task::spawn_blocking(move || page.set_on(&app, body.on))
        .await
        .map_err(|_| ApiError::internal("The change couldn't be saved. Try again."))?;
    match done {
        Ok(app) => Ok(Json(app)),
        Err(Refused::NotFound(why)) => Err(ApiError::new(StatusCode::NOT_FOUND, why)),
        Err(Refused::Invalid(why)) => Err(ApiError::new(StatusCode::BAD_REQUEST, why)),
    }
}

/// `POST /api/apps/{app}/tools/{tool}`
pub async fn choose(
    _person: Person,
    State(state): State<AppState>,
    Path((app, tool)): Path<(String, String)>,
    Json(body): Json<ChoiceBody>,
) -> Result<Json<Value>, ApiError> {
    let page = page(&state)?;
    let done =
        tokio::task::spawn_blocking(move || page.choose(&app, &tool, &body.choice, body.writes))
            .await
            .map_err(|_| ApiError::internal("The choice couldn't be saved. Try again."))?;
    match done {
        Ok(app) => Ok(Json(app)),
        Err(Refused::NotFound(why)) => Err(ApiError::new(StatusCode::NOT_FOUND, why)),
        Err(Refused::Invalid(why)) => Err(ApiError::new(StatusCode::BAD_REQUEST, why)),
    }
}
