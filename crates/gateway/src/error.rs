use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use conversations::{ChatError, LogError};

/// Every refusal the API gives: a status and one plain sentence, sent as
/// `{"error": "…"}`.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub sentence: String,
    /// Seconds to wait before trying again (`Retry-After`, with 429).
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, sentence: impl Into<String>) -> ApiError {
        ApiError {
            status,
            sentence: sentence.into(),
            retry_after: None,
        }
    }

    /// 429: too many tries; try again in `secs` seconds.
    pub fn slow_down(secs: u64) -> ApiError {
        ApiError {
            retry_after: Some(secs),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "Too many wrong tries. Wait {secs} second{} and try again.",
                    if secs == 1 { "" } else { "s" }
                ),
            )
        }
    }

    pub fn bad(sentence: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, sentence)
    }

    pub fn internal(sentence: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, sentence)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(serde_json::json!({ "error": self.sentence }));
        let mut response = (self.status, body).into_response();
        if let Some(secs) = self.retry_after {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, secs.into());
        }
        response
    }
}

impl From<ChatError> for ApiError {
    fn from(e: ChatError) -> Self {
        let status = match &e {
            ChatError::NotFound(_) => StatusCode::NOT_FOUND,
            ChatError::Work { .. } | ChatError::EmptyMessage => StatusCode::BAD_REQUEST,
            ChatError::WorkRefused(_) => StatusCode::FORBIDDEN,
            ChatError::MessageTooLong { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ChatError::NotWaiting(_) => StatusCode::CONFLICT,
            ChatError::Skill(_) | ChatError::TurnRunning => StatusCode::CONFLICT,
            ChatError::NotHeld(_) | ChatError::Artifact(_) => StatusCode::NOT_FOUND,
            ChatError::EmptyTitle => StatusCode::BAD_REQUEST,
            ChatError::Working
            | ChatError::NothingToRetry
            | ChatError::NothingToRegenerate
            | ChatError::NotLastMessage => StatusCode::CONFLICT,
            ChatError::UnknownProvider(_) => StatusCode::NOT_FOUND,
            ChatError::Trash(_) | ChatError::Restore(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ChatError::AlreadyHere | ChatError::Halted => StatusCode::CONFLICT,
            ChatError::Halt(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ChatError::Undo(
                conversations::undo::UndoError::Nothing(_)
                | conversations::undo::UndoError::NoChanges
                | conversations::undo::UndoError::NotAnUndo(_),
            ) => StatusCode::NOT_FOUND,
            ChatError::Undo(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ChatError::Log(LogError::Busy(_)) => StatusCode::CONFLICT,
            ChatError::Log(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        ApiError::new(status, e.to_string())
    }
}

impl From<LogError> for ApiError {
    fn from(e: LogError) -> Self {
        ApiError::from(ChatError::Log(e))
    }
}
