//! The assistant's own tools, and what each call does, classified once.
//!
//! Looking around: `read_file`, `list_files`, `search_files`. Changing files:
//! `write_file`, `edit_file`. Reading the web: `web_fetch`, and `web_search`
//! when a SearXNG instance is configured. Commands: `run_command`.

pub mod binding;
mod classify;
mod command;
mod fetch;
mod files;
pub mod html;
pub mod native;
pub mod paths;
pub mod protected;
pub mod runs_later;
mod search;
pub use protocol::shell;
mod spec;
mod toolbox;
mod use_skill;

use std::path::Path;

use protocol::{Action, ToolSpec};

pub use classify::page_url;
pub use command::CommandConfig;
pub use fetch::FetchConfig;
pub use toolbox::{
    no_such_tool, AppTool, BoxFuture, Cancel, NoTools, Outcome, RunContext, ToolBox, ToolCall,
};

#[derive(Debug, Clone, Default)]
pub struct ToolsConfig {
    /// A SearXNG instance's address; `web_search` is offered only with one.
    pub searxng_url: Option<String>,
    pub command: CommandConfig,
    pub fetch: FetchConfig,
    /// Sealing, when this computer can and Safety → Seal commands is on:
    /// every command runs in the box unless it asks to leave it.
    pub seal: Option<std::sync::Arc<seal::Sealed>>,
    /// The skills the assistant can load with `use_skill`.
    pub skills: Option<std::sync::Arc<skills::Catalog>>,
    /// Safety → Seal commands, switched live (absent: on whenever `seal` is).
    pub sealing_on: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// The standard tools.
pub struct Tools {
    config: ToolsConfig,
    classifier: classify::Classifier,
    fetcher: fetch::Fetcher,
    search_client: reqwest::Client,
}

impl Tools {
    pub fn new(config: ToolsConfig) -> Tools {
        Tools {
            classifier: classify::Classifier {
                search: config.searxng_url.is_some(),
                skills: config.skills.is_some(),
                // Where commands can't be sealed, every command runs unsealed
                // and asks as ADR 0028 ("And commands everywhere") says.
                sealing: config.seal.is_some(),
                sealing_on: config.sealing_on.clone(),
            },
            fetcher: fetch::Fetcher::new(config.fetch.clone()),
            search_client: reqwest::Client::builder()
                .timeout(config.fetch.timeout)
                .no_proxy()
                .build()
                .unwrap_or_default(),
            config,
        }
    }
}

impl ToolBox for Tools {
    fn sealed(&self) -> Option<std::sync::Arc<seal::Sealed>> {
        let on = self
            .config
            .sealing_on
            .as_ref()
            .is_none_or(|on| on.load(std::sync::atomic::Ordering::SeqCst));
        self.config.seal.clone().filter(|_| on)
    }

    fn specs(&self) -> Vec<ToolSpec> {
        let mut all = spec::specs(self.config.searxng_url.is_some());
        if self.config.skills.is_some() {
            all.push(spec::use_skill());
        }
        all
    }

    fn classify(&self, call: &ToolCall, work: &Path) -> Result<Action, String> {
        self.classifier.classify(call, work)
    }

    fn run<'a>(
        &'a self,
        call: &'a ToolCall,
        action: &'a Action,
        ctx: &'a RunContext,
    ) -> BoxFuture<'a, Outcome> {
        Box::pin(async move {
            use classify::*;
            match (call.name.as_str(), action) {
                ("read_file" | "list_files" | "search_files" | "write_file" | "edit_file", _) => {
                    // File work blocks: it runs off the async threads, so a
                    // search of a big tree doesn't hold up other chats.
                    let (call, action) = (call.clone(), action.clone());
                    let (work, protected) = (ctx.work.clone(), ctx.protected.clone());
                    tokio::task::spawn_blocking(move || {
                        file_tool(&call, &action, &work, &protected)
                    })
                    .await
                    .unwrap_or_else(|_| Outcome::failed("The file tool stopped unexpectedly."))
                }
                ("web_fetch", Action::PageRead { url, .. }) => match page_url(url) {
                    Ok(u) => self.fetcher.fetch(u, &ctx.cancel).await,
                    Err(e) => Outcome::failed(e),
                },
                ("web_search", Action::Search { query }) => match &self.config.searxng_url {
                    Some(base) => {
                        search::search(&self.search_client, base, query, &ctx.cancel).await
                    }
                    None => Outcome::failed(no_such_tool("web_search")),
                },
                (
                    "run_command",
                    Action::Command {
                        command, unsealed, ..
                    },
                ) => {
                    let seal = if *unsealed {
                        None
                    } else {
                        self.config.seal.as_deref()
                    };
                    command::run(
                        command,
                        &ctx.work,
                        &self.config.command,
                        &ctx.cancel,
                        seal,
                        ctx.masker.as_deref(),
                    )
                    .await
                }
                ("use_skill", Action::UseSkill { skill }) => match &self.config.skills {
                    Some(catalog) => use_skill::run(catalog, skill, call),
                    None => Outcome::failed(no_such_tool("use_skill")),
                },
                (name, _) => Outcome::failed(no_such_tool(name)),
            }
        })
    }
}

/// The file tools, run as classified.
fn file_tool(
    call: &ToolCall,
    action: &Action,
    work: &Path,
    protected: &guard::Protected,
) -> Outcome {
    use classify::*;
    let first = |a: &Action| -> std::path::PathBuf {
        match a {
            Action::LookAround { paths } => paths.first().map(Into::into).unwrap_or_default(),
            Action::FileChange { path, .. } => path.into(),
            _ => std::path::PathBuf::new(),
        }
    };
    match (call.name.as_str(), action) {
        ("read_file", Action::LookAround { .. }) => files::read_file(&first(action), protected),
        ("list_files", Action::LookAround { .. }) => files::list_files(&first(action), protected),
        ("search_files", Action::LookAround { .. }) => {
            match input::<SearchInput>(call, TAKES_SEARCH) {
                Ok(i) => files::search_files(&i.pattern, &first(action), work, protected),
                Err(e) => Outcome::failed(e),
            }
        }
        ("write_file", Action::FileChange { path, .. }) => {
            match input::<WriteInput>(call, TAKES_WRITE) {
                Ok(i) => files::write_file(Path::new(path), &i.content, protected),
                Err(e) => Outcome::failed(e),
            }
        }
        ("edit_file", Action::FileChange { path, .. }) => {
            match input::<EditInput>(call, TAKES_EDIT) {
                Ok(i) => files::edit_file(Path::new(path), &i.old, &i.new, protected),
                Err(e) => Outcome::failed(e),
            }
        }
        (name, _) => Outcome::failed(no_such_tool(name)),
    }
}
