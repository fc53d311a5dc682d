//! Memories in chats (ADR 0028 §3, §4): the `remember`, `forget` and
//! `recall` tools, the standing memories each new chat is given, and what
//! the owner decides about them (keep, change, forget).
//!
//! The list is `memories.json` (the `memory` crate's store). What happens
//! to a memory is a `memory` event in the log of the chat that wrote it,
//! so Activity and "Still waiting" stay folds over the logs: the owner's
//! keep or forget from the Memories page goes into that chat's log too.
//! A memory the owner wrote themselves belongs to no chat and has no rows.

mod context;
mod owner;
mod tool;

pub(crate) use context::give;
pub(crate) use owner::record;
pub use owner::{deliver_offline, Memories, MemoryError};
pub(crate) use tool::{carry, classify, is_memory_tool, run, specs};

/// A memory as the API composes it (camelCase).
pub fn memory_json(m: &memory::Memory) -> serde_json::Value {
    use memory::Source;
    use serde_json::json;
    let source = match &m.source {
        Source::Owner => json!({ "kind": "owner", "says": "you" }),
        Source::Chat {
            chat,
            marked,
            read,
            owner_words,
        } => json!({
            "kind": "chat",
            "chat": chat,
            "marked": marked,
            "read": read,
            "ownerWords": owner_words,
            "says": m.source.words(),
        }),
        Source::Import { from } => {
            json!({ "kind": "import", "from": from, "says": m.source.words() })
        }
    };
    json!({
        "id": m.id,
        "text": m.text,
        "state": m.state,
        "source": source,
        "reasons": m.reasons,
        "created": m.created,
        "updated": m.updated,
    })
}
