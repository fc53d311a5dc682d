//! `conch keys create|list|revoke`: access keys for scripts.

use clap::Subcommand;
use conversations::Home;
use gateway::auth::keys;

use crate::Failure;

#[derive(Subcommand)]
pub enum KeysCommand {
    /// Make a key; it's printed once and only its hash is kept.
    Create { name: String },
    /// The keys there are (names and ids, never the keys).
    List,
    /// Stop a key working, by name or id.
    Revoke { name: String },
}

pub fn run(home: &Home, command: KeysCommand) -> Result<(), Failure> {
    match command {
        KeysCommand::Create { name } => {
            let (record, secret) = keys::create(home.root(), &name)?;
            println!(
                "Made the access key \"{}\". Copy it now: Conch won't show it again.\n\n  {secret}\n\n\
                 Scripts send it as the header: Authorization: Bearer {secret}",
                record.name
            );
        }
        KeysCommand::List => {
            let all = keys::list(home.root())?;
            if all.is_empty() {
                println!("No access keys. Make one with: conch keys create NAME");
            }
            for key in all {
                println!("{}\t{}\t{}", key.name, key.id, key.created);
            }
        }
        KeysCommand::Revoke { name } => {
            let gone = keys::revoke(home.root(), &name)?;
            println!(
                "Revoked \"{}\" ({}). Scripts using it are refused from now on.",
                gone.name, gone.id
            );
        }
    }
    Ok(())
}
