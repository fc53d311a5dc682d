//! Things made beside the chat (ADR 0034): six kinds, content checks, the
//! versioned store, diffs, the navigation check and the frame's headers.
//!
//! The checks are pure; the store is the one part that touches disk.

mod chart;
pub mod check;
pub mod diff;
mod entities;
pub mod frame;
mod js;
mod kind;
pub mod navigation;
pub mod store;

pub use chart::{check_chart, ChartSpec, ChartType, Series};
pub use check::{check_content, check_title, MAX_CHARS};
pub use kind::{Kind, KINDS};
pub use navigation::{navigation, Finding};
pub use store::{Artifact, Store, StoreError, Version};
