//! Chats: the log store, the turn loop, and the registry of open chats.

pub mod activity;
pub mod approval;
pub mod artifact;
pub mod auto_review;
mod broker;
mod chat;
mod chats;
pub mod checkup;
mod error;
mod helper;
pub mod home;
pub mod ids;
pub mod log;
mod native_turn;
pub mod notify;
mod permission;
pub mod private_file;
mod prompt;
pub mod routine;
pub mod safety;
pub mod secrets;
pub mod security;
pub mod settings;
mod skill_use;
mod transcript;
mod turn;

pub use chat::{Chat, Posted, MAX_MESSAGE_CHARS};
pub use chats::{ChatSummary, Chats, ChatsConfig, GuardConfig, NewChat, DEFAULT_MAX_STEPS};
pub use error::ChatError;
pub use home::{Home, HomeError};
pub use log::{ChatLog, Committed, Durability, Live, LogError, OpenReport};
pub use secrets::{Secrets, SecretsError};
pub use settings::{AutoReview, Safety, Settings, SettingsError};
pub use tools::{NoTools, ToolBox, ToolCall};

/// Says something a person running Conch should know, on standard error.
pub fn warn(sentence: &str) {
    eprintln!("conch: warning: {sentence}");
}
