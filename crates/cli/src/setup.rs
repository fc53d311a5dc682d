//! `conch setup --password-stdin`: sets the owner's password from a script.

use std::io::Read;

use clap::Args;
use conversations::Home;
use gateway::auth::password;

use crate::Failure;

#[derive(Args)]
pub struct SetupArgs {
    /// Read the password from standard input (its first line).
    #[arg(long)]
    password_stdin: bool,
}

pub fn run(home: &Home, args: SetupArgs) -> Result<(), Failure> {
    if !args.password_stdin {
        return Err(Failure(
            "Choose the password in the browser: run conch serve and open the setup link it prints. \
             From a script: printf '%s' \"$PASSWORD\" | conch setup --password-stdin"
                .into(),
        ));
    }
    let mut input = String::new();
    std::io::stdin()
        .take(64 * 1024)
        .read_to_string(&mut input)
        .map_err(|e| {
            Failure(format!(
                "Conch couldn't read the password from standard input: {e}."
            ))
        })?;
    let chosen = input.lines().next().unwrap_or("");
    let had = password::is_set(home.root());
    password::set(home.root(), chosen)?;
    println!(
        "{}",
        if had {
            "Password changed. Browsers signed in before keep their session until Conch restarts."
        } else {
            "Password set. Sign in with it at http://127.0.0.1:7777 once conch serve is running."
        }
    );
    Ok(())
}
