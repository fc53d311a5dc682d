//! Settings → Contacts: the people and places the owner sends to. Auto
//! mode reviews a write to one of them after reading, as it does a write
//! to a recipient the owner named in the chat (docs/review.md). A list a
//! chat could fill would let a page name its own recipient, so only a
//! person signed in sets it: never an access key, never a tool.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use conversations::Settings;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::Who;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

/// The most contacts kept, and the longest one.
const MOST: usize = 500;
const LONGEST: usize = 254;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactsBody {
    contacts: Vec<String>,
}

/// `GET /api/settings/contacts`
pub async fn list(State(state): State<AppState>) -> Json<Value> {
    Json(json!({ "contacts": *state.chats.switches().contacts() }))
}

/// The list as kept: trimmed, without empties or repeats (any case).
fn tidy(given: Vec<String>) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for c in given {
        let c = c.trim().to_owned();
        if c.is_empty() {
            continue;
        }
        if c.chars().count() > LONGEST || c.chars().any(char::is_control) {
            return Err(format!(
                "\"{}…\" isn't a contact: one line of at most {LONGEST} characters.",
                c.chars().take(24).collect::<String>()
            ));
        }
        if !out.iter().any(|o| o.eq_ignore_ascii_case(&c)) {
            out.push(c);
        }
    }
    if out.len() > MOST {
        return Err(format!(
            "That's {} contacts; Conch keeps at most {MOST}.",
            out.len()
        ));
    }
    Ok(out)
}

/// `PUT /api/settings/contacts {"contacts": [..]}`: a person only.
pub async fn set(
    who: Who,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<ContactsBody>,
) -> Result<Json<Value>, ApiError> {
    if matches!(who, Who::Key(_)) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            crate::auth::PERSON_ONLY,
        ));
    }
    let contacts = tidy(body.contacts).map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e))?;
    let home = state.chats.home().root().to_path_buf();
    let saved = contacts.clone();
    tokio::task::spawn_blocking(move || {
        let mut settings = Settings::load(&home)?;
        settings.contacts = saved;
        settings.save(&home)
    })
    .await
    .map_err(|_| ApiError::internal("Settings couldn't be saved. Try again."))?
    .map_err(|e| ApiError::internal(e.to_string()))?;
    state.chats.switches().set_contacts(&contacts);
    Ok(Json(json!({ "contacts": contacts })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_kept_tidy() {
        let got = tidy(vec![
            " bob@example.com ".into(),
            "".into(),
            "BOB@example.com".into(),
            "#team".into(),
            "Zoë Martin".into(),
        ])
        .unwrap();
        assert_eq!(got, vec!["bob@example.com", "#team", "Zoë Martin"]);
        assert!(tidy(vec!["a\nb".into()]).is_err());
        assert!(tidy(vec!["x".repeat(300)]).is_err());
        assert!(tidy((0..501).map(|i| format!("p{i}@example.com")).collect()).is_err());
    }
}
