//! Skills over HTTP, for the web UI. Turning one on or off is for a person
//! only: an access key can't.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use skills::{Catalog, SkillError};

use crate::auth::Person;
use crate::error::ApiError;
use crate::state::AppState;

fn catalog(state: &AppState) -> Result<Arc<Catalog>, ApiError> {
    state
        .chats
        .skills()
        .cloned()
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "Skills aren't set up in this Conch."))
}

fn refusal(e: SkillError) -> ApiError {
    let status = match e {
        SkillError::NotFound(_) | SkillError::NoSuchFile { .. } => StatusCode::NOT_FOUND,
        SkillError::Ambiguous(..) => StatusCode::BAD_REQUEST,
        SkillError::HashNeeded { .. }
        | SkillError::HashMismatch { .. }
        | SkillError::Off { .. } => StatusCode::CONFLICT,
        SkillError::Trust(_) | SkillError::Io(..) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    ApiError::new(status, e.to_string())
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, SkillError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| ApiError::internal("Skills couldn't be read. Try again."))?
        .map_err(refusal)
}

/// `GET /api/skills`
pub async fn list(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let cat = catalog(&state)?;
    let all = blocking(move || cat.list()).await?;
    Ok(Json(serde_json::to_value(all).unwrap_or(json!([]))))
}

/// `GET /api/skill-folders`: where Conch reads skills, Conch's own folder
/// first (where a person adds one), each with the app it belongs to and
/// whether it is there.
pub async fn folders(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let cat = catalog(&state)?;
    let rows: Vec<Value> = skills::sources::places(
        &cat.conch_home,
        cat.person_home.as_deref(),
        cat.project.as_deref(),
    )
    .into_iter()
    .map(|p| {
        json!({
            "folder": p.dir.to_string_lossy(),
            "app": p.source.app(),
            "own": p.source == skills::sources::Source::Conch,
            "exists": p.dir.is_dir(),
        })
    })
    .collect();
    Ok(Json(Value::Array(rows)))
}

/// `GET /api/skills/{id}`: one skill with everything the scanner found.
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let cat = catalog(&state)?;
    let skill = blocking(move || cat.find(&id)).await?;
    Ok(Json(serde_json::to_value(skill).unwrap_or(Value::Null)))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct EnableBody {
    hash: Option<String>,
}

/// `POST /api/skills/{id}/enable {"hash"?}`
pub async fn enable(
    _: Person,
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Option<Json<EnableBody>>,
) -> Result<Json<Value>, ApiError> {
    let hash = body.and_then(|b| b.0.hash);
    let cat = catalog(&state)?;
    let skill = blocking(move || cat.enable(&id, hash.as_deref())).await?;
    Ok(Json(serde_json::to_value(skill).unwrap_or(Value::Null)))
}

/// `POST /api/skills/{id}/disable`
pub async fn disable(
    _: Person,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let cat = catalog(&state)?;
    let skill = blocking(move || cat.disable(&id)).await?;
    Ok(Json(serde_json::to_value(skill).unwrap_or(Value::Null)))
}
