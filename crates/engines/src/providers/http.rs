//! Sending a step to a provider: retries with backoff on 429 and 5xx (and on
//! connections that fail), a plain sentence on 401 and 403, and the body's
//! own error message on anything else. Only the request is retried; once a
//! stream has started, a failure ends the step.

use std::time::Duration;

use crate::engine::EngineError;

pub const TRIES: u32 = 4;

pub struct Retry {
    /// The first wait; it doubles each time.
    pub first: Duration,
    /// The longest wait, also for a provider's Retry-After.
    pub most: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            first: Duration::from_millis(500),
            most: Duration::from_secs(20),
        }
    }
}

fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let value = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// Why the body says it failed, if it says.
async fn error_message(response: reqwest::Response) -> String {
    let text = response.text().await.unwrap_or_default();
    let from_json = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| {
            v["error"]["message"]
                .as_str()
                .or_else(|| v["error"].as_str())
                .or_else(|| v["message"].as_str())
                .map(str::to_owned)
        });
    from_json.unwrap_or_else(|| text.chars().take(300).collect())
}

/// Sends the request built by `build`, again on failures worth retrying.
pub async fn send(
    provider: &str,
    retry: &Retry,
    build: impl Fn() -> reqwest::RequestBuilder,
) -> Result<reqwest::Response, EngineError> {
    let mut wait = retry.first;
    let mut last = String::new();
    for attempt in 1..=TRIES {
        let pause = match build().send().await {
            Ok(response) if response.status().is_success() => return Ok(response),
            Ok(response) => {
                let status = response.status();
                if status == 401 || status == 403 {
                    return Err(EngineError::Unauthorized(format!(
                        "{provider} refused the key (HTTP {}). Set a new one in Settings → Passwords (in a terminal: conch providers add {provider} … --key-stdin).",
                        status.as_u16()
                    )));
                }
                if status == 429 || status.is_server_error() {
                    last = format!("HTTP {}", status.as_u16());
                    retry_after(&response).unwrap_or(wait).min(retry.most)
                } else {
                    let message = error_message(response).await;
                    return Err(EngineError::Protocol(format!(
                        "{provider} refused the request (HTTP {}): {message}",
                        status.as_u16()
                    )));
                }
            }
            Err(e) => {
                last = if e.is_connect() {
                    "it couldn't be reached".to_owned()
                } else if e.is_timeout() {
                    "it didn't answer in time".to_owned()
                } else {
                    e.to_string()
                };
                wait
            }
        };
        if attempt < TRIES {
            tokio::time::sleep(pause).await;
            wait = (wait * 2).min(retry.most);
        }
    }
    Err(EngineError::Unavailable(format!(
        "{provider} is busy or failing ({last}) after {TRIES} tries. Try again in a minute."
    )))
}
