//! `conch seal check [--json]` and `conch seal run [--work DIR] -- CMD…`.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use clap::Subcommand;
use conversations::{Home, Settings};
use seal::{fix_line, Sealed, Support};
use serde_json::json;

use crate::Failure;

#[derive(Subcommand)]
pub enum SealCommand {
    /// Whether commands can be sealed here, and the one line that fixes it.
    Check {
        #[arg(long)]
        json: bool,
        /// The work folder whose box to describe (default: here).
        #[arg(long)]
        work: Option<PathBuf>,
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

/// What the box does on this computer for a command in `work`: what it
/// hides, makes writable, keeps read-only, and which variables go in.
fn what_it_does(home: &Home, work: &Path) -> Result<serde_json::Value, Failure> {
    let sealed = sealing(home, true)?;
    let profile = sealed.profile(work);
    let masks = profile.masks()?;
    let hidden: Vec<serde_json::Value> = masks
        .masks
        .iter()
        .map(|m| json!({ "path": m.mount.path(), "what": m.what }))
        .collect();
    let writable: Vec<&Path> = masks.writable().collect();
    let read_only: Vec<&Path> = masks
        .binds
        .iter()
        .filter_map(|b| match b {
            seal::Mount::ReadOnly(p) => Some(p.as_path()),
            _ => None,
        })
        .collect();
    let kept: Vec<String> = sealed
        .environment()
        .iter()
        .map(|(n, _)| n.to_string_lossy().into_owned())
        .collect();
    let withheld: Vec<serde_json::Value> = sealed
        .vars
        .iter()
        .filter_map(|(n, v)| {
            let name = n.to_string_lossy();
            if kept.iter().any(|k| *k == name) {
                return None;
            }
            let why = match (n.to_str(), v.to_str()) {
                (Some(n), Some(v)) => seal::env::judge(n, v, &sealed.env_names).err()?,
                _ => seal::env::Withheld::NotText,
            };
            Some(json!({ "name": name, "why": why.reason() }))
        })
        .collect();
    Ok(json!({
        "work": work,
        "hidden": hidden,
        "writable": writable,
        "readOnly": read_only,
        "environment": { "kept": kept, "withheld": withheld },
    }))
}

/// Sealing for this Conch folder, as the gateway sets it up: the guard's
/// places (the box resolves each itself), the owner's `sealEnv`.
fn sealing(home: &Home, observes: bool) -> Result<Sealed, Failure> {
    let mut sealed = Sealed::new(home.root(), tools::protected::listed(home.root()))?;
    sealed.env_names = Settings::load(home.root())
        .map_err(|e| Failure(e.to_string()))?
        .seal_env;
    sealed.observe = observes;
    Ok(sealed)
}

pub fn run(home: &Home, command: SealCommand) -> Result<(), Failure> {
    match command {
        SealCommand::Check { json, work } => {
            let probed = seal::probe();
            let support = probed.support.clone();
            let line = fix_line(&support);
            let work = match work {
                Some(w) => w,
                None => std::env::current_dir()?,
            };
            let work = work
                .canonicalize()
                .map_err(|_| Failure(format!("The work folder {} isn't there.", work.display())))?;
            let does = what_it_does(home, &work)?;
            if json {
                let (ready, sentence) = match &support {
                    Support::Ready => (true, "Commands run sealed here.".to_owned()),
                    Support::Unavailable { problem } => (false, problem.sentence()),
                };
                let mut out = json!({
                    "ready": ready,
                    "support": support,
                    "sentence": sentence,
                    "command": line,
                    "observes": probed.observes,
                });
                if let (Some(o), Some(d)) = (out.as_object_mut(), does.as_object()) {
                    o.extend(d.clone());
                }
                println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            } else {
                match &support {
                    Support::Ready => {
                        println!("Commands run sealed here (bubblewrap, {}).", seal::BWRAP);
                        if probed.observes {
                            println!("The box sees which hosts each command reaches.");
                        } else {
                            println!("This kernel can't show the box what a command reaches on the network; downloads are judged by the command's words.");
                        }
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
                let hidden = does["hidden"].as_array().map_or(0, Vec::len);
                println!("In {}, a sealed command can't see {hidden} places: Conch's own folder and where keys live (conch seal check --json lists them).", work.display());
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
            // Probed once and remembered until bubblewrap or the kernel
            // changes: no second box before every command.
            let probed = seal::remembered(home.root());
            if let Support::Unavailable { problem } = &probed.support {
                return Err(Failure(format!(
                    "{} See conch seal check.",
                    problem.sentence()
                )));
            }
            let sealed = sealing(home, probed.observes)?;
            let cmd = sealed.command(&work, &shell_command)?;
            let (mut process, pending) = cmd.std_command()?;
            let child = process.stdin(Stdio::inherit()).spawn();
            let mut child = match child {
                Ok(c) => c,
                Err(e) => {
                    cmd.cleanup();
                    return Err(Failure(format!("bubblewrap couldn't start: {e}.")));
                }
            };
            // This thread only waits, so it watches too.
            let ended = pending.watch_until_exit(&mut child);
            cmd.cleanup();
            let (status, network) = ended?;
            if !network.hosts.is_empty() {
                eprintln!("conch: the command reached {}.", network.hosts.join(", "));
            }
            std::process::exit(status.code().unwrap_or(1));
        }
    }
}
