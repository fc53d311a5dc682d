//! `GET /api/chats/{id}/stream`: the chat live, as server-sent events.
//!
//! Every stored event is sent with `id: <seq>` and its stored line as data,
//! under the default event name, so `EventSource.onmessage` sees them. A
//! reconnecting `EventSource` sends `Last-Event-ID` and gets exactly what it
//! missed (or pass `?after=N`). Reply text streams as `event: delta` with no
//! id; the whole text follows as a stored `reply`.
//!
//! No gaps, no repeats: the stream subscribes before it reads the file, sends
//! the file from where the client is, then live events, dropping any `seq`
//! it already sent and reading the file again if it fell behind.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::IntoResponse;
use conversations::{Chat, Live};
use futures_util::stream;
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc};

use crate::error::ApiError;
use crate::routes::chats::open_chat;
use crate::state::AppState;

#[derive(Deserialize)]
pub struct StreamQuery {
    after: Option<u64>,
}

pub async fn stream(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    query: Result<Query<StreamQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<impl IntoResponse, ApiError> {
    let from_header = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let from_query = query.ok().and_then(|q| q.0.after);
    let after = from_header.or(from_query).unwrap_or(0);
    let chat = open_chat(&state, id).await?;
    let (tx, rx) = mpsc::channel::<SseEvent>(256);
    tokio::spawn(pump(chat, after, tx));
    let events = stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|e| (Ok::<_, Infallible>(e), rx))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

fn stored(seq: u64, line: &str) -> SseEvent {
    SseEvent::default().id(seq.to_string()).data(line)
}

/// Sends what's stored after `sent`, in pages. Returns the last `seq` sent,
/// or None when the client has gone.
async fn catch_up(chat: &Arc<Chat>, mut sent: u64, tx: &mpsc::Sender<SseEvent>) -> Option<u64> {
    loop {
        let c = chat.clone();
        let lines = tokio::task::spawn_blocking(move || c.log.lines_after(sent, 500))
            .await
            .ok()?
            .ok()?;
        if lines.is_empty() {
            return Some(sent);
        }
        for (seq, line) in lines {
            tx.send(stored(seq, &line)).await.ok()?;
            sent = seq;
        }
    }
}

async fn pump(chat: Arc<Chat>, after: u64, tx: mpsc::Sender<SseEvent>) {
    let mut live = chat.log.follow();
    let Some(mut sent) = catch_up(&chat, after, &tx).await else {
        return;
    };
    loop {
        let item = tokio::select! {
            item = live.recv() => item,
            () = tx.closed() => return,
        };
        match item {
            Ok(Live::Event(committed)) => {
                let seq = committed.event.seq;
                if seq <= sent {
                    continue;
                }
                if seq > sent + 1 {
                    match catch_up(&chat, sent, &tx).await {
                        Some(s) => sent = s,
                        None => return,
                    }
                    continue;
                }
                if tx.send(stored(seq, &committed.line)).await.is_err() {
                    return;
                }
                sent = seq;
            }
            Ok(Live::Delta { turn, text }) => {
                let data = serde_json::json!({ "turn": turn, "text": &*text }).to_string();
                if tx
                    .send(SseEvent::default().event("delta").data(data))
                    .await
                    .is_err()
                {
                    return;
                }
            }
            Err(broadcast::error::RecvError::Lagged(_)) => match catch_up(&chat, sent, &tx).await {
                Some(s) => sent = s,
                None => return,
            },
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}
