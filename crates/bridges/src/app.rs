//! The seam between Conch and a chat app. Its shape is the four things
//! every chat app's bot API can do (read updates, say, edit, answer a
//! button), in the app's own ids kept as strings, so Discord's snowflakes
//! and Slack's channel ids fit as well as Telegram's numbers.

use std::future::Future;
use std::pin::Pin;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Someone who wrote or pressed a button, as the app names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    /// The app's id for them: stable, unlike a handle.
    pub id: String,
    /// The name they show.
    pub name: String,
    /// Their handle (`@eve` on Telegram), without the `@`, when they have one.
    pub handle: Option<String>,
}

/// Where a message was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A chat between the person and the bot.
    Direct,
    /// A group the bot is in.
    Group,
}

/// A message someone wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// The app's id for the chat it was written in.
    pub chat: String,
    pub place: Place,
    pub from: Person,
    pub text: String,
    /// It names the bot (a mention, a command to it, or a reply to it).
    pub mentions_bot: bool,
    /// Whose words these are when they aren't the sender's own: a
    /// forwarded message is its first author's ("forwarded from
    /// Mallory"), one sent through a bot is the bot's. Such words never
    /// speak for the owner, whoever sent them on.
    pub origin: Option<String>,
}

/// A button someone pressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pressed {
    /// The app's id for this press, to answer it.
    pub id: String,
    pub from: Person,
    /// What the button carries.
    pub data: String,
    /// The message the button was on.
    pub on: Option<Sent>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    Said(Said),
    Pressed(Pressed),
    /// Something Conch doesn't read (an edit, a photo without words, a
    /// member joining): passed over, but still counted as handled.
    Other,
}

/// A button under a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Button {
    pub text: String,
    pub data: String,
}

/// A message the bot sent, to change it later.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Sent {
    pub chat: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AppError {
    /// Another program is reading this bot's updates.
    Conflict(String),
    /// Too many requests: try again after this many seconds.
    Limited { retry_after: u64 },
    /// The change asked for is no change (the same text and buttons).
    NotModified,
    /// The app refused the request; its description.
    Refused(String),
    /// The app couldn't be reached or answered with something unreadable.
    Unreachable(String),
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppError::Conflict(why) => write!(
                f,
                "Another program is reading this bot's messages ({why}). Stop it, or give Conch a bot of its own."
            ),
            AppError::Limited { retry_after } => {
                write!(f, "The app asked to wait {retry_after} seconds before the next request.")
            }
            AppError::NotModified => write!(f, "The message already says that."),
            AppError::Refused(why) => write!(f, "The app refused: {why}."),
            AppError::Unreachable(why) => write!(f, "The app can't be reached: {why}."),
        }
    }
}

impl std::error::Error for AppError {}

/// What Conch needs from a chat app. Each method is one request; waiting
/// and trying again are the relay's, the same for every app.
pub trait ChatApp: Send + Sync {
    /// The app's name, lowercase (`telegram`): settings, `by` in answers.
    fn name(&self) -> &'static str;

    /// The most characters one message may have.
    fn max_chars(&self) -> usize {
        usize::MAX
    }

    /// Updates after `cursor` (every one up to and including it is
    /// handled), each with its own cursor, waiting a while when there are
    /// none. Asking again after `cursor` tells the app those are done.
    fn updates(&self, cursor: Option<u64>) -> BoxFuture<'_, Result<Vec<(u64, Update)>, AppError>>;

    /// Says `text` in `chat`, with `buttons` in one row under it.
    fn say<'a>(
        &'a self,
        chat: &'a str,
        text: &'a str,
        buttons: &'a [Button],
    ) -> BoxFuture<'a, Result<Sent, AppError>>;

    /// Changes what a message says; its buttons go.
    fn edit<'a>(&'a self, sent: &'a Sent, text: &'a str) -> BoxFuture<'a, Result<(), AppError>>;

    /// Reads one update the app pushed to Conch's address (a webhook):
    /// its cursor and what it is. None: not an update this app sends.
    fn read_pushed(
        &self,
        body: &serde_json::Value,
    ) -> BoxFuture<'_, Result<Option<(u64, Update)>, AppError>> {
        let _ = body;
        Box::pin(async { Ok(None) })
    }

    /// Tells the app to push updates to `url` with `secret` in each
    /// request, or (None) to stop pushing so updates can be read.
    fn push_to<'a>(
        &'a self,
        url: Option<&'a str>,
        secret: &'a str,
    ) -> BoxFuture<'a, Result<(), AppError>> {
        let _ = secret;
        // Nothing to take down; asking for pushes is refused.
        let can = url.is_none();
        Box::pin(async move {
            if can {
                Ok(())
            } else {
                Err(AppError::Refused("this app can't push updates".to_owned()))
            }
        })
    }

    /// Answers a press (the app shows `text` briefly to who pressed).
    fn answer<'a>(&'a self, press: &'a str, text: &'a str) -> BoxFuture<'a, Result<(), AppError>>;
}
