//! `GET /api/activity?before=…&kinds=…&waiting=1&limit=…`: what the
//! assistant did, newest first, a page at a time.

use axum::extract::{Query, State};
use axum::Json;
use conversations::activity::ActivityPage;
use protocol::ActivityKind;
use serde::Deserialize;

use crate::error::ApiError;
use crate::state::AppState;

#[derive(Deserialize)]
pub struct ActivityQuery {
    before: Option<String>,
    /// Comma-separated: command, file, page, app, question, read, skill,
    /// memory, security.
    kinds: Option<String>,
    /// `1`: only questions still waiting.
    waiting: Option<String>,
    limit: Option<usize>,
}

pub async fn list(
    State(state): State<AppState>,
    Query(q): Query<ActivityQuery>,
) -> Result<Json<ActivityPage>, ApiError> {
    let mut kinds = Vec::new();
    for name in q
        .kinds
        .as_deref()
        .unwrap_or("")
        .split(',')
        .filter(|k| !k.is_empty())
    {
        kinds.push(ActivityKind::parse(name).ok_or_else(|| {
            ApiError::bad(format!(
                "\"{name}\" isn't a kind of activity: {}.",
                ActivityKind::names_in_words()
            ))
        })?);
    }
    let waiting = q.waiting.as_deref() == Some("1");
    let limit = q.limit.unwrap_or(50);
    let activity = state.chats.activity().clone();
    let page = tokio::task::spawn_blocking(move || {
        activity.page(q.before.as_deref(), &kinds, waiting, limit)
    })
    .await
    .map_err(|_| ApiError::internal("Activity couldn't be read. Try again."))?;
    Ok(Json(page))
}
