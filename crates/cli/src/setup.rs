//! `conch setup`: a new setup link from the running Conch, for a person
//! whose link was used, expired or lost; `conch setup --password-stdin`
//! sets the owner's password from a script.

use std::io::Read;

use clap::Args;
use conversations::Home;
use gateway::auth::password;
use serde_json::json;

use crate::chat::Client;
use crate::Failure;

#[derive(Args)]
pub struct SetupArgs {
    /// Read the password from standard input (its first line).
    #[arg(long)]
    password_stdin: bool,
}

const FROM_A_SCRIPT: &str =
    "From a script: printf '%s' \"$PASSWORD\" | conch setup --password-stdin";

pub fn run(home: &Home, args: SetupArgs) -> Result<(), Failure> {
    if !args.password_stdin {
        return new_link(home);
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
    let said = match (had, crate::served::running(home)) {
        (true, _) => {
            "Password changed. Browsers signed in before keep their session until Conch restarts."
                .to_owned()
        }
        (false, Some(url)) => format!("Password set. Sign in with it at {url}"),
        (false, None) => {
            "Password set. Start Conch with conch serve, then sign in with it at the address it prints."
                .to_owned()
        }
    };
    println!("{said}");
    Ok(())
}

/// Asks the Conch serving this folder for a new one-time link, and prints
/// it with the address Conch is serving on.
fn new_link(home: &Home) -> Result<(), Failure> {
    if password::is_set(home.root()) {
        return Err(Failure(
            "Conch already has a password: sign in with it. To change it: printf '%s' \"$PASSWORD\" | conch setup --password-stdin"
                .into(),
        ));
    }
    let Some(url) = crate::served::running(home) else {
        return Err(Failure(format!(
            "Conch isn't running. Start it with conch serve: it prints a setup link. {FROM_A_SCRIPT}"
        )));
    };
    let (key, _own) = crate::chat::key_for(home, "conch setup")?;
    let client = Client {
        http: reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap_or_default(),
        url: url.clone(),
        key,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure(format!("Conch couldn't start its runtime: {e}.")))?;
    let answer =
        runtime.block_on(client.call(reqwest::Method::POST, "/api/setup-link", Some(json!({}))))?;
    let token = answer["token"].as_str().unwrap_or_default();
    if token.is_empty() {
        return Err(Failure(
            "Conch answered without a setup link. Try again, or set the password from the terminal."
                .into(),
        ));
    }
    let lasts = std::time::Duration::from_secs(answer["lastsSecs"].as_u64().unwrap_or(900));
    println!(
        "Open this link within {} to choose a password (any earlier link no longer works):\n\n  {url}/setup?token={token}\n",
        gateway::auth::setup_link::lasting_words(lasts)
    );
    Ok(())
}
