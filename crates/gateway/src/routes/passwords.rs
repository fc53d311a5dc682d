//! Settings → Passwords: every key Conch keeps, by name and fingerprint,
//! never its value. A person only. Provider keys and apps' tokens can be
//! removed or replaced here; access keys are revoked on their own route
//! (`DELETE /api/keys/{id}`); the key for signing skills is shared as its
//! public key and made anew only in the terminal (`conch skills key
//! --new`), where the assistant is fenced off from it (ADR 0047 §2).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use base64::Engine;
use conversations::secrets::ProviderSecret;
use conversations::{Secrets, Settings};
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::Digest;
use skills::signing_key::{self, key_fingerprint, KeyStatus};

use crate::auth::Person;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

/// A secret's fingerprint: enough of its SHA-256 to tell two apart, never
/// enough to matter (the keys are long and random).
fn fingerprint(secret: &str) -> String {
    let digest = sha2::Sha256::digest(secret.as_bytes());
    let text = base64::engine::general_purpose::STANDARD_NO_PAD.encode(digest);
    format!("SHA256:{}", &text[..12])
}

fn failed(e: impl std::fmt::Display) -> ApiError {
    ApiError::internal(e.to_string())
}

fn list(home: &std::path::Path) -> Result<Value, ApiError> {
    let settings = Settings::load(home).map_err(failed)?;
    let vault = settings.vault(home);
    let secrets = Secrets::load(&vault).map_err(failed)?;
    let mut keys = Vec::new();
    for (name, s) in &secrets.providers {
        keys.push(json!({
            "kind": "provider", "name": name, "fingerprint": fingerprint(&s.key),
            "inUse": settings.providers.iter().any(|p| &p.name == name),
        }));
    }
    for (app, secret) in &secrets.apps {
        for (field, value) in secret.env.iter().chain(&secret.headers) {
            keys.push(json!({
                "kind": "app", "name": app, "field": field, "fingerprint": fingerprint(value),
            }));
        }
    }
    for (app, bridge) in &secrets.bridges {
        keys.push(json!({
            "kind": "chatApp", "name": app, "field": "bot token",
            "fingerprint": fingerprint(&bridge.token),
        }));
    }
    if let Ok(records) = crate::auth::keys::list(home) {
        for k in records {
            keys.push(json!({
                "kind": "accessKey", "name": k.name, "id": k.id,
                "fingerprint": format!("sha256:{}", k.hash.get(..12).unwrap_or(&k.hash)),
                "created": k.created,
            }));
        }
    }
    match signing_key::status(&vault) {
        KeyStatus::None => {}
        KeyStatus::Sealed(key) => keys.push(json!({
            "kind": "signingKey", "name": "Key for signing skills",
            "fingerprint": key_fingerprint(&key),
            "publicKey": signing_key::public_text(&key),
            "says": "Locked with this computer's own key. Share the public key; the key itself can't be copied out.",
        })),
        KeyStatus::Clear => keys.push(json!({
            "kind": "signingKey", "name": "Key for signing skills",
            "says": "In the clear: Repair everything locks it with this computer's own key.",
        })),
        KeyStatus::CantOpen(e) => keys.push(json!({
            "kind": "signingKey", "name": "Key for signing skills",
            "says": format!("{e} Make a new one in the terminal with conch skills key --new."),
        })),
    }
    let keystore = ["secrets.json", "skills.signing.json"]
        .iter()
        .find_map(|f| {
            std::fs::read(home.join(f))
                .ok()
                .and_then(|b| vault::keystore_of(&b))
        });
    keys.push(json!({
        "kind": "deviceKey", "name": "This computer's own key",
        "keystore": keystore.map(|k| k.words()),
        "says": match keystore {
            Some(vault::KeystoreKind::File) => "Kept in a file in Conch's folder (keystore/device.key, yours alone): the seal is as strong as that file's permissions.",
            Some(_) => "Kept by this computer's keychain. It never leaves this computer, and is never in a backup.",
            None => "Not made yet: it is made the first time a key is locked.",
        },
    }));
    Ok(json!({ "keys": keys }))
}

/// `GET /api/passwords`
pub async fn show(_: Person, State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let home = state.chats.home().root().to_path_buf();
    let listed = tokio::task::spawn_blocking(move || list(&home))
        .await
        .map_err(|_| ApiError::internal("Passwords couldn't be read. Try again."))??;
    Ok(Json(listed))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewKey {
    key: String,
}

/// Changes secrets.json under `change`; 404 with `missing` when it finds
/// nothing to change.
async fn change(
    state: &AppState,
    missing: String,
    change: impl FnOnce(&mut Secrets) -> bool + Send + 'static,
) -> Result<(), ApiError> {
    let home = state.chats.home().root().to_path_buf();
    tokio::task::spawn_blocking(move || {
        let vault = Settings::load(&home).map_err(failed)?.vault(&home);
        let mut secrets = Secrets::load(&vault).map_err(failed)?;
        if !change(&mut secrets) {
            return Err(ApiError::new(StatusCode::NOT_FOUND, missing));
        }
        secrets.save(&vault).map_err(failed)
    })
    .await
    .map_err(|_| ApiError::internal("The key couldn't be changed. Try again."))?
}

/// `DELETE /api/passwords/providers/{name}`
pub async fn remove_provider(
    _: Person,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    let said = format!("There's no key for a provider called \"{name}\".");
    change(&state, said, move |s| s.providers.remove(&name).is_some()).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `PUT /api/passwords/providers/{name} {"key": …}`
pub async fn replace_provider(
    _: Person,
    State(state): State<AppState>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<NewKey>,
) -> Result<StatusCode, ApiError> {
    let key = body.key.trim().to_owned();
    if key.is_empty() {
        return Err(ApiError::bad("The new key is empty. Paste the key itself."));
    }
    let settings = Settings::load(state.chats.home().root()).map_err(failed)?;
    if !settings.providers.iter().any(|p| p.name == name) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("There's no provider called \"{name}\"."),
        ));
    }
    change(&state, String::new(), move |s| {
        s.providers.insert(name, ProviderSecret { key });
        true
    })
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /api/passwords/apps/{name}`: every token kept for that app.
pub async fn remove_app(
    _: Person,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    let said = format!("There's no token for an app called \"{name}\".");
    change(&state, said, move |s| s.apps.remove(&name).is_some()).await?;
    Ok(StatusCode::NO_CONTENT)
}
