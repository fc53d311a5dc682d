//! `POST /api/setup-link`: a new one-time setup link, for `conch setup` in
//! the terminal when the link `conch serve` printed was used, expired or
//! lost.
//!
//! Only while no password is set (after that there is nothing to set up),
//! and only from this computer: the caller signs in with an access key,
//! which only someone who can write Conch's folder can make, so asking
//! proves what a setup link proves. A new link replaces the earlier one.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use crate::auth::{password, Peer, Who};
use crate::error::ApiError;
use crate::state::AppState;

pub async fn issue(
    State(state): State<AppState>,
    peer: Peer,
    _who: Who,
) -> Result<Json<Value>, ApiError> {
    if !peer.0.is_loopback() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "A setup link is given only to this computer. Run conch setup on the computer Conch runs on.",
        ));
    }
    if password::is_set(&state.auth.home) {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "Conch already has a password. Sign in with it, or change it with conch setup --password-stdin.",
        ));
    }
    let token = state.auth.setup.issue().map_err(|_| {
        ApiError::internal("This computer gave Conch no randomness for the setup link.")
    })?;
    Ok(Json(json!({
        "token": token,
        "lastsSecs": state.auth.setup.lasts().as_secs(),
    })))
}
