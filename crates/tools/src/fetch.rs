//! web_fetch: one page, read for real. Redirects are followed by hand (at
//! most ten), each hop recorded, each checked to still be http(s); the body
//! is read up to a size limit within a time limit; HTML becomes text.

use std::time::Duration;

use serde_json::json;

use crate::html;
use crate::toolbox::{Cancel, Outcome};

#[derive(Debug, Clone)]
pub struct FetchConfig {
    pub timeout: Duration,
    /// Bytes of a body read at most.
    pub max_bytes: usize,
    pub max_redirects: usize,
    /// Characters of text the model is given at most.
    pub max_text: usize,
    /// Send every request through this HTTP proxy (replay serves its pages
    /// this way; nothing else should need it).
    pub proxy: Option<String>,
}

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            timeout: Duration::from_secs(30),
            max_bytes: 5 * 1024 * 1024,
            max_redirects: 10,
            max_text: 100_000,
            proxy: None,
        }
    }
}

pub struct Fetcher {
    client: Result<reqwest::Client, String>,
    config: FetchConfig,
}

impl Fetcher {
    pub fn new(config: FetchConfig) -> Fetcher {
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.timeout)
            .user_agent(concat!("Conch/", env!("CARGO_PKG_VERSION")));
        if let Some(proxy) = &config.proxy {
            match reqwest::Proxy::all(proxy) {
                Ok(p) => builder = builder.proxy(p),
                Err(e) => {
                    return Fetcher {
                        client: Err(format!("The fetch proxy {proxy} isn't usable: {e}.")),
                        config,
                    }
                }
            }
        } else {
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|e| format!("Pages can't be fetched here: {e}."));
        Fetcher { client, config }
    }

    pub async fn fetch(&self, url: reqwest::Url, cancel: &Cancel) -> Outcome {
        tokio::select! {
            outcome = self.fetch_inner(url) => outcome,
            () = cancel.cancelled() => Outcome::failed("Stopped before the page arrived."),
        }
    }

    async fn fetch_inner(&self, start: reqwest::Url) -> Outcome {
        let client = match &self.client {
            Ok(c) => c,
            Err(e) => return Outcome::failed(e.clone()),
        };
        let mut url = start.clone();
        let mut hops = Vec::new();
        let response = loop {
            let response = match client.get(url.clone()).send().await {
                Ok(r) => r,
                Err(e) => return Outcome::failed(unreachable(&url, &e)),
            };
            let status = response.status();
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            match location {
                Some(to) if status.is_redirection() => {
                    hops.push(json!({ "url": url.as_str(), "status": status.as_u16() }));
                    if hops.len() > self.config.max_redirects {
                        return Outcome::failed(format!(
                            "{start} redirects more than {} times, so it wasn't followed to the end.",
                            self.config.max_redirects
                        ));
                    }
                    let next = match url.join(&to) {
                        Ok(n) => n,
                        Err(_) => {
                            return Outcome::failed(format!(
                                "{url} redirects to \"{to}\", which isn't an address."
                            ))
                        }
                    };
                    if !matches!(next.scheme(), "http" | "https") {
                        return Outcome::failed(format!(
                            "{url} redirects to a {} address, which web_fetch doesn't follow.",
                            next.scheme()
                        ));
                    }
                    url = next;
                }
                _ => break response,
            }
        };
        let status = response.status();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let (bytes, truncated) = match read_limited(response, self.config.max_bytes).await {
            Ok(b) => b,
            Err(e) => return Outcome::failed(format!("Reading {url} failed partway: {e}.")),
        };
        let mut detail = json!({
            "url": start.as_str(),
            "final_url": url.as_str(),
            "status": status.as_u16(),
            "hops": hops,
            "content_type": content_type,
            "bytes": bytes.len(),
            "truncated": truncated,
        });
        let sniffed_html = bytes
            .iter()
            .take(512)
            .map(|b| b.to_ascii_lowercase())
            .collect::<Vec<u8>>()
            .windows(5)
            .any(|w| w == b"<html" || w == b"<!doc");
        let textual = content_type.starts_with("text/")
            || content_type.contains("json")
            || content_type.contains("xml")
            || content_type.contains("javascript")
            || (content_type.is_empty() && !bytes.contains(&0));
        let (title, mut text) = if content_type.contains("html") || (sniffed_html && textual) {
            html::to_text(&String::from_utf8_lossy(&bytes), Some(&url))
        } else if textual {
            (None, String::from_utf8_lossy(&bytes).into_owned())
        } else {
            return Outcome {
                ok: false,
                output: format!(
                    "{url} is a {} file of {} bytes; it can't be shown as text.",
                    if content_type.is_empty() {
                        "binary"
                    } else {
                        &content_type
                    },
                    bytes.len()
                ),
                detail: Some(detail.into()),
            };
        };
        detail["title"] = json!(title);
        if text.chars().count() > self.config.max_text {
            text = text.chars().take(self.config.max_text).collect();
            text.push_str("\n\n[The page goes on; only the start is shown.]");
        } else if truncated {
            text.push_str("\n\n[The page was larger than the limit; only the start was read.]");
        }
        let mut head = format!("Address: {url}\n");
        if let Some(t) = &title {
            head.push_str(&format!("Title: {t}\n"));
        }
        if !status.is_success() {
            let reason = status.canonical_reason().unwrap_or("");
            return Outcome {
                ok: false,
                output: format!(
                    "{head}The page answered {} {reason}.\n\n{text}",
                    status.as_u16()
                ),
                detail: Some(detail.into()),
            };
        }
        Outcome::ok(format!("{head}\n{text}"), Some(detail))
    }
}

fn unreachable(url: &reqwest::Url, e: &reqwest::Error) -> String {
    if e.is_timeout() {
        format!("{url} didn't answer in time.")
    } else if e.is_connect() {
        format!("{url} can't be reached: the connection was refused or the host wasn't found.")
    } else {
        format!("{url} can't be read: {e}.")
    }
}

async fn read_limited(
    mut response: reqwest::Response,
    max: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = max - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok((bytes, true));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok((bytes, false))
}
