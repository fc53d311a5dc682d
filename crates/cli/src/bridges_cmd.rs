//! `conch bridges add|link|allow|list|remove`: chat apps (Telegram). The
//! bot's token goes in the sealed secrets.json, from standard input only;
//! who is linked and allowed in bridges.json. `conch serve` reads both at
//! its start.

use std::io::Read;
use std::path::Path;

use bridges::state::StateFile;
use bridges::telegram::Telegram;
use bridges::{access, setup};
use clap::{Args, Subcommand};
use conversations::{Home, Secrets, Settings};

use crate::Failure;

#[derive(Subcommand)]
pub enum BridgesCommand {
    /// Connect a chat app's bot (telegram); its token from standard input.
    Add(AddArgs),
    /// A one-time code: send /link CODE to the bot from your own account.
    Link { app: String },
    /// Let someone talk to the bot: their numeric id or @handle.
    Allow { app: String, user: String },
    /// Stop letting someone talk to the bot.
    Disallow { app: String, user: String },
    /// The chat apps there are, who is linked and who is allowed.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Have the app push updates to Conch at your public address (ADDRESS/hooks/telegram)
    /// instead of Conch asking for them; --off to go back to asking.
    Webhook {
        app: String,
        /// Your public address, like https://conch.example.com.
        address: Option<String>,
        #[arg(long, conflicts_with = "address")]
        off: bool,
    },
    /// Forget a chat app, its token and who was allowed.
    Remove { app: String },
}

#[derive(Args)]
pub struct AddArgs {
    /// telegram.
    app: String,
    /// Read the bot's token (from @BotFather) from standard input.
    #[arg(long)]
    token_stdin: bool,
    /// The Bot API's address (default: Telegram's own).
    #[arg(long, value_name = "URL")]
    api_base: Option<String>,
}

pub fn run(home: &Home, command: BridgesCommand) -> Result<(), Failure> {
    let root = home.root();
    let state = StateFile::new(root);
    match command {
        BridgesCommand::Add(args) => add(root, args)?,
        BridgesCommand::Link { app } => {
            let app = setup::app(&app)?;
            if !setup::has_token(root, app)? {
                return Err(Failure(
                    "Add the bot first: conch bridges add telegram --token-stdin".into(),
                ));
            }
            let (code, _) = setup::new_link(root, app, routines::now())?;
            println!(
                "Send this to your bot from your own Telegram account, in a direct chat, within 10 minutes:\n\n  /link {code}\n\nAfter that, your messages there are yours, and questions for you arrive there. conch serve must be running."
            );
        }
        BridgesCommand::Allow { app, user } => {
            let app = setup::app(&app)?;
            let who = access::parse_user(&user).map_err(Failure)?;
            let shown = who
                .id
                .clone()
                .or_else(|| who.handle.as_ref().map(|h| format!("@{h}")))
                .unwrap_or_default();
            if bridges::state::allow(&state, app, who)? {
                println!("{shown} may talk to the bot now. Their words mark the chat: what they ask for that needs an OK comes to you.");
            } else {
                println!("{shown} may already talk to the bot.");
            }
        }
        BridgesCommand::Disallow { app, user } => {
            let app = setup::app(&app)?;
            let who = access::parse_user(&user).map_err(Failure)?;
            let gone = bridges::state::disallow(&state, app, &who)?;
            if !gone {
                return Err(Failure(format!(
                    "\"{user}\" isn't allowed, so nothing changed."
                )));
            }
            println!("They can't talk to the bot any more.");
        }
        BridgesCommand::List { json: as_json } => list(root, &state, as_json)?,
        BridgesCommand::Webhook { app, address, off } => webhook(root, &state, app, address, off)?,
        BridgesCommand::Remove { app } => {
            let app = setup::app(&app)?;
            let settings = Settings::load(root)?;
            let vault = settings.vault(root);
            let mut secrets = Secrets::load(&vault)?;
            let had_token = secrets.bridges.remove(app).is_some();
            secrets.save(&vault)?;
            let had = state.remove(app)?;
            if !had && !had_token {
                return Err(Failure(format!("{app} wasn't added, so nothing changed.")));
            }
            println!(
                "Removed {app}: its token, its link and who was allowed. Its chats stay in Conch."
            );
        }
    }
    Ok(())
}

/// The bot's @name, or why it couldn't be had.
fn check_token(token: &str, base: Option<&str>) -> Result<String, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("no runtime ({e})."))?;
    runtime.block_on(async {
        let tg = Telegram::new(token, base, 0).map_err(|e| e.to_string())?;
        let me = tg.me().await.map_err(|e| e.to_string())?;
        Ok(me.username.clone().unwrap_or_else(|| me.id.to_string()))
    })
}

/// `conch bridges add APP --token-stdin`: the token is read, checked and kept.
fn add(root: &Path, args: AddArgs) -> Result<(), Failure> {
    let app = setup::app(&args.app)?;
    if !args.token_stdin {
        return Err(Failure(
            "Give the bot's token on standard input with --token-stdin (never on the command line, where others could see it): echo TOKEN | conch bridges add telegram --token-stdin".into(),
        ));
    }
    let mut text = String::new();
    std::io::stdin()
        .take(4096)
        .read_to_string(&mut text)
        .map_err(|e| {
            Failure(format!(
                "The token couldn't be read from standard input: {e}."
            ))
        })?;
    let token = setup::token(&text)?;
    let base = setup::api_base(args.api_base.as_deref())?;
    // Say whether the token works, but keep it either way: the
    // computer may just be offline.
    let check = check_token(&token, base.as_deref());
    setup::save_token(root, app, token, base)?;
    match check {
        Ok(name) => println!(
            "Added Telegram: the bot is @{name}. Next, link your own account: conch bridges link telegram. conch serve starts it."
        ),
        Err(why) => println!(
            "Added Telegram, but the token couldn't be checked: {why} conch serve will try it when it starts."
        ),
    }
    Ok(())
}

/// `conch bridges list [--json]`.
fn list(root: &Path, state: &StateFile, as_json: bool) -> Result<(), Failure> {
    let all = state.load()?;
    let secrets = Secrets::load(&Settings::load(root)?.vault(root))?;
    if as_json {
        let list = setup::rows(root, routines::now())?;
        println!(
            "{}",
            serde_json::to_string_pretty(&list).unwrap_or_default()
        );
        return Ok(());
    }
    if all.is_empty() {
        println!(
            "No chat apps. Add one with: echo TOKEN | conch bridges add telegram --token-stdin"
        );
    }
    for (name, s) in &all {
        let owner = match &s.owner {
            Some(o) => format!("linked to {} ({})", o.name, o.id),
            None => "not linked (conch bridges link telegram)".to_owned(),
        };
        let token = if secrets.bridges.contains_key(name) {
            "token set"
        } else {
            "no token"
        };
        println!("{name}\t{token}\t{owner}");
        for a in &s.allowed {
            let who = match (&a.id, &a.handle) {
                (Some(id), Some(h)) => format!("@{h} ({id})"),
                (Some(id), None) => id.clone(),
                (None, Some(h)) => format!("@{h} (hasn't written yet)"),
                (None, None) => continue,
            };
            let name = a
                .name
                .as_deref()
                .map(|n| format!(" {n}"))
                .unwrap_or_default();
            println!("  allowed: {who}{name}");
        }
    }
    Ok(())
}

/// `conch bridges webhook APP [ADDRESS | --off]`.
fn webhook(
    root: &Path,
    state: &StateFile,
    app: String,
    address: Option<String>,
    off: bool,
) -> Result<(), Failure> {
    let app = setup::app(&app)?;
    let settings = Settings::load(root)?;
    let vault = settings.vault(root);
    let mut secrets = Secrets::load(&vault)?;
    let Some(bridge) = secrets.bridges.get_mut(app) else {
        return Err(Failure(
            "Add the bot first: conch bridges add telegram --token-stdin".into(),
        ));
    };
    if off {
        bridge.webhook_secret = None;
        secrets.save(&vault)?;
        state.update(app, |s| s.webhook = None)?;
        println!("Conch will ask Telegram for messages again (from its next start).");
        return Ok(());
    }
    let Some(address) = address else {
        return Err(Failure("Give your public address (conch bridges webhook telegram https://conch.example.com), or --off.".into()));
    };
    let address = match reqwest::Url::parse(address.trim()) {
        Ok(u) if u.scheme() == "https" || (u.scheme() == "http" && u.host_str().is_some_and(|h| h == "127.0.0.1" || h == "localhost")) => {
            u.as_str().trim_end_matches('/').to_owned()
        }
        _ => {
            return Err(Failure(format!(
                "\"{}\" isn't an https address. Telegram only pushes to https (like https://conch.example.com).",
                address.chars().take(80).collect::<String>()
            )))
        }
    };
    let mut random = [0u8; 24];
    getrandom::fill(&mut random).map_err(|_| {
        Failure(
            "This computer gave Conch no randomness for the webhook's secret, so nothing changed."
                .into(),
        )
    })?;
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let secret: String = random
        .iter()
        .map(|b| ALPHABET[(b & 63) as usize] as char)
        .collect();
    bridge.webhook_secret = Some(secret);
    secrets.save(&vault)?;
    state.update(app, |s| s.webhook = Some(address.clone()))?;
    println!(
        "From its next start, Conch has Telegram push messages to {address}/hooks/telegram. Conch must answer at that address: start it with --allow-host for that name (and behind your https proxy)."
    );
    Ok(())
}
