//! Settings → Security → Repair everything over HTTP: the same checks and
//! fixes as `conch doctor --repair` (`conversations::repair`). A person
//! only. Safety switches are turned back on only when that person's
//! password is recent, as turning them off needs (ADR 0028 §3).

use axum::extract::State;
use axum::Json;
use conversations::repair::{self, Mode, Options, Report, State as Outcome};
use conversations::Settings;
use serde_json::{json, Value};

use crate::auth::Person;
use crate::error::ApiError;
use crate::state::AppState;

fn view(report: &Report) -> Value {
    let count = |s: Outcome| report.items.iter().filter(|i| i.state == s).count();
    json!({
        "items": report.items,
        "repaired": count(Outcome::Fixed),
        "found": count(Outcome::Found),
        "needsYou": count(Outcome::NeedsYou) + count(Outcome::Type),
    })
}

async fn run(state: &AppState, options: Options) -> Result<Report, ApiError> {
    let home = state.chats.home().root().to_path_buf();
    // The live switches, not what a file says: they are what Conch uses.
    let live = state.chats.switches().now();
    let report = tokio::task::spawn_blocking(move || {
        let mut settings = Settings::load(&home)?;
        settings.safety = live.clone();
        let report = repair::run(&home, &settings, options);
        if report.safety != live {
            settings.safety = report.safety.clone();
            settings.save(&home)?;
        }
        Ok::<_, conversations::settings::SettingsError>(report)
    })
    .await
    .map_err(|_| ApiError::internal("The repair stopped half-way. Run it again."))?
    .map_err(|e| ApiError::internal(e.to_string()))?;
    state.chats.switches().set(&report.safety);
    Ok(report)
}

/// `GET /api/security/repair`: what Repair everything would do.
pub async fn look(_: Person, State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let report = run(
        &state,
        Options {
            mode: Mode::Look,
            safety: false,
        },
    )
    .await?;
    Ok(Json(view(&report)))
}

/// `POST /api/security/repair`: Repair everything, in one press.
pub async fn repair(
    person: Person,
    State(state): State<AppState>,
) -> Result<Json<Value>, ApiError> {
    let report = run(
        &state,
        Options {
            mode: Mode::Repair,
            safety: person.session.recent_password(),
        },
    )
    .await?;
    Ok(Json(view(&report)))
}
