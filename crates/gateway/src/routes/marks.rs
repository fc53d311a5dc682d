//! The files that carry a mark (the ledger), and the owner's way to clear
//! one from a file's card. Clearing is for a person only: a script that
//! could clear a mark could launder a stranger's words through a file.

use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::Person;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

/// `GET /api/marks`: every file that marks whoever reads it.
pub async fn list(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let ledger = state.chats.ledger().clone();
    let notes = tokio::task::spawn_blocking(move || ledger.list())
        .await
        .map_err(|_| ApiError::internal("The marks couldn't be read. Try again."))?;
    let files: Vec<Value> = notes
        .iter()
        .map(|n| json!({ "path": n.path, "chat": n.chat, "marks": n.marks }))
        .collect();
    Ok(Json(json!({ "files": files })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClearBody {
    path: String,
}

/// `POST /api/marks/clear {"path"}`: reading that file no longer marks a
/// chat. The path is the one the mark named (as the tools resolved it).
pub async fn clear(
    _: Person,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<ClearBody>,
) -> Result<Json<Value>, ApiError> {
    let ledger = state.chats.ledger().clone();
    let path = body.path.clone();
    let cleared = tokio::task::spawn_blocking(move || ledger.clear(&path))
        .await
        .map_err(|_| ApiError::internal("The mark couldn't be cleared. Try again."))?
        .map_err(|e| {
            ApiError::internal(format!(
                "The mark couldn't be cleared: Conch's folder can't be written ({e})."
            ))
        })?;
    Ok(Json(json!({ "path": body.path, "cleared": cleared })))
}
