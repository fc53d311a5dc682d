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
use axum::Json;
use conversations::Settings;
use futures_util::stream;
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use crate::auth::Person;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

/// Each way with its switch: `web` and each chat app (whether linked).
fn choices_view(state: &AppState) -> Value {
    let notify = state.chats.notify();
    let choices = notify.choices();
    let on = |way: &str| choices.get(way).copied().unwrap_or(true);
    let mut ways = vec![json!({ "way": "web", "on": on("web"), "linked": true })];
    for (name, linked) in notify.channels() {
        ways.push(json!({ "way": name, "on": on(&name), "linked": linked }));
    }
    json!({ "ways": ways })
}

/// `GET /api/settings/notifications` → `{"ways": [{"way", "on", "linked"}]}`
pub async fn choices(_: Person, State(state): State<AppState>) -> Json<Value> {
    Json(choices_view(&state))
}

/// `POST /api/settings/notifications {"web"?: bool, "telegram"?: bool}`:
/// kept in settings.json (`notifications`) and in force at once.
pub async fn set_choices(
    _: Person,
    State(state): State<AppState>,
    JsonBody(change): JsonBody<std::collections::BTreeMap<String, bool>>,
) -> Result<Json<Value>, ApiError> {
    if let Some(bad) = change
        .keys()
        .find(|k| !matches!(k.as_str(), "web" | "telegram"))
    {
        return Err(ApiError::bad(format!(
            "There's no way to be told called \"{}\". Use web or telegram.",
            bad.chars().take(40).collect::<String>()
        )));
    }
    let mut next = state.chats.notify().choices();
    next.extend(change);
    let home = state.chats.home().root().to_path_buf();
    let saved = next.clone();
    tokio::task::spawn_blocking(move || {
        let mut settings = Settings::load(&home)?;
        settings
            .other
            .insert("notifications".to_owned(), json!(saved));
        settings.save(&home)
    })
    .await
    .map_err(|_| ApiError::internal("Settings couldn't be saved. Try again."))?
    .map_err(|e| ApiError::internal(e.to_string()))?;
    state.chats.notify().set_choices(next);
    Ok(Json(choices_view(&state)))
}

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
