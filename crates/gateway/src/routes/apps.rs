//! The Apps page over HTTP: `GET /api/apps` (each app, how it's doing, its
//! tools with their annotations, choices, standing and last use) and
//! `POST /api/apps/{app}/tools/{tool}` (`{"choice": "follow"|"ask"|
//! "read-only"|"off", "writes"?: bool}`; `tool` may be `*`). Choosing is
//! for a person only: an access key can't turn a tool on.
//! `POST /api/apps` adds a connection: a person with a recent password
//! only, since it starts a program on this computer; its secrets are sealed
//! in the vault and never given back.
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
    /// Adds a connection (apps.json, its secrets in the vault); the running
    /// apps start it.
    fn add(&self, new: &NewConnection) -> Result<(), Refused>;
    /// One app as `list` shows it; None when there is none of that name.
    fn one(&self, app: &str) -> Option<Value>;
}

/// A connection added from the page: a program Conch starts (`command`,
/// `args`) or an address (`url`). `secrets` are the program's environment
/// variables or the address's headers: sealed, never shown again.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NewConnection {
    pub name: String,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub secrets: std::collections::BTreeMap<String, String>,
}

/// How long adding waits for the new connection to answer.
const CONNECT_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// `POST /api/apps`: adds a connection, then waits (up to 20 s) until it
/// is connected or has failed; 201 with the connection as `list` shows it.
pub async fn add(
    person: Person,
    State(state): State<AppState>,
    Json(body): Json<NewConnection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    if !person.session.recent_password() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "Adding a connection starts a program on this computer: enter your password again, then add it within 10 minutes.",
        ));
    }
    let page = page(&state)?;
    let name = body.name.trim().to_owned();
    let adding = page.clone();
    let done = tokio::task::spawn_blocking(move || adding.add(&body))
        .await
        .map_err(|_| ApiError::internal("The connection couldn't be saved. Try again."))?;
    match done {
        Ok(()) => {}
        Err(Refused::NotFound(why)) => return Err(ApiError::new(StatusCode::NOT_FOUND, why)),
        Err(Refused::Invalid(why)) => return Err(ApiError::new(StatusCode::BAD_REQUEST, why)),
    }
    let until = tokio::time::Instant::now() + CONNECT_WAIT;
    loop {
        let now = page.one(&name).unwrap_or(Value::Null);
        let state_now = now["status"]["state"].as_str().unwrap_or("").to_owned();
        if state_now == "connected" || state_now == "failed" || tokio::time::Instant::now() >= until
        {
            return Ok((StatusCode::CREATED, Json(now)));
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
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
