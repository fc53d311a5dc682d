//! `conch serve`: the gateway, on 127.0.0.1:7777 unless told otherwise.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use conversations::{Chats, ChatsConfig, Durability, GuardConfig, Home, Secrets, Settings};
use engines::{Engine, MockEngine};
use gateway::{AllowedHosts, AppState};
use tools::{CommandConfig, Tools, ToolsConfig};

use crate::{listen, Failure};

#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7777", value_parser = listen::parse)]
    listen: SocketAddr,
    /// Allow listening beyond this computer (see what it exposes first).
    #[arg(long)]
    public: bool,
    /// Another host name the gateway answers to (repeatable).
    #[arg(long, value_name = "NAME")]
    allow_host: Vec<String>,
}

pub fn run(home: Home, args: ServeArgs) -> Result<(), Failure> {
    let warning = listen::check(args.listen, args.public).map_err(Failure)?;
    for problem in home.permission_problems() {
        conversations::warn(&problem);
    }
    let settings = Settings::load(home.root())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure(format!("Conch couldn't start its runtime: {e}.")))?;
    runtime.block_on(serve(home, args, settings, warning))
}

async fn serve(
    home: Home,
    args: ServeArgs,
    settings: Settings,
    warning: Option<String>,
) -> Result<(), Failure> {
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| {
            Failure(format!(
                "Conch couldn't listen on {}: {e}. Is another Conch running? Pick another address with --listen.",
                args.listen
            ))
        })?;
    let addr = listener.local_addr()?;
    // Says this folder is being served (a restore into it is refused); a
    // second Conch on the same folder is only pointed out.
    let _serving = match conversations::running::take(home.root(), &addr.to_string()) {
        Ok(lock) => Some(lock),
        Err(pid) => {
            conversations::warn(&format!(
                "Another Conch (process {pid}) is already serving {}.",
                home.root().display()
            ));
            None
        }
    };
    let default_work = match settings.default_work.clone() {
        Some(dir) => dir,
        None => std::env::current_dir()?,
    };
    crate::doctor::lock_at_start(&settings.vault(home.root()));
    // Settings → Backups: a backup whenever one is due, while Conch runs.
    tokio::spawn(gateway::backups::scheduled(home.root().to_path_buf()));
    // Turns pick their provider from settings.json as they start (see
    // below); the engine here answers when there is none: the mock, also
    // after the last provider is removed while Conch runs.
    let engine_line = engine_line(&home, &settings)?;
    // Benchmarks and tests set how fast the mock streams its words.
    let engine: Arc<dyn Engine> = match std::env::var("CONCH_MOCK_PACE_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
    {
        Some(ms) => Arc::new(MockEngine::new(Duration::from_millis(ms))),
        None => Arc::new(MockEngine::default()),
    };
    let switches = Arc::new(conversations::safety::Switches::new(&settings.safety));
    switches.set_contacts(&settings.contacts);
    let (seal, seal_line) = pick_seal(&home, &settings);
    let catalog = Arc::new(skills::Catalog {
        project: Some(default_work.clone()),
        ..skills::Catalog::new(home.root())
    });
    let apps_seal = seal.clone();
    let tools = Tools::new(ToolsConfig {
        seal,
        skills: Some(catalog.clone()),
        sealing_on: Some(switches.sealing()),
        searxng_url: settings.searxng_url.clone(),
        command: CommandConfig {
            timeout: Duration::from_secs(settings.command_timeout_secs.unwrap_or(120)),
            ..CommandConfig::default()
        },
        ..ToolsConfig::default()
    });
    // The owner's apps connect in the background: start-up doesn't wait
    // for them, and their tools are offered once each has listed them.
    let apps = apps::Apps::start(crate::apps_cmd::config(
        home.root(),
        &settings,
        &default_work,
        apps_seal,
        Some(switches.sealing()),
    ));
    let toolbox: Arc<dyn tools::ToolBox> = Arc::new(apps::WithApps {
        inner: Arc::new(tools),
        apps: apps.clone(),
    });
    let chats = Chats::new(
        home.clone(),
        engine,
        toolbox,
        ChatsConfig {
            durability: Durability::Group,
            default_work,
            default_mode: settings.default_mode.unwrap_or(protocol::Mode::Ask),
            policies: settings.tool_policies.clone(),
            guard: GuardConfig {
                check_after_reading: settings.safety.check_after_reading,
                owner_name: settings
                    .owner_name
                    .clone()
                    .unwrap_or_else(|| "the owner".to_owned()),
                switches: Some(switches.clone()),
                review: settings.auto_review.clone().unwrap_or_default().config(),
                ..GuardConfig::usual(&home)
            },
            skills: Some(catalog),
            max_steps: settings.max_steps,
        },
    );
    // Each turn picks its provider from the home's settings (Settings →
    // Models, conch providers), without a restart.
    chats.use_models(Arc::new(conversations::models::Models::new(
        home.root().to_path_buf(),
    )));
    // Conch's own browser, where Chromium is installed: nothing starts
    // until a chat first uses it. `CONCH_BROWSER_ARGS` adds Chromium
    // arguments (tests and replay map host names to 127.0.0.1).
    let own_browser = browser::find_chromium(None).is_ok().then(|| {
        let mut config = browser::Config::in_home(home.root());
        config.extra_args = std::env::var("CONCH_BROWSER_ARGS")
            .map(|a| a.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default();
        let b = browser::Browser::new(config);
        chats.use_browser(b.clone());
        b
    });
    chats.purge_trash();
    // `conch stop` and `conch resume` typed while this runs.
    chats.follow_halt();
    let started = crate::serve_more::start(&home, &settings, &chats);
    let mut names = settings.allowed_hosts.clone();
    names.extend(args.allow_host.iter().cloned());
    if !addr.ip().is_loopback() && !addr.ip().is_unspecified() {
        names.push(addr.ip().to_string());
    }
    // Activity and search read every chat's log once; do it now, one after
    // the other, not on the first look at the page or the first search.
    let activity = chats.activity().clone();
    let search = chats.search().clone();
    std::thread::spawn(move || {
        activity.build();
        search.build();
    });
    // Questions still waiting when Conch stopped are asked again now.
    chats.ask_again_after_restart();
    let wanted = limits(settings.gateway.clone().unwrap_or_default());
    let limits = wanted.fit_open_files(crate::open_files::raise(
        (wanted.max_connections + gateway::serve::FILES_KEPT) as u64,
    ));
    let mut state = AppState::new(chats, AllowedHosts::new(names))
        .listening_on(addr)
        .with_limits(limits)
        .with_apps(Arc::new(crate::apps_page::Page(apps)));
    if let Some((app, relay)) = started.hook.clone() {
        state = state.with_hook(&app, relay);
    }

    let url = crate::served::url_of(addr);
    let mut out = std::io::stdout().lock();
    writeln!(out, "Conch is running at {url}")?;
    if let Some(warning) = warning {
        writeln!(out, "Careful: {warning}")?;
    }
    writeln!(out, "{engine_line}")?;
    writeln!(out, "{seal_line}")?;
    writeln!(out, "{}", started.routines_line)?;
    if let Some(line) = &started.bridge_line {
        writeln!(out, "{line}")?;
    }
    // Tests make links that expire soon; a person gets 15 minutes.
    if let Some(secs) = std::env::var("CONCH_SETUP_LINK_SECS")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
    {
        state.auth.setup.last_for(Duration::from_secs(secs));
    }
    if !gateway::auth::password::is_set(home.root()) {
        let token = state.auth.setup.issue().map_err(|_| {
            Failure("This computer gave Conch no randomness for the setup link.".into())
        })?;
        writeln!(
            out,
            "Conch has no password yet. Open this link within {} to choose one:\n\n  {url}/setup?token={token}\n",
            gateway::auth::setup_link::lasting_words(state.auth.setup.lasts())
        )?;
    }
    out.flush()?;
    drop(out);

    let stop = Arc::new(tokio::sync::Notify::new());
    let signalled = stop.clone();
    let server = gateway::serve(listener, state, async move {
        shutdown_signal().await;
        signalled.notify_waiters();
    });
    // Live streams never end by themselves; after a stop, give requests a
    // moment to finish and then go. Acknowledged events are already on disk.
    let grace = async {
        stop.notified().await;
        tokio::time::sleep(Duration::from_secs(2)).await;
    };
    let served = tokio::select! {
        result = server => result.map_err(|e| Failure(format!("The gateway stopped: {e}."))),
        () = grace => Ok(()),
    };
    // Chromium closes its profile properly before Conch goes.
    if let Some(b) = own_browser {
        b.stop().await;
    }
    served
}

/// The gateway's limits: each setting given, else its default.
fn limits(set: conversations::settings::GatewayLimits) -> gateway::Limits {
    let d = gateway::Limits::default();
    // Zero would cut off every request; a second is the least.
    let secs = |v: Option<u64>, d: Duration| v.map_or(d, |s| Duration::from_secs(s.max(1)));
    gateway::Limits {
        header: secs(set.header_timeout_secs, d.header),
        body: secs(set.body_timeout_secs, d.body),
        request: secs(set.request_timeout_secs, d.request),
        max_connections: set.max_connections.unwrap_or(d.max_connections),
        loopback_reserve: set.loopback_reserve.unwrap_or(d.loopback_reserve),
    }
}

/// Sealing for commands, when it's on and this computer can; and the line
/// that says how commands will run.
fn pick_seal(home: &Home, settings: &Settings) -> (Option<Arc<seal::Sealed>>, String) {
    // The box is made whenever this computer can, so turning Seal commands
    // back on in Settings counts at once.
    let off = !settings.safety.sealed_commands;
    let probed = seal::remembered(home.root());
    let make = || {
        seal::Sealed::new(home.root(), tools::protected::here(home.root())).map(|mut s| {
            s.env_names = settings.seal_env.clone();
            s.observe = probed.observes;
            Arc::new(s)
        })
    };
    match &probed.support {
        seal::Support::Ready if off => (
            make().ok(),
            "Seal commands is off (Settings → Safety): every command runs with your full access and asks first.".to_owned(),
        ),
        seal::Support::Ready => match make() {
            Ok(s) => (
                Some(s),
                if probed.observes {
                    "Commands run sealed (bubblewrap), and the network each one reaches is on the record.".to_owned()
                } else {
                    "Commands run sealed (bubblewrap). This kernel can't show the box what a command reaches on the network, so downloads are judged by the command's words.".to_owned()
                },
            ),
            Err(e) => (
                None,
                format!("Commands can't be sealed: {e} Every command will ask first."),
            ),
        },
        support => {
            let mut line = match support {
                seal::Support::Unavailable { problem } => problem.sentence(),
                seal::Support::Ready => String::new(),
            };
            line.push_str(" Every command will run with your full access and ask first.");
            if let Some(fix) = seal::fix_line(support) {
                line.push_str(&format!(
                    " To seal them, type this line in a terminal:\n\n  {fix}\n"
                ));
            }
            (None, line)
        }
    }
}

/// The line that says which provider new turns run on. The keys are read
/// once here, so a vault that can't be opened is said at the start.
fn engine_line(home: &Home, settings: &Settings) -> Result<String, Failure> {
    let Some(chosen) = settings.provider() else {
        return Ok("No provider is configured, so Conch answers with its built-in mock engine (no model, no network). Add one in Settings → Models.".to_owned());
    };
    Secrets::load(&settings.vault(home.root()))?;
    Ok(match chosen.kind {
        engines::providers::ProviderKind::Codex => format!(
            "Talking to {} (Codex, {}).",
            chosen.name,
            if chosen.model.is_empty() {
                "its default model"
            } else {
                &chosen.model
            }
        ),
        engines::providers::ProviderKind::ClaudeCode => format!(
            "Turns run on Claude Code ({}). {}",
            chosen.name,
            crate::doctor::claude_code_line(&engines::claude_code::launch::program(
                chosen.bin.as_deref()
            ))
        ),
        _ => format!(
            "Talking to {} ({} at {}).",
            chosen.name, chosen.model, chosen.base_url
        ),
    })
}

async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = async {
            match term.as_mut() {
                Some(t) => { t.recv().await; }
                None => std::future::pending::<()>().await,
            }
        } => {}
    }
}
