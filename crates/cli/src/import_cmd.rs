//! `conch import openclaw|hermes [DIR]`: moving in from another app. See
//! docs/import.md.
//!
//! What comes over, and how it is kept:
//! - skills: copied into `imported/<app>/skills/`, scanned, and kept as
//!   the other app's: turned on pinned to what was scanned, except one the
//!   scanner calls dangerous, which stays off until someone looks;
//! - model providers into settings.json, their keys straight into the
//!   sealed secrets.json;
//! - MCP servers into apps.json (their tokens sealed in secrets.json), every
//!   tool starting at Ask;
//! - memories into the memory store (`memories.json`), held for review (Conch
//!   didn't see them being written).
//!
//! Nothing in the other app's folder is changed. Running it again brings
//! over only what isn't here yet.

use std::path::{Path, PathBuf};

use backup::import::{self, App, Found, Wire};
use clap::Args;
use conversations::secrets::ProviderSecret;
use conversations::{Home, Secrets, Settings};
use engines::providers::{ProviderKind, ProviderSettings};
use skills::{Catalog, Source};

use crate::Failure;

#[derive(Args)]
pub struct ImportArgs {
    /// openclaw or hermes.
    app: String,
    /// The app's folder (default: ~/.openclaw or ~/.hermes).
    dir: Option<PathBuf>,
}

/// What the report says, a line each.
#[derive(Default)]
struct Report {
    came: Vec<String>,
    left: Vec<String>,
}

pub fn run(home: &Home, args: ImportArgs) -> Result<(), Failure> {
    let Some(app) = App::parse(&args.app) else {
        return Err(Failure(format!(
            "Conch moves in from openclaw or hermes, not \"{}\". Nothing was imported.",
            args.app
        )));
    };
    let dir = match args.dir {
        Some(dir) => dir,
        None => {
            let person = std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from)
                .ok_or_else(|| {
                    Failure(format!(
                        "Your home folder isn't known ($HOME is empty). Name {}'s folder: conch import {} DIR.",
                        app.name(),
                        app.id()
                    ))
                })?;
            app.default_dir(&person)
        }
    };
    let found = import::read(app, &dir)?;
    let mut report = Report {
        left: found.left.clone(),
        ..Report::default()
    };
    let root = home.root();
    skills_over(root, app, &found, &mut report)?;
    providers_over(root, &found, &mut report)?;
    servers_over(root, app, &found, &mut report)?;
    memories_over(root, app, &found, &mut report)?;

    println!("From {} ({}):", app.name(), dir.display());
    if report.came.is_empty() {
        println!("Nothing new came over.");
    } else {
        println!("Came over:");
        for line in &report.came {
            println!("  {line}");
        }
    }
    if !report.left.is_empty() {
        println!("Didn't come over:");
        for line in &report.left {
            println!("  {line}");
        }
    }
    println!("Nothing in {} was changed or deleted.", dir.display());
    Ok(())
}

fn source(app: App) -> Source {
    match app {
        App::OpenClaw => Source::OpenClaw,
        App::Hermes => Source::Hermes,
    }
}

fn skills_over(root: &Path, app: App, found: &Found, report: &mut Report) -> Result<(), Failure> {
    let into = root.join("imported").join(app.id()).join("skills");
    let catalog = Catalog::new(root);
    for skill in &found.skills {
        let to = into.join(&skill.name);
        if to.exists() {
            continue;
        }
        let whole = match import::copy_skill(&skill.dir, &to) {
            Ok(left) => {
                let whole = left.is_empty();
                for file in left {
                    report
                        .left
                        .push(format!("The skill \"{}\": {file}.", skill.name));
                }
                whole
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&to);
                report.left.push(format!(
                    "The skill \"{}\": it can't be copied ({e}).",
                    skill.name
                ));
                continue;
            }
        };
        let id = format!("{}:{}", source(app).id(), skill.name);
        let loaded = skills::catalog::load(&to, source(app));
        let danger = loaded
            .as_ref()
            .map(|s| s.verdict == skills::Verdict::Danger)
            .unwrap_or(false);
        if danger {
            let why = loaded
                .as_ref()
                .ok()
                .and_then(|s| {
                    s.findings
                        .iter()
                        .find(|f| f.severity == skills::Severity::Danger)
                        .or(s.findings.first())
                })
                .map(|f| f.says.clone())
                .unwrap_or_default();
            report.came.push(format!(
                "The skill \"{}\", turned off: the scanner found something that could hurt you ({why}). Read it with conch skills review {id}.",
                skill.name
            ));
            continue;
        }
        // What the scanner couldn't read may be anything: a skill not read
        // whole stays off, whatever the rest says.
        let unread = loaded.as_ref().map_or_else(
            |e| Some(e.to_string()),
            |s| s.unread.first().map(|u| format!("{}: {}", u.path, u.why)),
        );
        let unread =
            unread.or_else(|| (!whole).then(|| "some of its files didn't come over".to_owned()));
        if let Some(why) = unread {
            report.came.push(format!(
                "The skill \"{}\", turned off: the scanner couldn't read it whole ({why}), and what it couldn't read may be anything. Read it with conch skills review {id}.",
                skill.name
            ));
            continue;
        }
        match catalog.enable(&id, None) {
            Ok(_) => report.came.push(format!(
                "The skill \"{}\", scanned and turned on, pinned to this version: if it changes, it turns off until you look again.",
                skill.name
            )),
            Err(e) => report.came.push(format!(
                "The skill \"{}\", turned off: {e}",
                skill.name
            )),
        }
    }
    Ok(())
}

fn providers_over(root: &Path, found: &Found, report: &mut Report) -> Result<(), Failure> {
    if found.providers.is_empty() {
        return Ok(());
    }
    let mut settings = Settings::load(root)?;
    let vault = settings.vault(root);
    let mut secrets = Secrets::load(&vault)?;
    let mut added = Vec::new();
    for p in &found.providers {
        if settings.providers.iter().any(|have| have.name == p.name) {
            report.left.push(format!(
                "The provider \"{}\": Conch already has one by that name, so Conch's was kept.",
                p.name
            ));
            continue;
        }
        settings.providers.push(ProviderSettings {
            name: p.name.clone(),
            kind: match p.wire {
                Wire::Openai => ProviderKind::Openai,
                Wire::Anthropic => ProviderKind::Anthropic,
            },
            base_url: p.base_url.clone(),
            model: p.model.clone(),
            context_tokens: 100_000,
            max_tokens: 4096,
            bin: None,
            prices: None,
            no_cap: false,
        });
        let keyed = match &p.key {
            Some(key) => {
                secrets.providers.insert(
                    p.name.clone(),
                    ProviderSecret {
                        key: key.as_str().to_owned(),
                    },
                );
                "its key locked with this computer's own key"
            }
            None => "no key (add one with conch providers add … --key-stdin)",
        };
        report.came.push(format!(
            "The provider \"{}\" ({}, {}), {keyed}.",
            p.name, p.model, p.base_url
        ));
        added.push(p.name.clone());
    }
    if added.is_empty() {
        return Ok(());
    }
    if settings.default_provider.is_none() {
        settings.default_provider = added.first().cloned();
    }
    // Keys first: settings that name a provider whose key isn't there yet
    // would only ask for it again.
    secrets.save(&vault)?;
    settings.save(root)?;
    Ok(())
}

fn servers_over(root: &Path, app: App, found: &Found, report: &mut Report) -> Result<(), Failure> {
    if found.servers.is_empty() {
        return Ok(());
    }
    let settings = Settings::load(root)?;
    let vault = settings.vault(root);
    let mut secrets = Secrets::load(&vault)?;
    let now = protocol::format_rfc3339(std::time::SystemTime::now());
    let mut came = Vec::new();
    let (outcome, _) = apps::file::update(root, |file| {
        for s in &found.servers {
            if file.servers.contains_key(&s.name) {
                continue;
            }
            let reach = match (&s.url, &s.command) {
                (Some(url), _) => apps::Reach::Http {
                    url: url.clone(),
                    headers: s.headers.keys().cloned().collect(),
                },
                (None, Some(command)) => apps::Reach::Stdio {
                    command: command.clone(),
                    args: s.args.clone(),
                    env: s.env.keys().cloned().collect(),
                },
                (None, None) => {
                    report.left.push(format!(
                        "The MCP server \"{}\": it names neither a program nor an address.",
                        s.name
                    ));
                    continue;
                }
            };
            if let Err(e) = apps::catalog::add(file, &s.name, reach, &now) {
                report
                    .left
                    .push(format!("The MCP server \"{}\": {e}", s.name));
                continue;
            }
            if let Some(server) = file.servers.get_mut(&s.name) {
                // Every tool starts at Ask, whatever the mode, and the
                // program runs only once the owner turns the app on.
                server.new_tools = Some(apps::Choice::Ask);
                server.off = true;
            }
            if !s.env.is_empty() || !s.headers.is_empty() {
                secrets.apps.insert(
                    s.name.clone(),
                    conversations::AppSecret {
                        env: s
                            .env
                            .iter()
                            .map(|(k, v)| (k.clone(), v.as_str().to_owned()))
                            .collect(),
                        headers: s
                            .headers
                            .iter()
                            .map(|(k, v)| (k.clone(), v.as_str().to_owned()))
                            .collect(),
                    },
                );
            }
            came.push(s);
        }
    })
    .map_err(|e| Failure(e.to_string()))?;
    let () = outcome;
    if came.is_empty() {
        return Ok(());
    }
    secrets.save(&vault)?;
    for s in came {
        let secret_words = if s.env.is_empty() && s.headers.is_empty() {
            String::new()
        } else {
            ", its tokens locked with this computer's own key".to_owned()
        };
        let runs = match (&s.url, &s.command) {
            (Some(url), _) => url.clone(),
            (None, Some(command)) => {
                let mut words = vec![command.clone()];
                words.extend(s.args.iter().cloned());
                words.join(" ")
            }
            (None, None) => String::new(),
        };
        let was_off = if s.enabled {
            String::new()
        } else {
            format!(" It was off in {}.", app.name())
        };
        report.came.push(format!(
            "The MCP server \"{}\" from {} as a connection, off until you turn it on (it will run {runs}); every tool set to Ask{secret_words}.{was_off} Turn it on with conch connections policy {} on, or in Settings → Connections.",
            s.name,
            app.name(),
            s.name,
        ));
    }
    Ok(())
}

fn memories_over(root: &Path, app: App, found: &Found, report: &mut Report) -> Result<(), Failure> {
    if found.memories.is_empty() {
        return Ok(());
    }
    let store = memory::Store::new(root);
    let mut new = 0;
    for m in &found.memories {
        let source = memory::Source::Import {
            from: format!("{} ({})", app.name(), m.file),
        };
        // Conch didn't see it being written: held until the owner looks,
        // with what the check finds in it besides.
        let mut reasons = vec![memory::Reason {
            rule: "memory.imported".to_owned(),
            says: format!(
                "it came from {}, and Conch didn't see it being written",
                app.name()
            ),
        }];
        reasons.extend(
            memory::check(&m.text, &source, true)
                .reasons()
                .into_iter()
                .filter(|r| r.rule != "memory.plain"),
        );
        match store.add(&m.text, source, &memory::Verdict::Held(reasons), None) {
            Ok(memory::Added::New(_)) => new += 1,
            Ok(memory::Added::Already(_)) => {}
            Err(memory::StoreError::Text(why)) => {
                report.left.push(format!(
                    "A memory from {} wasn't brought over: {why}",
                    m.file
                ));
            }
            Err(e) => return Err(Failure(e.to_string())),
        }
    }
    if new > 0 {
        report.came.push(format!(
            "{new} memor{}, held until you look at them on the Memories page: Conch didn't see them being written.",
            if new == 1 { "y" } else { "ies" }
        ));
    }
    Ok(())
}
