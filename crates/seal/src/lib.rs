//! Sealed commands: every command the assistant runs goes into a bubblewrap
//! box where it can write only to the work folder, temp and the caches
//! installs and builds use; can't read where keys live or Conch's own folder;
//! can't open a unix socket (the owner's ssh-agent, the D-Bus session bus and
//! through it the keyring, docker.sock); can't see the owner's processes or
//! type into their terminal; and shares the network.
//!
//! The argument vector is built here, never a shell string. What it does not
//! do (known limits, also in docs/seal.md): a hard link to a key placed in the
//! work folder beforehand is readable (masks are by path); a folder created on
//! the host after the command started isn't masked; the network is open, so
//! what a command can read it can send (the guard asks before commands in a
//! chat that read something).

mod env;
mod line;
mod masks;
mod profile;
mod run;
mod seccomp;
mod support;

pub use line::{fix_line, seal_command, PackageManager};
pub use masks::Masks;
pub use profile::{Profile, SealError};
pub use run::{Sealed, SealedCommand};
pub use seccomp::filter_bytes;
pub use support::{classify_probe_error, sandbox_support, Support, SupportProblem};

/// The system's bubblewrap: never one found first on PATH.
pub const BWRAP: &str = "/usr/bin/bwrap";
