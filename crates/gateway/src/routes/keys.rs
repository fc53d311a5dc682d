//! Access keys from the browser. A person only: a key can't make, list or
//! revoke keys.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::keys::{self, KeyError};
use crate::auth::Person;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

fn refusal(e: KeyError) -> ApiError {
    let status = match e {
        KeyError::BadName => StatusCode::BAD_REQUEST,
        KeyError::NameTaken(_) => StatusCode::CONFLICT,
        KeyError::NotFound(_) => StatusCode::NOT_FOUND,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    ApiError::new(status, e.to_string())
}

/// `GET /api/keys`
pub async fn list(_: Person, State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let keys = keys::list(&state.auth.home).map_err(refusal)?;
    let rows: Vec<Value> = keys
        .iter()
        .map(|k| json!({ "id": k.id, "name": k.name, "created": k.created }))
        .collect();
    Ok(Json(Value::Array(rows)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewKey {
    name: String,
}

/// `POST /api/keys {"name": …}` → the key, shown this once.
pub async fn create(
    _: Person,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<NewKey>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let home = state.auth.home.clone();
    let (record, secret) = tokio::task::spawn_blocking(move || keys::create(&home, &body.name))
        .await
        .map_err(|_| ApiError::internal("The key couldn't be made. Try again."))?
        .map_err(refusal)?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "id": record.id, "name": record.name, "key": secret })),
    ))
}

/// `DELETE /api/keys/{id}`
pub async fn revoke(
    _: Person,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let home = state.auth.home.clone();
    let gone = tokio::task::spawn_blocking(move || keys::revoke(&home, &id))
        .await
        .map_err(|_| ApiError::internal("The key couldn't be revoked. Try again."))?
        .map_err(refusal)?;
    Ok(Json(json!({ "revoked": gone.id, "name": gone.name })))
}
