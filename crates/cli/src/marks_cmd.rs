//! `conch marks list` and `conch marks clear PATH`: the files that carry a
//! mark because a chat that had read something wrote them (the ledger),
//! and the owner's way to clear one.

use clap::Subcommand;
use conversations::ledger::Ledger;
use conversations::Home;

use crate::Failure;

#[derive(Subcommand)]
pub enum MarksCommand {
    /// The files that mark whoever reads them, and what their chat had read.
    List,
    /// Clear a file's mark: reading it no longer marks a chat.
    Clear { path: std::path::PathBuf },
}

pub fn run(home: &Home, command: MarksCommand) -> Result<(), Failure> {
    let ledger = Ledger::new(home.root());
    match command {
        MarksCommand::List => {
            let notes = ledger.list();
            if notes.is_empty() {
                println!("No file carries a mark.");
            }
            for n in notes {
                println!("{}\twritten by a chat that {}", n.path, n.marks.join("; "));
            }
            Ok(())
        }
        MarksCommand::Clear { path } => {
            // The ledger keeps paths as the tools resolved them.
            let resolved = std::fs::canonicalize(&path)
                .or_else(|_| std::path::absolute(&path))
                .map_err(|e| Failure(format!("{} can't be found: {e}.", path.display())))?;
            let shown = resolved.display().to_string();
            let cleared = ledger.clear(&shown).map_err(|e| {
                Failure(format!(
                    "The mark on {shown} couldn't be cleared: Conch's folder can't be written ({e})."
                ))
            })?;
            if cleared {
                println!("Cleared: reading {shown} no longer marks a chat.");
            } else {
                println!("{shown} carries no mark.");
            }
            Ok(())
        }
    }
}
