//! Setting the caps and a provider's prices: what `conch providers cap`,
//! `conch providers price` and Settings → Models all do, so they can't
//! drift apart.

use std::path::Path;

use engines::providers::Price;
use serde::Serialize;

use super::{prices, Caps};
use crate::providers::ProviderError;
use crate::settings::Settings;

/// The caps and each provider's prices, as Settings → Models shows them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    pub currency: String,
    pub day: Option<f64>,
    pub chat: Option<f64>,
    pub routine: Option<f64>,
    /// Spent today (UTC), all chats.
    pub today: f64,
    pub providers: Vec<ProviderPrices>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderPrices {
    pub name: String,
    pub model: String,
    /// The owner's prices, per million tokens.
    pub prices: Option<Price>,
    /// The known list price for its model (US dollars), if any.
    pub known: Option<Price>,
    /// What counts now: the owner's, else the known one in US dollars.
    pub used: Option<Price>,
    pub no_cap: bool,
}

pub fn overview(home: &Path, today: f64) -> Result<Overview, ProviderError> {
    let settings = Settings::load(home).map_err(ProviderError::Settings)?;
    let caps = settings.spending.clone().unwrap_or_default();
    Ok(Overview {
        providers: settings
            .providers
            .iter()
            .map(|p| ProviderPrices {
                name: p.name.clone(),
                model: p.model.clone(),
                prices: p.prices,
                known: prices::known(&p.model),
                used: prices::price_of(p, &caps.currency),
                no_cap: p.no_cap,
            })
            .collect(),
        currency: caps.currency,
        day: caps.day,
        chat: caps.chat,
        routine: caps.routine,
        today,
    })
}

/// A cap or price a person typed: a number, not negative, not absurd.
fn amount_ok(v: f64) -> bool {
    v.is_finite() && (0.0..=1_000_000.0).contains(&v)
}

pub fn set_caps(home: &Path, caps: Caps) -> Result<(), ProviderError> {
    let currency = caps.currency.trim().to_ascii_uppercase();
    if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(ProviderError::BadAmount(
            "A currency is its three-letter code: USD, EUR, GBP…".into(),
        ));
    }
    if [caps.day, caps.chat, caps.routine]
        .iter()
        .flatten()
        .any(|v| !amount_ok(*v))
    {
        return Err(ProviderError::BadAmount(
            "A cap is an amount of 0 or more (0 stops every paid request).".into(),
        ));
    }
    let mut settings = Settings::load(home).map_err(ProviderError::Settings)?;
    settings.spending = Some(Caps { currency, ..caps });
    settings.save(home).map_err(ProviderError::Settings)
}

/// A provider's prices (None: back to the known list price), and whether
/// it has no cap.
pub fn set_prices(
    home: &Path,
    name: &str,
    prices: Option<Option<Price>>,
    no_cap: Option<bool>,
) -> Result<(), ProviderError> {
    if let Some(Some(p)) = prices {
        if !amount_ok(p.input) || !amount_ok(p.output) {
            return Err(ProviderError::BadAmount(
                "A price is an amount per million tokens, 0 or more.".into(),
            ));
        }
    }
    let mut settings = Settings::load(home).map_err(ProviderError::Settings)?;
    let provider = settings
        .providers
        .iter_mut()
        .find(|p| p.name == name)
        .ok_or_else(|| ProviderError::NotFound(name.to_owned()))?;
    if let Some(prices) = prices {
        provider.prices = prices;
    }
    if let Some(no_cap) = no_cap {
        provider.no_cap = no_cap;
    }
    settings.save(home).map_err(ProviderError::Settings)
}
