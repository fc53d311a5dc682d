//! One turn: step the engine, log what it says and the tools it calls, run
//! them, and step again until it asks for none.

use std::sync::Arc;

use engines::{Chunk, EngineError, StepRequest};
use protocol::{Body, EndReason, Reply, ToolCalled, ToolFinished, TurnEnded, TurnStarted};
use tokio::sync::mpsc;

use crate::chat::Chat;
use crate::log::LogError;
use crate::toolbox::ToolCall;
use crate::transcript;

/// Steps in one turn before it's ended for going round in circles.
const MAX_STEPS: usize = 50;

enum TurnError {
    Engine(EngineError),
    TooManySteps,
    Log(LogError),
}

impl From<LogError> for TurnError {
    fn from(e: LogError) -> Self {
        TurnError::Log(e)
    }
}

pub(crate) async fn run(chat: &Arc<Chat>) -> Result<(), LogError> {
    let engine = chat.engine.clone();
    let started = chat
        .log
        .append(Body::TurnStarted(TurnStarted {
            engine: engine.name().to_owned(),
            model: engine.model().map(str::to_owned),
        }))
        .await?;
    let turn = started.seq;
    let (reason, error) = match steps(chat, turn).await {
        Ok(()) => (EndReason::Done, None),
        Err(TurnError::Engine(EngineError::Stopped)) => (EndReason::Stopped, None),
        Err(TurnError::Engine(e)) => (EndReason::Error, Some(e.to_string())),
        Err(TurnError::TooManySteps) => (
            EndReason::Error,
            Some(format!(
                "The assistant took {MAX_STEPS} steps without finishing, so the turn was ended. Ask again to go on."
            )),
        ),
        Err(TurnError::Log(e)) => (EndReason::Error, Some(e.to_string())),
    };
    chat.log
        .append(Body::TurnEnded(TurnEnded {
            turn,
            reason,
            error,
        }))
        .await?;
    Ok(())
}

async fn steps(chat: &Arc<Chat>, turn: u64) -> Result<(), TurnError> {
    for _ in 0..MAX_STEPS {
        let events = chat.log.events_after(0)?;
        let request = StepRequest {
            items: transcript::items(&events),
            tools: chat.tools.specs(),
        };
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
        let (result, ()) = tokio::join!(chat.engine.step(request, tx), consume);
        // Words already shown are kept even when the step then failed.
        if !text.is_empty() {
            chat.log.append(Body::Reply(Reply { turn, text })).await?;
        }
        result.map_err(TurnError::Engine)?;
        if calls.is_empty() {
            return Ok(());
        }
        for call in calls {
            chat.log
                .append(Body::ToolCalled(ToolCalled {
                    turn,
                    call: call.id.clone(),
                    tool: call.name.clone(),
                    input: call.input.clone(),
                }))
                .await?;
            let outcome = chat.tools.run(&call, &chat.work).await;
            chat.log
                .append(Body::ToolFinished(ToolFinished {
                    turn,
                    call: call.id,
                    ok: outcome.ok,
                    output: outcome.output,
                    detail: outcome.detail,
                }))
                .await?;
        }
    }
    Err(TurnError::TooManySteps)
}
