use crate::body::Body;

/// One line of a chat's log.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Dense from 1 within a chat.
    pub seq: u64,
    /// Unique across chats.
    pub id: String,
    /// When it was written, RFC 3339 in UTC with milliseconds.
    pub at: String,
    pub body: Body,
}
