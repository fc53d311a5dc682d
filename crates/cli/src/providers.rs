//! `conch providers add|list|remove|default`: model providers. Settings go
//! in settings.json; keys in secrets.json, from standard input or an
//! environment variable, never from the command line (where other users of
//! this computer could see them in the process list).

use std::io::Read;

use clap::{Args, Subcommand};
use conversations::providers;
use conversations::settings::Settings;
use conversations::Home;
use engines::providers::ProviderKind;

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
    /// The spending caps: show them, or set them (--day, --chat,
    /// --routine, --currency, --off).
    Cap(crate::spending_cmd::CapArgs),
    /// A provider's prices per million tokens, or no cap for it.
    Price(crate::spending_cmd::PriceArgs),
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

pub fn run(home: &Home, command: ProvidersCommand) -> Result<(), Failure> {
    let root = home.root();
    let failed = |e: providers::ProviderError| Failure(e.to_string());
    match command {
        ProvidersCommand::Add(args) => {
            // The words name the flags; the rules themselves are
            // providers::add's, the same as Settings → Models.
            let kind = ProviderKind::parse(&args.kind);
            let program = kind.is_some_and(providers::is_program);
            if args.bin.is_some() && kind.is_some() && !program {
                return Err(Failure(
                    "--bin is for a provider that is a program (--kind claude-code or codex)."
                        .into(),
                ));
            }
            if let (Some(kind), false) = (kind, program) {
                if args.model.as_deref().is_none_or(|m| m.trim().is_empty()) {
                    return Err(Failure(format!(
                        "Say which model with --model (a {} provider needs one).",
                        kind.name()
                    )));
                }
            }
            let key = read_key(args.key_stdin, args.key_env.as_deref())?;
            let stored = key.is_some();
            let added = providers::add(
                root,
                providers::NewProvider {
                    name: args.name.clone(),
                    kind: args.kind,
                    base_url: args.base_url,
                    model: args.model.unwrap_or_default(),
                    bin: args.bin.clone(),
                    key,
                    context_tokens: Some(args.context_tokens),
                },
            )
            .map_err(failed)?;
            let settings = Settings::load(root)?;
            let kind = kind.unwrap_or(ProviderKind::Openai);
            let verb = if added.existed { "Updated" } else { "Added" };
            let mut said = format!("{verb} the provider \"{}\".", args.name);
            if added.default {
                said.push_str(" It's the default: new turns use it.");
            }
            if kind == ProviderKind::Codex {
                said.push_str(&crate::doctor::codex_line(&args.name, args.bin.as_deref()));
                if !stored && provider_uses_sign_in(&settings, &args.name) {
                    said.push_str(" With no base URL and no key, Codex uses your own Codex sign-in (codex login).");
                }
            } else if !stored && program {
                said.push_str(" No key was stored: Claude Code will need one (an API key, or a token from claude setup-token, given with --key-stdin).");
            } else if !stored {
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
            let list = providers::list(root).map_err(failed)?;
            if list.is_empty() {
                println!("No providers: Conch uses its built-in mock engine. Add one with conch providers add NAME --kind openai|anthropic|claude-code|codex --model M --key-stdin");
            }
            for p in &list {
                println!(
                    "{}\t{}\t{}\t{}\tkey: {}{}",
                    p.name,
                    providers::kind_name(p.kind),
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
                    if p.has_key { "set" } else { "none" },
                    if p.default { "\t(default)" } else { "" }
                );
            }
        }
        ProvidersCommand::Remove { name } => {
            providers::remove(root, &name).map_err(failed)?;
            println!("Removed the provider \"{name}\" and its key.");
        }
        ProvidersCommand::Default { name } => {
            providers::set_default(root, &name).map_err(failed)?;
            println!("New turns use \"{name}\", unless a chat picked another.");
        }
        ProvidersCommand::Cap(args) => crate::spending_cmd::cap(home, args)?,
        ProvidersCommand::Price(args) => crate::spending_cmd::price(home, args)?,
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
