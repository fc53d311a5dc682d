//! What a page sends by its own script, watched from outside the page:
//! every request the tab makes (and every WebSocket it opens), as
//! Chromium's network layer sees it, so a page can't hide one from Conch.
//!
//! Once text has been typed on a page, each other place the page then
//! reaches is told once (it marks the chat), and the typing tool's answer
//! names them. A new page in the tab starts afresh.

use std::collections::BTreeSet;

/// One tab's requests, for the page it shows now.
#[derive(Debug, Default)]
pub(crate) struct Net {
    /// Text was typed on this page.
    typed: bool,
    /// Every origin this page has sent a request to.
    contacted: BTreeSet<String>,
    /// The origins it reached after the typing.
    after_typing: BTreeSet<String>,
}

impl Net {
    /// Text is about to be typed on this page.
    pub(crate) fn typing(&mut self) {
        self.typed = true;
    }

    /// A request to `url`; `new_page` when it loads a new page into the
    /// tab. The origin it reached after typing, the first time it does.
    pub(crate) fn request(&mut self, url: &str, new_page: bool) -> Option<String> {
        let origin = origin(url)?;
        let news = (self.typed && self.after_typing.insert(origin.clone())).then(|| origin.clone());
        if new_page {
            *self = Net::default();
        }
        self.contacted.insert(origin);
        news
    }

    /// Requests went unseen: a typed page may have reached anywhere. What
    /// to tell, once per page.
    pub(crate) fn missed(&mut self) -> Option<String> {
        (self.typed && self.after_typing.insert(MISSED.to_owned())).then(|| MISSED.to_owned())
    }

    pub(crate) fn contacted(&self) -> Vec<String> {
        self.contacted.iter().cloned().collect()
    }

    pub(crate) fn after_typing(&self) -> Vec<String> {
        self.after_typing.iter().cloned().collect()
    }
}

/// Where a page went when its requests couldn't all be seen.
pub(crate) const MISSED: &str = "a place the browser lost sight of";

/// `scheme://host[:port]` of a web or WebSocket address; nothing for one
/// that reaches no other place (`data:`, `blob:`, `about:`).
pub(crate) fn origin(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    if !matches!(parsed.scheme(), "http" | "https" | "ws" | "wss") {
        return None;
    }
    let host = parsed.host_str()?;
    Some(match parsed.port() {
        Some(port) => format!("{}://{host}:{port}", parsed.scheme()),
        None => format!("{}://{host}", parsed.scheme()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_comes_after_typing_is_news_and_each_place_once() {
        let mut net = Net::default();
        assert_eq!(net.request("https://shop.example/", true), None);
        assert_eq!(net.request("https://cdn.example/a.js", false), None);
        net.typing();
        assert_eq!(
            net.request("https://evil.example/c?q=Zoë", false)
                .as_deref(),
            Some("https://evil.example")
        );
        assert_eq!(net.request("https://evil.example/c?q=more", false), None);
        assert_eq!(
            net.request("wss://evil.example:8443/s", false).as_deref(),
            Some("wss://evil.example:8443")
        );
        assert_eq!(net.request("data:text/plain,hi", false), None);
        assert_eq!(
            net.after_typing(),
            ["https://evil.example", "wss://evil.example:8443"]
        );
        assert_eq!(net.contacted().len(), 4);
        // The page the typing is sent to by navigating is news too; then the
        // new page starts afresh.
        assert_eq!(
            net.request("https://post.example/form", true).as_deref(),
            Some("https://post.example")
        );
        assert_eq!(net.contacted(), ["https://post.example"]);
        assert!(net.after_typing().is_empty());
        assert_eq!(net.request("https://evil.example/c", false), None);
        assert_eq!(net.missed(), None, "nothing typed on this page");
        net.typing();
        assert_eq!(net.missed().as_deref(), Some(MISSED));
        assert_eq!(net.missed(), None, "once");
    }
}
