//! What the owner does to a chat itself: name it, archive it, pick the
//! model for its next turns, try a failed answer again, edit and resend
//! their last message. Each is an event in the chat's log, so every reader
//! agrees on it and nothing is kept beside the log.

use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::{Body, ChatArchived, ChatRenamed, EndReason, GrantRevoked, ModelChanged};

use crate::chat::{Chat, Posted};
use crate::error::ChatError;

/// The longest name a chat takes.
pub const MAX_TITLE_CHARS: usize = 200;

impl Chat {
    /// Takes back an "always" in force (`key`, as the chat's grants name
    /// it): what it let through asks again from the next call. False when
    /// no such "always" is in force.
    pub async fn revoke_grant(&self, key: &str, by: &str) -> Result<bool, ChatError> {
        let _one_at_a_time = self.live.decisions.lock().await;
        if !self.log.with_view(|v| v.always.contains(key)) {
            return Ok(false);
        }
        self.log
            .append(Body::GrantRevoked(GrantRevoked {
                key: key.to_owned(),
                by: by.to_owned(),
            }))
            .await?;
        Ok(true)
    }

    /// Names the chat. The name is plain text: one line, as typed.
    pub async fn rename(&self, title: &str) -> Result<String, ChatError> {
        let title: String = title
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .filter(|c| !c.is_control())
            .take(MAX_TITLE_CHARS)
            .collect();
        if title.is_empty() {
            return Err(ChatError::EmptyTitle);
        }
        self.log
            .append(Body::ChatRenamed(ChatRenamed {
                title: title.clone(),
            }))
            .await?;
        Ok(title)
    }

    /// Puts the chat away (out of the list), or brings it back.
    pub async fn archive(&self, archived: bool) -> Result<(), ChatError> {
        if self.log.with_view(|v| v.archived) != archived {
            self.log
                .append(Body::ChatArchived(ChatArchived { archived }))
                .await?;
        }
        Ok(())
    }

    /// The provider for the chat's next turns; None goes back to the
    /// default. A turn running now keeps the engine it started with.
    pub async fn pick_model(&self, provider: Option<String>) -> Result<(), ChatError> {
        self.log
            .append(Body::ModelChanged(ModelChanged { provider }))
            .await?;
        Ok(())
    }

    /// Waits a moment for a turn that has just ended to let go (the runner
    /// looks for queued messages before it stops), then says whether the
    /// chat is idle.
    pub async fn idle_soon(&self) -> bool {
        let settle = Instant::now() + Duration::from_secs(1);
        while self.is_running()
            && self.log.with_view(|v| v.open_turn.is_none())
            && Instant::now() < settle
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        !self.is_running() && self.log.with_view(|v| v.open_turn.is_none())
    }

    /// Tries a failed answer again: the owner's last message, sent again in
    /// its own place (`replaces`), so a new turn answers it. The failed
    /// turn stays in the log.
    pub async fn retry(self: &Arc<Self>) -> Result<Posted, ChatError> {
        if !self.idle_soon().await {
            return Err(ChatError::Working);
        }
        let (failed, last) = self.log.with_view(|v| {
            (
                matches!(
                    v.last_end,
                    Some(EndReason::Error | EndReason::Interrupted | EndReason::Stopped)
                ),
                v.last_owner.clone(),
            )
        });
        let Some((seq, text)) = last.filter(|_| failed) else {
            return Err(ChatError::NothingToRetry);
        };
        self.post_replacing(&text, Some(seq)).await
    }

    /// Regenerate: a new answer to the owner's last message, whatever
    /// became of the last one (a good answer too), sent again in its own
    /// place. The old answer stays in the log.
    pub async fn regenerate(self: &Arc<Self>) -> Result<Posted, ChatError> {
        if !self.idle_soon().await {
            return Err(ChatError::Working);
        }
        let (ended, last) = self
            .log
            .with_view(|v| (v.last_end.is_some(), v.last_owner.clone()));
        let Some((seq, text)) = last.filter(|_| ended) else {
            return Err(ChatError::NothingToRegenerate);
        };
        self.post_replacing(&text, Some(seq)).await
    }

    /// Edit and resend: `text` in place of the owner's last message
    /// (`replaces` must be its `seq`). A new turn answers it; the old
    /// message and its answer stay in the log.
    pub async fn edit_and_resend(
        self: &Arc<Self>,
        replaces: u64,
        text: &str,
    ) -> Result<Posted, ChatError> {
        if !self.idle_soon().await {
            return Err(ChatError::Working);
        }
        let last = self.log.with_view(|v| v.last_owner.as_ref().map(|l| l.0));
        if last != Some(replaces) {
            return Err(ChatError::NotLastMessage);
        }
        self.post_replacing(text, Some(replaces)).await
    }
}
