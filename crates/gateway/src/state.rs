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
}

impl AppState {
    pub fn new(chats: Arc<Chats>, hosts: AllowedHosts) -> AppState {
        let home = chats.home().root().to_path_buf();
        AppState(Arc::new(Inner {
            chats,
            auth: Auth::new(home),
            hosts,
        }))
    }
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}
