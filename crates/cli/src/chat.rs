//! `conch chat "message" [--chat ID] [--mode M] [--work DIR]`: one turn from the terminal,
//! against the running gateway. The reply streams to standard output; a
//! question is asked here, and answered here.
//!
//! It signs in with `CONCH_KEY` when set; otherwise it makes an access key
//! for itself (it runs as the owner of Conch's folder) and revokes it when it
//! ends.

use std::io::{BufRead, Write};

use clap::Args;
use conversations::Home;
use engines::providers::sse::SseParser;
use gateway::auth::keys;
use serde_json::{json, Value};

use crate::Failure;

#[derive(Args)]
pub struct ChatArgs {
    /// What to say.
    message: String,
    /// Continue this chat (default: a new one).
    #[arg(long)]
    chat: Option<String>,
    /// ask, edits, auto or full.
    #[arg(long)]
    mode: Option<String>,
    /// The new chat's work folder (default: the gateway's).
    #[arg(long, value_name = "DIR")]
    work: Option<std::path::PathBuf>,
    /// Where Conch is running (default: the Conch serving this folder,
    /// else http://127.0.0.1:7777).
    #[arg(long, env = "CONCH_URL")]
    url: Option<String>,
}

/// A key made for this run, revoked when it ends, however it ends.
pub(crate) struct OwnKey {
    pub home: std::path::PathBuf,
    pub id: String,
}

impl Drop for OwnKey {
    fn drop(&mut self) {
        let _ = keys::revoke(&self.home, &self.id);
    }
}

/// `CONCH_KEY` when set; otherwise a key made now for this run (named
/// `what` and the process id), revoked when the [`OwnKey`] goes.
pub(crate) fn key_for(home: &Home, what: &str) -> Result<(String, Option<OwnKey>), Failure> {
    if let Ok(k) = std::env::var("CONCH_KEY") {
        if !k.trim().is_empty() {
            return Ok((k.trim().to_owned(), None));
        }
    }
    let name = format!("{what} {}", std::process::id());
    let (record, secret) = keys::create(home.root(), &name)?;
    let own = OwnKey {
        home: home.root().to_path_buf(),
        id: record.id,
    };
    Ok((secret, Some(own)))
}

pub fn run(home: &Home, args: ChatArgs) -> Result<(), Failure> {
    let (key, _own) = key_for(home, "conch chat")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure(format!("Conch couldn't start its runtime: {e}.")))?;
    let url = crate::served::choose(args.url.clone(), home);
    runtime.block_on(talk(args, url, key))
}

pub(crate) struct Client {
    pub http: reqwest::Client,
    pub url: String,
    pub key: String,
}

impl Client {
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, Failure> {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.url))
            .bearer_auth(&self.key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.map_err(|e| self.unreachable(e))?;
        let status = response.status();
        let value: Value = response.json().await.unwrap_or(Value::Null);
        if !status.is_success() {
            let sentence = value["error"]
                .as_str()
                .unwrap_or("The gateway refused the request.");
            return Err(Failure(sentence.to_owned()));
        }
        Ok(value)
    }

    fn unreachable(&self, e: reqwest::Error) -> Failure {
        Failure(format!(
            "Conch isn't answering at {} ({e}). Start it with conch serve, or point --url at it.",
            self.url
        ))
    }
}

async fn talk(args: ChatArgs, url: String, key: String) -> Result<(), Failure> {
    let client = Client {
        http: reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap_or_default(),
        url,
        key,
    };
    let id = match &args.chat {
        Some(id) => {
            if let Some(mode) = &args.mode {
                client
                    .call(
                        reqwest::Method::POST,
                        &format!("/api/chats/{id}/mode"),
                        Some(json!({ "mode": mode })),
                    )
                    .await?;
            }
            id.clone()
        }
        None => {
            let mut body = json!({});
            if let Some(mode) = &args.mode {
                body["mode"] = json!(mode);
            }
            if let Some(work) = &args.work {
                // The gateway resolves links and `..`; a relative folder is
                // this terminal's.
                let work = std::path::absolute(work)?;
                body["work"] = json!(work.to_string_lossy());
            }
            let made = client
                .call(reqwest::Method::POST, "/api/chats", Some(body))
                .await?;
            made["id"].as_str().unwrap_or_default().to_owned()
        }
    };
    let shown = client
        .call(reqwest::Method::GET, &format!("/api/chats/{id}"), None)
        .await?;
    let after = shown["lastSeq"].as_u64().unwrap_or(0);
    let mut stream = client
        .http
        .get(format!(
            "{}/api/chats/{id}/stream?after={after}",
            client.url
        ))
        .bearer_auth(&client.key)
        .send()
        .await
        .map_err(|e| client.unreachable(e))?;
    let posted = client
        .call(
            reqwest::Method::POST,
            &format!("/api/chats/{id}/messages"),
            Some(json!({ "text": args.message })),
        )
        .await?;
    let mine = posted["seq"].as_u64().unwrap_or(0);
    let mut parser = SseParser::default();
    let mut turn: Option<u64> = None;
    let mut out = std::io::stdout();
    let result = loop {
        let chunk = stream
            .chunk()
            .await
            .map_err(|e| Failure(format!("The connection to Conch broke: {e}.")))?;
        let Some(bytes) = chunk else {
            break Err(Failure(
                "Conch closed the stream before the turn ended.".into(),
            ));
        };
        let mut ended = None;
        for event in parser.feed(&bytes) {
            let value: Value = serde_json::from_str(&event.data).unwrap_or(Value::Null);
            if event.event.as_deref() == Some("delta") {
                if turn.is_some() && value["turn"].as_u64() == turn {
                    print!("{}", value["text"].as_str().unwrap_or(""));
                    let _ = out.flush();
                }
                continue;
            }
            let seq = value["seq"].as_u64().unwrap_or(0);
            match value["type"].as_str().unwrap_or("") {
                "turn.started" if turn.is_none() && seq > mine => turn = Some(seq),
                "tool.called" if value["turn"].as_u64() == turn => {
                    eprintln!(
                        "\n→ {} {}",
                        value["tool"].as_str().unwrap_or(""),
                        value["input"]
                    );
                }
                "tool.finished" if value["turn"].as_u64() == turn => {
                    let first = value["output"]
                        .as_str()
                        .unwrap_or("")
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_owned();
                    let mark = if value["ok"] == true { "✓" } else { "✗" };
                    eprintln!("{mark} {}", first.chars().take(120).collect::<String>());
                }
                "reply" if value["turn"].as_u64() == turn => println!(),
                "permission.requested" if value["turn"].as_u64() == turn => {
                    let answer = ask_here(&value).await?;
                    client
                        .call(
                            reqwest::Method::POST,
                            &format!(
                                "/api/chats/{id}/permissions/{}",
                                value["ask"].as_str().unwrap_or("")
                            ),
                            Some(json!({ "answer": answer })),
                        )
                        .await?;
                }
                "turn.ended" if value["turn"].as_u64() == turn => ended = Some(value),
                _ => {}
            }
        }
        if let Some(value) = ended {
            break match value["reason"].as_str() {
                Some("done") => Ok(()),
                Some("stopped") => Err(Failure("The turn was stopped.".into())),
                _ => Err(Failure(
                    value["error"]
                        .as_str()
                        .unwrap_or("The turn ended with an error.")
                        .to_owned(),
                )),
            };
        }
    };
    eprintln!("(chat {id}: continue it with --chat {id})");
    result
}

/// Shows the question and reads the answer from the terminal.
async fn ask_here(asked: &Value) -> Result<&'static str, Failure> {
    let question = asked["question"]
        .as_str()
        .unwrap_or("Can I go ahead?")
        .to_owned();
    let note = asked["note"].as_str().map(str::to_owned);
    let always = asked["always"].is_array();
    tokio::task::spawn_blocking(move || {
        let mut err = std::io::stderr();
        let _ = writeln!(err, "\n{question}");
        if let Some(note) = note {
            let _ = writeln!(err, "{note}");
        }
        let choices = if always {
            "[o]nce, [a]lways for this chat, [d]eny"
        } else {
            "[o]nce, [d]eny"
        };
        loop {
            let _ = write!(err, "{choices}: ");
            let _ = err.flush();
            let mut line = String::new();
            if std::io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 {
                return "deny";
            }
            match line.trim().to_lowercase().as_str() {
                "o" | "once" | "y" | "yes" => return "once",
                "a" | "always" if always => return "always",
                "d" | "deny" | "n" | "no" => return "deny",
                _ => {}
            }
        }
    })
    .await
    .map_err(|_| Failure("The question couldn't be asked.".into()))
}
