//! One turn: start `claude`, hand it the owner's words, and follow what it
//! writes until its result line, answering its permission questions and
//! its hooks on the way. Stop interrupts it and ends its processes.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, watch};

use super::calls::TurnState;
use super::hook::{SOCKET_VAR, TOKEN_VAR, TURN_VAR};
use super::wire::{self, Out};
use super::{launch, session, settings, ClaudeCode};
use crate::engine::EngineError;
use crate::native::{Gate, NativeTurn, Verdict};

/// How long a stopped or finished `claude` gets to exit by itself.
const GRACE: Duration = Duration::from_secs(3);

/// The settings file of one turn, removed when the turn ends.
struct SettingsFile(PathBuf);

impl Drop for SettingsFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Writes a file of the turn's, 0600, with a sentence when it can't.
fn private(path: &Path, text: &str) -> Result<(), String> {
    vault::write_private(path, text.as_bytes())
        .map_err(|e| format!("Conch couldn't write {}: {e}.", path.display()))
}

/// The empty folder, under temp, where the chat's own folder is bound in
/// the box; removed when the turn ends (it is only a mount point).
struct NeutralHome(PathBuf);

impl NeutralHome {
    fn make(key: &str) -> Result<NeutralHome, String> {
        use std::os::unix::fs::DirBuilderExt;
        let dir = std::env::temp_dir().join(format!("conch-engine-{key}"));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| format!("Conch couldn't make {}: {e}.", dir.display()))?;
        Ok(NeutralHome(dir))
    }
}

impl Drop for NeutralHome {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// Makes `home/conch-engine-shell` a link to `conch`; its path as the box
/// sees it (under `seen_home`).
fn shell_link(home: &Path, conch: &Path, seen_home: &Path) -> Result<PathBuf, String> {
    let name = super::shell::ENGINE_SHELL;
    let link = home.join(name);
    let conch = std::fs::canonicalize(conch).unwrap_or_else(|_| conch.to_path_buf());
    if std::fs::read_link(&link).ok().as_deref() != Some(conch.as_path()) {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&conch, &link)
            .map_err(|e| format!("Conch couldn't make {}: {e}.", link.display()))?;
    }
    Ok(seen_home.join(name))
}

/// Ends `claude` and everything it started (its commands, their sandbox).
fn kill_group(child: &Child) {
    if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: kill has no memory effects; a group that is already gone
        // is an error we don't need.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// What Claude Code's errors mean for the person.
fn failure(text: &str) -> EngineError {
    let lower = text.to_lowercase();
    let said = format!("Claude Code: {}", text.trim());
    if lower.contains("401")
        || lower.contains("invalid api key")
        || lower.contains("authentication")
        || lower.contains("log in")
        || lower.contains("login")
    {
        EngineError::Unauthorized(format!(
            "{said} Check the provider's key (conch providers add NAME --kind claude-code --key-stdin)."
        ))
    } else {
        EngineError::Unavailable(said)
    }
}

pub(super) async fn run(
    engine: &ClaudeCode,
    turn: NativeTurn,
    gate: Arc<dyn Gate>,
    mut stop: watch::Receiver<bool>,
) -> Result<(), EngineError> {
    if *stop.borrow() {
        return Err(EngineError::Stopped);
    }
    let cfg = &engine.config;
    let server = engine.server().await.map_err(EngineError::Unavailable)?;
    let home = session::chat_home(&cfg.state, &turn.chat);
    super::socket::private_dir(&home).map_err(EngineError::Unavailable)?;
    let session = session::session_id(&turn.chat);
    let resume = session::exists(&home, &session);
    let key = super::socket::random_hex(16).map_err(EngineError::Unavailable)?;

    let boxed = turn.boxed.clone();
    // In the box, the chat's folder (inside Conch's, which isn't there)
    // is bound at a neutral path of its own; settings and apps go on the
    // command line, since Conch's run folder isn't there either.
    let neutral = match &boxed {
        Some(_) => Some(NeutralHome::make(&key).map_err(EngineError::Unavailable)?),
        None => None,
    };
    let binds: Vec<(PathBuf, PathBuf)> = neutral
        .iter()
        .map(|n| (home.clone(), n.0.clone()))
        .collect();
    let seen_home = neutral.as_ref().map_or(home.clone(), |n| n.0.clone());
    // The shell prefix is one program (Claude Code quotes it whole): a link
    // to conch in the chat's folder, by the name conch knows it by.
    let prefix = match &boxed {
        Some(_) => {
            Some(shell_link(&home, &cfg.hook, &seen_home).map_err(EngineError::Unavailable)?)
        }
        None => None,
    };

    let mut secret_env = vec![TOKEN_VAR.to_owned()];
    if let Some(k) = &cfg.provider.key {
        secret_env.push(launch::key_var(k).to_owned());
    }
    // Unboxed (the owner's choice), Claude Code's own sandbox seals its
    // commands. Boxed, its sandbox can't start (no Unix sockets, no
    // nested namespaces), and needn't: its commands run in Conch's box.
    let sandbox = (turn.sealing && boxed.is_none()).then(|| settings::Sandbox {
        hidden: turn.hidden.clone(),
        readable: vec![home.clone()],
        writable: vec![home.clone(), std::env::temp_dir()],
        secret_env,
    });
    let settings_json = settings::settings(&cfg.hook, sandbox.as_ref()).to_string();
    let mcp_json = (!turn.apps.is_empty())
        .then(|| launch::mcp_config(&cfg.hook, &turn.apps, prefix.as_deref()).to_string());
    let mut files: Vec<SettingsFile> = Vec::new();
    let (settings_arg, mcp_arg): (PathBuf, Option<PathBuf>) = if boxed.is_some() {
        (PathBuf::from(settings_json), mcp_json.map(PathBuf::from))
    } else {
        let file = SettingsFile(cfg.run.join(format!("claude-code-{key}.json")));
        private(&file.0, &settings_json).map_err(EngineError::Unavailable)?;
        let settings_path = file.0.clone();
        files.push(file);
        let mcp = match mcp_json {
            Some(text) => {
                let file = SettingsFile(cfg.run.join(format!("claude-code-{key}-mcp.json")));
                private(&file.0, &text).map_err(EngineError::Unavailable)?;
                let p = file.0.clone();
                files.push(file);
                Some(p)
            }
            None => None,
        };
        (settings_path, mcp)
    };

    let way_back = if boxed.is_some() {
        server.port.clone()
    } else {
        server.socket.to_string_lossy().into_owned()
    };
    let mut extra = vec![
        (SOCKET_VAR.to_owned(), way_back),
        (TURN_VAR.to_owned(), key.clone()),
        (TOKEN_VAR.to_owned(), server.token.clone()),
    ];
    if let Some(prefix) = &prefix {
        extra.push((
            "CLAUDE_CODE_SHELL_PREFIX".to_owned(),
            prefix.to_string_lossy().into_owned(),
        ));
        // So the prefix knows Conch's own hooks' lines when it sees them.
        extra.push((
            super::hook::PROGRAM_VAR.to_owned(),
            cfg.hook.to_string_lossy().into_owned(),
        ));
    }
    let env = launch::environment(&seen_home, &cfg.provider, |k| std::env::var_os(k), &extra);
    let args = launch::arguments(&launch::Turn {
        settings: &settings_arg,
        mode: turn.mode,
        model: cfg.provider.model.as_deref(),
        session: &session,
        resume,
        mcp: mcp_arg.as_deref(),
    });
    let (mut command, _kept) = match &boxed {
        Some(b) => {
            let boxed_cmd = b
                .program(&turn.work, &cfg.bin, &args, &binds)
                .map_err(EngineError::Unavailable)?;
            (Command::from(boxed_cmd.command), Some(boxed_cmd.keep))
        }
        None => {
            let mut c = Command::new(&cfg.bin);
            c.args(&args).current_dir(&turn.work);
            (c, None)
        }
    };
    let _shells = boxed.as_ref().map(|b| {
        server.register_shell(
            key.clone(),
            super::shell::ShellPlace {
                boxing: b.clone(),
                work: turn.work.clone(),
                binds: binds.clone(),
                conch: cfg.hook.clone(),
                relays: turn.apps.iter().map(|a| a.args.clone()).collect(),
            },
        )
    });
    let mut child = command
        .env_clear()
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            EngineError::Unavailable(format!(
                "Claude Code couldn't start ({}: {e}). Install it (npm install -g @anthropic-ai/claude-code) or give its path with --bin.",
                cfg.bin.display()
            ))
        })?;
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        kill_group(&child);
        return Err(EngineError::Unavailable(
            "Claude Code started without its pipes.".into(),
        ));
    };

    let (lines_tx, mut lines_rx) = mpsc::unbounded_channel::<String>();
    let state = Arc::new(TurnState::new(gate, lines_tx));
    let _hooks = server.register(key, state.clone());
    let _running = engine.running_as(&turn.chat, state.clone());
    let mut unchecked = state.watch_unchecked();

    // Lines for stdin, in order; an empty one closes stdin.
    let writer = tokio::spawn(async move {
        while let Some(mut line) = lines_rx.recv().await {
            if line.is_empty() {
                break;
            }
            line.push('\n');
            if stdin.write_all(line.as_bytes()).await.is_err() {
                break;
            }
            let _ = stdin.flush().await;
        }
    });
    // The end of what it says on stderr, for a failure's sentence. All of
    // it is read, so a chatty Claude Code never blocks on a full pipe.
    let complaints = tokio::spawn(async move {
        let mut stderr = stderr;
        let mut tail: Vec<u8> = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = stderr.read(&mut buf).await {
            if n == 0 {
                break;
            }
            tail.extend_from_slice(&buf[..n]);
            if tail.len() > 4096 {
                tail.drain(..tail.len() - 2048);
            }
        }
        let text = String::from_utf8_lossy(&tail).into_owned();
        let last: String = text.chars().rev().take(600).collect();
        last.chars().rev().collect::<String>()
    });

    state.send(wire::initialize(&state.request_id("init"), &turn.system));
    state.send(wire::user(&turn.prompt));

    let mut asks = tokio::task::JoinSet::new();
    let mut lines = BufReader::new(stdout).lines();
    let mut result: Option<(bool, String)> = None;
    let mut stopped = false;
    let mut stop_open = true;
    let mut breach: Option<String> = None;
    loop {
        tokio::select! {
            line = lines.next_line() => {
                let Ok(Some(line)) = line else { break };
                let Some(out) = wire::read(&line) else { continue };
                match out {
                    Out::CanUseTool { request, id, tool, input } => {
                        let state = state.clone();
                        asks.spawn(async move {
                            let answer = match state.ask(id.clone(), tool, input).await {
                                Verdict::Allow { input } => wire::allow(&request, &id, &input),
                                Verdict::Deny { message } => wire::deny(&request, &id, &message),
                            };
                            state.send(answer);
                        });
                    }
                    Out::OtherRequest { request, subtype } => {
                        state.send(wire::unsupported(&request, &subtype));
                    }
                    Out::Assistant { parent, message, blocks } => {
                        state.assistant(parent.as_deref(), &message, blocks).await;
                    }
                    Out::Streaming { parent, message } => state.streaming(parent.as_deref(), message),
                    Out::Delta { parent, text } => state.delta(parent.as_deref(), text).await,
                    Out::Results { results, .. } => state.results(results).await,
                    Out::Unchecked { hook, .. } => state.unchecked_hook(&hook),
                    Out::Result { error, text, cost_usd } => {
                        if let Some(usd) = cost_usd {
                            state.cost(usd).await;
                        }
                        result = Some((error, text));
                        // The turn is over: closing stdin lets it exit.
                        break;
                    }
                    Out::Init { .. } | Out::Answered { .. } | Out::Other => {}
                }
            }
            changed = stop.changed(), if stop_open => {
                // Nobody left to press Stop: the turn just runs on.
                stop_open = changed.is_ok();
                if stop_open && *stop.borrow() {
                    stopped = true;
                    state.send(wire::interrupt(&state.request_id("stop")));
                    break;
                }
            }
            changed = unchecked.changed() => {
                if changed.is_ok() {
                    breach = unchecked.borrow().clone();
                    if breach.is_some() {
                        break;
                    }
                }
            }
        }
    }
    // Questions still open end by themselves once Stop has reached the
    // chat (the owner's card is closed and logged); then nothing more is
    // answered, and closing stdin ends the session.
    let _ = tokio::time::timeout(GRACE, async { while asks.join_next().await.is_some() {} }).await;
    asks.shutdown().await;
    state.send(String::new());
    let _ = tokio::time::timeout(GRACE, writer).await;
    if breach.is_some() {
        kill_group(&child);
    }
    let exited = tokio::time::timeout(GRACE, child.wait()).await;
    // Whatever it started goes with it: a background command doesn't
    // outlive the turn that started it.
    kill_group(&child);
    let status = match exited {
        Ok(Ok(status)) => Some(status),
        _ => {
            let _ = child.kill().await;
            None
        }
    };
    let said = complaints.await.unwrap_or_default();
    if let Some(line) = breach {
        return Err(EngineError::Protocol(line));
    }
    if stopped {
        return Err(EngineError::Stopped);
    }
    match result {
        Some((false, _)) => Ok(()),
        Some((true, text)) => Err(failure(&text)),
        None => Err(failure(&match status {
            Some(s) if said.trim().is_empty() => {
                format!("it ended without finishing the turn ({s}).")
            }
            _ if said.trim().is_empty() => "it ended without finishing the turn.".to_owned(),
            _ => said,
        })),
    }
}
