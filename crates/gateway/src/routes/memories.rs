//! Memories over HTTP, for the Memories page and scripts.
//!
//! Keeping a held memory and changing a memory's words are for a person
//! only: either would let a script put words in front of every chat that
//! the check never saw. A memory a script adds is checked like an import
//! (it may be held); one a person adds is theirs, and kept.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use conversations::memories::memory_json;
use conversations::MemoryError;
use memory::{Source, StoreError};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::{Person, Who};
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

fn refusal(e: MemoryError) -> ApiError {
    let status = match &e {
        MemoryError::Store(StoreError::NotFound(_)) => StatusCode::NOT_FOUND,
        MemoryError::Store(StoreError::Text(_)) => StatusCode::BAD_REQUEST,
        MemoryError::Store(StoreError::NotHeld(_)) => StatusCode::CONFLICT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    ApiError::new(status, e.to_string())
}

fn by(who: &Who) -> String {
    match who {
        Who::Owner { .. } => "owner".to_owned(),
        Who::Key(key) => format!("key:{}", key.name),
    }
}

/// `GET /api/memories`: every memory, held ones first, then newest first.
pub async fn list(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let memories = state.chats.memories();
    let mut all = memories.list().await.map_err(refusal)?;
    all.reverse();
    all.sort_by_key(|m| m.state != memory::State::Held);
    let mut out = json!({ "memories": all.iter().map(memory_json).collect::<Vec<_>>() });
    if let Some(w) = memories.store().warning() {
        out["warning"] = json!(w);
    }
    Ok(Json(out))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextBody {
    text: String,
}

/// `POST /api/memories {"text"}`: a person's memory is kept at once; a
/// script's is checked like an import.
pub async fn add(
    State(state): State<AppState>,
    who: Who,
    JsonBody(body): JsonBody<TextBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let memories = state.chats.memories();
    let (memory, new) = match &who {
        Who::Owner { .. } => memories.add(&body.text).await.map_err(refusal)?,
        Who::Key(key) => {
            let source = Source::Import {
                from: format!("the access key {}", key.name),
            };
            let check = state.chats.switches().check_memories();
            let text = body.text.clone();
            let store = memories.store().clone();
            let added = tokio::task::spawn_blocking(move || {
                let verdict = memory::check(&text, &source, check);
                store.add(&text, source, &verdict, None)
            })
            .await
            .map_err(|_| ApiError::internal("Memories couldn't be changed. Try again."))?
            .map_err(|e| refusal(MemoryError::Store(e)))?;
            match added {
                memory::Added::New(m) => (m, true),
                memory::Added::Already(m) => (m, false),
            }
        }
    };
    let status = if new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        Json(json!({ "memory": memory_json(&memory), "new": new })),
    ))
}

/// `PATCH /api/memories/{id} {"text"}`: a person changes a memory's words.
pub async fn edit(
    _: Person,
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<TextBody>,
) -> Result<Json<Value>, ApiError> {
    let m = state
        .chats
        .memories()
        .edit(&id, &body.text, "owner")
        .await
        .map_err(refusal)?;
    Ok(Json(json!({ "memory": memory_json(&m) })))
}

/// `POST /api/memories/{id}/keep`: a person keeps a held memory.
pub async fn keep(
    _: Person,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let m = state
        .chats
        .memories()
        .keep(&id, "owner")
        .await
        .map_err(refusal)?;
    Ok(Json(json!({ "memory": memory_json(&m) })))
}

/// `DELETE /api/memories/{id}`: forget it.
pub async fn forget(
    State(state): State<AppState>,
    who: Who,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let m = state
        .chats
        .memories()
        .forget(&id, &by(&who))
        .await
        .map_err(refusal)?;
    Ok(Json(json!({ "forgot": memory_json(&m) })))
}
