//! `conch apps relay NAME --work DIR`: one of the owner's apps, as an MCP
//! server on standard input and output, for a native engine (Claude Code)
//! that takes MCP servers rather than tools. It runs the app the way Conch
//! does (its environment scrubbed, in the box where commands are sealed,
//! its roots the work folder) and offers only the tools that are on, by
//! the names engines know them by (`mcp__NAME__TOOL` once the engine
//! prefixes them). The engine's calls pass its hook, and so the guard,
//! before they reach here; a tool that isn't on is refused here too.

use std::path::PathBuf;
use std::sync::Arc;

use apps::{Apps, Standing};
use clap::Args;
use conversations::settings::Settings;
use conversations::Home;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};

use crate::Failure;

#[derive(Args)]
pub struct RelayArgs {
    name: String,
    /// The chat's work folder: the app's roots, and where it starts.
    #[arg(long)]
    work: PathBuf,
    /// The person's home folder: the engine that starts the relay gives it
    /// a HOME of its own, and the box must hide the person's keys.
    #[arg(long)]
    person_home: Option<PathBuf>,
}

struct Relay {
    apps: Arc<Apps>,
    name: String,
    work: PathBuf,
}

impl Relay {
    /// The app's tools that are on, as engines are told of them.
    fn offered(&self) -> Vec<Tool> {
        let prefix = format!("mcp__{}__", self.name);
        self.apps
            .specs()
            .into_iter()
            .filter_map(|spec| {
                let short = spec.name.strip_prefix(&prefix)?.to_owned();
                let schema = match spec.schema {
                    serde_json::Value::Object(map) => map,
                    _ => serde_json::Map::new(),
                };
                Some(Tool::new(short, spec.description, Arc::new(schema)))
            })
            .collect()
    }
}

impl ServerHandler for Relay {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.offered()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let engine_name = format!("mcp__{}__{}", self.name, request.name);
        let on = self
            .apps
            .find(&engine_name)
            .is_some_and(|f| f.standing == Standing::On);
        let result = if on {
            let input = serde_json::Value::Object(request.arguments.unwrap_or_default());
            let out = self
                .apps
                .call(&engine_name, &input, &self.work, &tools::Cancel::default())
                .await;
            let block = ContentBlock::text(out.output);
            if out.ok {
                CallToolResult::success(vec![block])
            } else {
                CallToolResult::error(vec![block])
            }
        } else {
            CallToolResult::error(vec![ContentBlock::text(format!(
                "{}.{} isn't on, so it didn't run.",
                self.name, request.name
            ))])
        };
        Ok(result.into())
    }
}

pub fn run(home: &Home, args: RelayArgs) -> Result<(), Failure> {
    let root = home.root().to_path_buf();
    let settings = Settings::load(&root)?;
    let work = args.work.canonicalize().map_err(|e| {
        Failure(format!(
            "The work folder {} can't be used: {e}.",
            args.work.display()
        ))
    })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let person = args
        .person_home
        .clone()
        .or_else(|| std::env::var_os("HOME").map(PathBuf::from));
    runtime.block_on(async move {
        let seal = relay_seal(home, &settings, person.as_deref());
        let sealing_on = Arc::new(std::sync::atomic::AtomicBool::new(
            settings.safety.sealed_commands,
        ));
        let mut config = crate::apps_cmd::config(&root, &settings, &work, seal, Some(sealing_on));
        config.launch.home = person.clone();
        config.only = Some(args.name.clone());
        let apps = Apps::start(config);
        apps.settled(apps::conn::CONNECT_WITHIN).await;
        let relay = Relay {
            apps: apps.clone(),
            name: args.name,
            work,
        };
        let running = relay
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Failure(format!("The relay couldn't start: {e}.")))?;
        let _ = running.waiting().await;
        apps.shutdown().await;
        Ok(())
    })
}

/// The box for the app's server, hiding the person's keys (found from their
/// home folder, not the engine's), where this computer can seal.
fn relay_seal(
    home: &Home,
    settings: &Settings,
    person: Option<&std::path::Path>,
) -> Option<Arc<seal::Sealed>> {
    let probed = seal::remembered(home.root());
    if !matches!(probed.support, seal::Support::Ready) {
        return None;
    }
    let person_str = person.map(|p| p.to_string_lossy().into_owned());
    let protected = tools::protected::here_for(home.root(), person_str.as_deref());
    seal::Sealed::new(home.root(), protected)
        .map(|mut s| {
            s.env_names = settings.seal_env.clone();
            s.observe = probed.observes;
            if let Some(p) = person {
                s.person_home = Some(p.to_path_buf());
            }
            Arc::new(s)
        })
        .ok()
}
