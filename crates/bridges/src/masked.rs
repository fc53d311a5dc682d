//! Every text a chat app is handed goes through the secrets Conch holds
//! first (see `conversations::known_secrets`): what the relay says comes
//! from the chat's log, where they are already taken out, and this is the
//! last place one could still leave (a question's words, a notice, an
//! error from the app).

use std::sync::Arc;

use conversations::known_secrets::KnownSecrets;

use crate::app::{AppError, BoxFuture, Button, ChatApp, Sent, Update};

pub(crate) struct Masked {
    pub(crate) app: Arc<dyn ChatApp>,
    pub(crate) secrets: Arc<KnownSecrets>,
}

impl ChatApp for Masked {
    fn name(&self) -> &'static str {
        self.app.name()
    }

    fn max_chars(&self) -> usize {
        self.app.max_chars()
    }

    fn updates(&self, cursor: Option<u64>) -> BoxFuture<'_, Result<Vec<(u64, Update)>, AppError>> {
        self.app.updates(cursor)
    }

    fn say<'a>(
        &'a self,
        chat: &'a str,
        text: &'a str,
        buttons: &'a [Button],
    ) -> BoxFuture<'a, Result<Sent, AppError>> {
        let text = self.secrets.mask(text);
        Box::pin(async move { self.app.say(chat, &text, buttons).await })
    }

    fn edit<'a>(&'a self, sent: &'a Sent, text: &'a str) -> BoxFuture<'a, Result<(), AppError>> {
        let text = self.secrets.mask(text);
        Box::pin(async move { self.app.edit(sent, &text).await })
    }

    fn read_pushed(
        &self,
        body: &serde_json::Value,
    ) -> BoxFuture<'_, Result<Option<(u64, Update)>, AppError>> {
        self.app.read_pushed(body)
    }

    fn push_to<'a>(
        &'a self,
        url: Option<&'a str>,
        secret: &'a str,
    ) -> BoxFuture<'a, Result<(), AppError>> {
        self.app.push_to(url, secret)
    }

    fn answer<'a>(&'a self, press: &'a str, text: &'a str) -> BoxFuture<'a, Result<(), AppError>> {
        let text = self.secrets.mask(text);
        Box::pin(async move { self.app.answer(press, &text).await })
    }
}
