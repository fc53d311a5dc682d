//! Hermes's folder (`~/.hermes`), as its documentation describes it:
//!
//! - `config.yaml`: `model` (a `provider/model` string, or `default` /
//!   `model`, `provider`, `base_url`, `api_key` or `api_key_env`),
//!   `custom_providers` (a list of `name`, `base_url`, `api_key`, `model`),
//!   `mcp_servers` (`name → command/args/env` or `url/headers`);
//! - `.env`: the keys (`OPENROUTER_API_KEY`, `ANTHROPIC_API_KEY`, …);
//! - skills in `skills/<category>/<name>/SKILL.md` (or one level less);
//! - memories in `memories/MEMORY.md` and `memories/USER.md`, entries
//!   separated by `§`.

use std::path::Path;

use serde_json::Value;

use super::{
    dotenv, find_skills, key_for, memories_in, provider_name, providers_from_env, resolve,
    servers_from, App, Found, FoundMemory, FoundProvider, ImportError, Wire,
};

pub fn read(dir: &Path) -> Result<Found, ImportError> {
    let mut said: Vec<String> = Vec::new();
    let mut read_text = |path: &Path| super::files::read_plain(dir, path, &mut said);
    let config_path = dir.join("config.yaml");
    let config: Value = match read_text(&config_path).ok_or(()) {
        Ok(text) if text.trim().is_empty() => Value::Null,
        Ok(text) => serde_saphyr::from_str(&text).map_err(|e| ImportError::Unreadable {
            file: config_path.clone(),
            why: e
                .to_string()
                .lines()
                .next()
                .unwrap_or("not YAML")
                .to_owned(),
        })?,
        Err(_) => Value::Null,
    };
    if config.is_null() && !dir.join("skills").is_dir() && !dir.join("memories").is_dir() {
        return Err(ImportError::NotThere {
            app: App::Hermes,
            dir: dir.to_path_buf(),
        });
    }
    let mut found = Found::default();
    let env = read_text(&dir.join(".env"))
        .map(|t| dotenv(&t))
        .unwrap_or_default();

    // The main model: where it is served, and which.
    let model = config.get("model");
    let (main_provider, main_model) = match model {
        Some(Value::String(s)) => (None, Some(s.clone())),
        Some(m) => (
            m.get("provider").and_then(Value::as_str).map(str::to_owned),
            ["default", "model", "model_name"]
                .iter()
                .find_map(|k| m.get(*k).and_then(Value::as_str))
                .map(str::to_owned),
        ),
        None => (None, None),
    };
    // A model written as `provider/model` with no provider named is that
    // provider's (`anthropic/claude-…`); through OpenRouter the whole
    // string is the model.
    let model_for = |id: &str| -> Option<String> {
        let model = main_model.clone()?;
        match main_provider.as_deref() {
            Some(p) if p == id => Some(model),
            Some(_) => None,
            None if id == "openrouter" => Some(model),
            None => model
                .split_once('/')
                .filter(|(p, _)| *p == id)
                .map(|(_, m)| m.to_owned()),
        }
    };
    // A main model with its own address (`provider: custom`).
    if let (Some(m), Some(model)) = (model, main_model.clone()) {
        if let Some(base_url) = m.get("base_url").and_then(Value::as_str) {
            let key = m
                .get("api_key")
                .and_then(Value::as_str)
                .and_then(|k| resolve(k, &env))
                .or_else(|| {
                    m.get("api_key_env")
                        .and_then(Value::as_str)
                        .and_then(|v| env.get(v).cloned())
                })
                .or_else(|| main_provider.as_deref().and_then(|p| key_for(p, &env)));
            let name = main_provider
                .as_deref()
                .filter(|p| *p != "custom")
                .unwrap_or("hermes-main");
            found.providers.push(FoundProvider {
                name: provider_name(name),
                wire: if base_url.contains("anthropic") {
                    Wire::Anthropic
                } else {
                    Wire::Openai
                },
                base_url: base_url.to_owned(),
                model,
                key,
            });
        }
    }
    if let Some(list) = config.get("custom_providers").and_then(Value::as_array) {
        for p in list {
            let name = p.get("name").and_then(Value::as_str).unwrap_or("custom");
            let (Some(base_url), Some(model)) = (
                p.get("base_url").and_then(Value::as_str),
                p.get("model").and_then(Value::as_str),
            ) else {
                found.left.push(format!(
                    "The provider \"{name}\": it needs both base_url and model."
                ));
                continue;
            };
            found.providers.push(FoundProvider {
                name: provider_name(name),
                wire: Wire::Openai,
                base_url: base_url.to_owned(),
                model: model.to_owned(),
                key: p
                    .get("api_key")
                    .and_then(Value::as_str)
                    .and_then(|k| resolve(k, &env)),
            });
        }
    }
    providers_from_env(&env, &model_for, App::Hermes, &mut found);

    if let Some(servers) = config.get("mcp_servers").and_then(Value::as_object) {
        servers_from(servers, &env, &mut found);
    }

    find_skills(&dir.join("skills"), 3, &mut found.skills);

    for name in ["MEMORY.md", "USER.md"] {
        let path = dir.join("memories").join(name);
        let Some(text) = read_text(&path) else {
            continue;
        };
        for text in memories_in(&text) {
            found.memories.push(FoundMemory {
                text,
                file: format!("memories/{name}"),
            });
        }
    }
    found.left.extend(said);
    Ok(found)
}
