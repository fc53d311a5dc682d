//! Real providers: OpenAI-compatible chat completions (OpenAI, OpenRouter,
//! Ollama, llama.cpp's server, vLLM) and Anthropic Messages, both streaming
//! with tool calls.

mod anthropic;
pub mod budget;
pub(crate) mod http;
mod openai;
pub mod sse;

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use anthropic::AnthropicEngine;
pub use http::Retry;
pub use openai::OpenAiEngine;

use crate::engine::Engine;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    Openai,
    Anthropic,
    /// OpenAI's Codex CLI, driven as a native engine (`codex app-server`).
    Codex,
}

impl ProviderKind {
    pub fn parse(text: &str) -> Option<ProviderKind> {
        match text {
            "openai" => Some(ProviderKind::Openai),
            "anthropic" => Some(ProviderKind::Anthropic),
            "codex" => Some(ProviderKind::Codex),
            _ => None,
        }
    }
}

/// One provider as settings.json describes it (the key lives elsewhere).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderSettings {
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    pub model: String,
    /// Tokens of chat sent at most (older turns are left out beyond it).
    #[serde(default = "default_context")]
    pub context_tokens: usize,
    /// Tokens the model may write in one step.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// The program, for providers that are one (Codex): a path, or a name
    /// looked up on PATH.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bin: Option<String>,
}

fn default_context() -> usize {
    100_000
}

fn default_max_tokens() -> u32 {
    4096
}

/// A provider ready to use.
#[derive(Debug, Clone)]
pub struct Provider {
    pub settings: ProviderSettings,
    pub key: Option<String>,
}

pub(crate) fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .read_timeout(Duration::from_secs(180))
        .build()
        .unwrap_or_default()
}

/// The engine for a provider; an engine that keeps state of its own
/// (Codex) keeps it under Conch's home as `CONCH_HOME` or `~/.conch` name it.
pub fn engine(provider: Provider, retry: Retry) -> Arc<dyn Engine> {
    let home = std::env::var_os("CONCH_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".conch")))
        .unwrap_or_else(|| std::path::PathBuf::from(".conch"));
    engine_in(provider, retry, &home)
}

/// The engine for a provider, with Conch's home folder for engines that
/// keep state of their own.
pub fn engine_in(provider: Provider, retry: Retry, home: &std::path::Path) -> Arc<dyn Engine> {
    match provider.settings.kind {
        ProviderKind::Openai => Arc::new(OpenAiEngine::new(provider, retry)),
        ProviderKind::Anthropic => Arc::new(AnthropicEngine::new(provider, retry)),
        ProviderKind::Codex => Arc::new(crate::codex::CodexEngine::new(provider, home)),
    }
}
