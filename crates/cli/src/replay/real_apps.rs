//! A scenario's real MCP servers (`apps`): written into the temporary
//! home's apps.json, started as the owner's apps, and waited for (a replay
//! is about what the guard does with their tools, so it doesn't begin
//! before they are listed).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use apps::catalog;
use apps::file::{self, Reach};
use apps::{Apps, AppsConfig, Choice, Launch};

use super::scenario::ScenarioApp;
use crate::Failure;

const AT: &str = "2026-10-05T00:00:00.000Z";

/// `./x` and `../x` as the scenario folder's; anything else as written.
fn from(base: &Path, word: &str) -> String {
    if word.starts_with("./") || word.starts_with("../") {
        base.join(word).to_string_lossy().into_owned()
    } else {
        word.to_owned()
    }
}

fn reach(name: &str, app: &ScenarioApp, base: &Path) -> Result<Reach, Failure> {
    match (&app.command, &app.url) {
        (Some(command), None) => Ok(Reach::Stdio {
            command: from(base, command),
            args: app.args.iter().map(|a| from(base, a)).collect(),
            env: app.env.keys().cloned().collect(),
        }),
        (None, Some(url)) => Ok(Reach::Http {
            url: url.clone(),
            headers: app.headers.keys().cloned().collect(),
        }),
        _ => Err(Failure(format!(
            "The scenario's app {name} needs a command or a url (one of them)."
        ))),
    }
}

/// Starts the scenario's apps (None when it declares none).
pub async fn start(
    home: &Path,
    work: &Path,
    base: &Path,
    declared: &BTreeMap<String, ScenarioApp>,
    seal: Option<Arc<seal::Sealed>>,
) -> Result<Option<Arc<Apps>>, Failure> {
    if declared.is_empty() {
        return Ok(None);
    }
    let mut secrets: BTreeMap<String, apps::Secrets> = BTreeMap::new();
    for (name, app) in declared {
        let r = reach(name, app, base)?;
        file::update(home, |f| catalog::add(f, name, r, AT))?.0?;
        secrets.insert(
            name.clone(),
            apps::Secrets {
                env: app.env.clone().into_iter().collect(),
                headers: app.headers.clone().into_iter().collect(),
            },
        );
    }
    let mut launch = Launch::plain();
    launch.seal = seal;
    let config = AppsConfig {
        launch,
        secrets: Arc::new(move |name: &str| Ok(secrets.get(name).cloned().unwrap_or_default())),
        ..AppsConfig::new(home, work)
    };
    let apps = Apps::start(config);
    apps.settled(apps::conn::CONNECT_WITHIN).await;
    for (name, status) in apps.statuses() {
        if let apps::Status::Failed { error, .. } = status {
            return Err(Failure(format!(
                "The scenario's app {name} couldn't be reached: {error}"
            )));
        }
    }
    for (name, app) in declared {
        for (tool, choice) in &app.choices {
            let Some(c) = Choice::parse(choice) else {
                return Err(Failure(format!(
                    "\"{choice}\" isn't a choice for {name}.{tool}: say follow, ask, read-only or off."
                )));
            };
            file::update(home, |f| catalog::choose(f, name, tool, c, AT))?.0?;
        }
        for tool in &app.writes {
            file::update(home, |f| catalog::treat_as_write(f, name, tool, true))?.0?;
        }
    }
    // Relisted tools settle before the first step.
    tokio::time::sleep(Duration::from_millis(600)).await;
    Ok(Some(apps))
}
