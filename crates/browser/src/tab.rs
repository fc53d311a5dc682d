//! One chat's tab, and what the tools do in it: open, read, click, type,
//! go back, take a screenshot. Every operation on a tab is one at a time.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Value};

use crate::browser::{lock, Browser};
use crate::element::Element;
use crate::error::BrowserError;
use crate::listeners::Listening;
use crate::network::Net;
use crate::pipe::Connection;
use crate::scripts;
use crate::snapshot::{self, Snapshot};

const CALL: Duration = Duration::from_secs(15);

pub struct Tab {
    pub chat: String,
    pub target: String,
    pub session: String,
    pub generation: u64,
    conn: Arc<Connection>,
    state: tokio::sync::Mutex<()>,
    last_call: std::sync::Mutex<Option<String>>,
    /// What the page now shown has sent (see `network`).
    pub(crate) net: std::sync::Mutex<Net>,
}

impl Tab {
    pub fn last_call(&self) -> Option<String> {
        lock(&self.last_call).clone()
    }

    async fn call(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        self.conn
            .call(method, params, Some(&self.session), CALL)
            .await
    }
}

/// What an approval of a click or of typing is bound to (ADR 0144): the
/// control as it is, and for a reviewed click the whole redacted page.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Expect {
    /// [`Element::identity`] of the control, and the page's address.
    pub element: String,
    /// [`Snapshot::redacted`], when the page as a whole was approved.
    pub page: Option<String>,
}

/// What the browser shows after an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub snapshot: Snapshot,
    /// The page `back` returns to.
    pub back: Option<String>,
    /// The origins this page has sent requests to since text was typed on
    /// it, as Chromium's network layer saw them.
    pub sent: Vec<String>,
}

/// A control as it is now, for binding: what [`Expect`] compares.
pub fn identity_of(snapshot: &Snapshot, element: &Element) -> String {
    format!("{} on {}", element.identity(), snapshot.url)
}

fn ref_id(r: &str) -> Result<i64, BrowserError> {
    r.strip_prefix('e')
        .and_then(|n| n.parse::<i64>().ok())
        .ok_or_else(|| BrowserError::UnknownRef(r.to_owned()))
}

/// Only http and https are opened: a file, a script or a browser page
/// would reach past the web.
pub fn web_address(url: &str) -> Result<url::Url, BrowserError> {
    let parsed = url::Url::parse(url.trim()).map_err(|_| BrowserError::NotWeb(url.to_owned()))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(BrowserError::NotWeb(url.to_owned()));
    }
    Ok(parsed)
}

impl Browser {
    /// `chat`'s tab, made when it has none (the browser starts if needed).
    async fn tab(&self, chat: &str) -> Result<Arc<Tab>, BrowserError> {
        let (conn, generation) = self.connection().await?;
        if let Some(tab) = lock(&self.tabs).get(chat) {
            if tab.generation == generation {
                return Ok(tab.clone());
            }
        }
        let made = conn
            .call(
                "Target.createTarget",
                json!({ "url": "about:blank" }),
                None,
                CALL,
            )
            .await?;
        let target = made["targetId"].as_str().unwrap_or("").to_owned();
        let attached = conn
            .call(
                "Target.attachToTarget",
                json!({ "targetId": target, "flatten": true }),
                None,
                CALL,
            )
            .await?;
        let session = attached["sessionId"].as_str().unwrap_or("").to_owned();
        let tab = Arc::new(Tab {
            chat: chat.to_owned(),
            target,
            session,
            generation,
            conn,
            state: tokio::sync::Mutex::new(()),
            last_call: std::sync::Mutex::new(None),
            net: std::sync::Mutex::default(),
        });
        tab.call("Network.enable", json!({})).await?;
        tab.call("Page.enable", json!({})).await?;
        tab.call("Accessibility.enable", json!({})).await?;
        tab.call(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": scripts::COUNT_REQUESTS }),
        )
        .await?;
        lock(&self.tabs).insert(chat.to_owned(), tab.clone());
        Ok(tab)
    }

    /// The tab of a chat that has a page open.
    fn open_tab(&self, chat: &str) -> Result<Arc<Tab>, BrowserError> {
        lock(&self.tabs)
            .get(chat)
            .cloned()
            .ok_or(BrowserError::NoPage)
    }

    /// Opens `url` in `chat`'s tab and reads it.
    pub async fn open(&self, chat: &str, call: &str, url: &str) -> Result<Shown, BrowserError> {
        let parsed = web_address(url)?;
        let _busy = self.busy();
        let tab = self.tab(chat).await?;
        let _one = tab.state.lock().await;
        *lock(&tab.last_call) = Some(call.to_owned());
        let mut events = tab.conn.events();
        let went = tab
            .call("Page.navigate", json!({ "url": parsed.as_str() }))
            .await?;
        if let Some(why) = went
            .get("errorText")
            .and_then(Value::as_str)
            .filter(|e| !e.is_empty())
        {
            return Err(BrowserError::Load {
                url: url.to_owned(),
                why: why.to_owned(),
            });
        }
        if went.get("loaderId").is_some() {
            wait_for(
                &mut events,
                &tab,
                &["Page.loadEventFired", "Page.frameStoppedLoading"],
                self.config.page_timeout,
            )
            .await;
        }
        self.set_typed(chat, Some(false));
        self.read(&tab).await
    }

    /// Reads `chat`'s page as it is now.
    pub async fn snapshot(&self, chat: &str, call: &str) -> Result<Shown, BrowserError> {
        let _busy = self.busy();
        let tab = self.open_tab(chat)?;
        let _one = tab.state.lock().await;
        *lock(&tab.last_call) = Some(call.to_owned());
        self.read(&tab).await
    }

    /// The page as it is now, without changing anything: for binding an
    /// approval and checking it again.
    pub async fn look(&self, chat: &str) -> Result<Snapshot, BrowserError> {
        let _busy = self.busy();
        let tab = self.open_tab(chat)?;
        let _one = tab.state.lock().await;
        Ok(self.read(&tab).await?.snapshot)
    }

    /// A PNG of what `chat`'s tab shows.
    pub async fn screenshot(
        &self,
        chat: &str,
        call: &str,
    ) -> Result<(Vec<u8>, Shown), BrowserError> {
        let _busy = self.busy();
        let tab = self.open_tab(chat)?;
        let _one = tab.state.lock().await;
        *lock(&tab.last_call) = Some(call.to_owned());
        let shot = tab
            .call("Page.captureScreenshot", json!({ "format": "png" }))
            .await?;
        let data = shot["data"].as_str().unwrap_or("");
        let png = base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| BrowserError::Protocol(e.to_string()))?;
        let shown = self.read(&tab).await?;
        Ok((png, shown))
    }

    /// Goes back one page.
    pub async fn back(&self, chat: &str, call: &str) -> Result<Shown, BrowserError> {
        let _busy = self.busy();
        let tab = self.open_tab(chat)?;
        let _one = tab.state.lock().await;
        *lock(&tab.last_call) = Some(call.to_owned());
        let history = tab.call("Page.getNavigationHistory", json!({})).await?;
        let at = history["currentIndex"].as_u64().unwrap_or(0) as usize;
        let entries = history["entries"].as_array().cloned().unwrap_or_default();
        let Some(entry) = at.checked_sub(1).and_then(|i| entries.get(i)) else {
            return Err(BrowserError::NoHistory);
        };
        let mut events = tab.conn.events();
        tab.call(
            "Page.navigateToHistoryEntry",
            json!({ "entryId": entry["id"] }),
        )
        .await?;
        wait_for(
            &mut events,
            &tab,
            &["Page.loadEventFired"],
            self.config.page_timeout,
        )
        .await;
        self.set_typed(chat, Some(false));
        self.read(&tab).await
    }

    /// Clicks the control `r` in the middle, as a person would; refuses
    /// when something else on the page covers it, or when it (or, with
    /// `expect.page`, the page) is no longer what was approved.
    pub async fn click(
        &self,
        chat: &str,
        call: &str,
        r: &str,
        expect: Option<&Expect>,
    ) -> Result<Shown, BrowserError> {
        let _busy = self.busy();
        let tab = self.open_tab(chat)?;
        let _one = tab.state.lock().await;
        *lock(&tab.last_call) = Some(call.to_owned());
        let (_, element) = self.check(&tab, r, expect).await?;
        let id = ref_id(r)?;
        let _ = tab
            .call("DOM.scrollIntoViewIfNeeded", json!({ "backendNodeId": id }))
            .await;
        let (x, y) = self.middle(&tab, id, &element).await?;
        let mut events = tab.conn.events();
        for (kind, buttons) in [("mouseMoved", 0), ("mousePressed", 1), ("mouseReleased", 0)] {
            tab.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1 }),
            )
            .await?;
        }
        // A click may start loading a page: wait for it when it does.
        let started = wait_for(
            &mut events,
            &tab,
            &["Page.frameStartedLoading"],
            Duration::from_millis(400),
        )
        .await;
        if started {
            // A page loads, or the load stops without one (a download).
            wait_for(
                &mut events,
                &tab,
                &["Page.loadEventFired", "Page.frameStoppedLoading"],
                self.config.page_timeout,
            )
            .await;
            self.set_typed(chat, Some(false));
        }
        self.read(&tab).await
    }

    /// Types `text` into the field `r`, replacing what it had.
    pub async fn type_text(
        &self,
        chat: &str,
        call: &str,
        r: &str,
        text: &str,
        expect: Option<&Expect>,
    ) -> Result<Shown, BrowserError> {
        let _busy = self.busy();
        let tab = self.open_tab(chat)?;
        let _one = tab.state.lock().await;
        *lock(&tab.last_call) = Some(call.to_owned());
        let (_, element) = self.check(&tab, r, expect).await?;
        if !element.editable {
            return Err(BrowserError::Unusable {
                element: element.describe(),
                why: "it isn't a field text can be typed into".to_owned(),
            });
        }
        let id = ref_id(r)?;
        tab.call("DOM.focus", json!({ "backendNodeId": id }))
            .await?;
        let object = resolve(&tab, id).await?;
        let script = if text.is_empty() {
            scripts::CLEAR
        } else {
            scripts::SELECT_ALL
        };
        tab.call(
            "Runtime.callFunctionOn",
            json!({ "objectId": object, "functionDeclaration": script }),
        )
        .await?;
        if !text.is_empty() {
            lock(&tab.net).typing();
            tab.call("Input.insertText", json!({ "text": text }))
                .await?;
        }
        self.set_typed(chat, Some(true));
        self.read(&tab).await
    }

    /// A fresh snapshot, and the control `r` in it, checked against what
    /// was approved.
    async fn check(
        &self,
        tab: &Tab,
        r: &str,
        expect: Option<&Expect>,
    ) -> Result<(Snapshot, Element), BrowserError> {
        let now = self.read(tab).await?.snapshot;
        let element = now
            .elements
            .get(r)
            .cloned()
            .ok_or_else(|| BrowserError::UnknownRef(r.to_owned()))?;
        if let Some(expect) = expect {
            if identity_of(&now, &element) != expect.element {
                return Err(BrowserError::Changed(format!(
                    "{} isn't what it was when it was approved.",
                    element.describe()
                )));
            }
            if expect.page.as_ref().is_some_and(|p| *p != now.redacted) {
                return Err(BrowserError::Changed(
                    "the page isn't what the reviewer saw.".to_owned(),
                ));
            }
        }
        Ok((now, element))
    }

    /// The middle of the element, if a click there reaches it.
    async fn middle(
        &self,
        tab: &Tab,
        id: i64,
        element: &Element,
    ) -> Result<(f64, f64), BrowserError> {
        let quads = tab
            .call("DOM.getContentQuads", json!({ "backendNodeId": id }))
            .await
            .map_err(|_| BrowserError::Unusable {
                element: element.describe(),
                why: "it isn't shown on the page".to_owned(),
            })?;
        let quad: Vec<f64> = quads["quads"][0]
            .as_array()
            .map(|q| q.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        if quad.len() != 8 {
            return Err(BrowserError::Unusable {
                element: element.describe(),
                why: "it isn't shown on the page".to_owned(),
            });
        }
        let x = (quad[0] + quad[2] + quad[4] + quad[6]) / 4.0;
        let y = (quad[1] + quad[3] + quad[5] + quad[7]) / 4.0;
        // Whatever is on top at that point gets the click: it must be the
        // element or inside it, not something laid over it.
        let hit = tab
            .call(
                "DOM.getNodeForLocation",
                json!({ "x": x.round() as i64, "y": y.round() as i64, "includeUserAgentShadowDOM": true }),
            )
            .await?;
        let hit_id = hit["backendNodeId"].as_i64().unwrap_or(-1);
        if hit_id != id {
            let target = resolve(tab, id).await?;
            let other = resolve(tab, hit_id).await?;
            let inside = tab
                .call(
                    "Runtime.callFunctionOn",
                    json!({
                        "objectId": target,
                        "functionDeclaration": scripts::CONTAINS,
                        "arguments": [{ "objectId": other }],
                        "returnByValue": true,
                    }),
                )
                .await?;
            if inside["result"]["value"].as_bool() != Some(true) {
                return Err(BrowserError::Unusable {
                    element: element.describe(),
                    why: "something else on the page covers it, so a click would land there"
                        .to_owned(),
                });
            }
        }
        Ok((x, y))
    }

    fn set_typed(&self, chat: &str, typed: Option<bool>) {
        if let (Some(t), Some(k)) = (typed, lock(&self.known).get_mut(chat)) {
            k.typed = t;
        }
        if typed == Some(true) {
            lock(&self.known).entry(chat.to_owned()).or_default().typed = true;
        }
    }

    /// Waits for the page to be still, then reads it; what a chat's calls
    /// are classified against is updated.
    async fn read(&self, tab: &Tab) -> Result<Shown, BrowserError> {
        let _ = tab
            .conn
            .call(
                "Runtime.evaluate",
                json!({ "expression": scripts::SETTLE, "awaitPromise": true, "returnByValue": true }),
                Some(&tab.session),
                Duration::from_secs(10),
            )
            .await;
        let history = tab.call("Page.getNavigationHistory", json!({})).await?;
        let at = history["currentIndex"].as_u64().unwrap_or(0) as usize;
        let entries = history["entries"].as_array().cloned().unwrap_or_default();
        let current = entries.get(at).cloned().unwrap_or(Value::Null);
        let url = current["url"].as_str().unwrap_or("").to_owned();
        let title = current["title"].as_str().unwrap_or("").to_owned();
        let back = at
            .checked_sub(1)
            .and_then(|i| entries.get(i))
            .and_then(|e| e["url"].as_str())
            .map(str::to_owned);
        let ax = tab.call("Accessibility.getFullAXTree", json!({})).await?;
        let dom = tab
            .call("DOM.getDocument", json!({ "depth": -1, "pierce": true }))
            .await?;
        let mut snapshot = snapshot::build(&ax, &dom, &url, &title);
        let listening = listening(tab, &dom).await;
        for element in snapshot.elements.values_mut().filter(|e| e.editable) {
            element.listened = ref_id(&element.r#ref).map_or(true, |id| listening.hears(id));
        }
        let (contacted, sent) = {
            let net = lock(&tab.net);
            (net.contacted(), net.after_typing())
        };
        {
            let mut known = lock(&self.known);
            let k = known.entry(tab.chat.clone()).or_default();
            if k.url != url {
                k.typed = false;
            }
            k.url = url;
            k.back = back.clone();
            k.elements = snapshot.elements.clone();
            k.contacted = contacted;
        }
        Ok(Shown {
            snapshot,
            back,
            sent,
        })
    }
}

/// What the page's listeners hear, from Chromium's own list of them; when
/// it can't be read, every field is taken as heard.
async fn listening(tab: &Tab, dom: &Value) -> Listening {
    const GROUP: &str = "conch-listeners";
    let object = |expression: &'static str| async move {
        let v = tab
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "objectGroup": GROUP }),
            )
            .await?;
        v["result"]["objectId"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| BrowserError::Protocol(format!("no {expression} to read")))
    };
    let read = async {
        let document = object("document").await?;
        let window = object("window").await?;
        let on_nodes = tab
            .call(
                "DOMDebugger.getEventListeners",
                json!({ "objectId": document, "depth": -1, "pierce": true }),
            )
            .await?;
        let on_window = tab
            .call(
                "DOMDebugger.getEventListeners",
                json!({ "objectId": window }),
            )
            .await?;
        Ok::<_, BrowserError>(Listening::read(dom, &on_nodes, &on_window))
    };
    let heard = read.await.unwrap_or_else(|_| Listening::everything());
    let _ = tab
        .call(
            "Runtime.releaseObjectGroup",
            json!({ "objectGroup": GROUP }),
        )
        .await;
    heard
}

async fn resolve(tab: &Tab, id: i64) -> Result<String, BrowserError> {
    let object = tab
        .call("DOM.resolveNode", json!({ "backendNodeId": id }))
        .await?;
    object["object"]["objectId"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| BrowserError::UnknownRef(format!("e{id}")))
}

/// Waits up to `within` for any of `methods` from this tab; whether one
/// came.
async fn wait_for(
    events: &mut tokio::sync::broadcast::Receiver<crate::pipe::Event>,
    tab: &Tab,
    methods: &[&str],
    within: Duration,
) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let next = tokio::time::timeout_at(deadline, events.recv()).await;
        match next {
            Err(_) => return false,
            Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => continue,
            Ok(Err(_)) => return false,
            Ok(Ok(e)) => {
                if methods.contains(&e.method.as_str())
                    && e.session.as_deref() == Some(tab.session.as_str())
                {
                    // Only the tab's own page, not a frame inside it.
                    let frame = e.params.get("frameId").and_then(Value::as_str);
                    if frame.is_none_or(|f| f == tab.target) {
                        return true;
                    }
                }
            }
        }
    }
}
