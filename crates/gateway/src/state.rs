use std::ops::Deref;
use std::sync::Arc;

use conversations::Chats;

use crate::auth::Auth;
use crate::checks::AllowedHosts;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub chats: Arc<Chats>,
    pub auth: Auth,
    pub hosts: AllowedHosts,
    /// Where the gateway listens, for the security checkup.
    pub listening: Option<std::net::SocketAddr>,
    /// Timeouts and the connection cap ([`crate::serve`]).
    pub limits: crate::serve::Limits,
    /// Chat apps that push their updates (webhooks), by app name.
    pub hooks: std::collections::BTreeMap<String, Arc<bridges::Relay>>,
    /// The owner's apps, for the Apps page (None: not set up).
    pub apps: Option<Arc<dyn crate::routes::apps::AppsPage>>,
}

impl AppState {
    pub fn new(chats: Arc<Chats>, hosts: AllowedHosts) -> AppState {
        let home = chats.home().root().to_path_buf();
        let security = chats.security().clone();
        AppState(Arc::new(Inner {
            chats,
            auth: Auth::new(home, security),
            hosts,
            listening: None,
            limits: crate::serve::Limits::default(),
            hooks: Default::default(),
            apps: None,
        }))
    }

    /// Serves with these limits instead of the defaults.
    pub fn with_limits(self, limits: crate::serve::Limits) -> AppState {
        self.change(|inner| inner.limits = limits)
    }

    /// Changes a setting before the state is shared.
    fn change(self, f: impl FnOnce(&mut Inner)) -> AppState {
        match Arc::try_unwrap(self.0) {
            Ok(mut inner) => {
                f(&mut inner);
                AppState(Arc::new(inner))
            }
            Err(shared) => AppState(shared),
        }
    }

    /// Serves the Apps page from these apps.
    pub fn with_apps(self, apps: Arc<dyn crate::routes::apps::AppsPage>) -> AppState {
        self.change(|inner| inner.apps = Some(apps))
    }

    /// Says where the gateway listens (the checkup reports it).
    /// Takes `app`'s pushed updates at `/hooks/{app}`.
    pub fn with_hook(self, app: &str, relay: Arc<bridges::Relay>) -> AppState {
        self.change(|inner| {
            inner.hooks.insert(app.to_owned(), relay);
        })
    }

    pub fn listening_on(self, addr: std::net::SocketAddr) -> AppState {
        self.change(|inner| inner.listening = Some(addr))
    }
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}
