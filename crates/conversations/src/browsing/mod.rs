//! Conch's browser in a chat (ADR 0028 §1, ADR 0144): the `browser_*`
//! tools, classified against the chat's page (`classify`), run once the
//! approval path lets them (`run`), downloads, which land in the chat's
//! work folder and mark it (`downloads`), and the places a page reached
//! after typing, which mark it too (`sent`).
//!
//! One browser serves every chat (each has its own tab); `conch serve`
//! gives it to the chats with [`crate::Chats::use_browser`]. Without one,
//! the tools aren't offered.

mod classify;
mod downloads;
mod run;
mod sent;

use std::sync::Arc;

use browser::Browser;

use crate::state::Core;

pub(crate) use classify::{is_browser_tool, specs};
pub use classify::{BACK, CLICK, OPEN, SCREENSHOT, SNAPSHOT, TYPE};
pub(crate) use downloads::watch as watch_downloads;
pub(crate) use run::run;
pub(crate) use sent::watch as watch_sent;

/// The browser `chat` uses, if Conch has one.
pub(crate) fn browser_of(chat: &Core) -> Option<Arc<Browser>> {
    chat.shared.chats.upgrade().and_then(|c| c.browser())
}

/// What `call` does in `chat`, read against its page now.
pub(crate) fn classify(chat: &Core, call: &tools::ToolCall) -> Result<protocol::Action, String> {
    let known = browser_of(chat).and_then(|b| b.known(&chat.id));
    classify::classify(known.as_ref(), &call.name, &call.input)
}

/// The page of `chat` as it is now, for Auto's reviewer (which sees its
/// redacted text), without changing anything.
pub(crate) async fn look(chat: &Core) -> Result<browser::Snapshot, String> {
    let browser = browser_of(chat).ok_or("Conch's browser isn't set up here.")?;
    browser.look(&chat.id).await.map_err(|e| e.to_string())
}
