//! web_search through a SearXNG instance the owner points Conch at
//! (`searxngUrl` in settings.json). Its JSON API: GET /search?q=…&format=json.

use serde::Deserialize;
use serde_json::json;

use crate::toolbox::{Cancel, Outcome};

#[derive(Deserialize)]
struct Results {
    #[serde(default)]
    results: Vec<Hit>,
}

#[derive(Deserialize)]
struct Hit {
    #[serde(default)]
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    content: String,
}

const MAX_HITS: usize = 10;

pub async fn search(client: &reqwest::Client, base: &str, query: &str, cancel: &Cancel) -> Outcome {
    let url = format!("{}/search", base.trim_end_matches('/'));
    let request = client
        .get(&url)
        .query(&[("q", query), ("format", "json")])
        .send();
    let response = tokio::select! {
        r = request => r,
        () = cancel.cancelled() => return Outcome::failed("Stopped before the search answered."),
    };
    let response = match response {
        Ok(r) if r.status().is_success() => r,
        Ok(r) => {
            return Outcome::failed(format!(
            "The search service at {base} answered {}. Check that its JSON format is turned on.",
            r.status().as_u16()
        ))
        }
        Err(e) => {
            return Outcome::failed(format!(
                "The search service at {base} can't be reached: {e}."
            ))
        }
    };
    let results: Results = match response.json().await {
        Ok(r) => r,
        Err(_) => {
            return Outcome::failed(format!(
                "The search service at {base} didn't answer in SearXNG's JSON format."
            ))
        }
    };
    let hits: Vec<&Hit> = results
        .results
        .iter()
        .filter(|h| !h.url.is_empty())
        .take(MAX_HITS)
        .collect();
    if hits.is_empty() {
        return Outcome::ok(
            format!("No results for \"{query}\"."),
            Some(json!({ "results": [] })),
        );
    }
    let text = hits
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let snippet: String = h.content.chars().take(300).collect();
            format!(
                "{}. {}\n   {}\n   {}",
                i + 1,
                h.title.trim(),
                h.url,
                snippet.trim()
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let detail: Vec<_> = hits
        .iter()
        .map(|h| json!({ "url": h.url, "title": h.title }))
        .collect();
    Outcome::ok(text, Some(json!({ "query": query, "results": detail })))
}
