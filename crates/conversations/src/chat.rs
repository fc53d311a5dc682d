//! One open chat, as everyone outside sees it: what the owner (or a script,
//! or a chat app) does to it, and the runner that takes turns for its
//! messages. Its state is its [`Core`], which turns are given.
//!
//! Messages are never refused because a turn is running: each is written to
//! the log at once (so its place in the chat is fixed and it is safe on disk),
//! and the runner starts another turn for whatever arrived during the last
//! one. One runner per chat, so turns never overlap.

use std::sync::Arc;

use std::time::{Duration, Instant};

use protocol::{
    Answer, Body, ChatArchived, ChatRenamed, EndReason, GrantRevoked, Message, ModelChanged,
    PermissionAnswered, SkillBy, Speaker,
};

use crate::error::ChatError;

pub use crate::error::MAX_MESSAGE_CHARS;

use crate::state::Core;
pub use crate::state::Posted;

/// The longest name a chat takes.
pub const MAX_TITLE_CHARS: usize = 200;

/// One open chat. Its state ([`Core`]) is what a turn is given; reading a
/// chat's fields reads its core's.
pub struct Chat {
    core: Arc<Core>,
}

impl std::ops::Deref for Chat {
    type Target = Core;
    fn deref(&self) -> &Core {
        &self.core
    }
}

impl Chat {
    pub(crate) fn wrap(core: Arc<Core>) -> Chat {
        Chat { core }
    }

    /// The state a turn is given.
    pub(crate) fn core(&self) -> &Arc<Core> {
        &self.core
    }

    /// A person stops holding the chat to a skill's list. Never while a turn
    /// runs: the skill may be steering it right now.
    pub async fn stop_holding(&self, skill: &str) -> Result<(), ChatError> {
        // Just after a turn ends, the runner looks for queued messages before
        // it lets go: give it a moment, so a press right after a turn isn't
        // refused for a turn that is over. A turn that starts meanwhile is.
        let settle = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while self.is_running()
            && self.log.with_view(|v| v.open_turn.is_none())
            && std::time::Instant::now() < settle
        {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        let _one_at_a_time = self.live.decisions.lock().await;
        if self.is_running() || self.log.with_view(|v| v.open_turn.is_some()) {
            return Err(ChatError::TurnRunning);
        }
        if self
            .log
            .with_view(|v| !v.holds.iter().any(|h| h.skill == skill))
        {
            return Err(ChatError::NotHeld(skill.chars().take(80).collect()));
        }
        self.log
            .append(Body::SkillHoldEnded(protocol::SkillHoldEnded {
                skill: skill.to_owned(),
                reason: "you".to_owned(),
            }))
            .await?;
        Ok(())
    }

    /// The owner writes; a turn runs for it. A message that starts with
    /// `/name` of a skill that is on brings the skill's instructions in
    /// (`skill.used`, typed); one that is off is refused with why, and
    /// nothing is written.
    pub async fn post(self: &Arc<Self>, text: &str) -> Result<Posted, ChatError> {
        self.post_replacing(text, None).await
    }

    /// The owner writes, in place of an earlier message of theirs
    /// (`replaces`: Edit and resend, Retry); the earlier one stays in the log.
    pub(crate) async fn post_replacing(
        self: &Arc<Self>,
        text: &str,
        replaces: Option<u64>,
    ) -> Result<Posted, ChatError> {
        let typed = self.typed_skill(text)?;
        let posted = self
            .post_quietly(Speaker::Owner, text, None, None, replaces)
            .await?;
        if let Some(skill) = typed {
            self.log
                .append(Body::SkillUsed(crate::skill_use::used(
                    &skill,
                    SkillBy::Typed,
                )))
                .await?;
        }
        self.kick();
        Ok(posted)
    }

    fn typed_skill(&self, text: &str) -> Result<Option<skills::Skill>, ChatError> {
        let (Some(catalog), Some(rest)) =
            (&self.shared.skills, text.trim_start().strip_prefix('/'))
        else {
            return Ok(None);
        };
        let name = rest.split_whitespace().next().unwrap_or("");
        if name.is_empty() || name.contains('/') {
            return Ok(None);
        }
        match catalog.usable(name) {
            Ok(skill) => Ok(Some(skill)),
            Err(skills::SkillError::NotFound(_)) => Ok(None),
            Err(e) => Err(ChatError::Skill(e.to_string())),
        }
    }

    pub async fn post_as(
        self: &Arc<Self>,
        from: Speaker,
        text: &str,
        name: Option<String>,
        app: Option<String>,
    ) -> Result<Posted, ChatError> {
        let posted = self.post_quietly(from, text, name, app, None).await?;
        self.kick();
        Ok(posted)
    }

    /// Writes the message (and a person's mark) without starting a turn.
    async fn post_quietly(
        self: &Arc<Self>,
        from: Speaker,
        text: &str,
        name: Option<String>,
        app: Option<String>,
        replaces: Option<u64>,
    ) -> Result<Posted, ChatError> {
        if text.trim().is_empty() {
            return Err(ChatError::EmptyMessage);
        }
        if self.shared.halt.get().is_some() {
            return Err(ChatError::Halted);
        }
        let chars = text.chars().count();
        if chars > MAX_MESSAGE_CHARS {
            return Err(ChatError::MessageTooLong { chars });
        }
        let queued = self.is_running();
        let who = match (&name, &app) {
            (Some(n), Some(a)) => format!("{n} on {a}"),
            (Some(n), None) => n.clone(),
            _ => "Someone".to_owned(),
        };
        let event = self
            .log
            .append(Body::Message(Message {
                from,
                text: text.to_owned(),
                name,
                app,
                replaces,
            }))
            .await?;
        // Someone else's words are something from outside.
        if from == Speaker::Person {
            self.mark(protocol::MarkSource::Person, who, None).await?;
        }
        Ok(Posted { event, queued })
    }

    /// Starts the runner unless it is already going. The runner checks for
    /// waiting messages under the same lock before it stops, and the log's
    /// view is updated before an append is acknowledged, so a message is
    /// either seen by the running runner or starts a new one.
    fn kick(self: &Arc<Self>) {
        let mut running = self.live.running.lock().unwrap_or_else(|p| p.into_inner());
        if *running {
            return;
        }
        *running = true;
        let chat = self.clone();
        tokio::spawn(async move { chat.drive().await });
    }

    /// Asks the calls of questions a restart ended again, in a turn of
    /// their own (see `turn::ask_again`), then goes on as usual.
    pub(crate) fn ask_again(self: &Arc<Self>, calls: Vec<crate::ToolCall>) {
        // Opened outside a running Conch (a terminal command): nobody to ask.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        {
            let mut running = self.live.running.lock().unwrap_or_else(|p| p.into_inner());
            if *running {
                return;
            }
            *running = true;
        }
        let chat = self.clone();
        runtime.spawn(async move {
            if let Err(e) = crate::turn::ask_again(chat.core(), calls).await {
                crate::warn(&format!(
                    "Chat {}: a question couldn't be asked again: {e}",
                    chat.id
                ));
            }
            chat.drive().await;
        });
    }

    async fn drive(self: Arc<Self>) {
        loop {
            {
                let mut running = self.live.running.lock().unwrap_or_else(|p| p.into_inner());
                if !self.log.with_view(|v| v.waiting_for_turn()) {
                    *running = false;
                    return;
                }
            }
            if let Err(e) = crate::turn::run(self.core()).await {
                crate::warn(&format!(
                    "Chat {}: a turn couldn't be written: {e}",
                    self.id
                ));
                *self.live.running.lock().unwrap_or_else(|p| p.into_inner()) = false;
                return;
            }
        }
    }
    /// The owner (or a script's key) answers a waiting question.
    pub async fn answer(&self, ask: &str, answer: Answer, by: String) -> Result<(), ChatError> {
        self.answer_with(ask, answer, false, by).await
    }

    /// The same, saying whether an `always` is the narrower choice (the
    /// question's `narrow`: this command's program only) rather than the
    /// tool's. A narrower answer to a question that didn't offer one counts
    /// as once, as an `always` to one that offered none does.
    pub async fn answer_with(
        &self,
        ask: &str,
        answer: Answer,
        narrow: bool,
        by: String,
    ) -> Result<(), ChatError> {
        let _one_at_a_time = self.live.decisions.lock().await;
        if self.log.with_view(|v| v.pending_ask(ask).is_none()) {
            return Err(ChatError::NotWaiting(ask.chars().take(40).collect()));
        }
        self.log
            .append(Body::PermissionAnswered(PermissionAnswered {
                ask: ask.to_owned(),
                answer,
                by,
                narrow: narrow && answer == Answer::Always,
            }))
            .await?;
        self.live.waiters.wake(ask, answer);
        Ok(())
    }

    /// Changes the chat's mode. It holds from the next decision; each call
    /// waiting on a question reads the chat again through its approval, and
    /// one the new mode allows is answered by the mode
    /// ([`Chat::answer_by_mode`]).
    pub async fn set_mode(&self, mode: protocol::Mode) -> Result<(), ChatError> {
        let _one_at_a_time = self.live.decisions.lock().await;
        self.log
            .append(Body::ModeChanged(protocol::ModeChanged { mode }))
            .await?;
        // An engine running its own turn (Claude Code) switches too.
        if let Some(native) = self.shared.engine.native() {
            native.set_mode(&self.id, mode);
        }
        self.live.waiters.mode_changed();
        Ok(())
    }
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
    /// Undoes a turn's changes to files, or an earlier undo (see `undo`).
    /// Not while a turn is open.
    pub async fn undo(
        &self,
        target: crate::undo::Target,
        by: &str,
    ) -> Result<protocol::FilesRestored, ChatError> {
        // A turn that is open could be changing the same files; one that
        // has ended can be undone at once, even while the chat's runner
        // is still looking for the next message.
        if self.log.with_view(|v| v.open_turn.is_some()) {
            return Err(ChatError::Working);
        }
        let log = self.log.clone();
        let by = by.to_owned();
        tokio::task::spawn_blocking(move || crate::undo::undo(&log, target, &by))
            .await
            .map_err(|_| ChatError::Log(crate::log::LogError::Closed))?
            .map_err(|e| match e {
                crate::undo::UndoError::Log(e) => ChatError::Log(e),
                e => ChatError::Undo(e),
            })
    }

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
