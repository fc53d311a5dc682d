use std::path::PathBuf;

use crate::log::LogError;

/// Why a request about a chat can't be done, in a sentence a person can act on.
pub const MAX_MESSAGE_CHARS: usize = 100_000;

#[derive(Debug)]
pub enum ChatError {
    NotFound(String),
    /// The work folder given for a new chat isn't usable.
    Work {
        path: PathBuf,
        why: &'static str,
    },
    /// A folder a chat may never work in (the guard's work-folder rule), in
    /// the guard's sentence.
    WorkRefused(String),
    EmptyMessage,
    MessageTooLong {
        chars: usize,
    },
    /// An answer to a question that isn't waiting.
    NotWaiting(String),
    /// A `/name` for a skill that is off, in a sentence.
    Skill(String),
    /// Stop holding, while a turn runs.
    TurnRunning,
    /// Stop holding a skill the chat isn't held to.
    NotHeld(String),
    /// An artifact that can't be had (no such artifact, or its files).
    Artifact(String),
    /// A name for a chat with nothing in it.
    EmptyTitle,
    /// Something that waits for the running turn (retry, edit, delete).
    Working,
    /// Retry, with no failed turn to try again.
    NothingToRetry,
    /// Regenerate with no answered message of the owner's.
    NothingToRegenerate,
    /// Edit and resend of a message that isn't the owner's last.
    NotLastMessage,
    /// A model pick naming no provider there is.
    UnknownProvider(String),
    /// Moving a deleted chat to the trash failed.
    Trash(String),
    /// Restoring a chat that is in the list already.
    AlreadyHere,
    /// Putting a chat back from the trash failed.
    Restore(String),
    /// Everything is stopped (`stopped.json`): nothing starts until the
    /// owner resumes.
    Halted,
    /// Stop all or Resume couldn't be written down.
    Halt(String),
    /// An undo with nothing to undo, or that couldn't be done.
    Undo(crate::undo::UndoError),
    Log(LogError),
}

impl From<LogError> for ChatError {
    fn from(e: LogError) -> Self {
        ChatError::Log(e)
    }
}

impl std::fmt::Display for ChatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChatError::NotFound(id) => write!(f, "There's no chat with the id \"{id}\"."),
            ChatError::Work { path, why } => {
                write!(f, "The work folder {} {why}. Pick another.", path.display())
            }
            ChatError::WorkRefused(sentence) => f.write_str(sentence),
            ChatError::EmptyMessage => f.write_str("The message is empty. Write something first."),
            ChatError::MessageTooLong { chars } => write!(
                f,
                "The message is too long ({chars} characters; the limit is {}). Shorten it or put it in a file.",
                MAX_MESSAGE_CHARS
            ),
            ChatError::NotWaiting(ask) => write!(
                f,
                "The question \"{ask}\" isn't waiting any more: it was answered, or its turn ended."
            ),
            ChatError::Skill(s) => f.write_str(s),
            ChatError::TurnRunning => f.write_str(
                "A turn is running, and the skill may be steering it right now. Stop the turn or let it end, then stop holding.",
            ),
            ChatError::NotHeld(s) => write!(f, "This chat isn't held to a skill called \"{s}\"."),
            ChatError::Artifact(sentence) => f.write_str(sentence),
            ChatError::EmptyTitle => f.write_str("A chat's name can't be empty. Write one, or keep the one it has."),
            ChatError::Working => f.write_str(
                "This chat is working on an answer. Stop it or let it finish first.",
            ),
            ChatError::NothingToRetry => f.write_str(
                "There's no failed answer to try again: the last one finished, or there is none yet.",
            ),
            ChatError::NothingToRegenerate => f.write_str(
                "There's no answer to make again yet: write a message first, or let this one finish.",
            ),
            ChatError::NotLastMessage => f.write_str(
                "Only your last message can be edited and sent again.",
            ),
            ChatError::UnknownProvider(name) => write!(
                f,
                "There's no model provider called \"{}\". Add it in Settings → Models, or pick one that's there.",
                name.chars().take(40).collect::<String>()
            ),
            ChatError::Trash(why) => write!(f, "The chat couldn't be moved to the trash: {why}. Nothing was deleted."),
            ChatError::AlreadyHere => f.write_str("This chat is in your list already: open it from there."),
            ChatError::Restore(why) => write!(f, "The chat couldn't be put back: {why}. It is still in the trash."),
            ChatError::Halted => f.write_str("Conch is stopped: nothing runs until you press Resume (on the web page, or conch resume in a terminal)."),
            ChatError::Halt(why) => write!(f, "{why}"),
            ChatError::Undo(e) => e.fmt(f),
            ChatError::Log(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ChatError {}
