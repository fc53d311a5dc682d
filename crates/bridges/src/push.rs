//! Updates the app pushes to Conch (a webhook) instead of being asked for:
//! the secret checked before anything is read, then each handled in order,
//! once.

use crate::app::AppError;
use crate::relay::Relay;
use crate::send::patiently;

impl Relay {
    /// Has the app push updates to `url` (Conch's `/hooks/{app}` at the
    /// owner's public address), each carrying `secret`; then the gateway
    /// hands them to [`Relay::pushed`] and nothing polls.
    pub async fn push_to(&self, url: &str, secret: &str) -> Result<(), AppError> {
        let _ = self.push_secret.set(secret.to_owned());
        patiently(self.waits, || self.app.push_to(Some(url), secret)).await
    }

    /// One pushed request: the HTTP status to answer. A request without
    /// the secret is 401 and read no further; an update handled before (the
    /// app sends again what wasn't answered in time) is 200 and not handled
    /// twice; one the app couldn't be asked about is 503, so it sends it
    /// again.
    pub async fn pushed(&self, secret: Option<&str>, body: &[u8]) -> u16 {
        let Some(want) = self.push_secret.get() else {
            return 404;
        };
        if !secret.is_some_and(|s| crate::access::same(s, want)) {
            return 401;
        }
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
            return 400;
        };
        let (c, update) = match self.app.read_pushed(&value).await {
            Ok(Some(u)) => u,
            Ok(None) => return 200,
            Err(e) => {
                self.say_once(&e.to_string());
                return 503;
            }
        };
        let name = self.app.name();
        let mut cursor = self.pushed_cursor.lock().await;
        let done = match *cursor {
            Some(done) => done,
            None => self.state.get(name).ok().and_then(|s| s.cursor),
        };
        if done.is_some_and(|d| c <= d) {
            *cursor = Some(done);
            return 200;
        }
        self.handle(update).await;
        *cursor = Some(Some(c));
        if let Err(e) = self.state.update(name, |s| s.cursor = Some(c)) {
            self.say_once(&e.to_string());
        }
        200
    }
}
