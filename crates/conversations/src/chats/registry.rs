//! The registry as a chat sees it ([`Registry`]): what a turn reaches of
//! other chats and of what every chat shares, without naming `Chats`.

use std::sync::Arc;

use protocol::Speaker;

use super::Chats;
use crate::error::ChatError;
use crate::state::{Boxed, Core, NewChat, Posted, Registry};

impl Registry for Chats {
    fn get(&self, id: &str) -> Result<Arc<Core>, ChatError> {
        Chats::get(self, id).map(|c| c.core().clone())
    }

    fn create(&self, new: NewChat) -> Boxed<'_, Result<Arc<Core>, ChatError>> {
        Box::pin(async move { Chats::create(self, new).await.map(|c| c.core().clone()) })
    }

    fn post(
        &self,
        id: String,
        from: Speaker,
        text: String,
    ) -> Boxed<'_, Result<Posted, ChatError>> {
        Box::pin(async move {
            let chat = Chats::get(self, &id)?;
            chat.post_as(from, &text, None, None).await
        })
    }

    fn home(&self) -> &crate::home::Home {
        Chats::home(self)
    }

    fn ledger(&self) -> &Arc<crate::ledger::Ledger> {
        Chats::ledger(self)
    }

    fn models(&self) -> Option<Arc<crate::models::Models>> {
        Chats::models(self).cloned()
    }

    fn browser(&self) -> Option<Arc<browser::Browser>> {
        Chats::browser(self).cloned()
    }

    fn deliver_memories(&self) -> Boxed<'_, ()> {
        Box::pin(async move { self.memories().deliver().await })
    }
}
