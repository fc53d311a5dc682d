//! What can go wrong, each said as the sentence a person (or the model)
//! reads.

use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrowserError {
    /// No Chromium where Conch looked.
    NotFound(Vec<PathBuf>),
    /// Chromium didn't start.
    Start(String),
    /// The browser went away (it crashed, or stopped after being idle).
    Closed,
    /// Chromium didn't answer in time.
    Timeout(String),
    /// Chromium refused a command.
    Protocol(String),
    /// No page is open in this chat yet.
    NoPage,
    /// Only http and https pages are opened.
    NotWeb(String),
    /// The page couldn't be loaded.
    Load { url: String, why: String },
    /// The element isn't on the page (any more).
    UnknownRef(String),
    /// The element can't be used as asked.
    Unusable { element: String, why: String },
    /// The page changed between the approval and the action.
    Changed(String),
    /// Nothing to go back to.
    NoHistory,
}

impl std::fmt::Display for BrowserError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BrowserError::NotFound(looked) => write!(
                f,
                "Conch's browser needs Chromium, and it isn't installed (looked for {}). Install it (on Debian: apt-get install chromium) or set CONCH_CHROMIUM to its path.",
                looked
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            BrowserError::Start(why) => write!(f, "Conch's browser didn't start: {why}"),
            BrowserError::Closed => f.write_str(
                "Conch's browser closed. Open the page again with browser_open.",
            ),
            BrowserError::Timeout(what) => write!(
                f,
                "Conch's browser didn't answer in time ({what}). Try again, or open the page again."
            ),
            BrowserError::Protocol(why) => write!(f, "Conch's browser couldn't do that: {why}."),
            BrowserError::NoPage => f.write_str(
                "No page is open in this chat's browser yet. Open one with browser_open first.",
            ),
            BrowserError::NotWeb(url) => write!(
                f,
                "The browser only opens http and https pages, not {url}."
            ),
            BrowserError::Load { url, why } => write!(f, "The browser couldn't open {url}: {why}."),
            BrowserError::UnknownRef(r) => write!(
                f,
                "There's no element {r} on the page now. Take a new browser_snapshot and use a ref from it."
            ),
            BrowserError::Unusable { element, why } => write!(f, "Can't use {element}: {why}."),
            BrowserError::Changed(what) => write!(
                f,
                "The page changed just before the action, so nothing was done: {what} Take a new browser_snapshot and try again."
            ),
            BrowserError::NoHistory => f.write_str("There's no earlier page to go back to."),
        }
    }
}

impl std::error::Error for BrowserError {}
