//! The owner's apps: their integrations, as MCP servers, through the
//! official Rust SDK (`rmcp`).
//!
//! - A server is a program Conch starts (stdio: a command, its arguments,
//!   the variables the owner gave it) or an address (streamable HTTP, with
//!   headers). The values of variables and headers are secrets: they are
//!   kept in the sealed secrets.json, and `apps.json` names them only.
//! - Its tools are listed with their annotations. `readOnlyHint: true`
//!   makes a tool read-only for the guard; anything else is a write. The
//!   owner can say a tool writes whatever the server says, never the
//!   reverse.
//! - A tool's description and input schema are the server's words: shown
//!   to the owner, given to models as a tool's description (and labelled
//!   so), never as instructions. What the owner turned on is pinned: a
//!   tool that says something else later is off again until they look.
//! - Each tool's choice: follows the mode, Ask, Read only, Off
//!   ([`standing::Choice`]); the guard reads them as policies.
//!
//! What it deliberately does not do: read a server's `instructions`, let a
//! server sample the owner's model or ask the owner things (elicitation is
//! turned down), or declare more roots than the one work folder a
//! connection serves. Annotations are hints: a server that lies that a
//! tool reads is caught only if the owner says otherwise; its result still
//! marks the chat like any.

pub mod catalog;
pub mod conn;
pub mod file;
mod http;
pub mod listed;
pub mod name;
pub mod output;
mod registry;
pub mod spawn;
pub mod standing;
mod toolbox;
pub mod view;

pub use catalog::AppsError;
pub use conn::Secrets;
pub use file::{AppsFile, Reach};
pub use registry::{Apps, AppsConfig, Found, SecretsFor, Status};
pub use spawn::Launch;
pub use standing::{Choice, Standing};
pub use toolbox::WithApps;
