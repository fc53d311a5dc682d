//! One live connection to a server, through rmcp.
//!
//! - **Lifecycle**: the current one, probed first (`server/discover`,
//!   2026-07-28), falling back at once to `initialize` for a server that
//!   answers it doesn't know the method (every server on an earlier
//!   version).
//! - **Conch as a client** declares the least: for a stdio server, the
//!   roots capability, answered with the one work folder the connection
//!   serves (a server like `server-filesystem` replaces the folders it was
//!   started with by the client's roots, so Conch never names more); for a
//!   server over the web, no roots at all (its paths mean nothing there).
//!   It takes no sampling (a server can't use the owner's model) and turns
//!   down every elicitation (a server can't ask the owner things through
//!   Conch). A server's `instructions` are never read: they would be a
//!   stranger's words promoted to the assistant's.
//! - **Tools** are listed page by page (at most [`MAX_PAGES`] pages,
//!   [`MAX_TOOLS`] tools: a server can't keep Conch listing forever), with
//!   rmcp's response cache off, so a list is always the server's answer
//!   now. `notifications/tools/list_changed` asks for a new list; on a
//!   2026-07-28 connection, through a `subscriptions/listen` stream.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, Implementation, InitializeRequestParams,
    PaginatedRequestParams, ProtocolVersion,
};
use rmcp::service::{Peer, RequestContext, RoleClient};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt};
use serde_json::Value;
use tokio::sync::{mpsc, watch};

use crate::file::Reach;
use crate::listed::{self, Listed};
use crate::spawn::{self, Launch, Tail};

pub const MAX_PAGES: usize = 100;
pub const MAX_TOOLS: usize = 1000;

/// The longest stdio lines (one JSON-RPC message) Conch reads.
const MAX_LINE: usize = 8 * 1024 * 1024;

/// The values of what an app's configuration names (from secrets.json).
#[derive(Clone, Default)]
pub struct Secrets {
    pub env: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = |v: &[(String, String)]| v.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
        f.debug_struct("Secrets")
            .field("env", &names(&self.env))
            .field("headers", &names(&self.headers))
            .finish()
    }
}

/// Conch's side of the protocol.
#[derive(Clone)]
struct ConchClient {
    roots: Option<PathBuf>,
    relist: mpsc::UnboundedSender<()>,
}

#[allow(deprecated)] // Roots: deprecated by SEP-2577, still what stdio servers read.
impl ClientHandler for ConchClient {
    fn get_info(&self) -> InitializeRequestParams {
        let mut capabilities = ClientCapabilities::default();
        if self.roots.is_some() {
            capabilities.roots = Some(rmcp::model::RootsCapabilities::default());
        }
        InitializeRequestParams::new(
            capabilities,
            Implementation::new("conch", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        let roots = self
            .roots
            .iter()
            .map(|work| {
                let mut root = rmcp::model::Root::new(file_uri(work));
                root.name = Some("the chat's work folder".to_owned());
                root
            })
            .collect();
        Ok(rmcp::model::ListRootsResult::new(roots))
    }

    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        let _ = self.relist.send(());
    }
}

/// `file://` and the path, percent-encoded where a URI needs it.
pub fn file_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A live connection.
pub struct Conn {
    peer: Peer<RoleClient>,
    stop: Option<rmcp::service::RunningServiceCancellationToken>,
    closed: watch::Receiver<bool>,
    /// The process, for a stdio server (ended with the connection).
    child: Option<spawn::Child>,
    tail: Tail,
    /// The protocol version agreed.
    pub protocol: String,
    /// The server's own name and version, as it says.
    pub server: Option<String>,
    /// The work folder it was started for (stdio).
    pub work: Option<PathBuf>,
    listen: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.cancel();
        }
        if let Some(l) = self.listen.take() {
            l.abort();
        }
    }
}

/// How long connecting may take: a server started with `npx` may be
/// downloaded first.
pub const CONNECT_WITHIN: Duration = Duration::from_secs(120);

fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::LATEST],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

impl Conn {
    /// Connects to a server reached by `reach`, with its `secrets`; a stdio
    /// one is started in `work`. A new list of tools is wanted whenever
    /// `relist` gets a message.
    pub async fn open(
        reach: &Reach,
        secrets: &Secrets,
        launch: &Launch,
        work: &Path,
        relist: mpsc::UnboundedSender<()>,
    ) -> Result<Conn, String> {
        let (service, child, tail, roots) = match reach {
            Reach::Stdio { command, args, .. } => {
                let (child, out, inp) = spawn::start(launch, command, args, &secrets.env, work)?;
                let tail = child.tail.clone();
                let client = ConchClient {
                    roots: Some(work.to_path_buf()),
                    relist: relist.clone(),
                };
                let transport = rmcp::transport::async_rw::AsyncRwTransport::new_client(out, inp)
                    .with_max_line_length(MAX_LINE);
                let served = tokio::time::timeout(
                    CONNECT_WITHIN,
                    client.serve_with_lifecycle(transport, lifecycle()),
                )
                .await;
                let service = match served {
                    Ok(Ok(s)) => s,
                    Ok(Err(e)) => {
                        // Give its last words a moment to arrive.
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        return Err(format!(
                            "it didn't start speaking MCP ({e}).{}",
                            tail.said()
                        ));
                    }
                    Err(_) => {
                        return Err(format!(
                            "it didn't answer within {} seconds.{}",
                            CONNECT_WITHIN.as_secs(),
                            tail.said()
                        ))
                    }
                };
                (service, Some(child), tail, Some(work.to_path_buf()))
            }
            Reach::Http { url, .. } => {
                let transport = crate::http::transport(url, &secrets.headers)?;
                let client = ConchClient {
                    roots: None,
                    relist: relist.clone(),
                };
                let served = tokio::time::timeout(
                    CONNECT_WITHIN,
                    client.serve_with_lifecycle(transport, lifecycle()),
                )
                .await;
                let service = match served {
                    Ok(Ok(s)) => s,
                    Ok(Err(e)) => return Err(format!("it couldn't be reached ({e})")),
                    Err(_) => {
                        return Err(format!(
                            "it didn't answer within {} seconds",
                            CONNECT_WITHIN.as_secs()
                        ))
                    }
                };
                (service, None, Tail::default(), None)
            }
        };
        let peer = service.peer().clone();
        peer.set_response_cache_config(rmcp::ClientCacheConfig::disabled())
            .await;
        let info = peer.peer_info();
        let protocol = info
            .as_ref()
            .map(|i| i.protocol_version.to_string())
            .unwrap_or_default();
        let server = info.as_ref().and_then(|i| {
            i.server_info
                .as_ref()
                .map(|s| format!("{} {}", s.name, s.version))
        });
        let modern = info
            .as_ref()
            .is_some_and(|i| !i.protocol_version.has_initialize());
        let stop = service.cancellation_token();
        let (closed_tx, closed) = watch::channel(false);
        tokio::spawn(async move {
            let _ = service.waiting().await;
            let _ = closed_tx.send(true);
        });
        // On the current protocol, list changes come on a stream Conch
        // asks for.
        let listen = modern.then(|| {
            let peer = peer.clone();
            let relist = relist.clone();
            tokio::spawn(async move {
                let filter = rmcp::model::SubscriptionFilter::builder()
                    .tools_list_changed()
                    .build();
                if let Ok(mut sub) = peer.listen(filter).await {
                    while let Ok(Some(_)) = sub.next().await {
                        let _ = relist.send(());
                    }
                }
            })
        });
        Ok(Conn {
            peer,
            stop: Some(stop),
            closed,
            child,
            tail,
            protocol,
            server,
            work: roots,
            listen,
        })
    }

    /// Whether it was sealed in the box.
    pub fn sealed(&self) -> bool {
        self.child.as_ref().is_some_and(|c| c.sealed)
    }

    pub fn is_closed(&self) -> bool {
        *self.closed.borrow() || self.peer.is_transport_closed()
    }

    /// Resolves once the connection has ended.
    pub async fn ended(&self) {
        let mut closed = self.closed.clone();
        while !*closed.borrow() {
            if closed.changed().await.is_err() {
                return;
            }
        }
    }

    /// Why it ended, in the server's own last words when it said any.
    pub fn last_words(&self) -> String {
        self.tail.said()
    }

    /// Every tool it lists now.
    pub async fn list(&self) -> Result<Vec<(String, Listed)>, String> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen_cursors = std::collections::HashSet::new();
        for _ in 0..MAX_PAGES {
            let mut params = PaginatedRequestParams::default();
            params.cursor = cursor.clone();
            let page =
                tokio::time::timeout(Duration::from_secs(60), self.peer.list_tools(Some(params)))
                    .await
                    .map_err(|_| "it didn't list its tools within a minute".to_owned())?
                    .map_err(|e| format!("it couldn't list its tools ({e})"))?;
            for tool in &page.tools {
                if out.len() >= MAX_TOOLS {
                    return Ok(out);
                }
                out.push(listed::from_mcp(tool));
            }
            match page.next_cursor {
                // A cursor seen before would list forever.
                Some(next) if seen_cursors.insert(next.clone()) => cursor = Some(next),
                _ => return Ok(out),
            }
        }
        Ok(out)
    }

    /// Calls `tool` with `arguments`; its result as it came on the wire.
    /// Gives up after `within`.
    pub async fn call(
        &self,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
        within: Duration,
    ) -> Result<Value, String> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = Some(arguments);
        match tokio::time::timeout(within, self.peer.call_tool(params)).await {
            Err(_) => Err(format!(
                "it didn't answer within {} seconds",
                within.as_secs()
            )),
            Ok(Err(e)) => Err(match e {
                rmcp::ServiceError::McpError(data) => format!(
                    "it said: {}",
                    data.message.chars().take(2000).collect::<String>()
                ),
                other => format!("the call failed ({other}){}", self.tail.said()),
            }),
            Ok(Ok(result)) => Ok(serde_json::to_value(&result).unwrap_or(Value::Null)),
        }
    }
}
