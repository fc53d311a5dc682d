//! One Codex turn: a fresh `codex app-server` for the chat's Codex folder,
//! the chat's thread started or resumed, `turn/start`, and then what Codex
//! says streamed into the gate in the order it says it, until the turn
//! completes or Stop ends it. Its approval questions are answered through
//! the same gate (`ask`), and its PreToolUse hook through [`super::hook`].

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::watch;

use super::calls;
use super::home::{ChatHome, Model, DISABLED, KEY_VAR};
use super::policy::{plan, Plan};
use super::rpc::{failed, Incoming, Rpc, Stderr};
use super::CodexEngine;
use crate::engine::EngineError;
use crate::native::{Gate, NativeCall, NativeEvent, NativeTurn, Verdict};

/// What the chat is told, once, when its apps weren't offered to Codex
/// in the box.
pub const NO_APPS_NOTE: &str = "Your connections (MCP servers) aren't offered to Codex yet while it runs in Conch's box. Use another engine for them, or turn off Run engines in the box in Settings → Security.";

/// What the chat is told, once, when Codex first runs tighter in it.
pub const TIGHT_NOTE: &str = "This chat read something from outside, or is held to a skill that runs no commands, so Codex works here in its sandbox: it changes files only in the work folder, and its commands have no network.";

/// What the hook, the approval answers and the event loop share.
pub struct Shared {
    pub gate: Arc<dyn Gate>,
    /// The turn's commands run in Codex's sandbox.
    pub sandboxed: bool,
    /// Where the turn's calls run.
    pub at: calls::At,
    /// The turn runs tighter (no network, nothing may leave the sandbox).
    pub tight: bool,
    /// Codex's policy asks about a command only when it may leave the
    /// sandbox (`on-request`).
    pub asks_only_to_leave: bool,
    state: Mutex<State>,
    /// Reports go out one at a time, in the order they were made.
    order: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct State {
    /// What Conch already said about a call at the hook (true: it runs).
    decided: HashMap<String, bool>,
    /// Calls reported as called, and as finished.
    called: HashSet<String>,
    finished: HashSet<String>,
    /// Every call seen, by id, however it was seen first.
    calls: HashMap<String, NativeCall>,
    /// Reply text already streamed, by message item.
    streamed: HashMap<String, usize>,
    /// Some reply text was reported this turn.
    spoke: bool,
    /// Codex's own record of the thread (its rollout file).
    rollout: Option<PathBuf>,
    /// How many times text was typed into a running command.
    typed: usize,
    /// Codex's own list of what each file change will change, from its
    /// items: what an approval is checked against.
    codex_changes: HashMap<String, Vec<String>>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A call the gate has already seen (and logged) at the hook.
    pub fn seen(&self, call: &NativeCall) {
        let mut s = self.lock();
        s.calls
            .entry(call.id.clone())
            .or_insert_with(|| call.clone());
        s.called.insert(call.id.clone());
    }

    pub fn decided(&self, id: &str, runs: bool) {
        self.lock().decided.insert(id.to_owned(), runs);
    }

    /// The model asked for this call to run outside the sandbox.
    pub fn escalated(&self, id: &str) -> bool {
        self.lock()
            .calls
            .get(id)
            .is_some_and(|c| c.input["escalated"] == true)
    }

    async fn report(&self, event: NativeEvent) {
        let _one = self.order.lock().await;
        self.gate.report(event).await;
    }

    /// Reports a call once.
    async fn called(&self, call: NativeCall) {
        let first = {
            let mut s = self.lock();
            s.calls
                .entry(call.id.clone())
                .or_insert_with(|| call.clone());
            s.called.insert(call.id.clone())
        };
        if first {
            self.report(NativeEvent::ToolCalled(call)).await;
        }
    }

    /// Reports a call's result once.
    pub async fn finish(&self, event: NativeEvent) {
        let NativeEvent::ToolFinished { id, .. } = &event else {
            return;
        };
        if self.lock().finished.insert(id.clone()) {
            self.report(event).await;
        }
    }
}

impl CodexEngine {
    fn model_config<'a>(&'a self, apps: &'a [crate::NativeApp]) -> Model<'a> {
        Model {
            provider: &self.name,
            model: self.model.as_deref(),
            base_url: &self.base_url,
            has_key: self.key.is_some(),
            apps,
            conch: &self.conch,
        }
    }
}

fn unavailable(what: String) -> EngineError {
    EngineError::Unavailable(what)
}

/// Runs one turn.
pub async fn run(
    engine: &CodexEngine,
    turn: NativeTurn,
    gate: Arc<dyn Gate>,
    mut stop: watch::Receiver<bool>,
) -> Result<(), EngineError> {
    let Plan { policy, sandbox } = plan(turn.tight, turn.sealing, engine.policy);
    let (program, path_dir) = super::binary::resolve(&engine.bin).ok_or_else(|| {
        unavailable(format!(
            "Codex isn't installed here (\"{}\" wasn't found). Install it with: npm install -g @openai/codex",
            engine.bin
        ))
    })?;
    // Codex won't make its helpers (its sandbox among them) under the
    // temp folder.
    let temp = std::fs::canonicalize(std::env::temp_dir()).unwrap_or_else(|_| std::env::temp_dir());
    let root = std::fs::canonicalize(&engine.root).unwrap_or_else(|_| engine.root.clone());
    if root.starts_with(&temp) || root.starts_with("/tmp") {
        return Err(unavailable(format!(
            "Codex won't run with its folder under {} ({}). Start Conch with a home outside it (conch --home DIR serve).",
            temp.display(),
            engine.root.display()
        )));
    }
    let home = ChatHome::new(&engine.root, &turn.chat);
    let io = |e: std::io::Error| {
        unavailable(format!(
            "Conch couldn't prepare Codex's folder {}: {e}",
            home.dir.display()
        ))
    };
    home.prepare().map_err(io)?;
    // In the box the apps' relays (which need Conch's folder) can't start:
    // they aren't offered there yet.
    let apps: &[crate::NativeApp] = if turn.boxed.is_some() {
        &[]
    } else {
        &turn.apps
    };
    home.write_config(&engine.model_config(apps)).map_err(io)?;
    if engine.base_url.is_empty() {
        home.link_sign_in();
    }
    let place = match &turn.boxed {
        Some(_) => Some(super::boxed::Place::new().map_err(|e| {
            unavailable(format!(
                "Conch couldn't make the place Codex's folder is seen at in the box: {e}"
            ))
        })?),
        None => None,
    };
    let socat = if engine.codex_pipe && place.is_none() {
        None
    } else {
        super::binary::which("socat")
    };
    let (hook_command, listener, own_dir) = match &place {
        Some(_) => {
            let Some(socat) = socat else {
                return Err(unavailable(
                    "Codex runs in the box, and its check needs socat, which isn't installed. Install it (apt install socat).".to_owned(),
                ));
            };
            let tcp = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                .await
                .map_err(io)?;
            let port = tcp.local_addr().map_err(io)?.port();
            let token = super::boxed::random_hex(24).map_err(io)?;
            let command = super::boxed::hook_command(&socat, port, &token);
            home.write_hooks_line(&command).map_err(io)?;
            let listener = super::hook::Listener::Tcp {
                listener: tcp,
                token,
            };
            (command, listener, None)
        }
        None => {
            let (socket, own_dir) = super::hook::socket_path(&home.dir).map_err(io)?;
            let command = home
                .write_hooks(&program, &socket, socat.as_deref())
                .map_err(io)?;
            let listener = super::hook::Listener::Unix(super::hook::bind(&socket).map_err(io)?);
            (command, listener, Some((socket, own_dir)))
        }
    };
    let shared = Arc::new(Shared {
        gate: gate.clone(),
        sandboxed: sandbox.is_sandboxed(),
        at: calls::At {
            work: turn.work.clone(),
            sandboxed: sandbox.is_sandboxed(),
        },
        tight: turn.tight,
        asks_only_to_leave: policy == super::policy::Policy::OnRequest,
        state: Mutex::default(),
        order: tokio::sync::Mutex::new(()),
    });
    let hooks = tokio::spawn(super::hook::serve(listener, shared.clone()));
    let result = drive(
        engine,
        &turn,
        &shared,
        &mut stop,
        Launch {
            program,
            path_dir,
            home: &home,
            place: place.as_ref(),
            hook_command,
            policy: policy.to_json(),
            sandbox_mode: sandbox.mode(),
            sandbox_policy: sandbox.to_json(&[]),
            tight: turn.tight,
        },
    )
    .await;
    hooks.abort();
    if let Some((socket, own_dir)) = own_dir {
        let _ = std::fs::remove_file(&socket);
        if let Some(dir) = own_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
    if apps.len() < turn.apps.len() {
        let mut kept = home.kept();
        if !kept.told_no_apps {
            shared
                .report(NativeEvent::Note(NO_APPS_NOTE.to_owned()))
                .await;
            kept.told_no_apps = true;
            let _ = home.keep(&kept);
        }
    }
    // A call that never came back (Codex stopped, or refused it without
    // saying) still gets a result, so the log has no loose ends.
    let open: Vec<String> = {
        let s = shared.lock();
        s.called.difference(&s.finished).cloned().collect()
    };
    let rollout = shared.lock().rollout.clone();
    let recorded = match (&rollout, open.is_empty()) {
        (Some(path), false) => outputs_in(path),
        _ => HashMap::new(),
    };
    for id in open {
        let (ok, output) = match recorded.get(&id) {
            Some(out) => (calls::refusal(out).is_none(), out.clone()),
            None => (false, "Codex didn't say how this step ended.".to_owned()),
        };
        shared
            .finish(NativeEvent::ToolFinished { id, ok, output })
            .await;
    }
    result
}

struct Launch<'a> {
    program: PathBuf,
    path_dir: Option<PathBuf>,
    home: &'a ChatHome,
    /// In the box: where Codex sees its folder.
    place: Option<&'a super::boxed::Place>,
    hook_command: String,
    policy: Value,
    sandbox_mode: &'static str,
    sandbox_policy: Value,
    tight: bool,
}

async fn drive(
    engine: &CodexEngine,
    turn: &NativeTurn,
    shared: &Arc<Shared>,
    stop: &mut watch::Receiver<bool>,
    launch: Launch<'_>,
) -> Result<(), EngineError> {
    let mut args: Vec<std::ffi::OsString> = vec!["app-server".into()];
    for feature in DISABLED {
        args.extend(["--disable".into(), (*feature).into()]);
    }
    // In the box: the box's own environment (the seal's), Codex's folder
    // bound at its neutral path; what keeps the box's mount points lives
    // as long as the process.
    let (mut command, keep, seen_home, path) = match (&turn.boxed, launch.place) {
        (Some(b), Some(place)) => {
            let boxed = b
                .program(
                    &turn.work,
                    &launch.program,
                    &args,
                    &[(launch.home.dir.clone(), place.seen.clone())],
                )
                .map_err(unavailable)?;
            let path = boxed
                .command
                .get_envs()
                .find(|(k, _)| *k == "PATH")
                .and_then(|(_, v)| v.map(|v| v.to_os_string()));
            let command = tokio::process::Command::from(boxed.command);
            (command, Some(boxed.keep), place.seen.clone(), path)
        }
        _ => {
            let mut command = tokio::process::Command::new(&launch.program);
            command.args(&args).current_dir(&turn.work);
            (
                command,
                None,
                launch.home.dir.clone(),
                std::env::var_os("PATH"),
            )
        }
    };
    command
        .env("CODEX_HOME", &seen_home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    match &engine.key {
        Some(key) => command.env(KEY_VAR, key),
        None => command.env_remove(KEY_VAR),
    };
    if let Some(dir) = &launch.path_dir {
        let mut paths = vec![dir.clone()];
        if let Some(p) = &path {
            paths.extend(std::env::split_paths(p));
        }
        if let Ok(joined) = std::env::join_paths(paths) {
            command.env("PATH", joined);
        }
    }
    let mut child = command.spawn().map_err(|e| {
        unavailable(format!(
            "Codex couldn't be started ({}): {e}",
            launch.program.display()
        ))
    })?;
    let stderr = Stderr::default();
    stderr.collect(&mut child);
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(unavailable("Codex started without its pipes.".to_owned()));
    };
    let (rpc, incoming) = Rpc::start(stdin, stdout);
    let rpc = Arc::new(rpc);
    let result = converse(turn, shared, stop, &launch, &rpc, incoming, &stderr).await;
    // Codex ends its own commands when its input closes; a moment later
    // it is ended regardless.
    drop(rpc);
    tokio::spawn(async move {
        if tokio::time::timeout(Duration::from_secs(5), child.wait())
            .await
            .is_err()
        {
            let _ = child.kill().await;
        }
        drop(keep);
    });
    result
}

/// Everything said with one running Codex, from `initialize` to the end
/// of the turn.
async fn converse(
    turn: &NativeTurn,
    shared: &Arc<Shared>,
    stop: &mut watch::Receiver<bool>,
    launch: &Launch<'_>,
    rpc: &Arc<Rpc>,
    mut incoming: tokio::sync::mpsc::UnboundedReceiver<Incoming>,
    stderr: &Stderr,
) -> Result<(), EngineError> {
    let gone = |what: &str, why: String| -> EngineError {
        match stderr.last() {
            Some(line) if why.contains("stopped") || why.contains("isn't running") => {
                unavailable(format!("Codex stopped while {what}: {line}"))
            }
            _ => failed(what, why),
        }
    };

    rpc.request(
        "initialize",
        json!({
            "clientInfo": { "name": "conch", "title": "Conch", "version": env!("CARGO_PKG_VERSION") },
            // Raw events (the model's own tool calls) and `granular` are
            // behind this.
            "capabilities": { "experimentalApi": true },
        }),
    )
    .await
    .map_err(|e| gone("to start", e))?;
    rpc.notify("initialized", json!({}));
    let hooks_file = match launch.place {
        Some(place) => place.seen.join("hooks.json"),
        None => launch.home.hooks_file(),
    };
    trust_hook(rpc, &hooks_file, &turn.work, &launch.hook_command)
        .await
        .map_err(|e| gone("Conch's check", e))?;

    let mut kept = launch.home.kept();
    let mut thread_params = json!({
        "cwd": turn.work,
        "approvalPolicy": launch.policy,
        "sandbox": launch.sandbox_mode,
        "developerInstructions": turn.system,
        "experimentalRawEvents": true,
    });
    let resumed = match &kept.thread {
        Some(id) => {
            thread_params["threadId"] = json!(id);
            rpc.request("thread/resume", thread_params.clone())
                .await
                .ok()
        }
        None => None,
    };
    let thread = match resumed {
        Some(t) => t,
        None => {
            if let Some(o) = thread_params.as_object_mut() {
                o.remove("threadId");
            }
            rpc.request("thread/start", thread_params)
                .await
                .map_err(|e| gone("to start a thread", e))?
        }
    };
    let thread_id = thread["thread"]["id"]
        .as_str()
        .ok_or_else(|| EngineError::Protocol("Codex started a thread without an id.".into()))?
        .to_owned();
    kept.thread = Some(thread_id.clone());
    shared.lock().rollout = thread["thread"]["path"]
        .as_str()
        .map(|p| match launch.place {
            Some(place) => place.on_host(&launch.home.dir, std::path::Path::new(p)),
            None => PathBuf::from(p),
        });
    if launch.tight && !kept.told_tight {
        shared
            .report(NativeEvent::Note(TIGHT_NOTE.to_owned()))
            .await;
        kept.told_tight = true;
    }
    // Losing this only means the next turn starts a new thread.
    let _ = launch.home.keep(&kept);

    let started = rpc
        .request(
            "turn/start",
            json!({
                "threadId": thread_id,
                "input": [{ "type": "text", "text": turn.prompt, "text_elements": [] }],
                "cwd": turn.work,
                "approvalPolicy": launch.policy,
                "sandboxPolicy": launch.sandbox_policy,
            }),
        )
        .await
        .map_err(|e| gone("the turn", e))?;
    let turn_id = started["turn"]["id"].as_str().unwrap_or("").to_owned();

    let mut error: Option<String> = None;
    loop {
        tokio::select! {
            message = incoming.recv() => {
                let Some(message) = message else {
                    let why = stderr.last().unwrap_or_else(|| "it gave no reason".to_owned());
                    return Err(unavailable(format!("Codex stopped partway through the turn: {why}")));
                };
                match message {
                    Incoming::Notification { method, params } => {
                        if let Some(done) = on_notification(shared, &method, params, &mut error).await {
                            return done;
                        }
                    }
                    Incoming::Request { id, method, params } => {
                        let (shared, rpc) = (shared.clone(), rpc.clone());
                        tokio::spawn(async move {
                            answer_request(&shared, &rpc, id, &method, params).await;
                        });
                    }
                }
            }
            changed = stop.changed() => {
                if changed.is_err() || *stop.borrow() {
                    let _ = tokio::time::timeout(
                        Duration::from_secs(3),
                        rpc.request("turn/interrupt", json!({ "threadId": thread_id, "turnId": turn_id })),
                    )
                    .await;
                    return Err(EngineError::Stopped);
                }
            }
        }
    }
}

/// Trusts Conch's own hook, and only it, by the hash Codex shows for it.
/// Codex runs no hook it hasn't been told to trust, and Conch's check is
/// the hook: without it the turn doesn't start.
async fn trust_hook(
    rpc: &Rpc,
    file: &std::path::Path,
    work: &std::path::Path,
    command: &str,
) -> Result<(), String> {
    let same = |p: &str| {
        let canon =
            |q: &std::path::Path| std::fs::canonicalize(q).unwrap_or_else(|_| q.to_path_buf());
        canon(std::path::Path::new(p)) == canon(file)
    };
    for attempt in 0..2 {
        let listed = rpc.request("hooks/list", json!({ "cwds": [work] })).await?;
        let ours = listed["data"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|entry| entry["hooks"].as_array().into_iter().flatten())
            .find(|h| {
                h["eventName"] == "preToolUse"
                    && h["command"] == command
                    && h["sourcePath"].as_str().is_some_and(same)
            })
            .cloned();
        let Some(hook) = ours else {
            return Err("Codex didn't load Conch's check, so the turn didn't start.".to_owned());
        };
        if hook["trustStatus"] == "trusted" && hook["enabled"] != false {
            return Ok(());
        }
        if attempt == 1 {
            break;
        }
        let key = hook["key"].as_str().unwrap_or("");
        rpc.request(
            "config/value/write",
            json!({
                "keyPath": format!("hooks.state.\"{}\".trusted_hash", key.replace('"', "\\\"")),
                "value": hook["currentHash"],
                "mergeStrategy": "upsert",
            }),
        )
        .await?;
    }
    Err("Codex wouldn't trust Conch's check, so the turn didn't start.".to_owned())
}

/// Handles one notification; `Some` ends the turn.
async fn on_notification(
    shared: &Shared,
    method: &str,
    params: Value,
    error: &mut Option<String>,
) -> Option<Result<(), EngineError>> {
    match method {
        "item/agentMessage/delta" => {
            let id = params["itemId"].as_str().unwrap_or("").to_owned();
            let delta = params["delta"].as_str().unwrap_or("");
            if !delta.is_empty() {
                {
                    let mut st = shared.lock();
                    *st.streamed.entry(id).or_default() += delta.len();
                    st.spoke = true;
                }
                shared.report(NativeEvent::Text(delta.to_owned())).await;
            }
        }
        "item/started" => {
            if let Some(call) = calls::from_item(&params["item"], &shared.at) {
                if call.tool == "fileChange" {
                    let paths = calls::change_paths(&call.input);
                    shared.lock().codex_changes.insert(call.id.clone(), paths);
                }
                shared.called(call).await;
            }
        }
        "item/completed" => {
            let item = &params["item"];
            match item["type"].as_str() {
                Some("agentMessage") => {
                    let id = item["id"].as_str().unwrap_or("");
                    let text = item["text"].as_str().unwrap_or("");
                    let (sent, spoke) = {
                        let mut st = shared.lock();
                        (
                            st.streamed.remove(id).unwrap_or(0),
                            std::mem::replace(&mut st.spoke, true),
                        )
                    };
                    if let Some(rest) = text.get(sent..).filter(|r| !r.is_empty()) {
                        // Separate messages are separate paragraphs.
                        let gap = if sent == 0 && spoke { "\n\n" } else { "" };
                        shared
                            .report(NativeEvent::Text(format!("{gap}{rest}")))
                            .await;
                    }
                }
                Some("contextCompaction") => {
                    shared
                        .report(NativeEvent::Compacted {
                            summary: "Codex summarised the older part of this chat to fit."
                                .to_owned(),
                        })
                        .await;
                }
                _ => {
                    if let Some(call) = calls::from_item(item, &shared.at) {
                        let id = call.id.clone();
                        shared.called(call).await;
                        if let Some((ok, output)) = calls::outcome(item) {
                            shared
                                .finish(NativeEvent::ToolFinished { id, ok, output })
                                .await;
                        }
                    }
                }
            }
        }
        "rawResponseItem/completed" => {
            let item = &params["item"];
            if let Some(call) = calls::from_raw(item, &shared.at) {
                shared.called(call).await;
            } else if let Some((id, output)) = calls::raw_output(item) {
                // A call Codex answered without an item (its sandbox or
                // policy refused it, or it's code mode's script).
                let known = shared.lock().called.contains(&id);
                if known {
                    let ok = calls::refusal(&output).is_none();
                    shared
                        .finish(NativeEvent::ToolFinished { id, ok, output })
                        .await;
                }
            }
        }
        // Text typed into a command Codex started: no hook runs for it.
        // The command reads /dev/null (the hook saw to that), so this is a
        // record, judged as a command would be when the log is read.
        "item/commandExecution/terminalInteraction" => {
            let n = {
                let mut st = shared.lock();
                st.typed += 1;
                st.typed
            };
            let id = format!("{}-typed-{n}", params["itemId"].as_str().unwrap_or(""));
            let chars = params["stdin"].as_str().unwrap_or("").to_owned();
            if !chars.is_empty() {
                shared
                    .called(NativeCall {
                        id: id.clone(),
                        tool: "write_stdin".to_owned(),
                        input: json!({ "chars": chars }),
                    })
                    .await;
                shared
                    .finish(NativeEvent::ToolFinished {
                        id,
                        ok: true,
                        output: String::new(),
                    })
                    .await;
            }
        }
        // What the last request to the model used (`last`; `total` is the
        // thread's so far): Conch prices it against the caps.
        "thread/tokenUsage/updated" => {
            let last = &params["tokenUsage"]["last"];
            let (input, output) = (
                last["inputTokens"].as_u64().unwrap_or(0),
                last["outputTokens"].as_u64().unwrap_or(0)
                    + last["reasoningOutputTokens"].as_u64().unwrap_or(0),
            );
            if input + output > 0 {
                shared.report(NativeEvent::Usage { input, output }).await;
            }
        }
        "error" if params["willRetry"] != true => {
            *error = params["error"]["message"].as_str().map(str::to_owned);
        }
        "turn/completed" => {
            let t = &params["turn"];
            return Some(match t["status"].as_str() {
                Some("failed") => Err(EngineError::Unavailable(
                    t["error"]["message"]
                        .as_str()
                        .map(str::to_owned)
                        .or(error.take())
                        .map_or_else(
                            || "Codex's turn failed without saying why.".to_owned(),
                            |m| format!("Codex's turn failed: {m}"),
                        ),
                )),
                Some("interrupted") => Err(EngineError::Stopped),
                _ => Ok(()),
            });
        }
        _ => {}
    }
    None
}

/// Answers one of Codex's own questions.
async fn answer_request(shared: &Shared, rpc: &Rpc, id: Value, method: &str, params: Value) {
    match method {
        "item/commandExecution/requestApproval" => {
            let decision = approve_command(shared, &params, shared.asks_only_to_leave).await;
            rpc.respond(id, json!({ "decision": decision }));
        }
        "item/fileChange/requestApproval" => {
            let decision = approve_file(shared, &params).await;
            rpc.respond(id, json!({ "decision": decision }));
        }
        // The older forms of the same two questions.
        "execCommandApproval" | "applyPatchApproval" => {
            rpc.respond(
                id,
                json!({ "decision": { "denied": { "rejection": "Conch answers approvals through the newer questions only." } } }),
            );
        }
        // More permissions for the session would widen the sandbox behind
        // the guard's back: granted nothing.
        "item/permissions/requestApproval" => {
            rpc.respond(id, json!({ "permissions": {}, "scope": "turn" }));
        }
        "item/tool/requestUserInput" => rpc.respond(id, json!({ "answers": {} })),
        "mcpServer/elicitation/request" => rpc.respond(
            id,
            json!({ "action": "decline", "content": null, "_meta": null }),
        ),
        other => rpc.refuse(id, &format!("Conch doesn't answer {other}.")),
    }
}

/// The verdict Conch already gave at the hook, or the whole approval path.
async fn verdict(shared: &Shared, id: &str, call: impl FnOnce() -> Option<NativeCall>) -> bool {
    if let Some(runs) = shared.lock().decided.get(id).copied() {
        return runs;
    }
    let Some(call) = call() else {
        return false;
    };
    shared.called(call.clone()).await;
    let runs = matches!(shared.gate.ask(call).await, Verdict::Allow { .. });
    shared.decided(id, runs);
    runs
}

/// Codex asks before a command only when it may leave the sandbox (under
/// `on-request`, always; under `untrusted`, for some). One that may leave
/// is asked as leaving the box; the hook's earlier answer covers only a
/// command known to stay in.
async fn approve_command(
    shared: &Shared,
    params: &Value,
    policy_asks_only_to_leave: bool,
) -> &'static str {
    // A tight turn runs under a policy that can't lift the sandbox, so a
    // question here would be one that might: no.
    if shared.tight || params["kind"].as_str().is_some_and(|k| k != "command") {
        return "decline";
    }
    let id = params["itemId"].as_str().unwrap_or("").to_owned();
    let known = shared.lock().calls.get(&id).cloned();
    let sandboxed = shared.sandboxed;
    let mut call = known.unwrap_or_else(|| {
        let words = params["commandActions"][0]["command"]
            .as_str()
            .or_else(|| params["command"].as_str())
            .unwrap_or("");
        calls::command(&id, words, params["cwd"].as_str(), &shared.at)
    });
    // Known to stay in: only the model's own call, seen before it ran,
    // says so.
    let stays_in = !sandboxed
        || (!policy_asks_only_to_leave
            && call.input.get("escalated").is_some()
            && call.input["escalated"] == false);
    let runs = if stays_in {
        verdict(shared, &id, || Some(call)).await
    } else {
        call.input["escalated"] = serde_json::json!(true);
        shared.called(call.clone()).await;
        matches!(shared.gate.ask(call).await, Verdict::Allow { .. })
    };
    if runs {
        "accept"
    } else {
        "decline"
    }
}

/// A change Codex asks about is judged by Codex's own list of what it will
/// change (its `fileChange` item), not by Conch's reading of the patch:
/// where the two disagree, or Codex's list wasn't seen, it isn't applied.
async fn approve_file(shared: &Shared, params: &Value) -> &'static str {
    if shared.tight && !params["grantRoot"].is_null() {
        return "decline";
    }
    let id = params["itemId"].as_str().unwrap_or("").to_owned();
    let (known, codex) = {
        let st = shared.lock();
        (
            st.calls.get(&id).cloned(),
            st.codex_changes.get(&id).cloned(),
        )
    };
    let Some(codex) = codex else {
        return "decline";
    };
    if let Some(checked) = known.as_ref().map(|c| calls::change_paths(&c.input)) {
        if !calls::same_changes(&checked, &codex, &shared.at.work) {
            let output = format!(
                "Codex read this patch as changing {}, which isn't what Conch checked ({}), so nothing was changed.",
                codex.join(", "),
                checked.join(", ")
            );
            shared.decided(&id, false);
            shared
                .finish(NativeEvent::ToolFinished {
                    id,
                    ok: false,
                    output,
                })
                .await;
            return "decline";
        }
    }
    let call = calls::file_change(&id, codex);
    if verdict(shared, &id, || Some(call)).await {
        "accept"
    } else {
        "decline"
    }
}

/// What Codex's record of the thread says each call returned.
fn outputs_in(rollout: &std::path::Path) -> HashMap<String, String> {
    let Ok(text) = std::fs::read_to_string(rollout) else {
        return HashMap::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "response_item")
        .filter_map(|v| calls::raw_output(&v["payload"]))
        .collect()
}
