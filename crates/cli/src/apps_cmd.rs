//! `conch apps add|list|policy|remove`: the owner's integrations, as MCP
//! servers. How to reach each is in apps.json; the values of the variables
//! and headers it is given are in the sealed secrets.json, never in
//! apps.json. `add` connects once and lists what it offers, so the owner
//! sees at once what they turned on (the first list is what adding it
//! turns on; later ones are off until turned on).

use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::Arc;

use apps::catalog;
use apps::file::{self, Reach};
use apps::{Apps, AppsConfig, Choice, Launch, Standing};
use clap::{Args, Subcommand};
use conversations::settings::Settings;
use conversations::{AppSecret, Home, Secrets};

use crate::Failure;

#[derive(Subcommand)]
pub enum AppsCommand {
    /// Add an app: `conch apps add NAME -- COMMAND [ARGS…]` (a program
    /// Conch starts) or `conch apps add NAME --url URL [--header K:V]`.
    Add(AddArgs),
    /// The apps, their tools, each tool's choice and when it was last used.
    List {
        #[arg(long)]
        json: bool,
    },
    /// A tool's choice: follow (the mode), ask, read-only or off. TOOL may
    /// be `*` for every tool the app lists.
    Policy(PolicyArgs),
    /// Forget an app and its secrets.
    Remove { name: String },
    /// One app as an MCP server on standard input and output, for a native
    /// engine (Claude Code starts it; not for typing).
    #[command(hide = true)]
    Relay(crate::apps_relay::RelayArgs),
}

#[derive(Args)]
pub struct AddArgs {
    /// Lowercase letters, digits and dashes (like mail or my-notes).
    name: String,
    /// A server over streamable HTTP.
    #[arg(long, conflicts_with = "command")]
    url: Option<String>,
    /// A header sent with every request, NAME:VALUE (kept sealed). A value
    /// of `-` is read from standard input.
    #[arg(long = "header", value_name = "K:V", requires = "url")]
    headers: Vec<String>,
    /// A variable the program is started with, NAME=VALUE (kept sealed).
    /// A value of `-` is read from standard input.
    #[arg(long = "env", value_name = "K=V")]
    env: Vec<String>,
    /// Don't connect now (it's listed when Conch next starts it).
    #[arg(long)]
    no_connect: bool,
    /// The program and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Args)]
pub struct PolicyArgs {
    name: String,
    /// A tool (or `*`), or, alone, `on` or `off` for the whole app: an app
    /// that is off isn't started.
    tool: String,
    /// follow, ask, read-only or off.
    choice: Option<String>,
    /// Treat the tool as one that writes, whatever its server says.
    #[arg(long, conflicts_with = "as_listed")]
    writes: bool,
    /// Go back to what its server says (only where it says it only reads).
    #[arg(long)]
    as_listed: bool,
}

fn now() -> String {
    protocol::format_rfc3339(std::time::SystemTime::now())
}

/// Splits `K:V` (or `K=V`) once; a value of `-` is a line of standard input.
/// Adds a connection to apps.json, its secrets sealed in the vault: the
/// one way in for `conch connections add` and the page's Add.
pub fn save_new(root: &Path, name: &str, reach: Reach, secret: AppSecret) -> Result<(), Failure> {
    let (added, _) = file::update(root, |f| catalog::add(f, name, reach, &now()))?;
    added?;
    if !secret.env.is_empty() || !secret.headers.is_empty() {
        let vault = Settings::load(root)?.vault(root);
        let mut secrets = Secrets::load(&vault)?;
        secrets.apps.insert(name.to_owned(), secret);
        secrets.save(&vault)?;
    }
    Ok(())
}

fn pair(text: &str, sep: char, what: &str) -> Result<(String, String), Failure> {
    let Some((k, v)) = text.split_once(sep) else {
        return Err(Failure(format!(
            "\"{text}\" isn't {what}: write it NAME{sep}VALUE."
        )));
    };
    let k = k.trim().to_owned();
    let v = if v == "-" {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        line.trim_end_matches(['\r', '\n']).to_owned()
    } else {
        v.trim_start().to_owned()
    };
    Ok((k, v))
}

/// How apps reach their secrets: read from the sealed secrets.json at each
/// start, so a changed one counts from the next connection.
pub fn secrets_for(home: &Path, settings: &Settings) -> apps::SecretsFor {
    let vault = settings.vault(home);
    Arc::new(move |app: &str| {
        let secrets = Secrets::load(&vault).map_err(|e| e.to_string())?;
        let mine = secrets.apps.get(app).cloned().unwrap_or_default();
        Ok(apps::Secrets {
            env: mine.env.into_iter().collect(),
            headers: mine.headers.into_iter().collect(),
        })
    })
}

/// What apps are started with: the box where commands are sealed, the
/// allowlist of ordinary variables, the owner's secrets.
pub fn config(
    home: &Path,
    settings: &Settings,
    default_work: &Path,
    seal: Option<Arc<seal::Sealed>>,
    sealing_on: Option<Arc<std::sync::atomic::AtomicBool>>,
) -> AppsConfig {
    let mut launch = Launch::plain();
    launch.seal = seal;
    launch.sealing_on = sealing_on;
    launch.env_names = settings.seal_env.clone();
    AppsConfig {
        launch,
        secrets: secrets_for(home, settings),
        ..AppsConfig::new(home, default_work)
    }
}

pub fn run(home: &Home, command: AppsCommand) -> Result<(), Failure> {
    let root = home.root();
    match command {
        AppsCommand::Add(args) => add(home, args),
        AppsCommand::List { json } => list(root, json),
        AppsCommand::Policy(args) => policy(root, args),
        AppsCommand::Relay(args) => crate::apps_relay::run(home, args),
        AppsCommand::Remove { name } => {
            let (removed, _) = file::update(root, |f| catalog::remove(f, &name))?;
            removed?;
            let settings = Settings::load(root)?;
            let vault = settings.vault(root);
            let mut secrets = Secrets::load(&vault)?;
            if secrets.apps.remove(&name).is_some() {
                secrets.save(&vault)?;
            }
            println!("Removed {name}. A running Conch stops it within a few seconds.");
            Ok(())
        }
    }
}

fn add(home: &Home, args: AddArgs) -> Result<(), Failure> {
    let root = home.root();
    let mut secret = AppSecret::default();
    let reach = match (&args.url, args.command.split_first()) {
        (Some(url), _) => {
            if !args.env.is_empty() {
                return Err(Failure(
                    "--env is for a program Conch starts; an app over the web takes --header."
                        .into(),
                ));
            }
            for h in &args.headers {
                let (k, v) = pair(h, ':', "a header")?;
                secret.headers.insert(k, v);
            }
            Reach::Http {
                url: url.clone(),
                headers: secret.headers.keys().cloned().collect(),
            }
        }
        (None, Some((command, rest))) => {
            for e in &args.env {
                let (k, v) = pair(e, '=', "a variable")?;
                secret.env.insert(k, v);
            }
            Reach::Stdio {
                command: command.clone(),
                args: rest.to_vec(),
                env: secret.env.keys().cloned().collect(),
            }
        }
        (None, None) => {
            return Err(Failure(
                "Say how to reach it: conch connections add NAME -- COMMAND [ARGS…], or conch connections add NAME --url URL."
                    .into(),
            ))
        }
    };
    save_new(root, &args.name, reach, secret)?;
    let settings = Settings::load(root)?;
    if args.no_connect {
        println!(
            "Added {}. Its tools are listed when Conch next starts it.",
            args.name
        );
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let work = settings
        .default_work
        .clone()
        .map_or_else(std::env::current_dir, Ok)?;
    let name = args.name.clone();
    let status = runtime.block_on(async {
        let apps = Apps::start(config(root, &settings, &work, None, None));
        apps.settled(apps::conn::CONNECT_WITHIN).await;
        let status = apps.statuses().remove(&name);
        apps.shutdown().await;
        status
    });
    match status {
        Some(apps::Status::Connected { .. }) => {
            let f = file::load(root)?;
            let tools = f
                .servers
                .get(&args.name)
                .map(|s| s.tools.len())
                .unwrap_or(0);
            println!(
                "Added {} with {tools} tools, each following the mode. See them with conch connections list; turn one off with conch connections policy {} TOOL off.",
                args.name, args.name
            );
        }
        Some(apps::Status::Failed { error, .. }) => println!(
            "Added {}, but it couldn't be reached: {error} Conch tries again when it starts; fix it, or remove it with conch connections remove {}.",
            args.name, args.name
        ),
        _ => println!("Added {}. Its tools are listed when Conch next starts it.", args.name),
    }
    Ok(())
}

fn list(root: &Path, json: bool) -> Result<(), Failure> {
    let f = file::load(root)?;
    if json {
        let mut out = serde_json::Map::new();
        for (name, s) in &f.servers {
            out.insert(name.clone(), apps::view::server(name, s, None));
        }
        println!("{}", serde_json::Value::Object(out));
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    if f.servers.is_empty() {
        writeln!(
            out,
            "No connections yet. Add one with conch connections add NAME -- COMMAND, or conch connections add NAME --url URL."
        )?;
        return Ok(());
    }
    for (name, s) in &f.servers {
        let how = match &s.reach {
            Reach::Stdio { command, args, .. } => {
                let mut line = command.clone();
                for a in args {
                    line.push(' ');
                    line.push_str(a);
                }
                line
            }
            Reach::Http { url, .. } => url.clone(),
        };
        writeln!(out, "{name}  ({how})")?;
        if s.listed.is_none() {
            writeln!(
                out,
                "  Not listed yet: Conch lists its tools when it next starts it."
            )?;
        }
        for (tool, t) in &s.tools {
            let st = apps::standing::standing(t.seen.as_ref(), t.choice, t.pinned.as_ref());
            let reads = t
                .seen
                .as_ref()
                .is_some_and(|l| apps::standing::read_only(l, t.treat_as_write));
            let state = match st {
                Standing::On => t.choice.words().to_owned(),
                Standing::New => "off: new since you added the app".to_owned(),
                Standing::Changed => {
                    "off: what it says changed since you turned it on; look, then choose again"
                        .to_owned()
                }
                Standing::Off => "off".to_owned(),
                Standing::Gone => "no longer listed".to_owned(),
            };
            let used = t
                .last_used
                .as_deref()
                .map(|u| format!(", last used {u}"))
                .unwrap_or_default();
            writeln!(
                out,
                "  {name}.{tool}  {}  {state}{used}",
                if reads { "reads" } else { "writes" }
            )?;
        }
    }
    Ok(())
}

fn policy(root: &Path, args: PolicyArgs) -> Result<(), Failure> {
    let Some(said) = args.choice.as_deref() else {
        let on = match args.tool.as_str() {
            "on" => true,
            "off" => false,
            other => {
                return Err(Failure(format!(
                    "Say conch connections policy {} on (or off) for the app, or conch connections policy {} {other} CHOICE for a tool.",
                    args.name, args.name
                )))
            }
        };
        let (done, f) = file::update(root, |f| catalog::set_on(f, &args.name, on))?;
        done?;
        let runs = f
            .servers
            .get(&args.name)
            .map(|s| catalog::runs(&s.reach))
            .unwrap_or_default();
        if on {
            println!(
                "{}: on. Conch starts it now if it is running (it runs {runs}).",
                args.name
            );
        } else {
            println!("{}: off. Conch doesn't start it.", args.name);
        }
        return Ok(());
    };
    let Some(choice) = Choice::parse(said) else {
        return Err(Failure(format!(
            "\"{said}\" isn't a choice: say follow, ask, read-only or off."
        )));
    };
    let at = now();
    // Both changes or neither: the file is changed only when both hold.
    let (done, _) = file::update(root, |f| {
        let mut next = f.clone();
        let names = catalog::choose(&mut next, &args.name, &args.tool, choice, &at)?;
        if args.writes || args.as_listed {
            catalog::treat_as_write(&mut next, &args.name, &args.tool, args.writes)?;
        }
        *f = next;
        Ok::<_, apps::AppsError>(names)
    })?;
    let names = done?;
    let which = if names.len() == 1 {
        format!("{}.{}", args.name, names[0])
    } else {
        format!("{} tools of {}", names.len(), args.name)
    };
    println!("{which}: {}.", choice.words());
    Ok(())
}
