//! Real providers: OpenAI-compatible chat completions (OpenAI, OpenRouter,
//! Ollama, llama.cpp's server, vLLM) and Anthropic Messages, both streaming
//! with tool calls; and Claude Code, which runs its own tools
//! ([`crate::claude_code`]).

mod anthropic;
pub mod budget;
pub(crate) mod http;
mod openai;
pub mod sse;

use std::path::Path;
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
    #[serde(rename = "claude-code")]
    ClaudeCode,
    /// OpenAI's Codex CLI, driven as a native engine (`codex app-server`).
    Codex,
}

impl ProviderKind {
    pub fn parse(text: &str) -> Option<ProviderKind> {
        match text {
            "openai" => Some(ProviderKind::Openai),
            "anthropic" => Some(ProviderKind::Anthropic),
            "claude-code" => Some(ProviderKind::ClaudeCode),
            "codex" => Some(ProviderKind::Codex),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Openai => "openai",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::ClaudeCode => "claude-code",
            ProviderKind::Codex => "codex",
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
    /// The program, for engines that are one (Claude Code, Codex): a path,
    /// or a name on PATH. None: the engine's usual name on PATH.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bin: Option<String>,
    /// What its model costs, per million tokens, in the owner's currency
    /// (Settings → Models). None: the known price for its model name, if
    /// there is one (in US dollars).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prices: Option<Price>,
    /// The owner said "no cap for this provider": its requests are sent
    /// whatever they cost, and count towards nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_cap: bool,
}

/// A model's price per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
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

/// The engine for a provider, for a Conch whose folder is `$CONCH_HOME`
/// (else ~/.conch); [`engine_in`] names the folder.
pub fn engine(provider: Provider, retry: Retry) -> Arc<dyn Engine> {
    let home = std::env::var_os("CONCH_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".conch")))
        .unwrap_or_else(|| std::path::PathBuf::from(".conch"));
    engine_in(provider, retry, &home)
}

/// The engine for a provider. `home` is Conch's folder: an engine that is
/// a program keeps its own state in it.
pub fn engine_in(provider: Provider, retry: Retry, home: &Path) -> Arc<dyn Engine> {
    match provider.settings.kind {
        ProviderKind::Openai => Arc::new(OpenAiEngine::new(provider, retry)),
        ProviderKind::Anthropic => Arc::new(AnthropicEngine::new(provider, retry)),
        ProviderKind::ClaudeCode => Arc::new(crate::claude_code::ClaudeCode::new(
            crate::claude_code::ClaudeCodeConfig::in_home(
                home,
                provider.settings.bin.as_deref(),
                crate::claude_code::Provider {
                    model: Some(provider.settings.model.clone()).filter(|m| !m.is_empty()),
                    base_url: Some(provider.settings.base_url.clone()).filter(|u| !u.is_empty()),
                    key: provider.key,
                },
            ),
        )),
        ProviderKind::Codex => Arc::new(crate::codex::CodexEngine::new(provider, home)),
    }
}
