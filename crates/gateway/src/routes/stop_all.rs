//! Stop everything and Resume (issue 37), a person only:
//! `GET /api/stop-all` (`{"stopped": null}` or `{"stopped": {"at", "by"}}`),
//! `POST /api/stop-all` (every running turn ends, nothing starts after;
//! `{"ended": n, "stopped": {..}}`), `POST /api/resume`.

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use crate::auth::Person;
use crate::error::ApiError;
use crate::state::AppState;

fn shown(state: &AppState) -> Value {
    match state.chats.stopped() {
        Some(s) => json!({ "at": s.at, "by": s.by }),
        None => Value::Null,
    }
}

pub async fn get(State(state): State<AppState>) -> Json<Value> {
    Json(json!({ "stopped": shown(&state) }))
}

pub async fn stop(_person: Person, State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let ended = state.chats.stop_all("owner")?;
    Ok(Json(json!({ "ended": ended, "stopped": shown(&state) })))
}

pub async fn resume(
    _person: Person,
    State(state): State<AppState>,
) -> Result<Json<Value>, ApiError> {
    state.chats.resume()?;
    Ok(Json(json!({ "stopped": Value::Null })))
}
