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
