//! Settings → Security: the Safety preferences and the checkup (ADR 0028
//! §3). Turning a preference off needs a person whose password is recent
//! (entered within 10 minutes); the server refuses `false` without one,
//! whatever the page does. Turning one on needs nothing.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use conversations::settings::Safety;
use conversations::Settings;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::Who;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

fn view(safety: &Safety) -> Value {
    json!({
        "checkAfterReading": safety.check_after_reading,
        "sealedCommands": safety.sealed_commands,
        "checkMemories": safety.check_memories,
        "enginesInBox": safety.engines_in_box,
    })
}

/// `GET /api/settings/safety`
pub async fn safety(State(state): State<AppState>) -> Json<Value> {
    Json(view(&state.chats.switches().now()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SafetyChange {
    check_after_reading: Option<bool>,
    sealed_commands: Option<bool>,
    check_memories: Option<bool>,
    engines_in_box: Option<bool>,
}

/// What turning each off could lead to, for the refusal and the page.
const OFF_WORDS: &[(&str, &str)] = &[
    (
        "checkAfterReading",
        "a page it reads could then steer a command or a request without you being asked",
    ),
    (
        "sealedCommands",
        "every command would then run with your full access: your files, your keys, the network",
    ),
    (
        "checkMemories",
        "a memory planted by something it read would then be used without a question",
    ),
    (
        "enginesInBox",
        "Claude Code and Codex would then run with your full access where the box can't hold them: their own searches, reads and edits could reach your keys and Conch's folder",
    ),
];

/// `POST /api/settings/safety {"checkAfterReading"?, "sealedCommands"?,
/// "checkMemories"?, "enginesInBox"?}`
pub async fn set_safety(
    who: Who,
    State(state): State<AppState>,
    JsonBody(change): JsonBody<SafetyChange>,
) -> Result<Json<Value>, ApiError> {
    let now = state.chats.switches().now();
    let turning_off: Vec<&str> = [
        (
            "checkAfterReading",
            change.check_after_reading,
            now.check_after_reading,
        ),
        (
            "sealedCommands",
            change.sealed_commands,
            now.sealed_commands,
        ),
        ("checkMemories", change.check_memories, now.check_memories),
        ("enginesInBox", change.engines_in_box, now.engines_in_box),
    ]
    .into_iter()
    .filter(|(_, want, is)| *want == Some(false) && *is)
    .map(|(name, _, _)| name)
    .collect();
    if !turning_off.is_empty() {
        let recent = match &who {
            Who::Owner { session, .. } => session.recent_password(),
            Who::Key(_) => {
                return Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    crate::auth::PERSON_ONLY,
                ));
            }
        };
        if !recent {
            let what = OFF_WORDS
                .iter()
                .find(|(n, _)| *n == turning_off[0])
                .map_or("", |(_, w)| *w);
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                format!("Turning this off needs your password again ({what}). Enter it, then turn it off within 10 minutes."),
            ));
        }
    }
    let home = state.chats.home().root().to_path_buf();
    let next = Safety {
        check_after_reading: change
            .check_after_reading
            .unwrap_or(now.check_after_reading),
        sealed_commands: change.sealed_commands.unwrap_or(now.sealed_commands),
        check_memories: change.check_memories.unwrap_or(now.check_memories),
        engines_in_box: change.engines_in_box.unwrap_or(now.engines_in_box),
    };
    let saved = next.clone();
    tokio::task::spawn_blocking(move || {
        let mut settings = Settings::load(&home)?;
        settings.safety = saved;
        settings.save(&home)
    })
    .await
    .map_err(|_| ApiError::internal("Settings couldn't be saved. Try again."))?
    .map_err(|e| ApiError::internal(e.to_string()))?;
    state.chats.switches().set(&next);
    Ok(Json(view(&next)))
}

/// `GET /api/security`: the checkup.
pub async fn checkup(State(state): State<AppState>) -> Json<Value> {
    let home = state.chats.home().root().to_path_buf();
    let safety = state.chats.switches().now();
    let listening = state.listening;
    let checks = tokio::task::spawn_blocking(move || {
        conversations::checkup::checkup(&home, &safety, listening)
    })
    .await
    .unwrap_or_default();
    Json(json!({ "checks": checks }))
}
