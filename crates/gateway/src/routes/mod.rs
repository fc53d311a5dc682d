pub mod chats;
pub mod health;
pub mod keys;
pub mod pages;
pub mod session;
pub mod skills;
pub mod stream;
pub mod turns;
