//! What the owner (or a script with an access key) decides about
//! memories: add one in their own words, keep a held one, change one,
//! forget one. Each decision about a memory a chat wrote is recorded in
//! that chat's log, so its Activity row settles and "You kept …" is a row
//! that opens the chat.

use std::sync::Arc;

use memory::{Added, Memory, Source, Store, StoreError};
use protocol::{Body, MemoryAction, MemoryEvent};

use crate::chats::Chats;

#[derive(Debug)]
pub enum MemoryError {
    Store(StoreError),
    /// The work was handed off and didn't come back (a panic or shutdown).
    Interrupted,
}

impl std::fmt::Display for MemoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryError::Store(e) => write!(f, "{e}"),
            MemoryError::Interrupted => {
                f.write_str("Conch's memories couldn't be changed just now. Nothing was changed; try again.")
            }
        }
    }
}

impl std::error::Error for MemoryError {}

impl From<StoreError> for MemoryError {
    fn from(e: StoreError) -> Self {
        MemoryError::Store(e)
    }
}

/// The owner's side of memories, for the API and the command line.
pub struct Memories {
    store: Arc<Store>,
    chats: std::sync::Weak<Chats>,
}

/// Appends `event` to the log of `chat`, opening it if needed. A chat that
/// is gone (or can't be opened) is said, not fatal: the memory itself has
/// already changed.
pub(crate) async fn record(chats: &Arc<Chats>, chat: &str, event: MemoryEvent) {
    let (c, id) = (chats.clone(), chat.to_owned());
    let opened = tokio::task::spawn_blocking(move || c.get(&id)).await;
    match opened {
        Ok(Ok(chat)) => {
            if let Err(e) = chat.log.append(Body::Memory(event)).await {
                crate::warn(&format!(
                    "Chat {}: a memory's change couldn't be written to its log: {e}",
                    chat.id
                ));
            }
        }
        Ok(Err(e)) => crate::warn(&format!(
            "The chat {chat} that wrote memory {} couldn't be opened to note the change ({e}); the memory itself changed.",
            event.memory
        )),
        Err(_) => {}
    }
}

impl Memories {
    pub(crate) fn new(store: Arc<Store>, chats: std::sync::Weak<Chats>) -> Memories {
        Memories { store, chats }
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, MemoryError> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || f(&store))
            .await
            .map_err(|_| MemoryError::Interrupted)?
            .map_err(MemoryError::from)
    }

    /// Every memory, oldest first.
    pub async fn list(&self) -> Result<Vec<Memory>, MemoryError> {
        self.blocking(|s| s.list().map(|l| l.to_vec())).await
    }

    /// A memory in the owner's own words: kept at once.
    pub async fn add(&self, text: &str) -> Result<(Memory, bool), MemoryError> {
        let text = text.to_owned();
        let added = self
            .blocking(move |s| {
                let verdict = memory::check(&text, &Source::Owner, true);
                s.add(&text, Source::Owner, &verdict, None)
            })
            .await?;
        Ok(match added {
            Added::New(m) => (m, true),
            Added::Already(m) => (m, false),
        })
    }

    async fn tell_its_chat(&self, memory: &Memory, action: MemoryAction, by: &str) {
        let (Some(chat), Some(chats)) = (memory.source.chat(), self.chats.upgrade()) else {
            return;
        };
        let event = MemoryEvent {
            memory: memory.id.clone(),
            action,
            text: memory.text.clone(),
            by: by.to_owned(),
            call: None,
            reasons: Vec::new(),
            read: Vec::new(),
        };
        record(&chats, chat, event).await;
    }

    /// Keep a held memory: it is used from the next chat on.
    pub async fn keep(&self, id: &str, by: &str) -> Result<Memory, MemoryError> {
        let id = id.to_owned();
        let kept = self.blocking(move |s| s.keep(&id)).await?;
        self.tell_its_chat(&kept, MemoryAction::Kept, by).await;
        Ok(kept)
    }

    /// Change a memory's words (kept or held stays as it was).
    pub async fn edit(&self, id: &str, text: &str, by: &str) -> Result<Memory, MemoryError> {
        let (id, text) = (id.to_owned(), text.to_owned());
        let changed = self.blocking(move |s| s.edit(&id, &text)).await?;
        self.tell_its_chat(&changed, MemoryAction::Edited, by).await;
        Ok(changed)
    }

    pub async fn forget(&self, id: &str, by: &str) -> Result<Memory, MemoryError> {
        let id = id.to_owned();
        let gone = self.blocking(move |s| s.forget(&id)).await?;
        self.tell_its_chat(&gone, MemoryAction::Forgot, by).await;
        Ok(gone)
    }
}
