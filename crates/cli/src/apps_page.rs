//! The Apps page's reads and choices (the gateway's `AppsPage`), on the
//! running apps: the same rules as `conch apps policy`.

use std::sync::Arc;

use apps::file::Reach;
use apps::{catalog, file, Apps, AppsError, Choice};
use conversations::AppSecret;
use gateway::{AppsPage, NewConnection, Refused};
use serde_json::Value;

pub struct Page(pub Arc<Apps>);

fn refused(e: AppsError) -> Refused {
    match e {
        AppsError::NoApp(_) | AppsError::NoTool { .. } => Refused::NotFound(e.to_string()),
        _ => Refused::Invalid(e.to_string()),
    }
}

/// A secret's name as a program's environment or a request's header can
/// carry it.
fn secret_name(name: &str, header: bool) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || (header && c.is_ascii_digit()));
    first_ok
        && name.len() <= 128
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || (header && c == '-'))
}

impl AppsPage for Page {
    fn list(&self) -> Value {
        apps::view::all(&self.0)
    }

    fn one(&self, app: &str) -> Option<Value> {
        let f = file::load(self.0.home()).ok()?;
        let s = f.servers.get(app)?;
        let status = self.0.statuses().remove(app);
        Some(apps::view::server(app, s, status.as_ref()))
    }

    fn add(&self, new: &NewConnection) -> Result<(), Refused> {
        let name = new.name.trim();
        let header = new.url.is_some();
        if let Some(bad) = new.secrets.keys().find(|k| !secret_name(k, header)) {
            let what = if header {
                "a header's name"
            } else {
                "a variable's name"
            };
            return Err(Refused::Invalid(format!(
                "\"{}\" isn't {what}: use letters, digits and _{}.",
                bad.chars().take(64).collect::<String>(),
                if header { " or -" } else { "" }
            )));
        }
        let mut secret = AppSecret::default();
        let reach = match (&new.url, new.command.as_deref().map(str::trim)) {
            (Some(url), None | Some("")) => {
                secret.headers = new.secrets.clone().into_iter().collect();
                Reach::Http {
                    url: url.trim().to_owned(),
                    headers: new.secrets.keys().cloned().collect(),
                }
            }
            (None, Some(command)) if !command.is_empty() => {
                secret.env = new.secrets.clone().into_iter().collect();
                Reach::Stdio {
                    command: command.to_owned(),
                    args: new.args.clone(),
                    env: new.secrets.keys().cloned().collect(),
                }
            }
            _ => {
                return Err(Refused::Invalid(
                    "Say how to reach it: a program and its arguments, or an address.".into(),
                ))
            }
        };
        crate::apps_cmd::save_new(self.0.home(), name, reach, secret)
            .map_err(|e| Refused::Invalid(e.0))
    }

    fn set_on(&self, app: &str, on: bool) -> Result<Value, Refused> {
        let (done, f) = file::update(self.0.home(), |f| catalog::set_on(f, app, on))
            .map_err(|e| Refused::Invalid(e.to_string()))?;
        done.map_err(refused)?;
        let status = self.0.statuses().remove(app);
        Ok(f.servers
            .get(app)
            .map(|s| apps::view::server(app, s, status.as_ref()))
            .unwrap_or(Value::Null))
    }

    fn choose(
        &self,
        app: &str,
        tool: &str,
        choice: &str,
        writes: Option<bool>,
    ) -> Result<Value, Refused> {
        let Some(choice) = Choice::parse(choice) else {
            return Err(Refused::Invalid(format!(
                "\"{choice}\" isn't a choice: say follow, ask, read-only or off."
            )));
        };
        let at = protocol::format_rfc3339(std::time::SystemTime::now());
        // Both changes or neither.
        let (done, f) = file::update(self.0.home(), |f| {
            let mut next = f.clone();
            catalog::choose(&mut next, app, tool, choice, &at)?;
            if let Some(w) = writes {
                catalog::treat_as_write(&mut next, app, tool, w)?;
            }
            *f = next;
            Ok::<_, AppsError>(())
        })
        .map_err(|e| Refused::Invalid(e.to_string()))?;
        done.map_err(refused)?;
        let status = self.0.statuses().remove(app);
        Ok(f.servers
            .get(app)
            .map(|s| apps::view::server(app, s, status.as_ref()))
            .unwrap_or(Value::Null))
    }
}
