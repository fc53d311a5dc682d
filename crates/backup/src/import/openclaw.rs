//! OpenClaw's folder (`~/.openclaw`), as its documentation describes it:
//!
//! - `openclaw.json` (JSON5): `models.providers.<id>` (`baseUrl`,
//!   `apiKey`, `api`, `models[].id`), `agents.defaults.model.primary`
//!   (`provider/model`), `env` (variables, or `env.vars`), `mcp.servers`;
//! - `.env` beside it, and `agents/<id>/agent/auth-profiles.json`
//!   (`profiles.<provider>:<name>` with `type: api_key`, `key`);
//! - skills in `skills/` and `workspace/skills/`;
//! - memories in `workspace/MEMORY.md` and `workspace/memory/*.md`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use zeroize::Zeroizing;

use super::{
    dotenv, find_skills, key_for, memories_in, provider_name, providers_from_env, resolve,
    servers_from, App, Found, FoundMemory, FoundProvider, ImportError, Wire,
};

pub fn read(dir: &Path) -> Result<Found, ImportError> {
    let mut said: Vec<String> = Vec::new();
    let mut read_text = |path: &Path| super::files::read_plain(dir, path, &mut said);
    let config_path = dir.join("openclaw.json");
    let config = match read_text(&config_path) {
        Some(text) => super::json5::parse(&text).map_err(|why| ImportError::Unreadable {
            file: config_path.clone(),
            why,
        })?,
        None => Value::Null,
    };
    let has_any = !config.is_null()
        || dir.join("skills").is_dir()
        || dir.join("workspace").is_dir()
        || dir.join("agents").is_dir();
    if !has_any {
        return Err(ImportError::NotThere {
            app: App::OpenClaw,
            dir: dir.to_path_buf(),
        });
    }
    let mut found = Found::default();

    // Variables: `.env`, then the config's own `env` block.
    let mut env = read_text(&dir.join(".env"))
        .map(|t| dotenv(&t))
        .unwrap_or_default();
    if let Some(block) = config.get("env").and_then(Value::as_object) {
        let vars = block
            .get("vars")
            .and_then(Value::as_object)
            .unwrap_or(block);
        for (k, v) in vars {
            if let Some(s) = v.as_str() {
                env.insert(k.clone(), Zeroizing::new(s.to_owned()));
            }
        }
    }

    // The default model, `provider/model`.
    let primary = config
        .pointer("/agents/defaults/model/primary")
        .or_else(|| config.pointer("/agents/defaults/model"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let model_for = |provider: &str| -> Option<String> {
        let p = primary.as_deref()?;
        let (id, model) = p.split_once('/')?;
        (id == provider).then(|| model.to_owned())
    };

    // Keys from sign-in profiles, by provider.
    let mut profile_keys: BTreeMap<String, Zeroizing<String>> = BTreeMap::new();
    if let Ok(agents) = std::fs::read_dir(dir.join("agents")) {
        let mut agents: Vec<_> = agents.flatten().map(|e| e.path()).collect();
        agents.sort();
        for agent in agents {
            let path = agent.join("agent").join("auth-profiles.json");
            let Some(text) = read_text(&path) else {
                continue;
            };
            let Ok(file) = serde_json::from_str::<Value>(&text) else {
                found.left.push(format!(
                    "{} can't be read, so its sign-ins didn't come over.",
                    path.strip_prefix(dir).unwrap_or(&path).display()
                ));
                continue;
            };
            let Some(profiles) = file.get("profiles").and_then(Value::as_object) else {
                continue;
            };
            for (id, p) in profiles {
                let provider = p
                    .get("provider")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| id.split(':').next().unwrap_or(id).to_owned());
                let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
                match (kind, p.get("key").and_then(Value::as_str)) {
                    ("api_key", Some(key)) => {
                        profile_keys
                            .entry(provider)
                            .or_insert_with(|| Zeroizing::new(key.to_owned()));
                    }
                    _ => found.left.push(format!(
                        "The sign-in \"{id}\" ({}): Conch uses keys, not the other app's sign-in; add a key with conch providers add.",
                        if kind.is_empty() { "unknown kind" } else { kind }
                    )),
                }
            }
        }
    }

    // Providers written out in the config.
    if let Some(providers) = config
        .pointer("/models/providers")
        .and_then(Value::as_object)
    {
        for (id, p) in providers {
            let api = p
                .get("api")
                .and_then(Value::as_str)
                .unwrap_or("openai-completions");
            let wire = if api.starts_with("anthropic") {
                Wire::Anthropic
            } else {
                Wire::Openai
            };
            let Some(base_url) = p.get("baseUrl").and_then(Value::as_str) else {
                found
                    .left
                    .push(format!("The provider \"{id}\": it has no baseUrl."));
                continue;
            };
            let first_model = p
                .get("models")
                .and_then(Value::as_array)
                .and_then(|m| m.first())
                .and_then(|m| m.get("id").or(Some(m)))
                .and_then(Value::as_str)
                .map(str::to_owned);
            let Some(model) = model_for(id).or(first_model) else {
                found
                    .left
                    .push(format!("The provider \"{id}\": it names no model."));
                continue;
            };
            let key = p
                .get("apiKey")
                .and_then(Value::as_str)
                .and_then(|k| resolve(k, &env))
                .or_else(|| profile_keys.get(id).cloned())
                .or_else(|| key_for(id, &env));
            found.providers.push(FoundProvider {
                name: provider_name(id),
                wire,
                base_url: base_url.to_owned(),
                model,
                key,
            });
        }
    }
    // Built-in providers, known by their key.
    let mut keys = env.clone();
    for (provider, key) in &profile_keys {
        let var = format!(
            "{}_API_KEY",
            provider.to_ascii_uppercase().replace('-', "_")
        );
        keys.entry(var).or_insert_with(|| key.clone());
    }
    providers_from_env(&keys, &model_for, App::OpenClaw, &mut found);

    if let Some(servers) = config.pointer("/mcp/servers").and_then(Value::as_object) {
        servers_from(servers, &env, &mut found);
    }

    find_skills(&dir.join("skills"), 2, &mut found.skills);
    find_skills(&dir.join("workspace").join("skills"), 2, &mut found.skills);

    let workspace = dir.join("workspace");
    let mut files = vec![workspace.join("MEMORY.md")];
    if let Ok(days) = std::fs::read_dir(workspace.join("memory")) {
        let mut days: Vec<_> = days
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        days.sort();
        files.extend(days);
    }
    for file in files {
        let Some(text) = read_text(&file) else {
            continue;
        };
        let rel = file
            .strip_prefix(dir)
            .unwrap_or(&file)
            .display()
            .to_string();
        for text in memories_in(&text) {
            found.memories.push(FoundMemory {
                text,
                file: rel.clone(),
            });
        }
    }
    found.left.extend(said);
    Ok(found)
}
