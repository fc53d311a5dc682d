//! `conch providers add|list|remove|default`: model providers. Settings go
//! in settings.json; keys in secrets.json, from standard input or an
//! environment variable, never from the command line (where other users of
//! this computer could see them in the process list).

use std::io::Read;

use clap::{Args, Subcommand};
use conversations::{Home, Secrets, Settings};
use engines::providers::{ProviderKind, ProviderSettings};

use crate::Failure;

#[derive(Subcommand)]
pub enum ProvidersCommand {
    /// Add a provider, or change one with the same name.
    Add(AddArgs),
    /// The providers there are (never their keys).
    List,
    /// Forget a provider and its key.
    Remove { name: String },
    /// Use this provider for new turns.
    Default { name: String },
}

#[derive(Args)]
pub struct AddArgs {
    name: String,
    /// openai (any OpenAI-compatible server), anthropic, or claude-code
    /// (the Claude Code program, which runs its own tools).
    #[arg(long)]
    kind: String,
    /// Default: https://api.openai.com/v1 or https://api.anthropic.com;
    /// for claude-code, Claude Code's own (it gets this as
    /// ANTHROPIC_BASE_URL).
    #[arg(long)]
    base_url: Option<String>,
    /// The model (for claude-code, Claude Code's default when left out).
    #[arg(long)]
    model: Option<String>,
    /// claude-code only: the program (default: claude on PATH).
    #[arg(long, value_name = "PATH")]
    bin: Option<String>,
    /// Read the key from standard input.
    #[arg(long, conflicts_with = "key_env")]
    key_stdin: bool,
    /// Read the key from this environment variable.
    #[arg(long, value_name = "VAR")]
    key_env: Option<String>,
    /// Tokens of chat sent at most (older turns are left out past it).
    #[arg(long, default_value_t = 100_000)]
    context_tokens: usize,
}

fn good_name(name: &str) -> bool {
    (1..=40).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

pub fn run(home: &Home, command: ProvidersCommand) -> Result<(), Failure> {
    let root = home.root();
    let mut settings = Settings::load(root)?;
    match command {
        ProvidersCommand::Add(args) => {
            if !good_name(&args.name) {
                return Err(Failure(
                    "A provider's name is 1 to 40 letters, digits, dots, dashes or underscores."
                        .into(),
                ));
            }
            let Some(kind) = ProviderKind::parse(&args.kind) else {
                return Err(Failure(format!(
                    "There's no provider kind called \"{}\". Use openai, anthropic, claude-code or codex.",
                    args.kind
                )));
            };
            let program = matches!(kind, ProviderKind::ClaudeCode | ProviderKind::Codex);
            if args.bin.is_some() && !program {
                return Err(Failure(
                    "--bin is for a provider that is a program (--kind claude-code or codex)."
                        .into(),
                ));
            }
            let model = match (args.model, program) {
                (Some(m), _) if !m.trim().is_empty() => m.trim().to_owned(),
                (_, true) => String::new(),
                (_, false) => {
                    return Err(Failure(format!(
                        "Say which model with --model (a {} provider needs one).",
                        kind.name()
                    )))
                }
            };
            let base_url = match (args.base_url, kind) {
                (Some(url), _) => url,
                (None, ProviderKind::Openai) => "https://api.openai.com/v1".to_owned(),
                (None, ProviderKind::Anthropic) => "https://api.anthropic.com".to_owned(),
                // The program's own address (and, for Codex, its own sign-in).
                (None, ProviderKind::ClaudeCode | ProviderKind::Codex) => String::new(),
            };
            match reqwest::Url::parse(&base_url) {
                Ok(u) if matches!(u.scheme(), "http" | "https") => {}
                _ if base_url.is_empty() && program => {}
                _ => {
                    return Err(Failure(format!(
                    "\"{base_url}\" isn't a web address. Give one like https://api.openai.com/v1."
                )))
                }
            }
            let key = read_key(args.key_stdin, args.key_env.as_deref())?;
            let provider = ProviderSettings {
                name: args.name.clone(),
                kind,
                base_url,
                model,
                context_tokens: args.context_tokens,
                max_tokens: 4096,
                bin: args.bin.clone().filter(|b| !b.trim().is_empty()),
            };
            let existed = settings.providers.iter().any(|p| p.name == args.name);
            settings.providers.retain(|p| p.name != args.name);
            settings.providers.push(provider);
            let first = settings.default_provider.is_none() && settings.providers.len() == 1;
            if first {
                settings.default_provider = Some(args.name.clone());
            }
            if let Some(key) = &key {
                let mut secrets = Secrets::load(&settings.vault(root))?;
                secrets.providers.insert(
                    args.name.clone(),
                    conversations::secrets::ProviderSecret { key: key.clone() },
                );
                secrets.save(&settings.vault(root))?;
            }
            settings.save(root)?;
            let verb = if existed { "Updated" } else { "Added" };
            let mut said = format!("{verb} the provider \"{}\".", args.name);
            if first {
                said.push_str(" It's the default: conch serve uses it from its next start.");
            }
            if kind == ProviderKind::Codex {
                said.push_str(&crate::doctor::codex_line(&args.name, args.bin.as_deref()));
                if key.is_none() && provider_uses_sign_in(&settings, &args.name) {
                    said.push_str(" With no base URL and no key, Codex uses your own Codex sign-in (codex login).");
                }
            } else if key.is_none() && program {
                said.push_str(" No key was stored: Claude Code will need one (an API key, or a token from claude setup-token, given with --key-stdin).");
            } else if key.is_none() {
                said.push_str(" No key was stored (fine for Ollama or llama.cpp).");
            }
            if kind == ProviderKind::ClaudeCode {
                said.push(' ');
                said.push_str(&crate::doctor::claude_code_line(&provider_bin(
                    &settings, &args.name,
                )));
            }
            println!("{said}");
        }
        ProvidersCommand::List => {
            if settings.providers.is_empty() {
                println!("No providers: Conch uses its built-in mock engine. Add one with conch providers add NAME --kind openai|anthropic|claude-code|codex --model M --key-stdin");
            }
            let secrets = Secrets::load(&settings.vault(root))?;
            let default = settings.provider().map(|p| p.name.clone());
            for p in &settings.providers {
                println!(
                    "{}\t{}\t{}\t{}\tkey: {}{}",
                    p.name,
                    p.kind.name(),
                    if p.model.is_empty() {
                        "(its default model)"
                    } else {
                        &p.model
                    },
                    if p.base_url.is_empty() {
                        "(its default address)"
                    } else {
                        &p.base_url
                    },
                    if secrets.key(&p.name).is_some() {
                        "set"
                    } else {
                        "none"
                    },
                    if default.as_deref() == Some(p.name.as_str()) {
                        "\t(default)"
                    } else {
                        ""
                    }
                );
            }
        }
        ProvidersCommand::Remove { name } => {
            if !settings.providers.iter().any(|p| p.name == name) {
                return Err(Failure(format!("There's no provider named \"{name}\".")));
            }
            settings.providers.retain(|p| p.name != name);
            if settings.default_provider.as_deref() == Some(name.as_str()) {
                settings.default_provider = settings.providers.first().map(|p| p.name.clone());
            }
            settings.save(root)?;
            let mut secrets = Secrets::load(&settings.vault(root))?;
            if secrets.providers.remove(&name).is_some() {
                secrets.save(&settings.vault(root))?;
            }
            println!("Removed the provider \"{name}\" and its key.");
        }
        ProvidersCommand::Default { name } => {
            if !settings.providers.iter().any(|p| p.name == name) {
                return Err(Failure(format!("There's no provider named \"{name}\".")));
            }
            settings.default_provider = Some(name.clone());
            settings.save(root)?;
            println!("New turns use \"{name}\" from conch serve's next start.");
        }
    }
    Ok(())
}

/// The program a provider runs (`claude` on PATH unless --bin said).
fn provider_bin(settings: &Settings, name: &str) -> std::path::PathBuf {
    engines::claude_code::launch::program(
        settings
            .providers
            .iter()
            .find(|p| p.name == name)
            .and_then(|p| p.bin.as_deref()),
    )
}

/// A Codex provider with no base URL runs on Codex's own provider.
fn provider_uses_sign_in(settings: &Settings, name: &str) -> bool {
    settings
        .providers
        .iter()
        .any(|p| p.name == name && p.base_url.is_empty())
}

fn read_key(stdin: bool, env: Option<&str>) -> Result<Option<String>, Failure> {
    if stdin {
        let mut text = String::new();
        std::io::stdin()
            .take(64 * 1024)
            .read_to_string(&mut text)
            .map_err(|e| {
                Failure(format!(
                    "The key couldn't be read from standard input: {e}."
                ))
            })?;
        let key = text.lines().next().unwrap_or("").trim().to_owned();
        if key.is_empty() {
            return Err(Failure(
                "Standard input had no key on its first line.".into(),
            ));
        }
        return Ok(Some(key));
    }
    if let Some(var) = env {
        return match std::env::var(var) {
            Ok(v) if !v.trim().is_empty() => Ok(Some(v.trim().to_owned())),
            _ => Err(Failure(format!(
                "The environment variable {var} isn't set."
            ))),
        };
    }
    Ok(None)
}
