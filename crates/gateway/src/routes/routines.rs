//! Routines over HTTP: the web page's list, add, remove, and "run now".
//! Making and removing one is a person's act (a script's key can't set
//! something up to run by itself later); running one now is anyone signed
//! in (`conch routines run` uses a key), and its questions wait for the
//! owner as every routine's do.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use protocol::Mode;
use routines::store::NewRoutine;
use routines::{Routine, Store, StoreError};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::Person;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

fn refusal(e: StoreError) -> ApiError {
    let status = match e {
        StoreError::Schedule(_) | StoreError::Name(_) | StoreError::Task => StatusCode::BAD_REQUEST,
        StoreError::NotFound(_) => StatusCode::NOT_FOUND,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    ApiError::new(status, e.to_string())
}

fn store(state: &AppState) -> Store {
    Store::new(state.chats.home().root())
}

/// A routine as the API shows it, with its runs (chat ids, newest first).
pub fn shown(r: &Routine, runs: &[String]) -> Value {
    json!({
        "id": r.id,
        "name": r.name,
        "schedule": r.schedule,
        "task": r.task,
        "mode": r.mode,
        "work": r.work,
        "created": r.created,
        "madeIn": r.made_in,
        "carries": r.carries,
        "askedBy": r.asked_by,
        "on": r.on,
        "runs": runs,
    })
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| ApiError::internal("The routines couldn't be read. Try again."))?
        .map_err(refusal)
}

/// `GET /api/routines`
pub async fn list(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let s = store(&state);
    let routines = blocking(move || s.list()).await?;
    let chats = state.chats.list();
    let rows: Vec<Value> = routines
        .iter()
        .map(|r| {
            let runs: Vec<String> = chats
                .iter()
                .filter(|c| c.routine.as_deref() == Some(r.id.as_str()))
                .map(|c| c.id.clone())
                .collect();
            shown(r, &runs)
        })
        .collect();
    Ok(Json(Value::Array(rows)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewBody {
    schedule: String,
    task: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    mode: Option<Mode>,
    #[serde(default)]
    work: Option<String>,
}

/// `POST /api/routines {"schedule", "task", "name"?, "mode"?, "work"?}`
pub async fn add(
    _: Person,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<NewBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let s = store(&state);
    let made = blocking(move || {
        s.add(
            NewRoutine {
                schedule: body.schedule,
                task: body.task,
                name: body.name,
                mode: body.mode,
                work: body.work,
                made_in: Some("web".to_owned()),
                // The owner's own page: nothing read comes with it.
                ..NewRoutine::default()
            },
            routines::now(),
        )
    })
    .await?;
    Ok((StatusCode::CREATED, Json(shown(&made, &[]))))
}

/// `DELETE /api/routines/{name}`
pub async fn remove(
    _: Person,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    let s = store(&state);
    blocking(move || s.remove(&name)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/routines/{name}/run` → `{"chat": id}`: one run now, its
/// schedule untouched.
pub async fn run(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let s = store(&state);
    let routine = blocking(move || s.find(&name)).await?;
    let chat = state
        .chats
        .run_routine(&routine)
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "chat": chat.id, "routine": routine.id })),
    ))
}
