//! `POST /api/chats/{id}/undo`: puts back the files a turn changed (see
//! `conversations::undo`). `{"turn": N}` undoes turn N (the seq of its
//! `turn.started`), `{"undo": SEQ}` undoes an earlier undo, `{}` the last
//! turn that changed a file. What each file became, and which were left
//! alone and why, comes back; the chat's log has it as `files.restored`.

use axum::extract::{Path, State};
use axum::Json;
use conversations::undo::Target;
use serde::Deserialize;
use serde_json::{json, Value};

use super::chats::open_chat;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct UndoBody {
    #[serde(default)]
    turn: Option<u64>,
    #[serde(default)]
    undo: Option<u64>,
}

pub async fn undo(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<UndoBody>,
) -> Result<Json<Value>, ApiError> {
    let target = match (body.turn, body.undo) {
        (Some(_), Some(_)) => {
            return Err(ApiError::bad(
                "Say which turn to undo, or which undo, not both.",
            ))
        }
        (Some(turn), None) => Target::Turn(turn),
        (None, Some(seq)) => Target::Undo(seq),
        (None, None) => Target::Last,
    };
    let chat = open_chat(&state, id).await?;
    let done = chat.undo(target, "owner").await?;
    Ok(Json(json!({
        "turn": done.turn,
        "undoOf": done.undo_of,
        "restored": done.restored.iter().map(|r| json!({
            "path": r.path,
            "removed": r.after.is_none(),
        })).collect::<Vec<_>>(),
        "left": done.left.iter().map(|l| json!({ "path": l.path, "why": l.why })).collect::<Vec<_>>(),
    })))
}
