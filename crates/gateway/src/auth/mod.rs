//! Who is asking: the owner (a session from their password) or a script (an
//! access key). Every `/api` route but health and sign-in needs one of them;
//! routes a person alone may use refuse keys with 403.

mod file_stamp;
pub mod keys;
pub mod password;
pub mod random;
pub mod sessions;
pub mod setup_link;
pub mod throttle;

use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::ConnectInfo;
use conversations::security::{SecurityLog, Tried};

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use tokio::sync::Semaphore;

use crate::error::ApiError;
use crate::state::AppState;
use keys::{KeyCache, KeyRecord};
use sessions::{Session, Sessions};
use setup_link::SetupLink;
use throttle::{Attempt, Throttle};

pub struct Auth {
    pub home: PathBuf,
    pub sessions: Sessions,
    pub keys: KeyCache,
    pub setup: SetupLink,
    /// argon2 is slow on purpose; at most two checks run at once, so a flood
    /// of sign-in attempts can't take every core.
    pub password_slots: Arc<Semaphore>,
    /// Guessing slowed down: sign-ins, confirmations, setup links.
    throttle: Mutex<Throttle>,
    /// Where failed tries are written (Activity and the checkup read it).
    security: Arc<SecurityLog>,
    /// Sessions whose password confirmation is being checked right now.
    confirming: Mutex<HashSet<String>>,
}

impl Auth {
    pub fn new(home: PathBuf, security: Arc<SecurityLog>) -> Auth {
        Auth {
            keys: KeyCache::new(&home),
            sessions: Sessions::new(&home),
            home,
            setup: SetupLink::default(),
            password_slots: Arc::new(Semaphore::new(2)),
            throttle: Mutex::new(Throttle::new(throttle::Policy::default())),
            security,
            confirming: Mutex::new(HashSet::new()),
        }
    }

    /// Lets a try from `peer` in (counted as a failure until settled), or
    /// refuses it with 429 and how long to wait.
    pub fn admit(&self, peer: &Peer) -> Result<Attempt, ApiError> {
        self.lock_throttle()
            .admit(peer.0, Instant::now())
            .map_err(|wait| ApiError::slow_down(throttle::retry_after_secs(wait)))
    }

    /// The try was right: its address starts again from nothing.
    pub fn right(&self, attempt: Attempt) {
        self.lock_throttle().right(attempt);
    }

    /// The try wasn't a guess (no password set, Conch failing).
    pub fn not_a_guess(&self, attempt: Attempt) {
        self.lock_throttle().not_a_guess(attempt);
    }

    /// The try was wrong: it stays counted, and is written down for
    /// Activity and the checkup.
    pub async fn wrong(&self, peer: &Peer, tried: Tried) {
        let security = self.security.clone();
        let from = peer.0.to_canonical().to_string();
        let written = tokio::task::spawn_blocking(move || security.record(tried, &from)).await;
        if let Ok(Err(e)) = written {
            conversations::warn(&format!(
                "A wrong password couldn't be written to security.jsonl: {e}."
            ));
        }
    }

    /// Marks `session` as confirming its password; `None` when it already
    /// is (one confirmation at a time per session). Done when dropped.
    pub fn start_confirming(&self, session: &str) -> Option<Confirming<'_>> {
        let key = random::digest(session);
        let mut confirming = self.confirming.lock().unwrap_or_else(|p| p.into_inner());
        confirming
            .insert(key.clone())
            .then_some(Confirming { auth: self, key })
    }

    fn lock_throttle(&self) -> std::sync::MutexGuard<'_, Throttle> {
        self.throttle.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A confirmation in progress.
pub struct Confirming<'a> {
    auth: &'a Auth,
    key: String,
}

impl Drop for Confirming<'_> {
    fn drop(&mut self) {
        self.auth
            .confirming
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.key);
    }
}

/// The client's address, as the connection came in (unspecified when the
/// router is served without one).
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Peer(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip()),
        ))
    }
}

/// Who a signed-in request is from.
#[derive(Debug, Clone)]
pub enum Who {
    Owner { token: String, session: Session },
    Key(KeyRecord),
}

pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_owned())
}

pub fn who(auth: &Auth, headers: &HeaderMap) -> Result<Who, ApiError> {
    if let Some(value) = headers.get(header::AUTHORIZATION) {
        let text = value.to_str().unwrap_or("");
        let key = text
            .strip_prefix("Bearer ")
            .or_else(|| text.strip_prefix("bearer "))
            .map(str::trim)
            .unwrap_or("");
        return auth.keys.check(key).map(Who::Key).ok_or_else(|| {
            ApiError::new(
                StatusCode::UNAUTHORIZED,
                "That access key isn't valid: it may have been revoked. Make a new one with conch keys create NAME.",
            )
        });
    }
    if let Some(token) = cookie(headers, sessions::COOKIE) {
        if let Some(session) = auth.sessions.check(&token) {
            return Ok(Who::Owner { token, session });
        }
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "Your session has ended. Sign in again.",
        ));
    }
    Err(ApiError::new(
        StatusCode::UNAUTHORIZED,
        "Sign in first: POST /api/session with your password, or send an access key as Authorization: Bearer KEY.",
    ))
}

/// The middleware in front of signed-in routes.
pub async fn require_sign_in(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let who = who(&state.auth, request.headers())?;
    request.extensions_mut().insert(who);
    Ok(next.run(request).await)
}

impl<S: Send + Sync> FromRequestParts<S> for Who {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Who>()
            .cloned()
            .ok_or_else(|| ApiError::new(StatusCode::UNAUTHORIZED, "Sign in first."))
    }
}

/// What an access key is told at a person-only route (and what replay says
/// when a scenario tries one with a key).
pub const PERSON_ONLY: &str =
    "Only a person signed in with the password can do this. Access keys can't.";

/// A route only a person signed in with the password may use.
pub struct Person {
    pub token: String,
    pub session: Session,
}

impl<S: Send + Sync> FromRequestParts<S> for Person {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Who::from_request_parts(parts, state).await? {
            Who::Owner { token, session } => Ok(Person { token, session }),
            Who::Key(_) => Err(ApiError::new(StatusCode::FORBIDDEN, PERSON_ONLY)),
        }
    }
}
