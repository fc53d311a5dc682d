//! Settings → Backups over HTTP: make one, list and download them, set the
//! schedule, restore one beside this Conch. A person only; anything that
//! puts keys in a file (a passphrase backup, a restore, a passphrase for
//! the schedule) needs a recent password too, so a stolen session can't
//! carry the keys away.

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::Response;
use axum::Json;
use conversations::{BackupSchedule, Every, Secrets, Settings};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::Person;
use crate::backups;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

fn failed(e: impl std::fmt::Display) -> ApiError {
    ApiError::internal(e.to_string())
}

fn needs_recent(person: &Person, what: &str) -> Result<(), ApiError> {
    if person.session.recent_password() {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!("{what} needs your password again: enter it, then try within 10 minutes."),
        ))
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| ApiError::internal("That stopped half-way. Try again."))?
}

/// `GET /api/backups`
pub async fn list(_: Person, State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let home = state.chats.home().root().to_path_buf();
    blocking(move || {
        let settings = Settings::load(&home).map_err(failed)?;
        let secrets = Secrets::load(&settings.vault(&home)).map_err(failed)?;
        let schedule = settings.backups.unwrap_or(BackupSchedule {
            every: Every::Off,
            keep: 7,
        });
        let kept: Vec<Value> = backups::list(&home)
            .into_iter()
            .map(|k| {
                json!({
                    "name": k.name, "size": k.size, "locked": k.locked,
                    "made": protocol::format_rfc3339(k.made),
                })
            })
            .collect();
        Ok(Json(json!({
            "schedule": {
                "every": schedule.every, "keep": schedule.keep,
                "passphrase": secrets.backup_passphrase.is_some(),
            },
            "backups": kept,
        })))
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Make {
    passphrase: Option<String>,
}

/// `POST /api/backups {"passphrase"?}`: one now.
pub async fn make(
    person: Person,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<Make>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let passphrase = body.passphrase.filter(|p| !p.is_empty());
    if passphrase.is_some() {
        needs_recent(&person, "A backup that carries your keys")?;
    }
    let home = state.chats.home().root().to_path_buf();
    let (name, made) =
        blocking(move || backups::make(&home, passphrase.as_deref()).map_err(ApiError::bad))
            .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "name": name, "files": made.files, "bytes": made.bytes,
            "chats": made.chats, "artifacts": made.artifacts, "says": made.says,
        })),
    ))
}

/// `GET /api/backups/{name}`: the file, streamed.
pub async fn download(
    person: Person,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let home = state.chats.home().root().to_path_buf();
    let Some(path) = backups::path_of(&home, &name) else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("There's no backup called \"{name}\"."),
        ));
    };
    // A backup that carries keys leaves this computer only after a
    // recent password.
    if matches!(backup::locked(&path), Ok(backup::Locked::Passphrase)) {
        needs_recent(&person, "Downloading a backup that carries your keys")?;
    }
    let file = tokio::fs::File::open(&path).await.map_err(failed)?;
    let size = file.metadata().await.map_err(failed)?.len();
    let stream = futures_util::stream::unfold(file, |mut file| async move {
        use tokio::io::AsyncReadExt;
        let mut buf = vec![0u8; 64 * 1024];
        match file.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok::<_, std::io::Error>(buf), file))
            }
            Err(e) => Some((Err(e), file)),
        }
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "application/octet-stream")
        .header(header::CONTENT_LENGTH, size)
        .header(
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{name}\""),
        )
        .header(header::CACHE_CONTROL, "no-store")
        .header("x-content-type-options", "nosniff")
        .body(Body::from_stream(stream))
        .map_err(failed)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schedule {
    every: Every,
    keep: Option<usize>,
    /// Set (a string), keep (absent), or forget (`""`).
    passphrase: Option<String>,
}

/// `POST /api/backups/schedule {"every": "off"|"daily"|"weekly", "keep"?, "passphrase"?}`
pub async fn schedule(
    person: Person,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<Schedule>,
) -> Result<Json<Value>, ApiError> {
    if let Some(p) = body.passphrase.as_deref().filter(|p| !p.is_empty()) {
        needs_recent(&person, "Scheduled backups that carry your keys")?;
        if p.chars().count() < backup::MIN_PASSPHRASE {
            return Err(ApiError::bad(
                backup::BackupError::WeakPassphrase.to_string(),
            ));
        }
    }
    let keep = body.keep.unwrap_or(7);
    if !(1..=365).contains(&keep) {
        return Err(ApiError::bad("Keep between 1 and 365 backups."));
    }
    let home = state.chats.home().root().to_path_buf();
    blocking(move || {
        let mut settings = Settings::load(&home).map_err(failed)?;
        if let Some(p) = body.passphrase {
            let vault = settings.vault(&home);
            let mut secrets = Secrets::load(&vault).map_err(failed)?;
            secrets.backup_passphrase = (!p.is_empty()).then_some(p);
            secrets.save(&vault).map_err(failed)?;
        }
        settings.backups = Some(BackupSchedule {
            every: body.every,
            keep,
        });
        settings.save(&home).map_err(failed)?;
        Ok(Json(json!({ "every": body.every, "keep": keep })))
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Restore {
    passphrase: Option<String>,
}

/// `POST /api/backups/{name}/restore {"passphrase"?}`: beside this Conch,
/// never into it (it is running); the answer says how to start it.
pub async fn restore(
    person: Person,
    State(state): State<AppState>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<Restore>,
) -> Result<Json<Value>, ApiError> {
    needs_recent(&person, "Restoring a backup")?;
    let home = state.chats.home().root().to_path_buf();
    let Some(path) = backups::path_of(&home, &name) else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("There's no backup called \"{name}\"."),
        ));
    };
    blocking(move || {
        let into = backup::beside(&home);
        let restored = backup::restore(&path, body.passphrase.as_deref(), &into).map_err(|e| match e {
            backup::BackupError::WrongPassphrase | backup::BackupError::NeedsPassphrase => {
                ApiError::new(StatusCode::FORBIDDEN, e.to_string())
            }
            other => ApiError::bad(other.to_string()),
        })?;
        // Keys came out open: lock them with this computer's key now.
        let settings = Settings::load(&into).unwrap_or_default();
        let vault = settings.vault(&into);
        let _ = conversations::repair::provider_keys(&vault, true);
        let _ = skills::signing_key::lock_if_clear(&vault);
        Ok(Json(json!({
            "into": into.display().to_string(),
            "files": restored.files, "chats": restored.chats,
            "keys": restored.keys,
            "start": format!("conch serve --home '{}'", into.display().to_string().replace('\'', "'\\''")),
            "says": "Restored beside this Conch. To use it, stop Conch and start it with the command shown.",
        })))
    })
    .await
}
