//! Artifacts over HTTP (ADR 0034): list, describe, each version's text,
//! the sealed frame, downloads, diffs, delete, pin, and Refresh. Under
//! `/api`, so behind the Host, Fetch-Metadata, origin and sign-in checks.

use artifacts::{frame, Artifact, Store, StoreError};
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::state::AppState;

fn refusal(e: StoreError) -> ApiError {
    let status = match e {
        StoreError::NotFound(_) | StoreError::NoVersion(..) => StatusCode::NOT_FOUND,
        StoreError::Content(_) => StatusCode::BAD_REQUEST,
        StoreError::Io(..) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    ApiError::new(status, e.to_string())
}

async fn blocking<T: Send + 'static>(
    state: &AppState,
    f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    let store = state.chats.artifacts().clone();
    tokio::task::spawn_blocking(move || f(&store))
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
        .map_err(refusal)
}

/// What a list shows of one artifact.
fn summary(a: &Artifact) -> Value {
    json!({
        "id": a.id,
        "kind": a.kind,
        "title": a.title,
        "chat": a.chat,
        "created": a.created,
        "updated": a.updated,
        "latest": a.latest,
        "versions": a.versions.len(),
        "pinned": a.pinned,
        "navigates": a.newest().is_some_and(|v| v.navigates),
        "healed": a.healed,
    })
}

#[derive(Deserialize)]
pub struct ListQuery {
    pinned: Option<bool>,
}

/// `GET /api/artifacts[?pinned=true]`: newest change first.
pub async fn list(
    State(state): State<AppState>,
    Query(q): Query<ListQuery>,
) -> Result<Json<Value>, ApiError> {
    let all = blocking(&state, |s| Ok(s.list())).await?;
    let shown: Vec<Value> = all
        .iter()
        .filter(|a| q.pinned.is_none_or(|p| a.pinned == p))
        .map(summary)
        .collect();
    Ok(Json(json!({ "artifacts": shown })))
}

/// `GET /api/artifacts/{id}`: artifact.json, healed first if need be.
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Artifact>, ApiError> {
    Ok(Json(blocking(&state, move |s| s.get(&id)).await?))
}

/// `DELETE /api/artifacts/{id}`.
pub async fn remove(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let gone = blocking(&state, move |s| s.delete(&id)).await?;
    Ok(Json(json!({ "deleted": gone.id })))
}

/// `POST /api/artifacts/{id}/pin` and `/unpin`.
pub async fn pin(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let a = blocking(&state, move |s| s.set_pinned(&id, true)).await?;
    Ok(Json(json!({ "id": a.id, "pinned": a.pinned })))
}

pub async fn unpin(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let a = blocking(&state, move |s| s.set_pinned(&id, false)).await?;
    Ok(Json(json!({ "id": a.id, "pinned": a.pinned })))
}

/// `POST /api/artifacts/{id}/refresh`: starts the Refresh chat; 202 with
/// its id (follow it like any chat).
pub async fn refresh(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let chat = state.chats.refresh_artifact(&id).await?;
    Ok((StatusCode::ACCEPTED, Json(json!({ "chat": chat.id }))))
}

fn with_headers(
    status: StatusCode,
    headers: Vec<(&'static str, String)>,
    body: String,
) -> Response {
    let mut response = (status, Body::from(body)).into_response();
    let map = response.headers_mut();
    for (name, value) in headers {
        if let Ok(value) = HeaderValue::from_str(&value) {
            map.insert(HeaderName::from_static(name), value);
        }
    }
    response
}

/// `GET /api/artifacts/{id}/versions/{n}`: the version's text exactly as
/// it was, as plain text that nothing renders.
pub async fn text(
    State(state): State<AppState>,
    Path((id, n)): Path<(String, u32)>,
) -> Result<Response, ApiError> {
    let text = blocking(&state, move |s| s.text(&id, n)).await?;
    Ok(with_headers(
        StatusCode::OK,
        vec![
            ("content-type", "text/plain; charset=utf-8".to_owned()),
            ("content-security-policy", frame::CSP_DOWNLOAD.to_owned()),
            ("cache-control", "no-store".to_owned()),
        ],
        text,
    ))
}

#[derive(Deserialize)]
pub struct FrameQuery {
    scripts: Option<String>,
}

/// `GET /api/artifacts/{id}/versions/{n}/frame[?scripts=1]`: the version
/// sealed off (see artifacts::frame).
pub async fn frame(
    State(state): State<AppState>,
    Path((id, n)): Path<(String, u32)>,
    Query(q): Query<FrameQuery>,
) -> Result<Response, ApiError> {
    let scripts = q.scripts.as_deref() == Some("1");
    let (artifact, body, navigates) = blocking(&state, move |s| {
        let (a, text) = s.with_text(&id, n)?;
        let navigates = a.version(n).is_some_and(|v| v.navigates);
        let body = frame::served_text(a.kind, &text, frame::scripts_run(navigates, scripts));
        Ok((a, body, navigates))
    })
    .await?;
    Ok(with_headers(
        StatusCode::OK,
        frame::frame_headers(artifact.kind, navigates, scripts),
        body,
    ))
}

/// `GET /api/artifacts/mermaid-frame`: the diagram renderer, a sealed page
/// with nothing but Mermaid's script (ADR 0034 §2). The panel keeps one
/// hidden and sends it diagrams; it answers with SVG text, which the panel
/// shows as an `<img>`.
pub async fn mermaid_frame() -> Result<Response, ApiError> {
    let Some(script) = crate::routes::web::asset_path_starting("/assets/mermaid-frame-") else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "The diagram renderer isn't built into this Conch: build the web pages (./web/build.sh), then Conch.",
        ));
    };
    Ok(with_headers(
        StatusCode::OK,
        frame::diagram_headers(),
        frame::diagram_page(script),
    ))
}

/// `GET /api/artifacts/{id}/versions/{n}/download`: always an attachment.
pub async fn download(
    State(state): State<AppState>,
    Path((id, n)): Path<(String, u32)>,
) -> Result<Response, ApiError> {
    let (artifact, text) = blocking(&state, move |s| s.with_text(&id, n)).await?;
    Ok(with_headers(
        StatusCode::OK,
        frame::download_headers(artifact.kind, &artifact.title),
        text,
    ))
}

#[derive(Deserialize)]
pub struct DiffQuery {
    from: Option<u32>,
    to: Option<u32>,
}

/// `GET /api/artifacts/{id}/diff[?from=N&to=M]`: the lines of `to` (default
/// the newest) against `from` (default the version kept before it).
pub async fn diff(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<DiffQuery>,
) -> Result<Json<Value>, ApiError> {
    let out = blocking(&state, move |s| {
        let a = s.get(&id)?;
        let to = q.to.unwrap_or(a.latest);
        let from = match q.from {
            Some(f) => Some(f),
            None => a.before(to).map(|v| v.n),
        };
        let new = s.text(&id, to)?;
        let old = match from {
            Some(f) => s.text(&id, f)?,
            None => String::new(),
        };
        Ok(json!({
            "from": from,
            "to": to,
            "lines": artifacts::diff::lines(&old, &new),
        }))
    })
    .await?;
    Ok(Json(out))
}
