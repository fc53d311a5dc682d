//! A page that sent requests somewhere after text was typed on it may have
//! sent the typing there, and what came back is in the page: each such
//! place marks the chat, named by its site, as reading a page there would.
//! The browser watches the requests from Chromium's network layer, so a
//! page's script can't send unseen by asking for no click.

use std::sync::Weak;

use browser::Sent;
use protocol::MarkSource;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::state::Registry;

/// Marks each chat its page reached after typing, until the browser is gone.
pub(crate) async fn watch(chats: Weak<dyn Registry>, mut sent: UnboundedReceiver<Sent>) {
    while let Some(s) = sent.recv().await {
        let Some(chat) = chats.upgrade().and_then(|c| c.get(&s.chat).ok()) else {
            continue;
        };
        let what = super::classify::site_of(&s.to);
        let held = chat.log.with_view(|v| {
            v.held_taints()
                .any(|m| m.source == MarkSource::Page && m.what == what)
        });
        if !held {
            let _ = chat.mark(MarkSource::Page, what, s.call).await;
        }
    }
}
