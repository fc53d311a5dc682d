//! Sealed commands: every command the assistant runs goes into a bubblewrap
//! box where it can write only to the work folder, temp and the caches
//! installs and builds use; can't change what runs later by itself (start-up
//! files, autostart, bin folders, what builds obey); can't read Conch's own
//! folder or any place where keys live (the guard's one list, so the box
//! hides exactly what the file tools refuse); gets only ordinary variables,
//! never one that looks like a secret; can't open a unix socket (the owner's
//! ssh-agent, the D-Bus session bus and through it the keyring,
//! docker.sock); can't see the owner's processes or type into their
//! terminal; and shares the network, which it watches: the hosts a command
//! reached are reported, however the command was spelled.
//!
//! The argument vector is built here, never a shell string. What it does not
//! do (known limits, also in docs/seal.md): a hard link to a key placed in the
//! work folder beforehand is readable (masks are by path); a folder created on
//! the host after the command started isn't masked; the network is open, so
//! what a command can read it can send (the guard asks before commands in a
//! chat that read something).

pub mod env;
mod journal;
pub mod later;
mod line;
pub mod masks;
pub mod observe;
pub mod places;
mod profile;
mod run;
mod seccomp;
mod support;

pub use line::{fix_line, seal_command, PackageManager};
pub use masks::{Mask, Masks, Mount};
pub use observe::Network;
pub use profile::{Profile, SealError, CONCH_FOLDER};
pub use run::{seal_folder, Pending, Sealed, SealedCommand, Started};
pub use seccomp::filter_bytes;
pub use support::{
    classify_probe_error, probe, remembered, sandbox_support, Probed, Support, SupportProblem,
};

/// The system's bubblewrap: never one found first on PATH.
pub const BWRAP: &str = "/usr/bin/bwrap";
