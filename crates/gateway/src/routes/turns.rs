//! Steering a chat: answering its questions, changing its mode, stopping it.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use protocol::Answer;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::Who;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::routes::chats::{open_chat, parse_mode};
use crate::state::AppState;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerBody {
    answer: String,
    /// For `always`: `tool` (the default, the record's choice: the tool for
    /// the rest of the chat) or `program` (the question's narrower choice:
    /// this command's program and subcommand only).
    covers: Option<String>,
}

fn who_answered(who: &Who) -> String {
    match who {
        Who::Owner { .. } => "owner".to_owned(),
        Who::Key(key) => format!("key:{}", key.name),
    }
}

/// `POST /api/chats/{id}/permissions/{ask}` `{"answer": "once"|"always"|"deny",
/// "covers"?: "tool"|"program"}`
pub async fn answer(
    State(state): State<AppState>,
    who: Who,
    Path((id, ask)): Path<(String, String)>,
    JsonBody(body): JsonBody<AnswerBody>,
) -> Result<Json<Value>, ApiError> {
    let Some(answer) = Answer::parse(&body.answer) else {
        return Err(ApiError::bad(format!(
            "\"{}\" isn't an answer. Use once, always or deny.",
            body.answer.chars().take(40).collect::<String>()
        )));
    };
    let narrow = match body.covers.as_deref() {
        None | Some("tool") => false,
        Some("program") => true,
        Some(other) => {
            return Err(ApiError::bad(format!(
                "\"{}\" isn't something an always can cover. Use tool or program.",
                other.chars().take(40).collect::<String>()
            )))
        }
    };
    let chat = open_chat(&state, id).await?;
    chat.answer_with(&ask, answer, narrow, who_answered(&who))
        .await?;
    Ok(Json(json!({ "ok": true })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModeBody {
    mode: String,
}

/// `POST /api/chats/{id}/mode` `{"mode": "ask"|"edits"|"full"}`
pub async fn set_mode(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ModeBody>,
) -> Result<Json<Value>, ApiError> {
    let mode = parse_mode(&body.mode)?;
    let chat = open_chat(&state, id).await?;
    chat.set_mode(mode).await?;
    Ok(Json(json!({ "mode": mode })))
}

/// The "always" answers in force in a chat, as the line above the message
/// box shows them.
pub fn grants_json(view: &protocol::ChatView) -> Vec<Value> {
    view.always
        .iter()
        .map(|key| {
            let given = view.grants.get(key);
            json!({
                "key": key,
                "says": protocol::grant_words(key),
                "by": given.map(|g| g.by.clone()),
                "at": given.map(|g| g.at.clone()),
            })
        })
        .collect()
}

/// `GET /api/chats/{id}/grants`: `{"grants": [{"key", "says", "by", "at"}]}`.
pub async fn grants(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let chat = open_chat(&state, id).await?;
    let grants = chat.log.with_view(grants_json);
    Ok(Json(json!({ "grants": grants })))
}

/// `DELETE /api/chats/{id}/grants/{grant}` (the grant's `key`,
/// percent-encoded): takes it back; `grant.revoked` in the log. 404 when
/// no such "always" is in force.
pub async fn revoke_grant(
    State(state): State<AppState>,
    who: Who,
    Path((id, key)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let chat = open_chat(&state, id).await?;
    if !chat.revoke_grant(&key, &who_answered(&who)).await? {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "No such always is in force in this chat. It may have been taken back already.",
        ));
    }
    Ok(Json(json!({ "revoked": key })))
}

/// `POST /api/chats/{id}/skills/{skill}/stop-holding`: a person ends a
/// hold. Access keys get 403; refused while a turn runs.
pub async fn stop_holding(
    _: crate::auth::Person,
    State(state): State<AppState>,
    Path((id, skill)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let chat = open_chat(&state, id).await?;
    chat.stop_holding(&skill).await?;
    Ok(Json(json!({ "stopped": skill })))
}

/// `POST /api/chats/{id}/stop`: ends the running turn and its questions.
pub async fn stop(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let chat = open_chat(&state, id).await?;
    let stopped = chat.stop();
    Ok((StatusCode::OK, Json(json!({ "stopped": stopped }))))
}
