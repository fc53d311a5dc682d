//! Spending caps (Settings → Models → Spending, `conch providers cap`):
//! per day, per chat and per routine, in the owner's currency. Before each
//! request to a model, Conch estimates what it will cost from the
//! provider's prices (the owner's, else the known list price) and the
//! request's size (four characters a token in, the most it may write out);
//! a request that would pass a cap isn't sent, and the turn ends saying
//! which cap and what to do. Under a cap, a model whose price isn't known
//! isn't sent to at all, unless the owner chose "No cap for this provider".
//! After it, what it cost (the output as written, not the most it could
//! have been) is logged in the chat (`cost`) and in `spending.jsonl`.
//!
//! Claude Code and Codex run many requests inside one turn, out of Conch's
//! sight: a turn on them starts only while every cap still has room, and
//! what Claude Code reports it cost is counted when the turn ends.

mod check;
pub mod ledger;
pub mod manage;
pub mod prices;

use std::sync::Arc;

pub use check::{money, refusal, Caps, Spent};
pub use engines::providers::Price;
pub use ledger::Ledger;

use engines::StepRequest;
use protocol::{Body, Cost};

use crate::log::LogError;
use crate::settings::Settings;
use crate::state::Core;

/// A request about to be sent: what its cost will be counted from.
pub(crate) struct Pending {
    provider: String,
    model: String,
    price: Option<Price>,
    input_tokens: u64,
    currency: String,
}

fn routine_of(chat: &Core) -> Option<String> {
    chat.log
        .with_view(|v| v.created.as_ref().and_then(|c| c.routine.clone()))
}

fn settings(chat: &Core) -> Option<Settings> {
    Settings::load(chat.shared.spending.home()).ok()
}

/// Before a request to the turn's model: None to send it uncounted (the
/// mock, a scripted engine), the pending cost to count after, or the
/// sentence that stops it.
pub(crate) fn before_step(chat: &Core, request: &StepRequest) -> Result<Option<Pending>, String> {
    let Some(name) = chat.turn_provider() else {
        return Ok(None);
    };
    let Some(settings) = settings(chat) else {
        return Ok(None);
    };
    let Some(provider) = settings.providers.iter().find(|p| p.name == name) else {
        return Ok(None);
    };
    let caps = settings.spending.clone().unwrap_or_default();
    let price = prices::price_of(provider, &caps.currency);
    let items: usize = request
        .items
        .iter()
        .map(engines::providers::budget::estimate)
        .sum::<usize>()
        .min(provider.context_tokens);
    let tools: usize = request
        .tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + t.schema.to_string().len())
        .sum();
    let input_tokens = (items + (request.system.len() + tools) / 4) as u64;
    let estimate = price.map(|p| prices::amount(p, input_tokens, u64::from(provider.max_tokens)));
    if !provider.no_cap {
        let spent = chat
            .shared
            .spending
            .spent(&chat.id, routine_of(chat).as_deref());
        if let Some(sentence) = refusal(&caps, spent, estimate, &provider.name, &provider.model) {
            return Err(sentence);
        }
    }
    Ok(Some(Pending {
        provider: provider.name.clone(),
        model: provider.model.clone(),
        price,
        input_tokens,
        currency: caps.currency,
    }))
}

/// Before a turn on an engine that sends its own requests (Claude Code,
/// Codex): it starts only while every cap has room.
pub(crate) fn before_native_turn(chat: &Core) -> Result<(), String> {
    let (Some(name), Some(settings)) = (chat.turn_provider(), settings(chat)) else {
        return Ok(());
    };
    let Some(provider) = settings.providers.iter().find(|p| p.name == name) else {
        return Ok(());
    };
    if provider.no_cap {
        return Ok(());
    }
    let caps = settings.spending.unwrap_or_default();
    let spent = chat
        .shared
        .spending
        .spent(&chat.id, routine_of(chat).as_deref());
    // Nothing more is known before it starts: it must have some room.
    match refusal(
        &caps,
        spent,
        Some(f64::MIN_POSITIVE),
        &provider.name,
        &provider.model,
    ) {
        Some(sentence) => Err(sentence),
        None => Ok(()),
    }
}

/// After the request: what it cost, counted and logged.
pub(crate) async fn after_step(
    chat: &Arc<Core>,
    turn: u64,
    pending: Pending,
    written: usize,
) -> Result<(), LogError> {
    let Some(price) = pending.price else {
        return Ok(());
    };
    let output_tokens = written.div_ceil(4) as u64;
    let amount = prices::amount(price, pending.input_tokens, output_tokens);
    record(
        chat,
        Cost {
            turn,
            provider: pending.provider,
            model: pending.model,
            amount,
            currency: pending.currency,
            input_tokens: pending.input_tokens,
            output_tokens,
            estimated: true,
        },
    )
    .await
}

/// Tokens an engine reported one request used (Codex), priced from the
/// provider's prices; nothing is counted when its price isn't known.
pub(crate) async fn used(
    chat: &Arc<Core>,
    turn: u64,
    input: u64,
    output: u64,
) -> Result<(), LogError> {
    let (Some(name), Some(settings)) = (chat.turn_provider(), settings(chat)) else {
        return Ok(());
    };
    let caps = settings.spending.clone().unwrap_or_default();
    let Some(provider) = settings.providers.iter().find(|p| p.name == name) else {
        return Ok(());
    };
    let Some(price) = prices::price_of(provider, &caps.currency) else {
        return Ok(());
    };
    record(
        chat,
        Cost {
            turn,
            provider: name,
            model: provider.model.clone(),
            amount: prices::amount(price, input, output),
            currency: caps.currency,
            input_tokens: input,
            output_tokens: output,
            estimated: false,
        },
    )
    .await
}

/// What an engine reported a turn cost, in US dollars (Claude Code).
pub(crate) async fn reported(chat: &Arc<Core>, turn: u64, usd: f64) -> Result<(), LogError> {
    let (Some(name), Some(settings)) = (chat.turn_provider(), settings(chat)) else {
        return Ok(());
    };
    let caps = settings.spending.unwrap_or_default();
    let model = settings
        .providers
        .iter()
        .find(|p| p.name == name)
        .map(|p| p.model.clone())
        .unwrap_or_default();
    record(
        chat,
        Cost {
            turn,
            provider: name,
            model,
            amount: usd,
            currency: if caps.currency.eq_ignore_ascii_case("USD") {
                caps.currency
            } else {
                "USD".to_owned()
            },
            input_tokens: 0,
            output_tokens: 0,
            estimated: false,
        },
    )
    .await
}

async fn record(chat: &Arc<Core>, cost: Cost) -> Result<(), LogError> {
    let line = ledger::Line {
        at: protocol::format_rfc3339(std::time::SystemTime::now()),
        day: ledger::today(),
        chat: chat.id.clone(),
        routine: routine_of(chat),
        provider: cost.provider.clone(),
        amount: cost.amount,
        currency: cost.currency.clone(),
    };
    let spending = chat.shared.spending.clone();
    let written = tokio::task::spawn_blocking(move || spending.record(line)).await;
    if !matches!(written, Ok(Ok(()))) {
        crate::warn("What a model request cost couldn't be written to spending.jsonl; it counts until Conch restarts.");
    }
    chat.log.append(Body::Cost(cost)).await?;
    Ok(())
}
