//! Activity across every chat (ADR 0028 §4), read from the chats' own logs.
//!
//! An index in memory: built by reading every log once (the first time it
//! is asked, or in the background when Conch starts), then kept up to date
//! by the append path (each open chat's log tells it of every event as it
//! is committed). Nothing is stored beside the logs, so it can't drift from
//! them: a restart builds it again. Events reach the index at most once: the
//! build remembers each chat's last `seq`, and later events at or below it
//! are dropped.

mod index;

pub use index::{Activity, ActivityPage, Cursor, PageRow, Totals, SECURITY_CHAT};
