//! Auto mode's reviewer, the part with I/O (ADR 0144): it asks the turn's
//! own model about one call, inside a deadline that covers acquiring the
//! model and the completion, and checks that nothing it looked at changed
//! before its verdict counts. The rules it applies live in the `review`
//! crate; what it decides is written to the log as `review.judged`.
//!
//! Nothing is kept between calls: no verdict is cached, every review reads
//! the log afresh, and the budget is counted from the turn's own events.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use engines::{Engine, EngineError};
use protocol::{Action, Body, BrowserOp, Event, ReviewJudged, ReviewOutcome};
use review::{Judgement, Verdict};
use tools::binding::Binding;
use tools::{Cancel, ToolCall};

use crate::chat::Chat;
use crate::log::LogError;

/// Auto mode's reviewer, as settings.json `autoReview` sets it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewConfig {
    /// Acquiring the model and its whole reply must fit in this.
    pub deadline: Duration,
    /// Rejections in one turn before review stops being tried.
    pub budget: u32,
    /// The most characters the reviewer's input may have.
    pub context_chars: usize,
}

impl Default for ReviewConfig {
    fn default() -> Self {
        ReviewConfig {
            deadline: Duration::from_millis(review::DEFAULT_DEADLINE_MS),
            budget: review::DEFAULT_BUDGET,
            context_chars: review::DEFAULT_CONTEXT_CHARS,
        }
    }
}

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

/// What review made of a call (the approval machine's one type), and for
/// an allowed call the binding it was approved with.
pub(crate) type Reviewed = (crate::approval::Reviewed, Option<Binding>);

fn refused(id: &'static str, sentence: String) -> Reviewed {
    (
        crate::approval::Reviewed::Refused {
            id: id.to_owned(),
            sentence,
        },
        None,
    )
}

fn owner(line: String) -> Reviewed {
    (crate::approval::Reviewed::Owner(line), None)
}

const STOPPED: Reviewed = (crate::approval::Reviewed::Stopped, None);

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
fn read_log(chat: &Chat, after: u64) -> Result<(Vec<Event>, u64), LogError> {
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

/// Writes what became of one call as `review.judged`.
struct Record<'a> {
    chat: &'a Chat,
    turn: u64,
    call: &'a str,
}

impl Record<'_> {
    async fn write(
        &self,
        outcome: ReviewOutcome,
        judgement: Option<&Judgement>,
        problem: Option<&str>,
    ) -> Result<(), LogError> {
        self.chat
            .log
            .append(Body::ReviewJudged(ReviewJudged {
                turn: self.turn,
                call: self.call.to_owned(),
                outcome,
                risk: judgement.map(|j| j.risk.as_str().to_owned()),
                evidence: judgement.map(|j| j.evidence.clone()).unwrap_or_default(),
                reason: judgement.map(|j| j.reason.chars().take(300).collect()),
                problem: problem.map(str::to_owned),
            }))
            .await?;
        Ok(())
    }

    /// The question is kept for the owner; `line` says why on it.
    async fn keep(
        &self,
        judgement: Option<&Judgement>,
        problem: Option<&str>,
        line: String,
    ) -> Result<Reviewed, LogError> {
        self.write(ReviewOutcome::Asked, judgement, problem).await?;
        Ok(owner(line))
    }
}

/// Reviews one eligible call. `classify` reads a call's arguments the way
/// the turn does, so a change to what they resolve to while the review is
/// pending is seen.
pub(crate) async fn review(
    chat: &Arc<Chat>,
    turn: u64,
    call: &ToolCall,
    action: &Action,
    cancel: &Cancel,
    classify: impl Fn(&ToolCall) -> Result<Action, String>,
) -> Result<Reviewed, LogError> {
    let config = chat.shared.review.clone();
    let record = Record {
        chat,
        turn,
        call: &call.id,
    };
    let (events, read_until) = read_log(chat, 0)?;
    if rejections(&events, turn) >= config.budget {
        record
            .write(ReviewOutcome::Exhausted, None, Some("budget"))
            .await?;
        return Ok(refused(
            "review.exhausted",
            format!(
                "Auto mode's reviewer has turned down {} actions this turn, so it won't look at more until the owner writes again. Don't try this another way; finish what you can without it, or ask the owner in your reply.",
                config.budget
            ),
        ));
    }
    let before = crate::permission::bind(chat, action, &call.input).await;
    if let Some(why) = &before.unidentified {
        let line = format!("Auto mode's reviewer can't approve a script it can't pin down: {why}");
        return record.keep(None, Some("script"), line).await;
    }
    // A click in the browser, or typing that the page's script reads, is
    // reviewed with the page it acts on, whole and redacted; it then
    // happens only on exactly that page.
    let page = match action {
        Action::Browser(b) if b.op == BrowserOp::Click || b.sends.is_some() => {
            match crate::browsing::look(chat).await {
                Ok(s) if s.hidden_values > 0 => {
                    let line = "This click would send a password or another secret field the reviewer can't see, so you're asked.";
                    return record.keep(None, Some("page"), line.to_owned()).await;
                }
                Ok(s) if s.complete => Some(s.redacted),
                Ok(_) => {
                    let line = "Part of the page is in frames Auto mode's reviewer can't see, so you're asked.";
                    return record.keep(None, Some("page"), line.to_owned()).await;
                }
                Err(e) => {
                    let line = format!(
                        "Auto mode's reviewer couldn't read the page, so you're asked. {e}"
                    );
                    return record.keep(None, Some("page"), line).await;
                }
            }
        }
        _ => None,
    };
    let input = match review::build_with_page(
        &call.name,
        &call.input,
        action,
        &events,
        page.as_deref(),
        config.context_chars,
    ) {
        Ok(i) => i,
        Err(e) => return record.keep(None, Some("oversized"), e.to_string()).await,
    };
    let reply = ask_model(
        chat.engine_now(),
        input.prompt.clone(),
        config.deadline,
        cancel,
    )
    .await;
    let reply = match reply {
        Ok(r) => r,
        Err(NoReply::Stopped) => return Ok(STOPPED),
        Err(NoReply::Deadline) => {
            let line = "Auto mode's reviewer didn't answer in time, so you're asked.";
            return record.keep(None, Some("deadline"), line.to_owned()).await;
        }
        Err(NoReply::Unavailable(e)) => {
            let line =
                format!("Auto mode's reviewer couldn't reach the model, so you're asked. {e}");
            return record.keep(None, Some("unavailable"), line).await;
        }
    };
    if cancel.is_cancelled() {
        return Ok(STOPPED);
    }
    // The verdict is for what was shown: the call's arguments and what
    // they resolve to, and the messages. The arguments as written are in
    // the append-only log and can't change there; what they resolve to
    // (a link, a path) is read again, and so is every message since.
    let (since, _) = read_log(chat, read_until)?;
    let messages_since = since.iter().any(|e| matches!(e.body, Body::Message(_)));
    let resolved_again = classify(call).ok();
    if messages_since || resolved_again.as_ref() != Some(action) {
        let line = "Something changed while Auto mode's reviewer looked, so you're asked.";
        return record.keep(None, Some("changed"), line.to_owned()).await;
    }
    let judgement = match review::parse_verdict(&reply, &input.ids()) {
        Ok(j) => j,
        Err(e) => {
            let line = format!("Auto mode's reviewer gave no usable verdict, so you're asked. {e}");
            return record.keep(None, Some(e.code()), line).await;
        }
    };
    let j = Some(&judgement);
    match judgement.verdict {
        Verdict::Reject => {
            record.write(ReviewOutcome::Rejected, j, None).await?;
            Ok(refused(
                "review.rejected",
                format!(
                    "Auto mode's reviewer turned this down: {} Don't try it another way; do what you can without it, or ask the owner in your reply.",
                    judgement.reason.trim()
                ),
            ))
        }
        Verdict::Ask => {
            let line = format!(
                "Auto mode's reviewer left this to you: {}",
                judgement.reason.trim()
            );
            record.keep(j, None, line).await
        }
        Verdict::Allow => {
            let cited = input.cited(&judgement.evidence);
            if review::quote::only_quotations(&cited, review::input::needle(action)) {
                let line = "Auto mode's reviewer cited words you quoted, which aren't a request, so you're asked.";
                return record.keep(j, Some("quoted"), line.to_owned()).await;
            }
            let after = crate::permission::bind(chat, action, &call.input).await;
            if let Some(line) = before.changed(&after) {
                return record.keep(j, Some("changed"), line).await;
            }
            record.write(ReviewOutcome::Allowed, j, None).await?;
            if let Some(page) = page {
                chat.keep_reviewed_page(&call.id, page);
            }
            Ok((crate::approval::Reviewed::Allowed, Some(before)))
        }
    }
}
