//! A turn on an engine that runs its own tools (Claude Code, Codex): the
//! engine takes the whole turn, and every tool call it makes comes through
//! the [`Gate`] here, into the same approval path as Conch's own tools
//! (`permission::drive`). What it says and does is logged in the same shape as
//! an API engine's turn, so Activity, holds, marks, Auto review and the web
//! UI see one kind of chat.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use engines::{BoxFuture, Gate, NativeCall, NativeEngine, NativeEvent, NativeTurn, Quick, Verdict};
use protocol::{Action, Body, Mode, Reply, ToolCalled, ToolFinished};
use tools::{Cancel, ToolCall};

use crate::log::LogError;
use crate::permission::{drive, Permission};
use crate::state::Core;

/// What the gate knows of each call it has seen.
#[derive(Default)]
struct Seen {
    /// Calls logged as `tool.called`, and what each does.
    actions: HashMap<String, Action>,
    /// The input each was last logged with.
    inputs: HashMap<String, serde_json::Value>,
    /// Calls the gate refused: they ran nothing, so they mark nothing.
    refused: std::collections::HashSet<String>,
    /// When each command was first seen: its writes are the work folder's
    /// files changed since (see `ledger::after_command`).
    began: HashMap<String, std::time::SystemTime>,
    /// The work folder just before each allowed command (for undo).
    before: HashMap<String, crate::undo::commands::Before>,
}

/// A native tool call as the action it would take. An app's tool
/// (`mcp__server__tool`) goes by the owner's apps: its one name, and
/// whether it only reads as the apps say it (never as the call says).
fn native_action(
    chat: &Core,
    tool: &str,
    input: &serde_json::Value,
    sealed: bool,
) -> Result<Action, String> {
    let action = tools::native::classify(tool, input, &chat.work, sealed)?;
    // A Refresh chat's one rule holds on the engine's own tools too.
    if let Some(only) = &chat.refreshes {
        crate::artifact::refresh_allows(&action, only)?;
    }
    Ok(match action {
        Action::Integration { tool: name, .. } => match chat.shared.tools.app_tool(tool) {
            Some(app) => Action::Integration {
                tool: app.qualified,
                read_only: app.read_only,
            },
            None => Action::Integration {
                tool: name,
                read_only: false,
            },
        },
        other => other,
    })
}

/// The owner's apps for a native engine: each one Conch relays to, for
/// this chat's work folder (`conch --home HOME apps relay NAME --work
/// DIR`).
fn native_apps(chat: &Core) -> Vec<engines::NativeApp> {
    let Some(home) = chat
        .shared
        .chats
        .upgrade()
        .map(|c| c.home().root().to_path_buf())
    else {
        return Vec::new();
    };
    chat.shared
        .tools
        .native_apps()
        .into_iter()
        .map(|name| {
            let mut args = vec![
                "--home".into(),
                home.to_string_lossy().into_owned(),
                "apps".into(),
                "relay".into(),
                name.clone(),
                "--work".into(),
                chat.work.to_string_lossy().into_owned(),
            ];
            // The engine runs the relay with a HOME of its own; the box
            // hides the person's keys, found from theirs.
            if let Some(person) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
                args.push("--person-home".into());
                args.push(person.to_string_lossy().into_owned());
            }
            engines::NativeApp { name, args }
        })
        .collect()
}

struct ChatGate {
    chat: Arc<Core>,
    turn: u64,
    cancel: Cancel,
    seen: Mutex<Seen>,
    /// Whether the engine's commands run in its own sandbox.
    sealed: bool,
    /// Reply text not yet written as a `reply` event.
    text: tokio::sync::Mutex<String>,
    /// The first failure to write the log, which ends the turn.
    failed: Mutex<Option<LogError>>,
}

impl ChatGate {
    fn classify(&self, call: &NativeCall) -> Result<Action, String> {
        native_action(&self.chat, &call.tool, &call.input, self.sealed)
    }

    /// Logs `tool.called` once per call, and again when the input it will
    /// run with isn't the one logged (an engine's stream can show the
    /// model's input while a rewritten one runs): the log records what ran.
    async fn called(&self, call: &NativeCall, action: Option<&Action>) -> Result<(), LogError> {
        let first = {
            let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
            let new = seen.inputs.get(&call.id) != Some(&call.input);
            if let Some(a) = action {
                seen.actions.insert(call.id.clone(), a.clone());
                seen.inputs.insert(call.id.clone(), call.input.clone());
                // A command's writes are the files changed since it was
                // first seen, whichever way the engine showed it first (its
                // hook, its permission channel or its stream).
                if matches!(a, Action::Command { .. }) {
                    seen.began
                        .entry(call.id.clone())
                        .or_insert_with(std::time::SystemTime::now);
                }
            }
            new && action.is_some()
        };
        if first {
            self.chat
                .log
                .append(Body::ToolCalled(ToolCalled {
                    turn: self.turn,
                    call: call.id.clone(),
                    tool: call.tool.clone(),
                    input: call.input.clone(),
                }))
                .await?;
        }
        Ok(())
    }

    fn action_of(&self, id: &str) -> Option<Action> {
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .actions
            .get(id)
            .cloned()
    }

    fn tool_call(call: &NativeCall) -> ToolCall {
        ToolCall {
            id: call.id.clone(),
            name: call.tool.clone(),
            input: call.input.clone(),
        }
    }
}

impl ChatGate {
    /// Writes the reply text gathered so far as one `reply`.
    async fn flush(&self) -> Result<(), LogError> {
        let text = std::mem::take(&mut *self.text.lock().await);
        if !text.is_empty() {
            let said = crate::artifact::take_blocks(&self.chat, &text).await;
            self.chat
                .log
                .append(Body::Reply(Reply {
                    turn: self.turn,
                    text: said,
                }))
                .await?;
        }
        Ok(())
    }
}

impl Gate for ChatGate {
    fn report(&self, event: NativeEvent) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let result = match event {
                NativeEvent::Text(t) => {
                    self.chat.log.send_delta(self.turn, &t);
                    self.text.lock().await.push_str(&t);
                    Ok(())
                }
                other => match self.flush().await {
                    Ok(()) => log_event(&self.chat, self, self.turn, other).await,
                    Err(e) => Err(e),
                },
            };
            if let Err(e) = result {
                self.failed
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(e);
            }
        })
    }

    fn quick(&self, call: NativeCall) -> BoxFuture<'_, Quick> {
        Box::pin(async move {
            let id = call.id.clone();
            let quick = self.quick_now(call).await;
            self.settled(&id, matches!(quick, Quick::Deny(_)));
            quick
        })
    }

    fn ask(&self, call: NativeCall) -> BoxFuture<'_, Verdict> {
        Box::pin(async move {
            let id = call.id.clone();
            let verdict = self.ask_now(call).await;
            self.settled(&id, matches!(verdict, Verdict::Deny { .. }));
            verdict
        })
    }
}

impl ChatGate {
    /// Before an engine's allowed edit or patch runs: every file it changes
    /// is kept for undo.
    async fn keep_before(&self, call: &NativeCall, action: &Action) {
        if let Action::Command { .. } = action {
            let before = crate::undo::commands::before_command(&self.chat).await;
            self.seen
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .before
                .insert(call.id.clone(), before);
            return;
        }
        if !matches!(action, Action::FileChange { .. }) {
            return;
        }
        let paths = tools::native::changed_paths(&call.tool, &call.input, &self.chat.work);
        // A copy that can't be logged doesn't stop the edit: the undo says
        // it has nothing for it.
        let _ = crate::undo::before_change(&self.chat, self.turn, paths, &call.tool).await;
    }

    /// Remembers whether the gate's last word on a call refused it.
    fn settled(&self, id: &str, refused: bool) {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        if refused {
            seen.refused.insert(id.to_owned());
        } else {
            seen.refused.remove(id);
        }
    }

    fn refused(&self, id: &str) -> bool {
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .refused
            .contains(id)
    }

    async fn quick_now(&self, call: NativeCall) -> Quick {
        let action = match self.classify(&call) {
            Ok(a) => a,
            Err(sentence) => return Quick::Deny(sentence),
        };
        if self.called(&call, Some(&action)).await.is_err() {
            return Quick::Deny("Conch couldn't record this call, so it didn't run.".into());
        }
        let tc = Self::tool_call(&call);
        // The approval machine answers; nothing is decided here.
        match self.chat.with_look(&tc, &action, approval::Approval::quick) {
            approval::Quick::Run => {
                self.keep_before(&call, &action).await;
                Quick::Allow
            }
            approval::Quick::Refuse(sentence) => Quick::Deny(sentence),
            approval::Quick::Ask(question) => Quick::Ask(question),
        }
    }

    async fn ask_now(&self, call: NativeCall) -> Verdict {
        let action = match self.classify(&call) {
            Ok(a) => a,
            Err(message) => return Verdict::Deny { message },
        };
        if self.called(&call, Some(&action)).await.is_err() {
            return Verdict::Deny {
                message: "Conch couldn't record this call, so it didn't run.".into(),
            };
        }
        let tc = Self::tool_call(&call);
        let chat = self.chat.clone();
        let sealed = self.sealed;
        let classify = move |c: &ToolCall| native_action(&chat, &c.name, &c.input, sealed);
        let outcome = drive(&self.chat, self.turn, &tc, &action, &self.cancel, &classify).await;
        match outcome {
            // What was approved is what runs: the input as judged.
            Ok(Permission::Run) => {
                self.keep_before(&call, &action).await;
                Verdict::Allow { input: call.input }
            }
            Ok(Permission::Refused(o)) => Verdict::Deny { message: o.output },
            Ok(Permission::Stopped) => Verdict::Deny {
                message: "Stopped.".into(),
            },
            Err(e) => Verdict::Deny {
                message: e.to_string(),
            },
        }
    }
}

/// The owner's words (and others', labelled) since the last turn started.
fn prompt_since_last_turn(events: &[protocol::Event]) -> String {
    let start = events
        .iter()
        .rposition(|e| matches!(e.body, Body::TurnStarted(_)))
        .map_or(0, |i| {
            // The turn that is starting now is the last one; its messages
            // came before it.
            events[..i]
                .iter()
                .rposition(|e| matches!(e.body, Body::TurnStarted(_)))
                .map_or(0, |j| j + 1)
        });
    let mut parts = Vec::new();
    for e in &events[start..] {
        if let Body::Message(m) = &e.body {
            parts.push(match m.from {
                protocol::Speaker::Owner => m.text.clone(),
                _ => format!(
                    "[{} wrote, and they are not the owner:] {}",
                    m.name.as_deref().unwrap_or("Someone"),
                    m.text
                ),
            });
        }
        if let Body::SkillUsed(s) = &e.body {
            parts.push(format!(
                "[The {} skill's instructions:]\n{}",
                s.skill, s.instructions
            ));
        }
    }
    parts.join("\n\n")
}

/// Runs one turn on a native engine.
pub(crate) async fn run(
    chat: &Arc<Core>,
    engine: &dyn NativeEngine,
    turn: u64,
    cancel: &Cancel,
) -> Result<Result<(), engines::EngineError>, LogError> {
    let events = chat.log.events_after(0)?;
    let (mode, tight) = chat.log.with_view(|v| {
        (
            v.mode.unwrap_or(Mode::Ask),
            v.is_marked() || v.held_without_commands(),
        )
    });
    let protected = chat.shared.policies.protected.clone();
    let mut hidden: Vec<std::path::PathBuf> = protected
        .keys
        .iter()
        .map(|p| std::path::PathBuf::from(&p.path))
        .collect();
    hidden.extend(protected.conch_home.iter().map(std::path::PathBuf::from));
    let sealing = chat
        .shared
        .switches
        .sealing()
        .load(std::sync::atomic::Ordering::SeqCst);
    let in_box = chat.shared.switches.engines_in_box();
    let boxed: Option<Arc<dyn engines::boxing::Boxing>> = match chat.shared.tools.sealed() {
        Some(s) if sealing && engine.boxes() => {
            Some(Arc::new(crate::engine_box::EngineBox(s)) as Arc<dyn engines::boxing::Boxing>)
        }
        _ => None,
    };
    if boxed.is_none() && in_box {
        return Ok(Err(engines::EngineError::Unavailable(
            crate::engine_box::why_not(engine.name(), engine.boxes(), sealing),
        )));
    }
    let request = NativeTurn {
        chat: chat.id.clone(),
        work: chat.work.clone(),
        system: crate::prompt::system(&chat.work, &[]),
        prompt: prompt_since_last_turn(&events),
        mode,
        tight,
        hidden,
        sealing,
        apps: native_apps(chat),
        boxed,
    };
    let gate = Arc::new(ChatGate {
        chat: chat.clone(),
        turn,
        cancel: cancel.clone(),
        seen: Mutex::new(Seen::default()),
        sealed: sealing,
        text: tokio::sync::Mutex::new(String::new()),
        failed: Mutex::new(None),
    });
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    // Stop reaches the engine through the watch channel; the engine ends
    // its own turn (and its process) when it sees it.
    let watcher = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            cancel.cancelled().await;
            let _ = stop_tx.send(true);
        })
    };
    let gate_dyn: Arc<dyn Gate> = gate.clone();
    let result = engine.turn(request, gate_dyn, stop_rx).await;
    watcher.abort();
    gate.flush().await?;
    if let Some(e) = gate.failed.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(e);
    }
    Ok(result)
}

async fn log_event(
    chat: &Arc<Core>,
    gate: &ChatGate,
    turn: u64,
    event: NativeEvent,
) -> Result<(), LogError> {
    match event {
        NativeEvent::Text(_) => {}
        NativeEvent::Cost { usd } => crate::spending::reported(chat, turn, usd).await?,
        NativeEvent::Usage { input, output } => {
            crate::spending::used(chat, turn, input, output).await?
        }
        NativeEvent::ToolCalled(call) => {
            // A call the gate never saw (the engine's own bookkeeping, or
            // one its sandbox refused before asking) is still recorded.
            let action = gate.classify(&call).ok();
            if gate.action_of(&call.id).is_none() || action.is_some() {
                gate.called(
                    &call,
                    action
                        .as_ref()
                        .or(Some(&Action::LookAround { paths: vec![] })),
                )
                .await?;
            }
        }
        NativeEvent::ToolFinished { id, ok, output } => {
            let action = gate.action_of(&id);
            let found = matches!(action, Some(Action::LookAround { .. })).then(|| output.clone());
            let detail = None;
            chat.log
                .append(Body::ToolFinished(ToolFinished {
                    turn,
                    call: id.clone(),
                    ok,
                    output,
                    detail,
                }))
                .await?;
            // A call the gate refused ran nothing and marks nothing; any
            // other marks, even when it failed (a command can fail after
            // printing a page).
            if let Some(action) = action.filter(|_| !gate.refused(&id)) {
                crate::ledger::after_call(chat, &id, &action, ok, found.as_deref()).await;
                // An engine's command writes as Conch's own do.
                let began = gate
                    .seen
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .began
                    .remove(&id);
                if let (Action::Command { .. }, Some(began)) = (&action, began) {
                    crate::ledger::after_command(chat, began).await;
                }
                let before = gate
                    .seen
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .before
                    .remove(&id);
                if let Some(before) = before {
                    crate::undo::commands::after_command(chat, turn, before, "command").await?;
                }
                if let Some((source, what)) = guard::mark_for(&action, None) {
                    chat.mark(source, what, Some(id)).await?;
                }
            }
        }
        NativeEvent::SkillUsed { name } => {
            let found = match &chat.shared.skills {
                Some(catalog) => {
                    let catalog = catalog.clone();
                    let n = name.clone();
                    tokio::task::spawn_blocking(move || {
                        catalog
                            .list()
                            .unwrap_or_default()
                            .into_iter()
                            .find(|s| s.name == n)
                    })
                    .await
                    .ok()
                    .flatten()
                }
                None => None,
            };
            let used = match found {
                Some(skill) => crate::skill_use::used(&skill, protocol::SkillBy::UseSkill),
                // A skill Conch doesn't know: held to the usual list.
                None => protocol::SkillUsed {
                    skill: name,
                    source: "engine".into(),
                    fingerprint: String::new(),
                    permissions: Some(protocol::SkillPermissions::usual()),
                    by: protocol::SkillBy::UseSkill,
                    from: None,
                    instructions: String::new(),
                    says: None,
                },
            };
            chat.log.append(Body::SkillUsed(used)).await?;
        }
        NativeEvent::Compacted { summary } => {
            let through = chat.log.last_seq();
            chat.log
                .append(Body::Compacted(protocol::Compacted { summary, through }))
                .await?;
        }
        NativeEvent::Note(line) => {
            chat.log
                .append(Body::Reply(Reply { turn, text: line }))
                .await?;
        }
    }
    Ok(())
}
