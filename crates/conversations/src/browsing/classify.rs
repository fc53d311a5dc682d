//! What a browser call does, read against the page as the chat's last
//! snapshot showed it (`browser::Known`): which site it acts on, which
//! control, whether a click sends and where, whether typing goes into a
//! password field. Pure: the guard judges what this returns, and the same
//! reading is done again just before the call runs, so what was judged is
//! what runs.

use browser::{Element, Known};
use protocol::{Action, BrowserAction, BrowserOp, BrowserSend, ToolSpec};
use serde_json::{json, Value};

pub const OPEN: &str = "browser_open";
pub const SNAPSHOT: &str = "browser_snapshot";
pub const CLICK: &str = "browser_click";
pub const TYPE: &str = "browser_type";
pub const SCREENSHOT: &str = "browser_screenshot";
pub const BACK: &str = "browser_back";

pub(crate) fn is_browser_tool(name: &str) -> bool {
    matches!(name, OPEN | SNAPSHOT | CLICK | TYPE | SCREENSHOT | BACK)
}

pub(crate) fn specs() -> Vec<ToolSpec> {
    let none = || json!({ "type": "object", "properties": {} });
    vec![
        ToolSpec {
            name: OPEN.to_owned(),
            description: "Open a web page in Conch's own browser (a real Chromium with its own profile) and read it as text, with a ref for each control. Use it for pages that need a browser: drawn by script, signed in, forms. For reading an ordinary page, web_fetch is lighter.".to_owned(),
            schema: json!({
                "type": "object",
                "properties": { "url": { "type": "string", "description": "An http or https address." } },
                "required": ["url"]
            }),
        },
        ToolSpec {
            name: SNAPSHOT.to_owned(),
            description: "Read the browser's page again as it is now: its text, and each control with a ref (like e123) to click or type into.".to_owned(),
            schema: none(),
        },
        ToolSpec {
            name: CLICK.to_owned(),
            description: "Click a control on the browser's page by its ref from the last snapshot. A click that sends something (a form, Send, Post, Pay…) may ask the owner first.".to_owned(),
            schema: json!({
                "type": "object",
                "properties": { "ref": { "type": "string", "description": "The control's ref, like e123." } },
                "required": ["ref"]
            }),
        },
        ToolSpec {
            name: TYPE.to_owned(),
            description: "Type text into a field on the browser's page by its ref, replacing what it had. Where the page's own script reads the field as it is typed into, typing is sending and is treated as a click that sends. Typing into a password field always asks the owner.".to_owned(),
            schema: json!({
                "type": "object",
                "properties": {
                    "ref": { "type": "string", "description": "The field's ref, like e123." },
                    "text": { "type": "string" }
                },
                "required": ["ref", "text"]
            }),
        },
        ToolSpec {
            name: SCREENSHOT.to_owned(),
            description: "Take a screenshot of the browser's page; the owner sees it in the chat.".to_owned(),
            schema: none(),
        },
        ToolSpec {
            name: BACK.to_owned(),
            description: "Go back to the browser's previous page.".to_owned(),
            schema: none(),
        },
    ]
}

fn field<'a>(input: &'a Value, name: &str) -> Result<&'a str, String> {
    input
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("This call needs \"{name}\", as text."))
}

/// The site of an address; for one that isn't http(s) (a form that sends
/// to `mailto:`), the address itself, so it is a site of its own.
/// A WebSocket's address is its site's too.
pub(crate) fn site_of(url: &str) -> String {
    let url = url.trim();
    // The scheme in any case, as a URL reads it.
    let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    let web = match scheme.as_deref() {
        Some("ws") => Some(format!("http{}", &url[2..])),
        Some("wss") => Some(format!("https{}", &url[3..])),
        _ => None,
    };
    guard::site::of_url(web.as_deref().unwrap_or(url)).unwrap_or_else(|| url.to_owned())
}

const NO_PAGE: &str =
    "No page is open in this chat's browser yet. Open one with browser_open first.";

/// The page the call acts on, and the control `ref` names on it.
fn control<'a>(
    known: Option<&'a Known>,
    input: &Value,
) -> Result<(&'a Known, &'a Element), String> {
    let known = known.ok_or(NO_PAGE)?;
    let r = field(input, "ref")?.trim();
    let element = known.elements.get(r).ok_or_else(|| {
        format!("There's no element {r} on the page now. Take a new browser_snapshot and use a ref from it.")
    })?;
    Ok((known, element))
}

/// What `name` called with `input` does in a chat whose page is `known`.
pub(crate) fn classify(known: Option<&Known>, name: &str, input: &Value) -> Result<Action, String> {
    let page = |op: BrowserOp, known: &Known| BrowserAction {
        op,
        site: site_of(&known.url),
        url: known.url.clone(),
        element: None,
        sends: None,
        password: false,
        typed: known.typed,
    };
    let action = match name {
        OPEN => {
            let url = field(input, "url")?;
            let parsed = browser::web_address(url).map_err(|e| e.to_string())?;
            let url = parsed.to_string();
            BrowserAction {
                op: BrowserOp::Open,
                site: site_of(&url),
                url,
                element: None,
                sends: None,
                password: false,
                typed: false,
            }
        }
        SNAPSHOT => page(BrowserOp::Snapshot, known.ok_or(NO_PAGE)?),
        SCREENSHOT => page(BrowserOp::Screenshot, known.ok_or(NO_PAGE)?),
        BACK => {
            let known = known.ok_or(NO_PAGE)?;
            let to = known
                .back
                .as_deref()
                .ok_or("There's no earlier page to go back to.")?;
            BrowserAction {
                op: BrowserOp::Back,
                site: site_of(to),
                url: to.to_owned(),
                element: None,
                sends: None,
                password: false,
                typed: known.typed,
            }
        }
        CLICK => {
            let (known, element) = control(known, input)?;
            let mut action = page(BrowserOp::Click, known);
            action.element = Some(element.describe());
            action.sends = element.sends.as_ref().map(|s| {
                Box::new(BrowserSend {
                    site: if s.to.is_empty() {
                        site_of(&known.url)
                    } else {
                        site_of(&s.to)
                    },
                    to: s.to.clone(),
                    spends: s.spends,
                    reaches: Vec::new(),
                })
            });
            action
        }
        TYPE => {
            let (known, element) = control(known, input)?;
            field(input, "text")?;
            if !element.editable {
                return Err(format!(
                    "Can't type into {}: it isn't a field text can be typed into.",
                    element.describe()
                ));
            }
            let mut action = page(BrowserOp::Type, known);
            action.element = Some(element.describe());
            action.password = element.password;
            // The page's own script reads this field as it is typed into:
            // typing is sending, to the page's site and wherever the page
            // has already sent requests.
            if element.listened {
                let own = site_of(&known.url);
                let mut reaches: Vec<String> = known
                    .contacted
                    .iter()
                    .map(|o| site_of(o))
                    .filter(|s| !s.is_empty() && *s != own)
                    .collect();
                reaches.sort();
                reaches.dedup();
                action.sends = Some(Box::new(BrowserSend {
                    to: String::new(),
                    site: own,
                    spends: false,
                    reaches,
                }));
            }
            action
        }
        other => return Err(tools::no_such_tool(other)),
    };
    Ok(Action::Browser(action))
}

#[cfg(test)]
mod tests {
    use super::*;
    use browser::Sends;

    /// A page's WebSocket is its site's: `wss://a.evil.example:8443` is
    /// evil.example, so the site rule and the mark name the same place.
    #[test]
    fn a_websocket_is_its_sites() {
        for (url, site) in [
            ("wss://a.evil.example:8443", "evil.example"),
            ("ws://evil.example", "evil.example"),
            ("WSS://Evil.Example/s", "evil.example"),
            ("https://evil.example", "evil.example"),
            ("mailto:eve@evil.example", "mailto:eve@evil.example"),
        ] {
            assert_eq!(site_of(url), site, "{url}");
        }
    }

    fn known() -> Known {
        let mut k = Known {
            url: "https://mail.example.co.uk/compose".into(),
            back: Some("https://news.example/today".into()),
            ..Known::default()
        };
        let el = |r: &str, role: &str, name: &str| Element {
            r#ref: r.into(),
            role: role.into(),
            name: name.into(),
            password: false,
            secret: false,
            editable: false,
            listened: false,
            sends: None,
            link: None,
        };
        let mut send = el("e1", "button", "Send");
        send.sends = Some(Sends {
            to: "https://drop.example/collect".into(),
            method: "POST".into(),
            spends: false,
        });
        let mut script = el("e2", "button", "Répondre");
        script.sends = Some(Sends {
            to: String::new(),
            method: String::new(),
            spends: false,
        });
        let mut pw = el("e3", "textbox", "Password");
        pw.password = true;
        pw.editable = true;
        let mut text = el("e4", "textbox", "Message");
        text.editable = true;
        for e in [send, script, pw, text, el("e5", "link", "Home")] {
            k.elements.insert(e.r#ref.clone(), e);
        }
        k
    }

    fn browser_action(a: Action) -> BrowserAction {
        match a {
            Action::Browser(b) => b,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn what_each_call_acts_on() {
        let k = known();
        let open = browser_action(
            classify(
                None,
                OPEN,
                &json!({"url": " https://WWW.Files.Example/a b"}),
            )
            .unwrap(),
        );
        assert_eq!(open.site, "files.example");
        assert_eq!(open.url, "https://www.files.example/a%20b");
        let click = browser_action(classify(Some(&k), CLICK, &json!({"ref": "e1"})).unwrap());
        assert_eq!(click.site, "example.co.uk");
        let sends = click.sends.unwrap();
        assert_eq!(
            (sends.site.as_str(), sends.to.as_str()),
            ("drop.example", "https://drop.example/collect")
        );
        // A page's script sends where only the page knows: its own site.
        let script = browser_action(classify(Some(&k), CLICK, &json!({"ref": "e2"})).unwrap());
        assert_eq!(script.sends.unwrap().site, "example.co.uk");
        let pw =
            browser_action(classify(Some(&k), TYPE, &json!({"ref": "e3", "text": "x"})).unwrap());
        assert!(pw.password);
        let back = browser_action(classify(Some(&k), BACK, &json!({})).unwrap());
        assert_eq!(
            (back.site.as_str(), back.url.as_str()),
            ("news.example", "https://news.example/today")
        );
    }

    #[test]
    fn what_cant_be_read_is_a_sentence() {
        let k = known();
        for (known, name, input, says) in [
            (None, SNAPSHOT, json!({}), "No page is open"),
            (None, CLICK, json!({"ref": "e1"}), "No page is open"),
            (Some(&k), CLICK, json!({"ref": "e99"}), "no element e99"),
            (Some(&k), CLICK, json!({}), "needs \"ref\""),
            (
                Some(&k),
                TYPE,
                json!({"ref": "e1", "text": "x"}),
                "isn't a field",
            ),
            (Some(&k), TYPE, json!({"ref": "e4"}), "needs \"text\""),
            (
                None,
                OPEN,
                json!({"url": "file:///etc/passwd"}),
                "only opens http and https",
            ),
            (
                None,
                OPEN,
                json!({"url": "javascript:alert(1)"}),
                "only opens http and https",
            ),
        ] {
            let err = classify(known, name, &input).unwrap_err();
            assert!(err.contains(says), "{name} {input}: {err}");
        }
    }
}
