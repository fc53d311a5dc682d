//! Each run of a routine as its own chat, origin `routine`, nobody there:
//! what the scheduler is given.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};

use protocol::{MarkSource, Origin, Speaker};
use routines::Routine;

use super::{Chats, NewChat};
use crate::chat::Chat;

impl Chats {
    /// One run of a routine: a new chat (origin `routine`, nobody there)
    /// asked the routine's task, in the routine's mode and folder. It
    /// starts with what the chat the routine was made in had read, and
    /// with the words of anyone else who wrote there.
    pub async fn run_routine(&self, routine: &Routine) -> Result<Arc<Chat>, crate::ChatError> {
        // Stopped: the run doesn't start, and no chat is made for it.
        if self.halt.get().is_some() {
            return Err(crate::ChatError::Halted);
        }
        let chat = self
            .create_run(
                NewChat {
                    work: routine.work.clone(),
                    mode: routine.mode,
                    origin: Some(Origin::Routine),
                    ..NewChat::default()
                },
                &routine.id,
            )
            .await?;
        let from = routine
            .made_in
            .as_deref()
            .and_then(|m| m.strip_prefix("chat:"))
            .map(str::to_owned);
        for what in &routine.carries {
            chat.mark_from(
                MarkSource::Carried,
                format!("the chat this routine was made in ({what})"),
                None,
                from.clone(),
            )
            .await?;
        }
        for who in &routine.asked_by {
            chat.mark_from(MarkSource::Person, who.clone(), None, from.clone())
                .await?;
        }
        chat.post_as(
            Speaker::Routine,
            &routine.task,
            Some(routine.name.clone()),
            None,
        )
        .await?;
        Ok(chat)
    }
}

/// Starts routines' runs as chats: what the scheduler is given.
pub struct RunAsChat(pub Weak<Chats>);

impl routines::Runner for RunAsChat {
    fn run(
        &self,
        routine: Routine,
        _due: i64,
    ) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'static>> {
        let chats = self.0.clone();
        Box::pin(async move {
            let chats = chats.upgrade().ok_or("Conch is stopping.")?;
            let chat = chats
                .run_routine(&routine)
                .await
                .map_err(|e| e.to_string())?;
            Ok(chat.id.clone())
        })
    }
}
