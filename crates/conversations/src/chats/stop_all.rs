//! Stop everything and Resume (see `halt`), on the registry: every open
//! chat's turn ends, and the file keeps it across a restart.

use std::sync::Arc;
use std::time::Duration;

use super::Chats;
use crate::error::ChatError;
use crate::halt::Stopped;

/// How often a running Conch looks for `conch stop` or `conch resume`
/// written in a terminal.
const FOLLOW_EVERY: Duration = Duration::from_millis(200);

impl Chats {
    /// When and by whom everything was stopped; None while Conch may act.
    pub fn stopped(&self) -> Option<Stopped> {
        self.halt.get()
    }

    /// Stops everything: nothing starts from now on, and every running
    /// turn ends (its engine, command, browser action and questions). The
    /// number of turns it ended.
    pub fn stop_all(&self, by: &str) -> Result<usize, ChatError> {
        let written = crate::halt::write(self.home.root(), by);
        let stopped = match &written {
            Ok(s) => s.clone(),
            Err(_) => Stopped {
                kind: "conch.stopped".into(),
                at: protocol::format_rfc3339(std::time::SystemTime::now()),
                by: by.to_owned(),
            },
        };
        // Held in memory first: a turn that ends now can't start another.
        self.halt.set(stopped);
        let ended = self.end_every_turn();
        match written {
            Ok(_) => Ok(ended),
            Err(e) => Err(ChatError::Halt(format!(
                "Everything was stopped ({ended} running), but it couldn't be written down ({e}): after a restart Conch would act again. Press Stop all again once the disk is fixed."
            ))),
        }
    }

    fn end_every_turn(&self) -> usize {
        let open: Vec<Arc<crate::chat::Chat>> = self.lock_open().values().cloned().collect();
        open.iter().filter(|c| c.stop()).count()
    }

    /// Lets Conch act again.
    pub fn resume(&self) -> Result<(), ChatError> {
        crate::halt::remove(self.home.root()).map_err(|e| {
            ChatError::Halt(format!(
                "Conch couldn't be resumed: stopped.json couldn't be removed ({e})."
            ))
        })?;
        self.halt.clear();
        Ok(())
    }

    /// Follows `conch stop` and `conch resume` typed in a terminal while
    /// this Conch runs: the file is looked at five times a second.
    pub fn follow_halt(self: &Arc<Self>) {
        let me = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(FOLLOW_EVERY).await;
                let Some(chats) = me.upgrade() else { return };
                let on_disk = chats.halt.on_disk();
                match (on_disk, chats.halt.get()) {
                    (Some(stopped), None) => {
                        chats.halt.set(stopped);
                        chats.end_every_turn();
                    }
                    (None, Some(_)) => chats.halt.clear(),
                    _ => {}
                }
            }
        });
    }
}
