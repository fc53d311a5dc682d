//! `conch routines add|list|remove|run`: chats that run on a schedule with
//! nobody there. add, list and remove change routines.json (the running
//! Conch sees a change at once); run asks the running Conch to start one
//! now, whose questions wait for the owner like every routine's.

use clap::{Args, Subcommand};
use conversations::{Home, Settings};
use routines::store::NewRoutine;
use routines::Store;
use serde_json::json;

use crate::chat::Client;
use crate::Failure;

#[derive(Subcommand)]
pub enum RoutinesCommand {
    /// Make a routine: when (cron, or words like "every weekday at 8:00")
    /// and what its chat is asked each time.
    Add(AddArgs),
    /// The routines there are, with when each runs next.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Forget a routine (its runs' chats stay).
    Remove { name: String },
    /// Run a routine now, against the running Conch; its schedule is untouched.
    Run {
        name: String,
        /// Where Conch is running (default: the Conch serving this
        /// folder, else http://127.0.0.1:7777).
        #[arg(long, env = "CONCH_URL")]
        url: Option<String>,
    },
}

#[derive(Args)]
pub struct AddArgs {
    /// When: "0 8 * * 1-5", "every weekday at 8:00", "every 15 minutes", …
    schedule: String,
    /// What its chat is asked each time.
    task: String,
    /// ask, edits, auto or full (default: the default mode). Full trust
    /// still asks when nobody is there and the chat has read something.
    #[arg(long)]
    mode: Option<String>,
    /// A short name (default: made from the task).
    #[arg(long)]
    name: Option<String>,
    /// The work folder its chats run in (default: Conch's).
    #[arg(long, value_name = "DIR")]
    work: Option<std::path::PathBuf>,
}

fn zone(home: &Home) -> jiff::tz::TimeZone {
    let settings = Settings::load(home.root()).ok();
    let name = settings
        .as_ref()
        .and_then(|s| s.other.get("timeZone"))
        .and_then(|v| v.as_str())
        .map(str::to_owned);
    routines::time_zone(name.as_deref())
}

/// When a routine runs next, in the owner's time zone.
fn next(r: &routines::Routine, zone: &jiff::tz::TimeZone) -> String {
    if !r.on {
        return "paused".to_owned();
    }
    routines::Schedule::parse(&r.schedule)
        .ok()
        .and_then(|s| s.next_after(routines::now(), zone))
        .and_then(|t| jiff::Timestamp::from_second(t).ok())
        .map(|t| {
            t.to_zoned_datetime(zone.clone())
                .strftime("%a %Y-%m-%d %H:%M %Z")
                .to_string()
        })
        .unwrap_or_else(|| "never".to_owned())
}

pub fn run(home: &Home, command: RoutinesCommand) -> Result<(), Failure> {
    let store = Store::new(home.root());
    match command {
        RoutinesCommand::Add(args) => {
            let mode = match args.mode.as_deref() {
                Some(m) => Some(protocol::Mode::parse(m).ok_or_else(|| {
                    Failure(format!(
                        "There's no mode called \"{m}\". Use ask, edits, auto or full."
                    ))
                })?),
                None => None,
            };
            let work = match args.work {
                Some(w) => Some(std::path::absolute(w)?.to_string_lossy().into_owned()),
                None => None,
            };
            let r = store.add(
                NewRoutine {
                    schedule: args.schedule,
                    task: args.task,
                    name: args.name,
                    mode,
                    work,
                    made_in: Some("terminal".to_owned()),
                    // The owner's own terminal: nothing read comes with it.
                    ..NewRoutine::default()
                },
                routines::now(),
            )?;
            println!(
                "Made the routine \"{}\" ({}). Next run: {}. Each run is its own chat with nobody there: what it asks waits for you.",
                r.name,
                r.schedule,
                next(&r, &zone(home))
            );
        }
        RoutinesCommand::List { json: as_json } => {
            let list = store.list()?;
            let zone = zone(home);
            if as_json {
                let rows: Vec<_> = list
                    .iter()
                    .map(|r| {
                        json!({
                            "id": r.id, "name": r.name, "schedule": r.schedule, "task": r.task,
                            "mode": r.mode, "work": r.work, "created": r.created,
                            "madeIn": r.made_in, "on": r.on, "next": next(&r.clone(), &zone),
                        })
                    })
                    .collect();
                println!(
                    "{}",
                    serde_json::to_string_pretty(&rows).unwrap_or_default()
                );
                return Ok(());
            }
            if list.is_empty() {
                println!("No routines. Make one with: conch routines add \"every weekday at 8:00\" \"Summarise my inbox\"");
            }
            for r in &list {
                let task: String = r.task.chars().take(60).collect();
                println!(
                    "{}\t{}\tnext: {}\t{task}",
                    r.name,
                    r.schedule,
                    next(r, &zone)
                );
            }
        }
        RoutinesCommand::Remove { name } => {
            let r = store.remove(&name)?;
            println!("Removed the routine \"{}\". Its runs' chats stay.", r.name);
        }
        RoutinesCommand::Run { name, url } => {
            let routine = store.find(&name)?;
            let (key, _own) = crate::chat::key_for(home, "conch routines run")?;
            let client = Client {
                http: reqwest::Client::builder()
                    .no_proxy()
                    .build()
                    .unwrap_or_default(),
                url: crate::served::choose(url, home),
                key,
            };
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| Failure(format!("Conch couldn't start its runtime: {e}.")))?;
            let path = format!("/api/routines/{}/run", routine.id);
            let started =
                runtime.block_on(client.call(reqwest::Method::POST, &path, Some(json!({}))))?;
            println!(
                "Started \"{}\": its chat is {}. What it asks waits for you in Conch (and in Telegram, when linked).",
                routine.name,
                started["chat"].as_str().unwrap_or("?"),
            );
        }
    }
    Ok(())
}
