//! `GET /api/notifications`: the owner's notifications for this page, as
//! server-sent events (`data:` one notice as JSON, camelCase: `kind`
//! `question`, `settled` or `routineDone`). The page decides whether to
//! show a browser notification. What reaches the owner, and which way, is
//! decided in one place, `conversations::notify`.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::IntoResponse;
use futures_util::stream;
use tokio::sync::broadcast::error::RecvError;

use crate::state::AppState;

pub async fn stream(State(state): State<AppState>) -> impl IntoResponse {
    let rx = state.chats.notify().subscribe();
    let events = stream::unfold(rx, |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(notice) => {
                    let data = serde_json::to_string(&notice).unwrap_or_default();
                    return Some((Ok::<_, Infallible>(SseEvent::default().data(data)), rx));
                }
                // A page that fell behind misses notices, not questions:
                // those stay in "needs you" and Activity.
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return None,
            }
        }
    });
    Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}
