//! The box engines run in: Conch's seal, as `engines::boxing::Boxing`.
//! The engine gets the same masks as a sealed command; its commands are
//! sealed exactly as Conch's own.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use engines::boxing::{Boxed, Boxing};

#[derive(Debug)]
pub struct EngineBox(pub Arc<seal::Sealed>);

/// Kept while the boxed process lives; removes the box's mount points
/// after.
struct Kept {
    command: seal::SealedCommand,
    _pending: seal::Pending,
}

impl Drop for Kept {
    fn drop(&mut self) {
        self.command.cleanup();
    }
}

fn boxed(command: seal::SealedCommand) -> Result<Boxed, String> {
    let (std_command, pending) = command.std_command().map_err(|e| e.to_string())?;
    Ok(Boxed {
        command: std_command,
        keep: Box::new(Kept {
            command,
            _pending: pending,
        }),
    })
}

impl Boxing for EngineBox {
    fn program(
        &self,
        work: &Path,
        program: &Path,
        args: &[OsString],
        binds: &[(PathBuf, PathBuf)],
    ) -> Result<Boxed, String> {
        boxed(
            self.0
                .program(work, program, args, binds)
                .map_err(|e| e.to_string())?,
        )
    }

    fn shell(
        &self,
        work: &Path,
        cwd: &Path,
        script: &str,
        binds: &[(PathBuf, PathBuf)],
    ) -> Result<Boxed, String> {
        boxed(
            self.0
                .command_with(work, cwd, script, binds)
                .map_err(|e| e.to_string())?,
        )
    }
}

/// Why an engine chat won't run while Run engines in the box is on, and
/// what fixes it.
pub(crate) fn why_not(engine: &str, boxes: bool, sealing: bool) -> String {
    let or_off = "turn off Run engines in the box in Settings → Security (it needs your password, and the engine then runs with your full access)";
    if !boxes {
        return format!(
            "{engine} can't run in Conch's box yet, so this chat didn't start it. Pick another engine, or {or_off}."
        );
    }
    if !sealing {
        return format!(
            "{engine} runs in the box, and Seal commands is off. Turn Seal commands on in Settings → Security, or {or_off}."
        );
    }
    let support = seal::sandbox_support();
    let problem = match &support {
        seal::Support::Unavailable { problem } => problem.sentence(),
        seal::Support::Ready => "The box couldn't be set up here.".to_owned(),
    };
    match seal::fix_line(&support) {
        Some(line) => format!(
            "{problem} {engine} runs only in the box: set it up with `{line}`, or {or_off}."
        ),
        None => format!(
            "{problem} {engine} runs only in the box. Use a computer that has it, or {or_off}."
        ),
    }
}
