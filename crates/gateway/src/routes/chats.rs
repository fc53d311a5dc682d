//! Chats over JSON.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use conversations::{Chat, NewChat};
use protocol::Mode;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

/// Opens a chat off the async threads: the first open reads its whole log.
pub async fn open_chat(state: &AppState, id: String) -> Result<Arc<Chat>, ApiError> {
    let chats = state.chats.clone();
    tokio::task::spawn_blocking(move || chats.get(&id))
        .await
        .map_err(|_| ApiError::internal("The chat couldn't be opened. Try again."))?
        .map_err(ApiError::from)
}

pub fn parse_mode(text: &str) -> Result<Mode, ApiError> {
    match Mode::parse(text) {
        Some(mode) => Ok(mode),
        None => Err(ApiError::bad(format!(
            "There's no mode called \"{}\". Use ask, edits, auto or full.",
            text.chars().take(40).collect::<String>()
        ))),
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateBody {
    work: Option<String>,
    mode: Option<String>,
    /// Open the newest empty chat (no message yet, not archived, in this
    /// folder and mode when given) instead of making another: what the web
    /// page's New chat asks. Scripts that want a chat of their own leave
    /// it out.
    #[serde(default)]
    reuse_empty: bool,
}

/// `POST /api/chats {"work"?, "mode"?}` → `{"id"}`
/// Held while a `reuseEmpty` ask looks for an empty chat and makes one.
static REUSING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

pub async fn create(
    State(state): State<AppState>,
    request: axum::extract::Request,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    // An empty body is a chat with every default.
    let empty = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .is_some_and(|v| v.as_bytes() == b"0")
        || (request.headers().get(header::CONTENT_TYPE).is_none()
            && request.headers().get(header::TRANSFER_ENCODING).is_none()
            && request.headers().get(header::CONTENT_LENGTH).is_none());
    let body = if empty {
        CreateBody::default()
    } else {
        use axum::extract::FromRequest;
        JsonBody::<CreateBody>::from_request(request, &state)
            .await?
            .0
    };
    let mode = body.mode.as_deref().map(parse_mode).transpose()?;
    // An empty chat the owner already has is opened, not stacked. Two
    // asks at once (the first screen making its chat while New chat is
    // pressed) take turns, so the second finds the first's chat.
    let _one_at_a_time = if body.reuse_empty {
        Some(REUSING.lock().await)
    } else {
        None
    };
    let chats = state.chats.clone();
    let work = body.work.clone();
    let reuse = body.reuse_empty;
    let empty = tokio::task::spawn_blocking(move || {
        reuse
            .then(|| chats.empty_chat(work.as_deref().map(std::path::Path::new), mode))
            .flatten()
    })
    .await
    .ok()
    .flatten();
    if let Some(id) = empty {
        return Ok((StatusCode::OK, Json(json!({ "id": id, "reused": true }))));
    }
    let chat = state
        .chats
        .create(NewChat {
            work: body.work,
            mode,
            origin: None,
            parent: None,
            artifact: None,
        })
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "id": chat.id, "reused": false })),
    ))
}

/// `GET /api/chats`: newest first.
pub async fn list(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let chats = state.chats.clone();
    let list = tokio::task::spawn_blocking(move || chats.list())
        .await
        .map_err(|_| ApiError::internal("The chats couldn't be listed. Try again."))?;
    Ok(Json(
        serde_json::to_value(list).unwrap_or(Value::Array(vec![])),
    ))
}

/// `GET /api/chats/{id}`: what the chat is now.
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let chat = open_chat(&state, id).await?;
    let view = chat.log.view();
    let created = view.created.as_ref();
    let home = state.chats.home().root().to_path_buf();
    let picked = view.provider.clone();
    let current = tokio::task::spawn_blocking(move || {
        conversations::providers::current(&home, picked.as_deref())
    })
    .await
    .ok()
    .flatten();
    Ok(Json(json!({
        "archived": view.archived,
        "provider": current.as_ref().map(|c| c.0.clone()),
        "model": current.as_ref().map(|c| c.1.clone()),
        "picked": view.provider,
        "engine": state.chats.engine_name(),
        "lastOwner": view.last_owner.as_ref().map(|l| l.0),
        "lastEnd": view.last_end,
        "id": chat.id,
        "title": view.title,
        "work": created.map(|c| c.work.clone()),
        "origin": created.map(|c| c.origin),
        "mode": view.mode,
        "lastSeq": view.last_seq,
        "running": chat.is_running(),
        "turnOpen": view.open_turn.map(|t| t.seq),
        "waiting": view.pending.iter().map(|p| json!({
            "ask": p.ask, "seq": p.seq, "tool": p.tool, "call": p.call,
        })).collect::<Vec<_>>(),
        "always": view.always,
        "grants": crate::routes::turns::grants_json(&view),
        "holds": view.holds.iter().map(|h| json!({
            "skill": h.skill, "source": h.source, "since": h.seq, "by": h.by, "permissions": h.permissions,
        })).collect::<Vec<_>>(),
    })))
}

pub const DEFAULT_PAGE: usize = 1000;
pub const MAX_PAGE: usize = 10_000;

#[derive(Deserialize)]
pub struct EventsQuery {
    after: Option<u64>,
    limit: Option<usize>,
}

/// `GET /api/chats/{id}/events?after=N&limit=M`: the events after `seq` N,
/// exactly as stored, as a JSON array. At most `limit` (default 1000, at
/// most 10000); page on with `after` = the last `seq` you got.
pub async fn events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|_| {
        ApiError::bad("after and limit must be whole numbers, like ?after=10&limit=100.")
    })?;
    let limit = query.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
    let chat = open_chat(&state, id).await?;
    let after = query.after.unwrap_or(0);
    let body = tokio::task::spawn_blocking(move || chat.log.json_after(after, limit))
        .await
        .map_err(|_| ApiError::internal("The chat couldn't be read. Try again."))??;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageBody {
    text: String,
    /// Edit and resend: the `seq` of the owner's last message, which this
    /// one takes the place of.
    replaces: Option<u64>,
}

/// `POST /api/chats/{id}/messages {"text"}`: the owner writes; a turn runs.
/// A message sent while a turn runs is written at once and answered by the
/// next turn (`"queued": true`).
pub async fn post_message(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<MessageBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let chat = open_chat(&state, id).await?;
    let posted = match body.replaces {
        Some(seq) => chat.edit_and_resend(seq, &body.text).await?,
        None => chat.post(&body.text).await?,
    };
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({
            "seq": posted.event.seq,
            "id": posted.event.id,
            "queued": posted.queued,
        })),
    ))
}

/// `POST /api/chats/{id}/retry`: a failed answer, tried again (the owner's
/// last message sent again in its own place).
pub async fn retry(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let chat = open_chat(&state, id).await?;
    let posted = chat.retry().await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({
            "seq": posted.event.seq,
            "id": posted.event.id,
            "queued": posted.queued,
        })),
    ))
}

/// `POST /api/chats/{id}/regenerate`: a new answer to the owner's last
/// message, after any ending (a good answer too).
pub async fn regenerate(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let chat = open_chat(&state, id).await?;
    let posted = chat.regenerate().await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({
            "seq": posted.event.seq,
            "id": posted.event.id,
            "queued": posted.queued,
        })),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TitleBody {
    title: String,
}

/// `POST /api/chats/{id}/title {"title"}`: the owner names the chat.
pub async fn rename(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<TitleBody>,
) -> Result<Json<Value>, ApiError> {
    let chat = open_chat(&state, id).await?;
    let title = chat.rename(&body.title).await?;
    Ok(Json(json!({ "title": title })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchiveBody {
    archived: bool,
}

/// `GET /api/trash`: deleted chats the trash still keeps, the latest
/// deleted first.
pub async fn trashed(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let chats = state.chats.clone();
    let list = tokio::task::spawn_blocking(move || chats.trashed())
        .await
        .map_err(|_| ApiError::internal("The trash couldn't be read. Try again."))?;
    Ok(Json(
        json!({ "chats": list, "keptDays": conversations::TRASH_DAYS }),
    ))
}

/// `POST /api/trash/{id}/restore`: the chat back where it was, whole.
pub async fn restore(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let chats = state.chats.clone();
    let back = id.clone();
    tokio::task::spawn_blocking(move || chats.restore(&back))
        .await
        .map_err(|_| ApiError::internal("The chat couldn't be restored. Try again."))??;
    Ok(Json(json!({ "restored": id })))
}

/// `POST /api/chats/{id}/archive {"archived": true|false}`
pub async fn archive(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ArchiveBody>,
) -> Result<Json<Value>, ApiError> {
    let chat = open_chat(&state, id).await?;
    chat.archive(body.archived).await?;
    Ok(Json(json!({ "archived": body.archived })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelBody {
    /// A provider's name; null goes back to the default.
    provider: Option<String>,
}

/// `POST /api/chats/{id}/model {"provider": name|null}`: the model for the
/// chat's next turns.
pub async fn pick_model(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ModelBody>,
) -> Result<Json<Value>, ApiError> {
    let chat = open_chat(&state, id).await?;
    if let Some(name) = &body.provider {
        let home = state.chats.home().root().to_path_buf();
        let wanted = name.clone();
        let known =
            tokio::task::spawn_blocking(move || conversations::providers::exists(&home, &wanted))
                .await
                .unwrap_or(false);
        if !known {
            return Err(conversations::ChatError::UnknownProvider(name.clone()).into());
        }
    }
    chat.pick_model(body.provider.clone()).await?;
    Ok(Json(json!({ "provider": body.provider })))
}

/// `DELETE /api/chats/{id}`: the chat goes to the trash (kept 30 days). A
/// running turn is stopped first.
pub async fn delete(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let chat = open_chat(&state, id.clone()).await?;
    chat.stop();
    if !chat.idle_soon().await {
        // Stop lands at the turn's next step; give it a little longer.
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
    drop(chat);
    let chats = state.chats.clone();
    let gone = id.clone();
    tokio::task::spawn_blocking(move || chats.delete(&gone))
        .await
        .map_err(|_| ApiError::internal("The chat couldn't be deleted. Try again."))??;
    Ok(Json(
        json!({ "deleted": id, "keptDays": conversations::TRASH_DAYS }),
    ))
}
