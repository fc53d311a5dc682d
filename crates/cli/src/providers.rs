//! `conch providers add|list|remove|default`: model providers. Settings go
//! in settings.json; keys in secrets.json, from standard input or an
//! environment variable, never from the command line (where other users of
//! this computer could see them in the process list).

use std::io::Read;

use clap::{Args, Subcommand};
use conversations::providers;
use conversations::Home;

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
    /// openai (any OpenAI-compatible server) or anthropic.
    #[arg(long)]
    kind: String,
    /// Default: https://api.openai.com/v1 or https://api.anthropic.com.
    #[arg(long)]
    base_url: Option<String>,
    #[arg(long)]
    model: String,
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
            let key = read_key(args.key_stdin, args.key_env.as_deref())?;
            let stored = key.is_some();
            let added = providers::add(
                root,
                providers::NewProvider {
                    name: args.name.clone(),
                    kind: args.kind,
                    base_url: args.base_url,
                    model: args.model,
                    key,
                    context_tokens: Some(args.context_tokens),
                },
            )
            .map_err(failed)?;
            let verb = if added.existed { "Updated" } else { "Added" };
            let mut said = format!("{verb} the provider \"{}\".", args.name);
            if added.default {
                said.push_str(" It's the default: new turns use it.");
            }
            if !stored {
                said.push_str(" No key was stored (fine for Ollama or llama.cpp).");
            }
            println!("{said}");
        }
        ProvidersCommand::List => {
            let list = providers::list(root).map_err(failed)?;
            if list.is_empty() {
                println!("No providers: Conch uses its built-in mock engine. Add one with conch providers add NAME --kind openai|anthropic --model M --key-stdin");
            }
            for p in &list {
                println!(
                    "{}\t{}\t{}\t{}\tkey: {}{}",
                    p.name,
                    providers::kind_name(p.kind),
                    p.model,
                    p.base_url,
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
    }
    Ok(())
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
