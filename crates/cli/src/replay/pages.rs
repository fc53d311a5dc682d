//! The scenario's pages, served by replay itself on 127.0.0.1. The fetch
//! tool sends every request here as its proxy, so every host "resolves"
//! here; an address the scenario doesn't have is a 404. Nothing else is
//! reached.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;

async fn page(State(pages): State<Arc<BTreeMap<String, String>>>, uri: Uri) -> Response {
    let asked = uri.to_string();
    let found = pages
        .get(&asked)
        .or_else(|| pages.get(asked.trim_end_matches('/')))
        .or_else(|| pages.get(&format!("{asked}/")));
    match found {
        Some(body) => {
            let kind = if body.trim_start().starts_with('<') {
                "text/html; charset=utf-8"
            } else {
                "text/plain; charset=utf-8"
            };
            ([(header::CONTENT_TYPE, kind)], body.clone()).into_response()
        }
        None => (
            StatusCode::NOT_FOUND,
            "This scenario has no page at that address.",
        )
            .into_response(),
    }
}

/// Serves the pages; returns the proxy address.
pub async fn serve(pages: BTreeMap<String, String>) -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let app = Router::new().fallback(page).with_state(Arc::new(pages));
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(format!("http://{addr}"))
}
