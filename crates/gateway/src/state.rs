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
}

impl AppState {
    pub fn new(chats: Arc<Chats>, hosts: AllowedHosts) -> AppState {
        let home = chats.home().root().to_path_buf();
        AppState(Arc::new(Inner {
            chats,
            auth: Auth::new(home),
            hosts,
            listening: None,
        }))
    }

    /// Says where the gateway listens (the checkup reports it).
    pub fn listening_on(self, addr: std::net::SocketAddr) -> AppState {
        match Arc::try_unwrap(self.0) {
            Ok(mut inner) => {
                inner.listening = Some(addr);
                AppState(Arc::new(inner))
            }
            Err(shared) => AppState(shared),
        }
    }
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}
