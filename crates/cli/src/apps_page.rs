//! The Apps page's reads and choices (the gateway's `AppsPage`), on the
//! running apps: the same rules as `conch apps policy`.

use std::sync::Arc;

use apps::{catalog, file, Apps, AppsError, Choice};
use gateway::{AppsPage, Refused};
use serde_json::Value;

pub struct Page(pub Arc<Apps>);

fn refused(e: AppsError) -> Refused {
    match e {
        AppsError::NoApp(_) | AppsError::NoTool { .. } => Refused::NotFound(e.to_string()),
        _ => Refused::Invalid(e.to_string()),
    }
}

impl AppsPage for Page {
    fn list(&self) -> Value {
        apps::view::all(&self.0)
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
