//! Refresh for a pinned app (ADR 0034 §4): a chat of its own (origin
//! `artifact`, kept out of the chat list) that can read the web and call
//! `artifact_update` on that one artifact, and nothing else, under the
//! guard like any chat: a read that would send something asks the owner.

use artifacts::Artifact;

/// The tools a Refresh chat may use besides `artifact_update`: reading the
/// web for fresh data.
pub const REFRESH_READS: &[&str] = &["web_fetch", "web_search"];

/// The task the refresh chat is given.
pub fn refresh_task(artifact: &Artifact, current: &str) -> String {
    let made_for = artifact
        .request
        .as_deref()
        .map(|r| format!(" It was made for: \"{r}\"."))
        .unwrap_or_default();
    format!(
        "Refresh {} \"{}\" (artifact {}) with fresh data, then call artifact_update with id \"{}\" and its whole new content, of the same kind.{made_for} Its current content:\n\n{current}",
        artifact.kind.words(),
        artifact.title,
        artifact.id,
        artifact.id
    )
}
