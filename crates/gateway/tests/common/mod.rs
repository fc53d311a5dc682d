//! A real gateway on 127.0.0.1 with a temporary home, for the tests.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use conversations::{Chats, ChatsConfig, Durability, Home, NoTools};
use engines::MockEngine;
use gateway::{AllowedHosts, AppState};
use serde_json::Value;

pub const PASSWORD: &str = "correct horse battery";

pub struct Server {
    pub url: String,
    pub addr: std::net::SocketAddr,
    pub state: AppState,
    pub home: tempfile::TempDir,
    /// Signed in as the owner (sends the session cookie).
    pub owner: reqwest::Client,
    /// No cookies, no key.
    pub anon: reqwest::Client,
    /// The owner's session cookie (`name=value`), for raw requests.
    pub cookie: String,
    /// Stops the gateway (its listener closes; open connections finish).
    pub stop: Option<tokio::sync::oneshot::Sender<()>>,
}

pub async fn start_with(pace: Duration) -> Server {
    start_engine(Arc::new(MockEngine::new(pace)), Arc::new(NoTools)).await
}

/// Makes the guard's configuration from the test's temporary folder.
pub type GuardFor = Box<dyn FnOnce(&std::path::Path) -> conversations::GuardConfig>;

/// What a test server starts with besides its engine and tools.
#[derive(Default)]
pub struct Options {
    pub limits: gateway::Limits,
    /// `None`: nothing protected beyond Conch's folder.
    pub guard: Option<GuardFor>,
    /// An existing temporary home to serve (a restart).
    pub home: Option<tempfile::TempDir>,
}

pub async fn start_engine(
    engine: Arc<dyn engines::Engine>,
    tools: Arc<dyn conversations::ToolBox>,
) -> Server {
    start_with_options(engine, tools, Options::default()).await
}

pub async fn start_options(options: Options) -> Server {
    start_with_options(
        Arc::new(MockEngine::new(Duration::ZERO)),
        Arc::new(NoTools),
        options,
    )
    .await
}

pub async fn start_with_options(
    engine: Arc<dyn engines::Engine>,
    tools: Arc<dyn conversations::ToolBox>,
    options: Options,
) -> Server {
    let restart = options.home.is_some();
    let home = options.home.unwrap_or_else(|| tempfile::tempdir().unwrap());
    let root = home.path().join("conch");
    let conch_home = Home::open(&root).unwrap();
    let catalog = Arc::new(skills::Catalog {
        conch_home: root.clone(),
        person_home: None,
        project: None,
    });
    let chats = Chats::new(
        conch_home,
        engine,
        tools,
        ChatsConfig {
            durability: Durability::Group,
            default_work: home.path().to_path_buf(),
            default_mode: protocol::Mode::Ask,
            policies: Default::default(),
            guard: options.guard.map(|g| g(home.path())).unwrap_or_default(),
            skills: Some(catalog),
            max_steps: None,
        },
    );
    let state = AppState::new(chats, AllowedHosts::new(["conch.lan".to_string()]))
        .with_limits(options.limits);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(gateway::serve(listener, state.clone(), async move {
        let _ = stopped.await;
    }));
    if !restart {
        gateway::auth::password::set(&root, PASSWORD).unwrap();
    }
    let url = format!("http://{addr}");
    let res = reqwest::Client::new()
        .post(format!("{url}/api/session"))
        .json(&serde_json::json!({ "password": PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let cookie = res.headers()["set-cookie"].to_str().unwrap();
    let session = cookie.split(';').next().unwrap().to_owned();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        "cookie",
        session.parse::<reqwest::header::HeaderValue>().unwrap(),
    );
    let owner = reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap();
    Server {
        url,
        addr,
        state,
        home,
        owner,
        anon: reqwest::Client::new(),
        cookie: session,
        stop: Some(stop),
    }
}

pub async fn start() -> Server {
    start_with(Duration::ZERO).await
}

impl Server {
    /// `GET` a path of the API as the owner.
    pub async fn get(&self, path: impl AsRef<str>) -> reqwest::Response {
        self.owner
            .get(format!("{}{}", self.url, path.as_ref()))
            .send()
            .await
            .unwrap()
    }

    /// `GET` a path as the owner and read its JSON.
    pub async fn get_json<T: serde::de::DeserializeOwned>(&self, path: impl AsRef<str>) -> T {
        self.get(path).await.json().await.unwrap()
    }

    /// `POST` JSON to a path as the owner.
    pub async fn post(&self, path: impl AsRef<str>, body: &Value) -> reqwest::Response {
        self.owner
            .post(format!("{}{}", self.url, path.as_ref()))
            .json(body)
            .send()
            .await
            .unwrap()
    }

    /// `POST` to a path as the owner with no body.
    pub async fn post_empty(&self, path: impl AsRef<str>) -> reqwest::Response {
        self.owner
            .post(format!("{}{}", self.url, path.as_ref()))
            .send()
            .await
            .unwrap()
    }

    pub fn root(&self) -> std::path::PathBuf {
        self.home.path().join("conch")
    }

    pub async fn new_chat(&self) -> String {
        let res = self
            .owner
            .post(format!("{}/api/chats", self.url))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
        res.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

/// One server-sent event.
#[derive(Debug, Clone, Default)]
pub struct Sse {
    pub id: Option<String>,
    pub event: Option<String>,
    pub data: String,
}

/// Reads server-sent events from a streaming response.
pub struct SseReader {
    response: reqwest::Response,
    buffer: String,
}

impl SseReader {
    pub fn new(response: reqwest::Response) -> SseReader {
        SseReader {
            response,
            buffer: String::new(),
        }
    }

    pub async fn next(&mut self) -> Option<Sse> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = Sse::default();
                let mut any = false;
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id:") {
                        event.id = Some(v.trim().to_owned());
                        any = true;
                    } else if let Some(v) = line.strip_prefix("event:") {
                        event.event = Some(v.trim().to_owned());
                        any = true;
                    } else if let Some(v) = line.strip_prefix("data:") {
                        if !event.data.is_empty() {
                            event.data.push('\n');
                        }
                        event.data.push_str(v.strip_prefix(' ').unwrap_or(v));
                        any = true;
                    }
                }
                if any {
                    return Some(event);
                }
                continue;
            }
            let chunk = tokio::time::timeout(Duration::from_secs(10), self.response.chunk())
                .await
                .expect("the stream goes on")
                .ok()??;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Stored events until one of type `kind`, inclusive.
    pub async fn until(&mut self, kind: &str) -> (Vec<Value>, Vec<Sse>) {
        let mut stored = Vec::new();
        let mut deltas = Vec::new();
        while let Some(event) = self.next().await {
            if event.event.as_deref() == Some("delta") {
                deltas.push(event);
                continue;
            }
            let value: Value = serde_json::from_str(&event.data).unwrap();
            assert_eq!(event.id.as_deref(), Some(value["seq"].to_string().as_str()));
            let done = value["type"] == kind;
            stored.push(value);
            if done {
                break;
            }
        }
        (stored, deltas)
    }
}
