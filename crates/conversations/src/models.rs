//! Which engine answers a turn: the provider the chat picked
//! (`model.changed`), else the default one, else the engine `Chats` was
//! made with (the mock when nothing is set up).
//!
//! Read from `settings.json` and `secrets.json` when a turn starts, so a
//! provider added, changed or removed (in Settings → Models or with
//! `conch providers`) counts from the next turn, without a restart. The
//! files are read again only when they changed; engines are kept per
//! provider until then.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use engines::providers::{Provider, Retry};
use engines::Engine;

use crate::secrets::Secrets;
use crate::settings::Settings;

pub struct Models {
    home: PathBuf,
    loaded: Mutex<Option<Loaded>>,
}

struct Loaded {
    stamp: Stamp,
    default: Option<String>,
    engines: BTreeMap<String, Arc<dyn Engine>>,
}

type Stamp = (Option<SystemTime>, Option<SystemTime>);

/// The engine for a turn, and the provider it is (None: the fallback).
pub struct Picked {
    pub engine: Arc<dyn Engine>,
    pub provider: Option<String>,
}

impl Models {
    pub fn new(home: PathBuf) -> Models {
        Models {
            home,
            loaded: Mutex::new(None),
        }
    }

    fn stamp(&self) -> Stamp {
        let modified = |name: &str| {
            std::fs::metadata(self.home.join(name))
                .and_then(|m| m.modified())
                .ok()
        };
        (
            modified(crate::settings::SETTINGS_FILE),
            modified(crate::secrets::SECRETS_FILE),
        )
    }

    /// The engine for the provider a chat picked, else the default one.
    /// None when no provider is set up (or they can't be read: then the
    /// reason is said on standard error once per change).
    pub fn pick(&self, picked: Option<&str>) -> Option<Picked> {
        let stamp = self.stamp();
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if loaded.as_ref().is_none_or(|l| l.stamp != stamp) {
            *loaded = Some(self.load(stamp));
        }
        let loaded = loaded.as_ref()?;
        let name = picked
            .filter(|p| loaded.engines.contains_key(*p))
            .map(str::to_owned)
            .or_else(|| loaded.default.clone())?;
        let engine = loaded.engines.get(&name)?.clone();
        Some(Picked {
            engine,
            provider: Some(name),
        })
    }

    fn load(&self, stamp: Stamp) -> Loaded {
        let empty = Loaded {
            stamp,
            default: None,
            engines: BTreeMap::new(),
        };
        let settings = match Settings::load(&self.home) {
            Ok(s) => s,
            Err(e) => {
                crate::warn(&e.to_string());
                return empty;
            }
        };
        if settings.providers.is_empty() {
            return empty;
        }
        let secrets = match Secrets::load(&settings.vault(&self.home)) {
            Ok(s) => s,
            Err(e) => {
                crate::warn(&e.to_string());
                Secrets::default()
            }
        };
        let engines = settings
            .providers
            .iter()
            .map(|p| {
                let provider = Provider {
                    settings: p.clone(),
                    key: secrets.key(&p.name),
                };
                (
                    p.name.clone(),
                    engines::providers::engine_in(provider, Retry::default(), &self.home),
                )
            })
            .collect();
        Loaded {
            stamp,
            default: settings.provider().map(|p| p.name.clone()),
            engines,
        }
    }
}
