//! What known models cost, per million tokens, in US dollars: the table a
//! provider's prices start from (the owner edits them in Settings →
//! Models). Matched on the model's name, the longest known name it starts
//! with (`gpt-4o-mini-2024-07-18` is `gpt-4o-mini`, not `gpt-4o`).

use engines::providers::{Price, ProviderSettings};

/// (name, input, output): list prices as the providers publish them.
const KNOWN: &[(&str, f64, f64)] = &[
    ("gpt-5", 1.25, 10.0),
    ("gpt-5-mini", 0.25, 2.0),
    ("gpt-5-nano", 0.05, 0.4),
    ("gpt-4.1", 2.0, 8.0),
    ("gpt-4.1-mini", 0.4, 1.6),
    ("gpt-4.1-nano", 0.1, 0.4),
    ("gpt-4o", 2.5, 10.0),
    ("gpt-4o-mini", 0.15, 0.6),
    ("o3", 2.0, 8.0),
    ("o3-mini", 1.1, 4.4),
    ("o4-mini", 1.1, 4.4),
    ("codex-mini", 1.5, 6.0),
    ("claude-opus-4", 15.0, 75.0),
    ("claude-sonnet-4", 3.0, 15.0),
    ("claude-3-7-sonnet", 3.0, 15.0),
    ("claude-3-5-sonnet", 3.0, 15.0),
    ("claude-haiku-4", 1.0, 5.0),
    ("claude-3-5-haiku", 0.8, 4.0),
    ("claude-3-haiku", 0.25, 1.25),
];

/// The list price of `model`, when it is a known one.
pub fn known(model: &str) -> Option<Price> {
    let model = model.trim().to_ascii_lowercase();
    let model = model.rsplit('/').next().unwrap_or(&model);
    KNOWN
        .iter()
        .filter(|(name, ..)| {
            model == *name
                || model
                    .strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(['-', '.', '@', ':']))
        })
        .max_by_key(|(name, ..)| name.len())
        .map(|&(_, input, output)| Price { input, output })
}

/// What `provider`'s model costs in `currency`: the owner's prices, else
/// the known list price when the currency is US dollars. None: unknown.
pub fn price_of(provider: &ProviderSettings, currency: &str) -> Option<Price> {
    provider.prices.or_else(|| {
        (currency.eq_ignore_ascii_case("USD"))
            .then(|| known(&provider.model))
            .flatten()
    })
}

/// What `input` and `output` tokens cost at `price`.
pub fn amount(price: Price, input: u64, output: u64) -> f64 {
    (input as f64 * price.input + output as f64 * price.output) / 1_000_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_known_name_wins_and_a_lookalike_doesnt() {
        assert_eq!(known("gpt-4o-mini-2024-07-18").map(|p| p.input), Some(0.15));
        assert_eq!(known("gpt-4o").map(|p| p.input), Some(2.5));
        assert_eq!(known("openai/GPT-4o").map(|p| p.input), Some(2.5));
        assert_eq!(known("claude-sonnet-4-5").map(|p| p.output), Some(15.0));
        assert_eq!(known("o3x"), None);
        assert_eq!(known("llama3"), None);
        assert!(
            (amount(
                Price {
                    input: 2.0,
                    output: 8.0
                },
                1_000_000,
                500_000
            ) - 6.0)
                .abs()
                < 1e-9
        );
    }
}
