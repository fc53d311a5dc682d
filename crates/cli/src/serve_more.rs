//! What `conch serve` starts besides the gateway: the owner's
//! notifications, the routines' scheduler, and each chat app's bridge.

use std::sync::Arc;

use bridges::state::StateFile;
use bridges::telegram::{Telegram, DEFAULT_POLL_SECONDS};
use bridges::{Relay, Waits};
use conversations::settings::SETTINGS_FILE;
use conversations::RunAsChat;
use conversations::{Chats, Home, Secrets, Settings};

/// What was started: the lines `conch serve` prints, and a chat app whose
/// updates come to `/hooks/{app}`.
pub struct Started {
    pub routines_line: String,
    pub bridge_line: Option<String>,
    pub hook: Option<(String, Arc<Relay>)>,
}

/// Starts them.
pub fn start(home: &Home, settings: &Settings, chats: &Arc<Chats>) -> Started {
    let notify = chats.notify();
    if let Some(choices) = settings
        .other
        .get("notifications")
        .and_then(|v| serde_json::from_value(v.clone()).ok())
    {
        notify.set_choices(choices);
    }
    chats.start_notices();

    let root = home.root().to_path_buf();
    let zone_home = root.clone();
    // The time zone is a setting: read at each wake.
    let zone = Box::new(move || {
        let name = Settings::load(&zone_home).ok().and_then(|s| {
            s.other
                .get("timeZone")
                .and_then(|v| v.as_str().map(str::to_owned))
        });
        routines::time_zone(name.as_deref())
    });
    let routines_line = match routines::Scheduler::new(
        &root,
        Arc::new(RunAsChat(Arc::downgrade(chats))),
        zone,
        &[SETTINGS_FILE],
    ) {
        Ok(scheduler) => {
            let count = scheduler.store().list().map(|l| l.len()).unwrap_or(0);
            tokio::spawn(scheduler.run());
            format!("Routines: {count} (conch routines list).")
        }
        Err(e) => format!("Routines can't run: {e}."),
    };

    let secret = Secrets::load(&settings.vault(&root))
        .ok()
        .and_then(|s| s.bridges.get("telegram").cloned());
    let mut hook = None;
    let bridge_line = secret.map(|secret| {
        let token = secret.token;
        let state = StateFile::new(&root);
        let base = state.get("telegram").ok().and_then(|s| s.api_base);
        match Telegram::new(&token, base.as_deref(), DEFAULT_POLL_SECONDS) {
            Ok(app) => {
                let owner = settings
                    .owner_name
                    .clone()
                    .unwrap_or_else(|| "the owner".to_owned());
                let relay = Relay::new(app, chats.clone(), &root, &owner, Waits::default());
                let webhook = state.get("telegram").ok().and_then(|s| s.webhook);
                let how = match (webhook, secret.webhook_secret) {
                    (Some(address), Some(secret)) => {
                        let url = format!("{address}/hooks/telegram");
                        hook = Some(("telegram".to_owned(), relay.clone()));
                        let pushing = relay.clone();
                        let said = url.clone();
                        tokio::spawn(async move {
                            if let Err(e) = pushing.push_to(&said, &secret).await {
                                conversations::warn(&format!(
                                    "Telegram couldn't be told to push to {said}: {e}"
                                ));
                            }
                        });
                        format!(", pushing to {url}")
                    }
                    _ => {
                        tokio::spawn(relay.run());
                        String::new()
                    }
                };
                let linked = state.get("telegram").ok().and_then(|s| s.owner);
                match linked {
                    Some(o) => format!("Telegram: on{how}, linked to {}.", o.name),
                    None => {
                        format!("Telegram: on{how}, not linked yet (conch bridges link telegram).")
                    }
                }
            }
            Err(e) => format!("Telegram can't start: {e}"),
        }
    });
    Started {
        routines_line,
        bridge_line,
        hook,
    }
}
