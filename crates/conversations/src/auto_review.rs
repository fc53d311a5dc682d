//! Auto mode's reviewer, the part with IO (ADR 0144): it counts the
//! turn's refusals, reads the page, asks the turn's own model about one
//! call inside a deadline that covers acquiring the model and the
//! completion, says whether anything it looked at changed meanwhile, and
//! writes `review.judged`. Every choice on what it found is the approval
//! machine's (`approval`); the rules it applies live in the `review` crate.
//!
//! Nothing is kept between calls: no verdict is cached, every review reads
//! the log afresh, and the budget is counted from the turn's own events.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use approval::{Input, Judged, Page, Reply};
use engines::{Engine, EngineError};
use protocol::{Action, Body, Event, ReviewJudged, ReviewOutcome};
use tools::{Cancel, ToolCall};

use crate::log::LogError;
use crate::state::Core;

pub use crate::settings::ReviewConfig;

/// Why the model gave no reply to judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoReply {
    Deadline,
    Unavailable(String),
    Stopped,
}

/// Asks `engine` for a review. The deadline covers acquiring the model and
/// the completion; when it passes (or Stop is pressed) the call is dropped
/// and a gate is shut, so an acquisition that finishes late can't start a
/// call. The model runs in its own task, so even a provider that ignores
/// cancellation can't hold the turn past the deadline.
pub async fn ask_model(
    engine: Arc<dyn Engine>,
    prompt: String,
    deadline: Duration,
    cancel: &Cancel,
) -> Result<String, NoReply> {
    let open = Arc::new(AtomicBool::new(true));
    let gate = open.clone();
    let task = tokio::spawn(async move {
        engine.acquire().await?;
        if !gate.load(Ordering::SeqCst) {
            return Err(EngineError::Stopped);
        }
        engine.review(review::SYSTEM.to_owned(), prompt).await
    });
    let abort = task.abort_handle();
    let outcome = tokio::select! {
        joined = task => match joined {
            Ok(Ok(text)) => Ok(text),
            Ok(Err(EngineError::Stopped)) => Err(NoReply::Stopped),
            Ok(Err(e)) => Err(NoReply::Unavailable(e.to_string())),
            Err(_) => Err(NoReply::Unavailable("The reviewer's call failed.".to_owned())),
        },
        () = tokio::time::sleep(deadline) => Err(NoReply::Deadline),
        () = cancel.cancelled() => Err(NoReply::Stopped),
    };
    open.store(false, Ordering::SeqCst);
    abort.abort();
    outcome
}

/// Rejections (and exhaustions) already in this turn.
fn rejections(events: &[Event], turn: u64) -> u32 {
    let n = events
        .iter()
        .filter(|e| {
            matches!(&e.body, Body::ReviewJudged(j) if j.turn == turn
                && matches!(j.outcome, ReviewOutcome::Rejected | ReviewOutcome::Exhausted))
        })
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// What review reads of the log after `after`: the messages (its input)
/// and this turn's judgements (its budget). Only those lines are parsed, so
/// a long chat of tool output costs a scan, not a parse.
fn read_log(chat: &Core, after: u64) -> Result<(Vec<Event>, u64), LogError> {
    let lines = chat.log.lines_after(after, usize::MAX)?;
    let last = lines.last().map_or(after, |(seq, _)| *seq);
    let events = lines
        .iter()
        .filter(|(_, l)| {
            l.contains("\"type\":\"message\"") || l.contains("\"type\":\"review.judged\"")
        })
        .filter_map(|(_, l)| Event::from_line(l.as_bytes()).ok())
        .filter(|e| matches!(e.body, Body::Message(_) | Body::ReviewJudged(_)))
        .collect();
    Ok((events, last))
}

/// The reviewer's refusals in this turn, and how many it may make.
pub(crate) fn budget(chat: &Core, turn: u64) -> Result<Input, LogError> {
    let (events, _) = read_log(chat, 0)?;
    Ok(Input::Budget {
        used: rejections(&events, turn),
        limit: chat.shared.review.budget,
    })
}

/// The page a browser action acts on, as the reviewer would read it.
pub(crate) async fn page(chat: &Core) -> Result<Page, String> {
    crate::browsing::look(chat).await.map(|s| Page {
        hidden_values: s.hidden_values,
        complete: s.complete,
        redacted: s.redacted,
    })
}

/// Asks the model about one call, with `page` when it acts on one; says
/// whether a message came or the call's arguments resolve differently
/// since the input was read. `classify` reads a call's arguments the way
/// the turn does.
pub(crate) async fn ask(
    chat: &Core,
    call: &ToolCall,
    action: &Action,
    page: Option<&str>,
    cancel: &Cancel,
    classify: impl Fn(&ToolCall) -> Result<Action, String>,
) -> Result<Input, LogError> {
    let config = &chat.shared.review;
    let (events, read_until) = read_log(chat, 0)?;
    let prompt = match review::build_with_page(
        &call.name,
        &call.input,
        action,
        &events,
        page,
        config.context_chars,
    ) {
        Ok(p) => p,
        Err(e) => return Ok(Input::Unbuilt(e.to_string())),
    };
    let reply = match ask_model(
        chat.engine_now(),
        prompt.prompt.clone(),
        config.deadline,
        cancel,
    )
    .await
    {
        _ if cancel.is_cancelled() => Reply::Stopped,
        Ok(text) => Reply::Text(text),
        Err(NoReply::Stopped) => Reply::Stopped,
        Err(NoReply::Deadline) => Reply::Deadline,
        Err(NoReply::Unavailable(e)) => Reply::Unavailable(e),
    };
    // The arguments as written are in the append-only log and can't
    // change there; what they resolve to (a link, a path) is read again,
    // and so is every message since.
    let (since, _) = read_log(chat, read_until)?;
    let messages_since = since.iter().any(|e| matches!(e.body, Body::Message(_)));
    let changed = messages_since || classify(call).ok().as_ref() != Some(action);
    Ok(Input::Replied {
        prompt: Box::new(prompt),
        reply,
        changed,
    })
}

/// Writes what became of one call's review as `review.judged`; a page a
/// browser action was allowed on is kept for it.
pub(crate) async fn record(
    chat: &Core,
    turn: u64,
    call: &str,
    judged: Judged,
) -> Result<(), LogError> {
    let j = judged.judgement.as_ref();
    chat.log
        .append(Body::ReviewJudged(ReviewJudged {
            turn,
            call: call.to_owned(),
            outcome: judged.outcome,
            risk: j.map(|j| j.risk.as_str().to_owned()),
            evidence: j.map(|j| j.evidence.clone()).unwrap_or_default(),
            reason: j.map(|j| j.reason.chars().take(300).collect()),
            problem: judged.problem,
        }))
        .await?;
    if let Some(page) = judged.page {
        chat.keep_reviewed_page(call, page);
    }
    Ok(())
}
