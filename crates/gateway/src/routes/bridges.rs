//! Settings → Chat apps over HTTP: the same controls as `conch bridges`.
//! Who the owner is and who may talk to the bot are the owner's to change,
//! so every route here is a person's only (an access key can't).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use bridges::access;
use bridges::state::{summary, StateFile};
use bridges::telegram::API_BASE;
use conversations::secrets::BridgeSecret;
use conversations::{Secrets, Settings};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::Person;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

fn app_of(name: &str) -> Result<&'static str, ApiError> {
    match name {
        "telegram" => Ok("telegram"),
        _ => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!(
                "There's no chat app called \"{}\" yet. Use telegram.",
                name.chars().take(40).collect::<String>()
            ),
        )),
    }
}

fn failed(e: impl std::fmt::Display) -> ApiError {
    ApiError::internal(e.to_string())
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| ApiError::internal("Chat apps couldn't be read. Try again."))?
}

/// `GET /api/bridges`
pub async fn list(_: Person, State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let root = state.chats.home().root().to_path_buf();
    blocking(move || {
        let all = StateFile::new(&root).load().map_err(failed)?;
        let settings = Settings::load(&root).map_err(failed)?;
        let secrets = Secrets::load(&settings.vault(&root)).map_err(failed)?;
        let mut rows: Vec<Value> = all
            .iter()
            .map(|(name, s)| {
                summary(
                    name,
                    s,
                    secrets.bridges.contains_key(name),
                    API_BASE,
                    routines::now(),
                )
            })
            .collect();
        if !all.contains_key("telegram") {
            rows.push(summary(
                "telegram",
                &Default::default(),
                false,
                API_BASE,
                routines::now(),
            ));
        }
        Ok(Json(Value::Array(rows)))
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AddBody {
    token: String,
    #[serde(default)]
    api_base: Option<String>,
}

/// `POST /api/bridges/{app} {"token", "apiBase"?}`: the bot's token, kept
/// sealed. The bridge starts with Conch's next start.
pub async fn add(
    _: Person,
    State(state): State<AppState>,
    Path(app): Path<String>,
    JsonBody(body): JsonBody<AddBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let app = app_of(&app)?;
    let token = body.token.trim().to_owned();
    let shaped = token.split_once(':').is_some_and(|(id, secret)| {
        !id.is_empty()
            && id.bytes().all(|b| b.is_ascii_digit())
            && !secret.is_empty()
            && secret
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    });
    if !shaped {
        return Err(ApiError::bad(
            "That doesn't look like a bot token. @BotFather gives one like 123456789:AAE…, digits, a colon, then letters and digits.",
        ));
    }
    let base = match body
        .api_base
        .map(|b| b.trim().trim_end_matches('/').to_owned())
    {
        Some(b) if b.starts_with("https://") || b.starts_with("http://") => Some(b),
        Some(b) if b.is_empty() => None,
        Some(_) => {
            return Err(ApiError::bad(format!(
                "The API address must be a web address like {API_BASE}."
            )))
        }
        None => None,
    };
    let root = state.chats.home().root().to_path_buf();
    blocking(move || {
        let settings = Settings::load(&root).map_err(failed)?;
        let vault = settings.vault(&root);
        let mut secrets = Secrets::load(&vault).map_err(failed)?;
        // A new token keeps the webhook's secret, if there is one.
        let webhook_secret = secrets
            .bridges
            .get(app)
            .and_then(|b| b.webhook_secret.clone());
        secrets.bridges.insert(
            app.to_owned(),
            BridgeSecret {
                token,
                webhook_secret,
            },
        );
        secrets.save(&vault).map_err(failed)?;
        StateFile::new(&root)
            .update(app, |s| s.api_base = base)
            .map_err(failed)?;
        Ok(())
    })
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(
            json!({ "app": app, "says": "Saved. Conch starts the bot from its next start; then link your account." }),
        ),
    ))
}

/// `POST /api/bridges/{app}/link` → `{"code", "expires"}`: a one-time code
/// to send as `/link CODE`.
pub async fn link(
    _: Person,
    State(state): State<AppState>,
    Path(app): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let app = app_of(&app)?;
    let mut random = [0u8; access::CODE_CHARS];
    getrandom::fill(&mut random).map_err(|_| {
        ApiError::internal("This computer gave Conch no randomness for the code, so none was made.")
    })?;
    let (code, kept) = access::new_code(random, routines::now());
    let expires = kept.expires;
    let root = state.chats.home().root().to_path_buf();
    blocking(move || {
        StateFile::new(&root)
            .update(app, |s| s.link = Some(kept))
            .map_err(failed)
    })
    .await?;
    Ok(Json(
        json!({ "code": code, "send": format!("/link {code}"), "expires": expires }),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserBody {
    user: String,
}

/// `POST /api/bridges/{app}/allowed {"user"}`: a numeric id or @handle.
pub async fn allow(
    _: Person,
    State(state): State<AppState>,
    Path(app): Path<String>,
    JsonBody(body): JsonBody<UserBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let app = app_of(&app)?;
    let who = access::parse_user(&body.user).map_err(ApiError::bad)?;
    let root = state.chats.home().root().to_path_buf();
    let added =
        blocking(move || bridges::state::allow(&StateFile::new(&root), app, who).map_err(failed))
            .await?;
    Ok((
        if added {
            StatusCode::CREATED
        } else {
            StatusCode::OK
        },
        Json(json!({ "added": added })),
    ))
}

/// `DELETE /api/bridges/{app}/allowed/{user}`
pub async fn disallow(
    _: Person,
    State(state): State<AppState>,
    Path((app, user)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    let app = app_of(&app)?;
    let who = access::parse_user(&user).map_err(ApiError::bad)?;
    let root = state.chats.home().root().to_path_buf();
    let gone = blocking(move || {
        bridges::state::disallow(&StateFile::new(&root), app, &who).map_err(failed)
    })
    .await?;
    if gone {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "They weren't allowed, so nothing changed.",
        ))
    }
}

/// `POST /hooks/{app}`: an update the app pushed (a webhook). Not signed
/// in: the app proves itself with the secret it was given
/// (`X-Telegram-Bot-Api-Secret-Token`), checked before anything is read.
pub async fn hook(
    State(state): State<AppState>,
    Path(app): Path<String>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> StatusCode {
    let Some(relay) = state.hooks.get(&app).cloned() else {
        return StatusCode::NOT_FOUND;
    };
    let secret = headers
        .get("x-telegram-bot-api-secret-token")
        .and_then(|v| v.to_str().ok());
    StatusCode::from_u16(relay.pushed(secret, &body).await)
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}
