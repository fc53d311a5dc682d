//! One turn: step the engine, log what it says and the tools it calls, ask
//! the owner where the guard says so, run what may run, and step again until
//! the engine asks for no tools. Stop ends it wherever it is.

use std::sync::Arc;

use engines::{Chunk, EngineError, StepRequest};
use protocol::{Action, Body, EndReason, Reply, ToolCalled, ToolFinished, TurnEnded, TurnStarted};
use serde_json::json;
use tokio::sync::mpsc;
use tools::{Cancel, Outcome, RunContext, ToolCall};

use crate::chat_tools::CHAT_TOOLS;
use crate::log::LogError;
use crate::permission::Permission;
use crate::state::Core;
use crate::transcript;

/// How long a turn waits for the owner's apps still connecting.
const APPS_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

enum TurnError {
    Engine(EngineError),
    Stopped,
    TooManySteps,
    /// A spending cap (or an unknown price under one) stopped the request.
    Capped(String),
    Log(LogError),
}

impl From<LogError> for TurnError {
    fn from(e: LogError) -> Self {
        TurnError::Log(e)
    }
}

pub(crate) async fn run(chat: &Arc<Core>) -> Result<(), LogError> {
    let cancel = Cancel::default();
    *chat.live.current.lock().unwrap_or_else(|p| p.into_inner()) = Some(cancel.clone());
    let result = run_with(chat, &cancel).await;
    *chat.live.current.lock().unwrap_or_else(|p| p.into_inner()) = None;
    result
}

async fn run_with(chat: &Arc<Core>, cancel: &Cancel) -> Result<(), LogError> {
    crate::memories::give(chat).await?;
    let engine = chat.pick_engine().await;
    // Right after Conch starts, the owner's apps may still be connecting:
    // a turn waits a moment for them, and says which weren't ready.
    let not_ready = chat.shared.tools.not_ready(APPS_WAIT).await;
    let started = chat
        .log
        .append(Body::TurnStarted(TurnStarted {
            engine: engine.name().to_owned(),
            model: engine.model().map(str::to_owned),
            not_ready,
        }))
        .await?;
    let turn = started.seq;
    let result = match engine.native() {
        Some(native) => match crate::spending::before_native_turn(chat) {
            Err(sentence) => Err(TurnError::Capped(sentence)),
            Ok(()) => match crate::native_turn::run(chat, native, turn, cancel).await {
                Ok(Ok(())) if cancel.is_cancelled() => Err(TurnError::Stopped),
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(TurnError::Engine(e)),
                Err(e) => Err(TurnError::Log(e)),
            },
        },
        None => steps(chat, turn, cancel).await,
    };
    end(chat, turn, result).await
}

/// A turn started again after a restart, for the questions it was waiting
/// on: each call is asked again (on the page and in the owner's chat app,
/// as any question), runs if allowed, and the model goes on from there.
/// Only Conch's own turns: an engine that runs its own tools lost its turn
/// with the process, and a yes would run nothing.
pub(crate) async fn ask_again(chat: &Arc<Core>, calls: Vec<ToolCall>) -> Result<(), LogError> {
    let cancel = Cancel::default();
    *chat.live.current.lock().unwrap_or_else(|p| p.into_inner()) = Some(cancel.clone());
    let engine = chat.pick_engine().await;
    if engine.native().is_some() || chat.shared.halt.get().is_some() {
        *chat.live.current.lock().unwrap_or_else(|p| p.into_inner()) = None;
        return Ok(());
    }
    let started = chat
        .log
        .append(Body::TurnStarted(TurnStarted {
            engine: engine.name().to_owned(),
            model: engine.model().map(str::to_owned),
            not_ready: Vec::new(),
        }))
        .await?;
    let turn = started.seq;
    let result = async {
        for call in calls {
            one_call(chat, turn, call, &cancel).await?;
        }
        steps(chat, turn, &cancel).await
    }
    .await;
    let ended = end(chat, turn, result).await;
    *chat.live.current.lock().unwrap_or_else(|p| p.into_inner()) = None;
    ended
}

async fn end(chat: &Arc<Core>, turn: u64, result: Result<(), TurnError>) -> Result<(), LogError> {
    let (reason, error) = match result {
        Ok(()) => (EndReason::Done, None),
        Err(TurnError::Stopped) | Err(TurnError::Engine(EngineError::Stopped)) => {
            (EndReason::Stopped, None)
        }
        Err(TurnError::Engine(e)) => (EndReason::Error, Some(e.to_string())),
        Err(TurnError::TooManySteps) => (
            EndReason::Error,
            Some(format!(
                "The assistant took {} steps without finishing, so this turn was ended. Say \"go on\" to continue, or raise maxSteps in settings.json.",
                chat.shared.max_steps
            )),
        ),
        Err(TurnError::Capped(sentence)) => (EndReason::Error, Some(sentence)),
        Err(TurnError::Log(e)) => (EndReason::Error, Some(e.to_string())),
    };
    // Once the turn is ending there's nothing left for Stop to stop.
    *chat.live.current.lock().unwrap_or_else(|p| p.into_inner()) = None;
    crate::undo::turn_ended(chat, turn).await?;
    chat.log
        .append(Body::TurnEnded(TurnEnded {
            turn,
            reason,
            error,
        }))
        .await?;
    Ok(())
}

async fn steps(chat: &Arc<Core>, turn: u64, cancel: &Cancel) -> Result<(), TurnError> {
    // The skills on offer, read once a turn (reading scans every skill).
    let skills_offered: Vec<(String, String)> = match &chat.shared.skills {
        Some(catalog) => {
            let catalog = catalog.clone();
            tokio::task::spawn_blocking(move || catalog.list().unwrap_or_default())
                .await
                .unwrap_or_default()
                .into_iter()
                .filter(|s| s.is_on())
                .map(|s| (s.name, s.description))
                .collect()
        }
        None => Vec::new(),
    };
    refresh_skill_lists(chat).await;
    for _ in 0..chat.shared.max_steps {
        if cancel.is_cancelled() {
            return Err(TurnError::Stopped);
        }
        // The whole chat is read at every step: off the async threads, so
        // a long chat's steps don't hold up other chats' streams.
        let log = chat.log.clone();
        let events = tokio::task::spawn_blocking(move || log.events_after(0))
            .await
            .map_err(|_| LogError::Closed)??;
        let request = StepRequest {
            system: crate::prompt::system(&chat.work, &skills_offered),
            items: transcript::items(&events),
            tools: offered(chat),
        };
        let pending = crate::spending::before_step(chat, &request).map_err(TurnError::Capped)?;
        let (tx, mut rx) = mpsc::channel(64);
        let mut text = String::new();
        let mut calls = Vec::new();
        let consume = async {
            while let Some(chunk) = rx.recv().await {
                match chunk {
                    Chunk::Text(t) => {
                        chat.log.send_delta(turn, &t);
                        text.push_str(&t);
                    }
                    Chunk::ToolCall { id, name, input } => calls.push(ToolCall { id, name, input }),
                }
            }
        };
        let engine = chat.engine_now();
        let step = async { tokio::join!(engine.step(request, tx), consume).0 };
        let result = tokio::select! {
            r = step => r,
            () = cancel.cancelled() => Err(EngineError::Stopped),
        };
        // Words already shown are kept even when the step then failed or
        // stopped; fenced artifact blocks come out of them first.
        if !text.is_empty() {
            let text = crate::artifact::take_blocks(chat, &text).await;
            chat.log.append(Body::Reply(Reply { turn, text })).await?;
        }
        if let Some(pending) = pending.filter(|_| result.is_ok() || !text.is_empty()) {
            let written = text.len()
                + calls
                    .iter()
                    .map(|c| c.name.len() + c.input.to_string().len())
                    .sum::<usize>();
            crate::spending::after_step(chat, turn, pending, written).await?;
        }
        result.map_err(TurnError::Engine)?;
        if calls.is_empty() {
            return Ok(());
        }
        for call in calls {
            one_call(chat, turn, call, cancel).await?;
        }
    }
    Err(TurnError::TooManySteps)
}

/// The tools this chat is offered: the toolbox's and the chat's own; a
/// Refresh chat reads the web for fresh data and updates its one artifact
/// (the guard decides the reads like any).
fn offered(chat: &Core) -> Vec<protocol::ToolSpec> {
    if chat.refreshes.is_some() {
        let mut specs: Vec<_> = chat
            .shared
            .tools
            .specs()
            .into_iter()
            .filter(|s| crate::artifact::REFRESH_READS.contains(&s.name.as_str()))
            .collect();
        specs.push(crate::artifact::update_spec());
        return specs;
    }
    let mut specs = chat.shared.tools.specs();
    for tool in CHAT_TOOLS.into_iter().filter(|t| t.offered(chat)) {
        specs.extend(tool.specs());
    }
    specs
}

/// One tool call: logged, classified, decided, perhaps asked about, run.
async fn one_call(
    chat: &Arc<Core>,
    turn: u64,
    call: ToolCall,
    cancel: &Cancel,
) -> Result<(), TurnError> {
    chat.log
        .append(Body::ToolCalled(ToolCalled {
            turn,
            call: call.id.clone(),
            tool: call.name.clone(),
            input: call.input.clone(),
        }))
        .await?;
    let finish = |outcome: Outcome| {
        Body::ToolFinished(ToolFinished {
            turn,
            call: call.id.clone(),
            ok: outcome.ok,
            output: outcome.output,
            detail: outcome.detail,
        })
    };
    if cancel.is_cancelled() {
        chat.log.append(finish(Outcome::failed("Stopped."))).await?;
        return Err(TurnError::Stopped);
    }
    let classified = classify(chat, &call);
    let action = match classified {
        Ok(a) => a,
        Err(sentence) => {
            let outcome = Outcome {
                ok: false,
                output: sentence,
                detail: Some(json!({ "invalid": true }).into()),
            };
            chat.log.append(finish(outcome)).await?;
            return Ok(());
        }
    };
    match permission(chat, turn, &call, &action, cancel).await? {
        Permission::Run => {}
        Permission::Refused(outcome) => {
            chat.log.append(finish(outcome)).await?;
            return Ok(());
        }
        Permission::Stopped => {
            chat.log
                .append(finish(Outcome::failed("Stopped before it ran.")))
                .await?;
            return Err(TurnError::Stopped);
        }
    }
    if let Action::FileChange { path, .. } = &action {
        crate::undo::before_change(chat, turn, vec![path.clone()], &call.name).await?;
    }
    let ctx = RunContext {
        work: chat.work.clone(),
        cancel: cancel.clone(),
        protected: chat.shared.policies.protected.clone(),
        masker: Some(chat.shared.secrets.masker()),
    };
    let before = match &action {
        Action::Command { .. } => Some(crate::undo::commands::before_command(chat).await),
        _ => None,
    };
    let began = std::time::SystemTime::now();
    let outcome = match crate::chat_tools::runner_of(&action) {
        Some(tool) => tool.run(chat, &call, &action, cancel).await,
        None => chat.shared.tools.run(&call, &action, &ctx).await,
    };
    let mark = guard::mark_for(&action, outcome.detail.as_ref()).filter(|(source, what)| {
        // The browser shows the same site page after page: it marks once.
        !matches!(action, Action::Browser(_))
            || !chat.log.with_view(|v| {
                v.held_taints()
                    .any(|m| m.source == *source && m.what == *what)
            })
    });
    let loaded = outcome
        .ok
        .then(|| {
            outcome
                .detail
                .as_ref()
                .and_then(crate::skill_use::from_detail)
        })
        .flatten();
    let recalled = matches!(action, Action::Memory { .. })
        .then(|| outcome.detail.clone())
        .flatten();
    let ran = outcome.ok;
    let found = matches!(action, Action::LookAround { .. }).then(|| outcome.output.clone());
    chat.log.append(finish(outcome)).await?;
    crate::ledger::after_call(chat, &call.id, &action, ran, found.as_deref()).await;
    if matches!(action, Action::Command { .. }) {
        crate::ledger::after_command(chat, began).await;
    }
    if let Some(before) = before {
        crate::undo::commands::after_command(chat, turn, before, &call.name).await?;
    }
    crate::memories::carry(chat, &call.id, recalled.as_ref()).await?;
    if let Some(used) = loaded {
        chat.log.append(Body::SkillUsed(used)).await?;
    }
    if let Some((source, what)) = mark {
        chat.mark(source, what, Some(call.id.clone())).await?;
    }
    if cancel.is_cancelled() {
        return Err(TurnError::Stopped);
    }
    Ok(())
}

/// Reads a call's arguments into the action it would take: how the turn
/// classifies, and how review reads them again after looking.
pub(crate) fn classify(chat: &Core, call: &ToolCall) -> Result<Action, String> {
    if let Some(only) = &chat.refreshes {
        let action = if call.name == crate::artifact::UPDATE {
            crate::artifact::classify(&call.name, &call.input)?
        } else {
            chat.shared.tools.classify(call, &chat.work)?
        };
        crate::artifact::refresh_allows(&action, only)?;
        Ok(action)
    } else if let Some(tool) = crate::chat_tools::owner_of(chat, &call.name) {
        tool.classify(chat, call)
    } else {
        chat.shared.tools.classify(call, &chat.work)
    }
}

/// For holds recorded without a list (older logs): each skill's list now.
async fn refresh_skill_lists(chat: &Arc<Core>) {
    let (Some(catalog), true) = (
        chat.shared.skills.clone(),
        chat.log
            .with_view(|v| v.holds.iter().any(|h| h.permissions.is_none())),
    ) else {
        return;
    };
    let lists: std::collections::BTreeMap<String, protocol::SkillPermissions> =
        tokio::task::spawn_blocking(move || {
            catalog
                .list()
                .unwrap_or_default()
                .into_iter()
                .map(|s| (s.name, s.permissions))
                .collect()
        })
        .await
        .unwrap_or_default();
    *chat
        .live
        .skill_lists
        .lock()
        .unwrap_or_else(|p| p.into_inner()) = lists;
}

/// Drives the approval path ([`approval`]) for one host call: the state
/// machine chooses each step, this does it.
async fn permission(
    chat: &Arc<Core>,
    turn: u64,
    call: &ToolCall,
    action: &Action,
    cancel: &Cancel,
) -> Result<Permission, LogError> {
    let classify = |c: &ToolCall| classify(chat, c);
    crate::permission::drive(chat, turn, call, action, cancel, &classify).await
}
