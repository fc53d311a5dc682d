//! The box an engine runs in, given by whoever runs the turn (Conch's
//! seal). The engine crate doesn't know bubblewrap: it asks for a program
//! in the box, and for a command sealed beside it.
//!
//! Inside the box the places where keys live and Conch's own folder aren't
//! there, so what the engine's own tools touch (a Grep from `/`, a Read of
//! `$HOME/..`) can't reach them, whatever their input says. The engine's
//! own folder (a chat's HOME, its session) lives inside Conch's, so it is
//! bound in at a neutral path, from which no `..` leads anywhere.
//!
//! The commands the engine runs go in a box of their own beside it (the
//! same box as Conch's own commands), not inside the engine's: there they
//! can't read the engine's environment (the provider's key, the hook's
//! token) through `/proc`, which a child in the engine's own box could.

use std::any::Any;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A process ready to spawn in the box, and what must live as long as it
/// does (dropped when it has ended: the box's mount points are removed).
pub struct Boxed {
    pub command: std::process::Command,
    pub keep: Box<dyn Any + Send>,
}

pub trait Boxing: Send + Sync + std::fmt::Debug {
    /// `program args` in the box for `work`, each of `binds` (a host
    /// folder, the path it gets inside) bound writable. The caller replaces
    /// the command's environment.
    fn program(
        &self,
        work: &Path,
        program: &Path,
        args: &[OsString],
        binds: &[(PathBuf, PathBuf)],
    ) -> Result<Boxed, String>;

    /// A shell `script` sealed exactly as Conch's own commands are,
    /// started in `cwd`, with `binds` too (so the engine's own files at
    /// their neutral path are where the engine said they are).
    fn shell(
        &self,
        work: &Path,
        cwd: &Path,
        script: &str,
        binds: &[(PathBuf, PathBuf)],
    ) -> Result<Boxed, String>;
}
