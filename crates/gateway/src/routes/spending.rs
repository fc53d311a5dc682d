//! Spending caps and prices (issue 37), as `conch providers cap` and
//! `conch providers price` set them (`conversations::spending::manage`):
//! `GET /api/spending` (anyone signed in), `POST /api/spending` (the caps)
//! and `POST /api/providers/{name}/prices` (a provider's prices, or no
//! cap), a person only: a key can't raise a cap.

use axum::extract::{Path, State};
use axum::Json;
use conversations::spending::{manage, Caps, Price};
use serde::Deserialize;
use serde_json::{json, Value};

use super::providers::blocking;
use crate::auth::Person;
use crate::error::ApiError;
use crate::json_body::JsonBody;
use crate::state::AppState;

pub async fn get(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let home = state.chats.home().root().to_path_buf();
    let today = state.chats.spending().today();
    let overview = blocking(move || manage::overview(&home, today)).await?;
    Ok(Json(json!(overview)))
}

pub async fn set_caps(
    _person: Person,
    State(state): State<AppState>,
    JsonBody(caps): JsonBody<Caps>,
) -> Result<Json<Value>, ApiError> {
    let home = state.chats.home().root().to_path_buf();
    blocking(move || manage::set_caps(&home, caps)).await?;
    get(State(state)).await
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PricesBody {
    /// Absent: unchanged; null: back to the known list price.
    #[serde(default, with = "double_option")]
    prices: Option<Option<Price>>,
    #[serde(default)]
    no_cap: Option<bool>,
}

mod double_option {
    use serde::{Deserialize, Deserializer};

    pub fn deserialize<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de>,
    {
        Option::<T>::deserialize(d).map(Some)
    }
}

pub async fn set_prices(
    _person: Person,
    State(state): State<AppState>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<PricesBody>,
) -> Result<Json<Value>, ApiError> {
    let home = state.chats.home().root().to_path_buf();
    blocking(move || manage::set_prices(&home, &name, body.prices, body.no_cap)).await?;
    get(State(state)).await
}
