//! `conch seal check [--json]` and `conch seal run [--work DIR] -- CMD…`.

use std::path::PathBuf;
use std::process::Stdio;

use clap::Subcommand;
use conversations::Home;
use seal::{fix_line, sandbox_support, Sealed, Support};
use serde_json::json;

use crate::Failure;

#[derive(Subcommand)]
pub enum SealCommand {
    /// Whether commands can be sealed here, and the one line that fixes it.
    Check {
        #[arg(long)]
        json: bool,
    },
    /// Run one command sealed, exactly as the assistant's tool would.
    Run {
        /// The work folder (default: here).
        #[arg(long)]
        work: Option<PathBuf>,
        /// The command: one shell command, or a program and its arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        command: Vec<String>,
    },
}

/// Words a person can paste into a shell unchanged.
fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

pub fn run(home: &Home, command: SealCommand) -> Result<(), Failure> {
    match command {
        SealCommand::Check { json } => {
            let support = sandbox_support();
            let line = fix_line(&support);
            if json {
                let (ready, sentence) = match &support {
                    Support::Ready => (true, "Commands run sealed here.".to_owned()),
                    Support::Unavailable { problem } => (false, problem.sentence()),
                };
                let out = json!({ "ready": ready, "support": support, "sentence": sentence, "command": line });
                println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            } else {
                match &support {
                    Support::Ready => {
                        println!("Commands run sealed here (bubblewrap, {}).", seal::BWRAP)
                    }
                    Support::Unavailable { problem } => {
                        println!("{}", problem.sentence());
                        match &line {
                            Some(l) => println!("To fix it, type this line in a terminal:\n\n  {l}\n"),
                            None if problem.fixable() => println!("Install bubblewrap, socat and ripgrep with this system's package manager."),
                            None => {}
                        }
                        println!(
                            "Until then every command runs with your full access, and asks first."
                        );
                    }
                }
            }
            Ok(())
        }
        SealCommand::Run { work, command } => {
            let work = match work {
                Some(w) => w,
                None => std::env::current_dir()?,
            };
            let work = work
                .canonicalize()
                .map_err(|_| Failure(format!("The work folder {} isn't there.", work.display())))?;
            let shell_command = if command.len() == 1 {
                command[0].clone()
            } else {
                command
                    .iter()
                    .map(|w| quote(w))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            // No probe run here: it would cost a second box. Without
            // bubblewrap there's nothing to run; any other trouble is
            // bubblewrap's own words on standard error.
            if !std::path::Path::new(seal::BWRAP).is_file() {
                return Err(Failure(
                    "Commands can't be sealed: bubblewrap is not installed. See conch seal check."
                        .into(),
                ));
            }
            let sealed = Sealed::new(home.root())?;
            let cmd = sealed.command(&work, &shell_command)?;
            let (mut process, pipe) = cmd.std_command()?;
            let child = process.stdin(Stdio::inherit()).spawn();
            pipe.close();
            let status = child
                .map_err(|e| Failure(format!("bubblewrap couldn't start: {e}.")))?
                .wait()?;
            cmd.cleanup();
            std::process::exit(status.code().unwrap_or(1));
        }
    }
}
