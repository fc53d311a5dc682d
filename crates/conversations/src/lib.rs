//! Chats: the log store, the turn loop, and the registry of open chats.

pub mod home;
pub mod ids;
pub mod log;
pub mod private_file;

pub use home::{Home, HomeError};
pub use log::{ChatLog, Committed, Durability, Live, LogError, OpenReport};
