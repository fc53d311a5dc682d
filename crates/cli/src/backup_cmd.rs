//! `conch backup create FILE [--passphrase-stdin]` and `conch backup
//! restore FILE [--passphrase-stdin] [--beside]`. See docs/backup.md.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use conversations::running::{serving, Serving};
use conversations::{Home, Settings};
use zeroize::Zeroizing;

use crate::Failure;

#[derive(Subcommand)]
pub enum BackupCommand {
    /// Back up Conch's folder into one file.
    Create(CreateArgs),
    /// Restore a backup into Conch's folder (when it is empty), or beside it.
    Restore(RestoreArgs),
}

#[derive(Args)]
pub struct CreateArgs {
    file: PathBuf,
    /// Lock the backup with the passphrase on standard input's first line;
    /// it then carries your keys. Without it, no key goes in.
    #[arg(long)]
    passphrase_stdin: bool,
}

#[derive(Args)]
pub struct RestoreArgs {
    file: PathBuf,
    /// The backup's passphrase, from standard input's first line.
    #[arg(long)]
    passphrase_stdin: bool,
    /// Restore into a new folder beside Conch's, whatever is in it.
    #[arg(long)]
    beside: bool,
}

fn read_line() -> Result<Zeroizing<String>, Failure> {
    let mut line = Zeroizing::new(String::new());
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Failure(format!("The passphrase couldn't be read: {e}.")))?;
    let trimmed = Zeroizing::new(line.trim_end_matches(['\n', '\r']).to_owned());
    if trimmed.is_empty() {
        return Err(Failure(
            "No passphrase came on standard input. Nothing was done.".into(),
        ));
    }
    Ok(trimmed)
}

/// Asks on the terminal with echo off.
fn ask_hidden(prompt: &str) -> Result<Zeroizing<String>, Failure> {
    eprint!("{prompt}");
    let _ = std::io::stderr().flush();
    let fd = libc::STDIN_FILENO;
    // SAFETY: termios is plain data; tcgetattr fills it for a descriptor we
    // checked is a terminal.
    let mut term: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: as above; `term` is a valid, writable termios.
    let got = unsafe { libc::tcgetattr(fd, &mut term) } == 0;
    if got {
        let mut quiet = term;
        quiet.c_lflag &= !libc::ECHO;
        // SAFETY: sets the terminal's attributes from a copy of its own.
        unsafe { libc::tcsetattr(fd, libc::TCSANOW, &quiet) };
    }
    let line = read_line();
    if got {
        // SAFETY: restores the attributes read above.
        unsafe { libc::tcsetattr(fd, libc::TCSANOW, &term) };
    }
    eprintln!();
    line
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{b} bytes"),
    }
}

fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

pub fn run(home: &Home, command: BackupCommand) -> Result<(), Failure> {
    match command {
        BackupCommand::Create(args) => create(home, args),
        BackupCommand::Restore(args) => restore(home, args),
    }
}

fn create(home: &Home, args: CreateArgs) -> Result<(), Failure> {
    let settings = Settings::load(home.root())?;
    let passphrase = if args.passphrase_stdin {
        Some(read_line()?)
    } else {
        None
    };
    let out = if args.file.is_dir() {
        backup::path_in(&args.file)
    } else {
        args.file.clone()
    };
    let made = backup::create(
        home.root(),
        &out,
        passphrase.as_deref().map(String::as_str),
        &settings.vault(home.root()),
    )?;
    let written = std::fs::metadata(&out)
        .map(|m| m.len())
        .unwrap_or(made.bytes);
    println!(
        "Backed up {}, {} and {} into {} ({}).",
        count(made.chats, "chat", "chats"),
        count(made.artifacts, "artifact", "artifacts"),
        count(made.files, "file", "files"),
        out.display(),
        size(written)
    );
    println!("{}", made.says);
    if passphrase.is_some() {
        println!("Keep the passphrase safe: without it the backup can't be opened, and with it anyone holding the file has your keys.");
    }
    Ok(())
}

fn restore(home: &Home, args: RestoreArgs) -> Result<(), Failure> {
    let kind = backup::locked(&args.file)?;
    let mut into = if args.beside {
        backup::beside(home.root())
    } else {
        home.root().to_path_buf()
    };
    if !args.beside {
        if let Serving::Yes(pid) = serving(home.root()) {
            return Err(Failure(format!(
                "Conch is running on {} (process {pid}), so nothing was restored into it. Stop it first, or restore beside it with --beside.",
                home.root().display()
            )));
        }
        if let Some(found) = backup::already_there(&into) {
            let beside = backup::beside(home.root());
            let interactive = !args.passphrase_stdin
                && std::io::stdin().is_terminal()
                && std::io::stderr().is_terminal();
            if !interactive {
                return Err(backup::BackupError::NotEmpty { home: into, found }.into());
            }
            eprint!(
                "{} already has {found}; a restore doesn't mix two Conches. Restore beside it, into {}? [y/N] ",
                into.display(),
                beside.display()
            );
            let _ = std::io::stderr().flush();
            let mut answer = String::new();
            let _ = std::io::stdin().lock().read_line(&mut answer);
            if !matches!(answer.trim(), "y" | "Y" | "yes") {
                return Err(Failure("Nothing was restored.".into()));
            }
            into = beside;
        }
    }
    let passphrase = match (kind, args.passphrase_stdin) {
        (backup::Locked::No, _) => None,
        (backup::Locked::Passphrase, true) => Some(read_line()?),
        (backup::Locked::Passphrase, false) if std::io::stdin().is_terminal() => {
            Some(ask_hidden("This backup is locked. Its passphrase: ")?)
        }
        (backup::Locked::Passphrase, false) => {
            return Err(backup::BackupError::NeedsPassphrase.into())
        }
    };
    let restored = backup::restore(&args.file, passphrase.as_deref().map(String::as_str), &into)?;
    println!(
        "Restored {} and {} ({}) from a backup made {} into {}.",
        count(restored.chats, "chat", "chats"),
        count(restored.files, "file", "files"),
        size(restored.bytes),
        restored.created,
        into.display()
    );
    match restored.keys {
        backup::Keys::Carried => {
            // The keys came out open: lock them with this computer's key
            // now; whatever can't be locked now is locked at the next start.
            let settings = Settings::load(&into).unwrap_or_default();
            let vault = settings.vault(&into);
            crate::doctor::lock_at_start(&vault);
            let still_clear: Vec<&str> = vault::SEALED_FILES
                .iter()
                .copied()
                .filter(|f| vault.is_clear(f).unwrap_or(false))
                .collect();
            if still_clear.is_empty() {
                println!("Your keys came back and are locked with this computer's own key.");
            } else {
                println!(
                    "Your keys came back. {} couldn't be locked with this computer's own key yet (see above); the next start, or conch doctor --repair, locks {}.",
                    still_clear.join(" and "),
                    if still_clear.len() == 1 { "it" } else { "them" }
                );
            }
        }
        backup::Keys::LeftOut => println!("{}", restored.says),
    }
    if into != home.root() {
        println!(
            "It is beside your Conch. To use it, stop Conch and start it with: conch serve --home {}",
            shell_word(&into)
        );
    }
    Ok(())
}

fn shell_word(path: &Path) -> String {
    let text = path.display().to_string();
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c))
    {
        text
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}
