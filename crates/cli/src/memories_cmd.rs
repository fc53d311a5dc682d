//! `conch memories list [--json] | add TEXT | keep ID | forget ID`: Conch's
//! memories from the terminal, read and changed in `memories.json` directly
//! (no running Conch needed). A keep or forget of a memory a chat wrote is
//! noted in that chat's log; when a running Conch has that chat open, it
//! notes it there itself the next time it reads its memories.

use clap::Subcommand;
use conversations::memories::{deliver_offline, memory_json};
use conversations::Home;
use memory::{Added, Memory, Source, State, Store};
use protocol::{MemoryAction, MemoryEvent};

use crate::Failure;

#[derive(Subcommand)]
pub enum MemoriesCommand {
    /// Every memory: those waiting for you first, then the kept ones.
    List {
        /// One JSON object a line.
        #[arg(long)]
        json: bool,
    },
    /// Remember something in your own words (kept at once).
    Add { text: String },
    /// Keep a held memory: from the next chat on, it is used.
    Keep { id: String },
    /// Forget a memory.
    Forget { id: String },
}

fn note(home: &Home, store: &Store, memory: &Memory, action: MemoryAction) -> Result<(), Failure> {
    let Some(chat) = memory.source.chat() else {
        return Ok(());
    };
    store.note(
        chat,
        MemoryEvent {
            memory: memory.id.clone(),
            action,
            text: memory.text.clone(),
            by: "owner".to_owned(),
            call: None,
            reasons: Vec::new(),
            read: Vec::new(),
        },
    )?;
    for said in deliver_offline(home, store) {
        eprintln!("conch: {said}");
    }
    Ok(())
}

fn line(m: &Memory) -> String {
    let mut out = format!("  {}  {}\n      from {}", m.id, m.text, m.source.words());
    if let Source::Chat { chat, .. } = &m.source {
        out.push_str(&format!(" (chat {chat})"));
    }
    if m.state == State::Held {
        let why: Vec<&str> = m.reasons.iter().map(|r| r.says.as_str()).collect();
        out.push_str(&format!("\n      held: {}", why.join("; ")));
    }
    out
}

pub fn run(home: &Home, command: MemoriesCommand) -> Result<(), Failure> {
    let store = Store::new(home.root());
    let result = match command {
        MemoriesCommand::List { json } => {
            let all = store.list()?;
            let held: Vec<&Memory> = all
                .iter()
                .rev()
                .filter(|m| m.state == State::Held)
                .collect();
            let kept: Vec<&Memory> = all
                .iter()
                .rev()
                .filter(|m| m.state == State::Kept)
                .collect();
            if json {
                for m in held.iter().chain(kept.iter()) {
                    println!("{}", memory_json(m));
                }
            } else if all.is_empty() {
                println!("No memories yet.");
            } else {
                if !held.is_empty() {
                    println!("Waiting for you (keep with `conch memories keep ID`):");
                    for m in &held {
                        println!("{}", line(m));
                    }
                    println!();
                }
                if !kept.is_empty() {
                    println!("Kept:");
                    for m in &kept {
                        println!("{}", line(m));
                    }
                }
            }
            Ok(())
        }
        MemoriesCommand::Add { text } => {
            let verdict = memory::check(&text, &Source::Owner, true);
            match store.add(&text, Source::Owner, &verdict, None)? {
                Added::New(m) => println!("Remembered ({}).", m.id),
                Added::Already(m) => println!("That's already remembered ({}).", m.id),
            }
            Ok(())
        }
        MemoriesCommand::Keep { id } => {
            let m = store.keep(&id)?;
            note(home, &store, &m, MemoryAction::Kept)?;
            println!("Kept: \"{}\". New chats will be given it.", m.text);
            Ok(())
        }
        MemoriesCommand::Forget { id } => {
            let m = store.forget(&id)?;
            note(home, &store, &m, MemoryAction::Forgot)?;
            println!("Forgot: \"{}\".", m.text);
            Ok(())
        }
    };
    if let Some(w) = store.warning() {
        eprintln!("conch: {w}");
    }
    result
}
