//! Conch's own browser (ADR 0028 §1, ADR 0144): Debian's Chromium,
//! headless, driven over the DevTools protocol on its own pipe, with its
//! own profile in Conch's folder. It starts on first use and stops after a
//! few idle minutes; each chat has its own tab.
//!
//! What it gives the rest of Conch: snapshots of pages as text with stable
//! refs (`snapshot`), what each control does (`element`: a password field,
//! a click that sends and where), a redacted page for Auto's reviewer
//! (`redact`), and the tools' operations, each checked again against what
//! was approved just before it acts (`Expect`).
//!
//! What it deliberately does not do: it never uses the owner's own browser
//! or profile, never opens anything but http and https, has no debugging
//! port, and doesn't decide anything: the guard decides, from what this
//! crate reads. A page can still do things by its own script when it is
//! shown (that is the web); the site rule asks before the browser is used
//! on each site of a marked chat. Typing into a field the page's script
//! reads is a send (`listeners`), and every place a page reaches after
//! typing is told (`network`), from Chromium's own network layer.

mod browser;
pub mod element;
mod error;
mod launch;
mod listeners;
mod network;
mod pipe;
pub mod redact;
mod scripts;
pub mod snapshot;
mod tab;
pub mod words;

pub use browser::{profile_folder, Browser, Config, Downloaded, Known, Sent, DEFAULT_IDLE};
pub use element::{Element, Sends};
pub use error::BrowserError;
pub use launch::find as find_chromium;
pub use snapshot::Snapshot;
pub use tab::{identity_of, web_address, Expect, Shown};
