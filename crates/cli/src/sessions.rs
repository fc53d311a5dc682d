//! `conch sessions revoke`: signs every browser out ("Sign out everywhere"
//! from the terminal), on a running gateway too.

use clap::Subcommand;
use conversations::Home;
use gateway::auth::sessions;

use crate::Failure;

#[derive(Subcommand)]
pub enum SessionsCommand {
    /// Sign every browser out; each signs in again with the password.
    Revoke,
}

pub fn run(home: &Home, command: SessionsCommand) -> Result<(), Failure> {
    match command {
        SessionsCommand::Revoke => {
            let ended = sessions::revoke_all(home.root())?;
            let what = match ended {
                0 => "No browser was signed in.".to_owned(),
                1 => "Signed out 1 browser.".to_owned(),
                n => format!("Signed out {n} browsers."),
            };
            println!("{what} Each one signs in again with the password.");
        }
    }
    Ok(())
}
