//! `conch`: the one binary.

mod activity;
mod apps_cmd;
mod apps_page;
mod apps_relay;
mod backup_cmd;
mod bridges_cmd;
mod chat;
mod doctor;
mod hook;
mod import_cmd;
mod keys;
mod listen;
mod marks_cmd;
mod memories_cmd;
mod open_files;
mod providers;
mod replay;
mod routines_cmd;
mod seal_cmd;
mod serve;
mod serve_more;
mod served;
mod sessions;
mod setup;
mod skills_cmd;
mod skills_sign;
mod spending_cmd;
mod undo_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "conch",
    version,
    about = "Conch: your own AI assistant, on your own computer."
)]
struct Cli {
    /// Conch's folder (default: $CONCH_HOME, else ~/.conch).
    #[arg(long, global = true, value_name = "DIR")]
    home: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start Conch: the gateway, the web pages and the API.
    Serve(serve::ServeArgs),
    /// Set the owner's password.
    Setup(setup::SetupArgs),
    /// Access keys for scripts.
    Keys {
        #[command(subcommand)]
        command: keys::KeysCommand,
    },
    /// Signed-in browsers: sign them all out.
    Sessions {
        #[command(subcommand)]
        command: sessions::SessionsCommand,
    },
    /// Model providers (OpenAI-compatible, Anthropic, Claude Code or Codex).
    Providers {
        #[command(subcommand)]
        command: providers::ProvidersCommand,
    },
    /// One turn from the terminal, against the running Conch.
    Chat(chat::ChatArgs),
    /// Run a scripted chat through the real guard and tools, and print every call's outcome.
    Replay(replay::ReplayArgs),
    /// Skills: list, scan, review, turn on and off.
    Skills {
        #[command(subcommand)]
        command: skills_cmd::SkillsCommand,
    },
    /// Sealed commands: check this computer, or run one command sealed.
    Seal {
        #[command(subcommand)]
        command: seal_cmd::SealCommand,
    },
    /// The owner's connections (MCP servers): add, list, choose per tool,
    /// remove. `conch apps` is the older spelling.
    #[command(name = "connections", alias = "apps")]
    Apps {
        #[command(subcommand)]
        command: apps_cmd::AppsCommand,
    },
    /// Check Conch's folder; --repair fixes what it can.
    Doctor(doctor::DoctorArgs),
    /// What the assistant did, newest first.
    Activity(activity::ActivityArgs),
    /// Backups: make one, or restore one.
    Backup {
        #[command(subcommand)]
        command: backup_cmd::BackupCommand,
    },
    /// Move in from OpenClaw or Hermes: skills, providers and keys, MCP
    /// servers, memories.
    Import(import_cmd::ImportArgs),
    /// Chat apps (Telegram): add a bot, link your account, allow people.
    Bridges {
        #[command(subcommand)]
        command: bridges_cmd::BridgesCommand,
    },
    /// Routines: chats that run on a schedule with nobody there.
    Routines {
        #[command(subcommand)]
        command: routines_cmd::RoutinesCommand,
    },
    /// Claude Code's hooks call back into the running Conch (not for typing).
    Hook(hook::HookArgs),
    /// Conch's memories: list, add, keep a held one, forget.
    Memories {
        #[command(subcommand)]
        command: memories_cmd::MemoriesCommand,
    },
    /// Files a chat wrote after reading something: list them, clear one.
    Marks {
        #[command(subcommand)]
        command: marks_cmd::MarksCommand,
    },
    /// Stop everything: every running turn ends, and nothing starts (no
    /// message, no routine) until `conch resume`, also after a restart.
    Stop,
    /// Let Conch act again after `conch stop` or Stop all.
    Resume,
    /// Put back the files a chat's turn changed, or undo an undo.
    Undo(undo_cmd::UndoArgs),
}

/// A failure to report: one sentence, already in the user's words.
pub struct Failure(pub String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string())
    }
}

fn main() -> ExitCode {
    // Claude Code in the box runs each command, hook and app as `PREFIX
    // SCRIPT`, the prefix one program: conch by another name (see
    // hook::engine_shell).
    let mut argv = std::env::args_os();
    let called = argv.next().unwrap_or_default();
    if std::path::Path::new(&called)
        .file_name()
        .is_some_and(|n| n == engines::claude_code::shell::ENGINE_SHELL)
    {
        return hook::engine_shell(&called, argv.collect());
    }
    let cli = Cli::parse();
    // A hook needs nothing of Conch's folder: what it asks is in its
    // environment, and it must answer fast.
    if let Command::Hook(args) = cli.command {
        return hook::run(args);
    }
    let result = (|| {
        // Replay keeps its chat in --home only when given one.
        if let Command::Replay(args) = cli.command {
            return replay::run(cli.home.as_deref(), args);
        }
        let root = conversations::Home::locate(cli.home.as_deref())?;
        let home = conversations::Home::open(&root)?;
        match cli.command {
            Command::Serve(args) => serve::run(home, args),
            Command::Setup(args) => setup::run(&home, args),
            Command::Keys { command } => keys::run(&home, command),
            Command::Sessions { command } => sessions::run(&home, command),
            Command::Providers { command } => providers::run(&home, command),
            Command::Chat(args) => chat::run(&home, args),
            Command::Replay(_) => Ok(()),
            Command::Seal { command } => seal_cmd::run(&home, command),
            Command::Skills { command } => skills_cmd::run(&home, command),
            Command::Apps { command } => apps_cmd::run(&home, command),
            Command::Doctor(args) => doctor::run(&home, args),
            Command::Activity(args) => activity::run(&home, args),
            Command::Backup { command } => backup_cmd::run(&home, command),
            Command::Import(args) => import_cmd::run(&home, args),
            Command::Bridges { command } => bridges_cmd::run(&home, command),
            Command::Routines { command } => routines_cmd::run(&home, command),
            Command::Hook(_) => Ok(()),
            Command::Memories { command } => memories_cmd::run(&home, command),
            Command::Marks { command } => marks_cmd::run(&home, command),
            Command::Stop => {
                conversations::halt::write(home.root(), "terminal")?;
                println!("Stopped everything. A running Conch ends its turns within a second; nothing starts until conch resume (or Resume on the web page).");
                Ok(())
            }
            Command::Undo(args) => undo_cmd::run(&home, args),
            Command::Resume => {
                conversations::halt::remove(home.root())?;
                println!("Conch may act again.");
                Ok(())
            }
        }
    })();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(sentence)) => {
            eprintln!("conch: {sentence}");
            ExitCode::FAILURE
        }
    }
}
