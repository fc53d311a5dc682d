//! The standing memories a new chat is given: written into its log as
//! `memories.used` when its first turn begins (so the chat reads the same
//! later, whatever changes), shown to the model under their own heading as
//! information, never as instructions (see `transcript`). A memory a
//! marked chat wrote carries that chat's mark into this one.

use std::sync::Arc;

use protocol::{Body, MarkSource, MemoriesUsed, UsedMemory};

use crate::log::LogError;
use crate::state::Core;

/// Gives `chat` the kept memories, once, before its first turn. A pinned
/// app's Refresh chat gets none: it does one thing.
pub(crate) async fn give(chat: &Arc<Core>) -> Result<(), LogError> {
    let (first, others) = chat
        .log
        .with_view(|v| (v.turns == 0, !v.audience().is_empty()));
    // A chat that answers someone else isn't given the owner's memories:
    // what the model knows there, that person can get it to say.
    if !first || chat.refreshes.is_some() || others {
        return Ok(());
    }
    if let Some(chats) = chat.shared.chats.upgrade() {
        chats.deliver_memories().await;
    }
    let store = chat.shared.memories.clone();
    let standing = match tokio::task::spawn_blocking(move || store.standing()).await {
        Ok(Ok(list)) => list,
        Ok(Err(e)) => {
            crate::warn(&format!(
                "Chat {}: its memories couldn't be read: {e}",
                chat.id
            ));
            return Ok(());
        }
        Err(_) => return Ok(()),
    };
    if standing.is_empty() {
        return Ok(());
    }
    let used: Vec<UsedMemory> = standing
        .iter()
        .map(|m| UsedMemory {
            id: m.id.clone(),
            text: m.text.clone(),
            from: m.source.marked_chat().map(|(c, _)| c.to_owned()),
        })
        .collect();
    chat.log
        .append(Body::MemoriesUsed(MemoriesUsed { memories: used }))
        .await?;
    let mut carried: Vec<&str> = Vec::new();
    for m in &standing {
        let Some((from, read)) = m.source.marked_chat() else {
            continue;
        };
        if from == chat.id || carried.contains(&from) {
            continue;
        }
        carried.push(from);
        chat.mark_from(
            MarkSource::Carried,
            format!(
                "a memory from a chat that read {}",
                memory::read_words(read)
            ),
            None,
            Some(from.to_owned()),
        )
        .await?;
    }
    Ok(())
}
