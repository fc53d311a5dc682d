//! `GET /api/search?q=…&limit=…`: words inside chats (messages, replies,
//! commands and their output, artifacts' titles, chats' names), newest
//! first, each with the line that holds them. See docs/api.md.

use axum::extract::{Query, State};
use axum::Json;
use conversations::chat_search::SearchResults;
use serde::Deserialize;

use crate::error::ApiError;
use crate::state::AppState;

/// Longer queries are cut: a search is a few words.
const MAX_QUERY_CHARS: usize = 200;

#[derive(Deserialize)]
pub struct SearchQuery {
    #[serde(default)]
    q: String,
    limit: Option<usize>,
}

pub async fn find(
    State(state): State<AppState>,
    Query(q): Query<SearchQuery>,
) -> Result<Json<SearchResults>, ApiError> {
    let query: String = q.q.chars().take(MAX_QUERY_CHARS).collect();
    let limit = q.limit.unwrap_or(30).clamp(1, 100);
    let search = state.chats.search().clone();
    // An empty query builds the index and finds nothing: the page asks it
    // when the search box takes the focus, so the first search is quick.
    let found = tokio::task::spawn_blocking(move || {
        if query.trim().is_empty() {
            search.build();
            SearchResults::default()
        } else {
            search.find(&query, limit)
        }
    })
    .await
    .map_err(|_| ApiError::internal("The chats couldn't be searched. Try again."))?;
    Ok(Json(found))
}
