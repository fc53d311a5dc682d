//! A JSON body extractor whose refusals are sentences in the API's shape.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::Json;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(value)) => Ok(JsonBody(value)),
            Err(rejection) => Err(refusal(rejection)),
        }
    }
}

fn refusal(rejection: JsonRejection) -> ApiError {
    match rejection {
        JsonRejection::JsonDataError(e) => {
            let detail = e.body_text();
            let detail = detail
                .strip_prefix("Failed to deserialize the JSON body into the target type: ")
                .unwrap_or(&detail);
            ApiError::bad(format!("The request's fields aren't right: {detail}."))
        }
        JsonRejection::JsonSyntaxError(_) => ApiError::bad("The request body isn't valid JSON."),
        JsonRejection::MissingJsonContentType(_) => ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Send the body as JSON, with Content-Type: application/json.",
        ),
        JsonRejection::BytesRejection(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "The request body is too large (the limit is {} KB).",
                    crate::BODY_LIMIT / 1024
                ),
            )
        }
        other => ApiError::new(other.status(), "The request body couldn't be read."),
    }
}
