//! Chats: the log store, the turn loop, and the registry of open chats.

pub mod activity;
pub mod artifact;
pub mod auto_review;
mod built_once;
pub mod chat_search;
mod engine_box;
pub use engine_box::EngineBox;
mod broker;
pub mod browsing;
mod carried;
mod chat;
mod chat_tools;
mod chats;
pub mod checkup;
mod error;
pub mod file_stamp;
pub mod halt;
mod helper;
pub mod home;
pub mod ids;
pub mod known_secrets;
pub mod ledger;
pub mod log;
pub mod memories;
pub mod models;
mod native_turn;
pub mod notify;
mod permission;
pub mod private_file;
mod prompt;
pub mod providers;
pub mod repair;
pub mod routine;
pub mod running;
pub mod safety;
pub mod secrets;
pub mod security;
pub mod settings;
mod skill_use;
pub mod spending;
mod state;
mod transcript;
mod turn;
pub mod undo;
mod work_files;

pub use chat::{Chat, Posted, MAX_MESSAGE_CHARS};
pub use chats::{
    ChatSummary, Chats, ChatsConfig, GuardConfig, NewChat, RunAsChat, Trashed, DEFAULT_MAX_STEPS,
    TRASH_DAYS,
};
pub use error::ChatError;
pub use home::{Home, HomeError};
pub use log::{ChatLog, Committed, Durability, Live, LogError, OpenReport};
pub use memories::{Memories, MemoryError};
pub use secrets::{AppSecret, Secrets, SecretsError};
pub use settings::{AutoReview, BackupSchedule, Every, Safety, Settings, SettingsError};
pub use tools::{NoTools, ToolBox, ToolCall};
pub use transcript::MEMORIES_HEADING;

/// Says something a person running Conch should know, on standard error.
pub fn warn(sentence: &str) {
    eprintln!("conch: warning: {sentence}");
}
