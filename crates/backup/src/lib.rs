//! Backups, restore, and moving in from other apps.
//!
//! A backup is one file. With a passphrase it is an age file (scrypt): the
//! keys Conch seals under this computer's device key go inside it open,
//! because the device key stays with its computer; the encryption is what
//! protects them. Without a passphrase no key goes in, and the backup says
//! so. Either way it streams: memory stays the same whatever the home's
//! size.
//!
//! What goes in is one rule over paths (`classify`), the same for making
//! and for restoring. A restore is all or nothing: it unpacks beside the
//! target and moves into place only once the backup proved whole.
//!
//! What it does not do: merge two homes (a restore goes into an empty
//! folder, or beside), or keep a backup's keys sealed (they come out open
//! and the next start locks them).

pub mod classify;
mod create;
mod error;
pub mod format;
pub mod import;
mod restore;

pub use create::{create, file_name, path_in, Made, MIN_PASSPHRASE};
pub use error::BackupError;
pub use format::Keys;
pub use restore::{already_there, beside, locked, restore, Locked, Restored};
