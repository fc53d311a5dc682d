//! What the owner (or a script with an access key) decides about
//! memories: add one in their own words, keep a held one, change one,
//! forget one. Each decision about a memory a chat wrote is recorded in
//! that chat's log, so its Activity row settles and "You kept …" is a row
//! that opens the chat.

use std::sync::Arc;

use memory::{Added, Memory, Source, Store, StoreError};
use protocol::{Body, MemoryAction, MemoryEvent};

use crate::state::Registry;

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
            MemoryError::Interrupted => f.write_str(
                "Conch's memories couldn't be changed just now. Nothing was changed; try again.",
            ),
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
    chats: std::sync::Weak<dyn Registry>,
}

/// Appends `event` to the log of `chat`, opening it if needed; whether it
/// got there. A chat that is gone (or can't be opened) is said, not fatal:
/// the memory itself has already changed.
pub(crate) async fn record(chats: &Arc<dyn Registry>, chat: &str, event: MemoryEvent) -> bool {
    let (c, id) = (chats.clone(), chat.to_owned());
    let opened = tokio::task::spawn_blocking(move || c.get(&id)).await;
    match opened {
        Ok(Ok(chat)) => match chat.log.append(Body::Memory(event)).await {
            Ok(_) => true,
            Err(e) => {
                crate::warn(&format!(
                    "Chat {}: a memory's change couldn't be written to its log: {e}",
                    chat.id
                ));
                false
            }
        },
        Ok(Err(crate::ChatError::NotFound(_))) => true,
        Ok(Err(e)) => {
            crate::warn(&format!(
                "The chat {chat} that wrote memory {} couldn't be opened to note the change ({e}); the memory itself changed.",
                event.memory
            ));
            false
        }
        Err(_) => false,
    }
}

/// Writes what `conch memories` decided while Conch wasn't running into
/// each chat's log, opening the logs directly (no running Conch may have
/// them open). What can't be written yet stays for next time; the
/// sentences say why.
pub fn deliver_offline(home: &crate::Home, store: &Store) -> Vec<String> {
    let mut said = Vec::new();
    let waiting = match store.undelivered() {
        Ok(w) => w,
        Err(e) => return vec![e.to_string()],
    };
    let mut done = Vec::new();
    for u in waiting {
        let dir = home.chat_dir(&u.chat);
        if !crate::ids::is_valid_id(&u.chat) || !dir.join(crate::log::LOG_FILE).is_file() {
            done.push(u);
            continue;
        }
        match crate::log::ChatLog::open(&dir, crate::Durability::EachEvent) {
            Ok((log, _)) => match log.append_blocking(Body::Memory(u.event.clone())) {
                Ok(_) => done.push(u),
                Err(e) => said.push(e.to_string()),
            },
            Err(crate::LogError::Busy(_)) => said.push(format!(
                "Conch is running with chat {} open, so it will note this in that chat itself the next time it reads its memories.",
                u.chat
            )),
            Err(e) => said.push(e.to_string()),
        }
    }
    if let Err(e) = store.delivered(&done) {
        said.push(e.to_string());
    }
    said
}

impl Memories {
    pub(crate) fn new(store: Arc<Store>, chats: std::sync::Weak<dyn Registry>) -> Memories {
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
        self.deliver().await;
        self.blocking(|s| s.list().map(|l| l.to_vec())).await
    }

    /// Writes decisions made at the terminal while this Conch had their
    /// chats open into those chats' logs.
    pub async fn deliver(&self) {
        let Some(chats) = self.chats.upgrade() else {
            return;
        };
        let Ok(waiting) = self.blocking(|s| s.undelivered()).await else {
            return;
        };
        let mut done = Vec::new();
        for u in waiting {
            if record(&chats, &u.chat, u.event.clone()).await {
                done.push(u);
            }
        }
        if !done.is_empty() {
            let _ = self.blocking(move |s| s.delivered(&done)).await;
        }
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
