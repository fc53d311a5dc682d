//! Artifacts in a chat (ADR 0034 §1): the `artifact_create` and
//! `artifact_update` tools, fenced ```artifact blocks from providers
//! without tools, and Refresh for a pinned app.

mod fenced;
mod refresh;
mod tool;

pub use fenced::take_blocks;
pub use refresh::{refresh_allows, refresh_task, REFRESH_READS};
pub use tool::{classify, is_artifact_tool, run, specs, update_spec, CREATE, UPDATE};
