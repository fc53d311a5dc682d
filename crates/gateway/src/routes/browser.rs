//! `GET /api/chats/{id}/browser/{file}`: a screenshot Conch's browser took
//! in that chat (`browser_screenshot`), kept beside the chat's log as
//! `browser/<call>-<random>.png`; the tool card shows it. Only such names are
//! served, so nothing else in the chat's folder is reachable this way.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::state::AppState;

/// `<name>.png`, the name made of letters, digits, `-` and `_`.
fn screenshot_name(file: &str) -> bool {
    file.strip_suffix(".png").is_some_and(|stem| {
        !stem.is_empty()
            && stem.len() <= 100
            && stem
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

pub async fn screenshot(
    State(state): State<AppState>,
    Path((id, file)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    if !screenshot_name(&file) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "There's no such screenshot.",
        ));
    }
    // The chat must exist (its id is checked the usual way).
    let chat = crate::routes::chats::open_chat(&state, id).await?;
    let path = state
        .chats
        .home()
        .chats_dir()
        .join(&chat.id)
        .join("browser")
        .join(&file);
    let bytes = tokio::task::spawn_blocking(move || std::fs::read(path))
        .await
        .map_err(|_| ApiError::internal("The screenshot couldn't be read. Try again."))?
        .map_err(|_| ApiError::new(StatusCode::NOT_FOUND, "There's no such screenshot."))?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png"),
            (
                header::CACHE_CONTROL,
                "private, max-age=31536000, immutable",
            ),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        bytes,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::screenshot_name;

    #[test]
    fn only_screenshot_names_are_served() {
        for ok in ["call-1.png", "toolu_01ABC.png"] {
            assert!(screenshot_name(ok), "{ok}");
        }
        for bad in [
            "../log.jsonl",
            "log.jsonl",
            ".png",
            "a/b.png",
            "..%2flog.png",
            "a.png.txt",
            "é.png",
        ] {
            assert!(!screenshot_name(bad), "{bad}");
        }
    }
}
