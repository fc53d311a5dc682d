//! `conch hook pre-tool-use|post-tool-use|post-compact`: what Claude Code
//! runs around each tool call of a turn Conch started. It asks the running
//! Conch (see `engines::claude_code::hook`) and prints the answer; when it
//! can't, it says why on stderr and exits 2, which Claude Code treats as a
//! refusal, so a call is never let through unchecked.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use engines::claude_code::hook::{self, Event};

#[derive(Clone, Copy, ValueEnum)]
enum HookEvent {
    /// Before every tool call: allow, deny, or ask.
    PreToolUse,
    /// After a tool call: its result is recorded (and marks the chat).
    PostToolUse,
    /// After Claude Code summarised older turns.
    PostCompact,
}

#[derive(Args)]
pub struct HookArgs {
    #[arg(value_enum)]
    event: HookEvent,
}

/// Claude Code's "blocked" exit.
const BLOCKED: u8 = 2;

pub fn run(args: HookArgs) -> ExitCode {
    let event = match args.event {
        HookEvent::PreToolUse => Event::PreToolUse,
        HookEvent::PostToolUse => Event::PostToolUse,
        HookEvent::PostCompact => Event::PostCompact,
    };
    match hook::run(event, std::io::stdin().lock(), |k| std::env::var(k).ok()) {
        Ok(print) => {
            if let Some(line) = print {
                let mut out = std::io::stdout().lock();
                if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                    eprintln!("conch: the answer couldn't be written, so this call didn't run.");
                    return ExitCode::from(BLOCKED);
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("conch: {e}");
            ExitCode::from(BLOCKED)
        }
    }
}

/// `conch-engine-shell SCRIPT`: a command, hook or app of Claude Code's
/// in the box.
/// - `--engine-relay N` (itself, or as the one script line Claude Code
///   makes of it): the turn's Nth app, started by Conch outside the box.
/// - Conch's own hooks (the exact lines in the turn's settings) run here,
///   in the engine's box, where the way back to Conch is.
/// - Anything else is run by Conch, sealed beside the box.
pub fn engine_shell(called: &std::ffi::OsStr, args: Vec<std::ffi::OsString>) -> ExitCode {
    use engines::claude_code::shell::ENGINE_RELAY;
    let args: Vec<String> = args
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let script = args.join(" ");
    let as_line = format!("{} {ENGINE_RELAY} ", called.to_string_lossy());
    let relay = match args.as_slice() {
        [flag, n] if flag == ENGINE_RELAY => Some(n.as_str()),
        _ => script.strip_prefix(&as_line),
    }
    .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    .and_then(|n| n.parse::<usize>().ok());
    if let Some(index) = relay {
        return match hook::relay(index, |k| std::env::var(k).ok()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("conch: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let program = std::env::var(hook::PROGRAM_VAR).unwrap_or_default();
    let ours = !program.is_empty()
        && [Event::PreToolUse, Event::PostToolUse, Event::PostCompact]
            .iter()
            .any(|e| {
                script
                    == engines::claude_code::settings::hook_command(
                        std::path::Path::new(&program),
                        e.name(),
                    )
            });
    if ours {
        let status = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(&script)
            .status();
        return match status.ok().and_then(|s| s.code()) {
            Some(code) => ExitCode::from(u8::try_from(code.clamp(0, 255)).unwrap_or(BLOCKED)),
            None => ExitCode::from(BLOCKED),
        };
    }
    match hook::shell(&script, |k| std::env::var(k).ok()) {
        Ok(code) => ExitCode::from(u8::try_from(code.clamp(0, 255)).unwrap_or(1)),
        Err(e) => {
            eprintln!("conch: {e}");
            ExitCode::from(126)
        }
    }
}
