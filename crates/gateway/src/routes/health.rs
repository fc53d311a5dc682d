use axum::Json;
use serde_json::{json, Value};

/// `GET /api/health`: answers without sign-in, so scripts and supervisors
/// can tell the gateway is up. It says nothing about what's inside.
pub async fn health() -> Json<Value> {
    Json(json!({ "ok": true, "version": env!("CARGO_PKG_VERSION") }))
}
