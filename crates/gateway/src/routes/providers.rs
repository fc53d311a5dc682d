//! `/api/providers`: model providers, as `conch providers …` manages them
//! (`conversations::providers`). Adding, changing, removing and picking the
//! default are for a person signed in with the password; access keys get
//! 403. A key goes in once and is never sent back.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use conversations::providers::{self, NewProvider, ProviderError};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::Person;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

impl From<ProviderError> for ApiError {
    fn from(e: ProviderError) -> Self {
        let status = match &e {
            ProviderError::NotFound(_) => StatusCode::NOT_FOUND,
            ProviderError::Settings(_) | ProviderError::Secrets(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, e.to_string())
    }
}

pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ProviderError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|_| ApiError::internal("The providers couldn't be read. Try again."))?
        .map_err(ApiError::from)
}

/// `GET /api/providers`: `{"providers": [...], "default", "engine"}`.
pub async fn list(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let home = state.chats.home().root().to_path_buf();
    let list = blocking(move || providers::list(&home)).await?;
    let default = list.iter().find(|p| p.default).map(|p| p.name.clone());
    Ok(Json(json!({
        "providers": list,
        "default": default,
        // What answers when there is no provider.
        "engine": state.chats.engine_name(),
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AddBody {
    name: String,
    kind: String,
    base_url: Option<String>,
    model: String,
    key: Option<String>,
    context_tokens: Option<usize>,
}

/// `POST /api/providers`: adds a provider (or changes the one with that
/// name). A person only.
pub async fn add(
    _: Person,
    State(state): State<AppState>,
    JsonBody(mut body): JsonBody<AddBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let home = state.chats.home().root().to_path_buf();
    let new = NewProvider {
        name: body.name.clone(),
        kind: body.kind.clone(),
        base_url: body.base_url.take(),
        model: body.model.clone(),
        // The program a provider runs is chosen in a terminal
        // (`conch providers add --bin`), not from a web page.
        bin: None,
        key: body.key.take(),
        context_tokens: body.context_tokens,
    };
    let added = blocking(move || providers::add(&home, new)).await?;
    Ok((
        if added.existed {
            StatusCode::OK
        } else {
            StatusCode::CREATED
        },
        Json(json!({
            "name": body.name,
            "existed": added.existed,
            "default": added.default,
            "hasKey": added.key_stored,
        })),
    ))
}

/// `DELETE /api/providers/{name}`: forgets it and its key. A person only.
pub async fn remove(
    _: Person,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let home = state.chats.home().root().to_path_buf();
    let gone = name.clone();
    blocking(move || providers::remove(&home, &gone)).await?;
    Ok(Json(json!({ "removed": name })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefaultBody {
    name: String,
}

/// `POST /api/providers/default {"name"}`: new turns use it. A person only.
pub async fn set_default(
    _: Person,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<DefaultBody>,
) -> Result<Json<Value>, ApiError> {
    let home = state.chats.home().root().to_path_buf();
    let name = body.name.clone();
    blocking(move || providers::set_default(&home, &name)).await?;
    Ok(Json(json!({ "default": body.name })))
}

/// `POST /api/providers/{name}/test`: one short request; the answer or the
/// error, in words.
pub async fn test(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let home = state.chats.home().root().to_path_buf();
    let tested = providers::test(&home, &name).await?;
    Ok(Json(serde_json::to_value(tested).unwrap_or(Value::Null)))
}
