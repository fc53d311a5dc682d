//! Chat apps: the owner's assistant where people already talk (ADR 0028 §1
//! "Chat apps").
//!
//! - [`app`]: the seam. One trait ([`ChatApp`]) says what Conch needs from
//!   any chat app: the next updates, say something (with buttons), change
//!   what it said, answer a button. Telegram is one file ([`telegram`]);
//!   Discord and Slack would be one file each.
//! - [`access`]: who is writing, decided once and purely: the owner (linked
//!   with a one-time code), someone the owner allowed, or a stranger, who
//!   is refused with a sentence. In a group only messages that mention the
//!   bot are read.
//! - [`state`]: `bridges.json` (who is linked and allowed, where polling
//!   got to, which app chat is which Conch chat); the token is in the
//!   sealed `secrets.json`.
//! - [`relay`]: the loop that joins an app to the chats: messages in,
//!   replies out, and the owner's questions as buttons in the owner's own
//!   chat (a [`conversations::notify::Channel`], in [`questions`]); updates
//!   the app pushes (a webhook) go the same way (`push`), and everything
//!   said goes through [`send`] (the app's waits, long texts in pieces).
//!
//! What it doesn't do: decide whether anything may run. Someone else's
//! words mark the chat and the guard asks; the relay only carries the
//! question to the owner and the owner's button back. A person's "yes" is
//! a message like any other, never an answer.

pub mod access;
pub mod app;
mod masked;
mod push;
pub mod questions;
pub mod relay;
pub mod send;
pub mod setup;
pub mod state;
pub mod telegram;

pub use app::{AppError, Button, ChatApp, Person, Place, Pressed, Said, Sent, Update};

pub use relay::{Relay, Waits};
pub use state::{BridgeState, StateError, StateFile};
