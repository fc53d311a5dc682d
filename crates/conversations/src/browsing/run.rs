//! Running a browser call that the approval path let through: the call is
//! read again against the page as the browser knows it now, and must be
//! the call that was approved; a click or typing is then bound to the
//! control as it is (and a click the reviewer allowed, to the whole page
//! the reviewer saw), which the browser checks once more immediately
//! before it acts.

use std::sync::Arc;

use browser::{BrowserError, Expect, Shown};
use protocol::{Action, BrowserOp};
use serde_json::{json, Value};
use tools::{Outcome, ToolCall};

use super::classify::{self, classify};
use crate::state::Core;

/// The most characters of a page the model is given.
const MAX_TEXT: usize = 60_000;

pub(crate) async fn run(chat: &Arc<Core>, call: &ToolCall, action: &Action) -> Outcome {
    let Some(browser) = super::browser_of(chat) else {
        return Outcome::failed(
            "Conch's browser isn't set up here, so browser tools can't run. web_fetch reads pages as text.",
        );
    };
    let Action::Browser(approved) = action else {
        return Outcome::failed(tools::no_such_tool(&call.name));
    };
    // What was approved must be what the page offers now.
    let now = classify(browser.known(&chat.id).as_ref(), &call.name, &call.input);
    if now.as_ref() != Ok(action) {
        let why = match now {
            Err(e) => e,
            Ok(_) => "The page changed after this was approved, so nothing was done. Take a new browser_snapshot and try again.".to_owned(),
        };
        return Outcome {
            ok: false,
            output: why,
            detail: Some(json!({ "changed": true }).into()),
        };
    }
    let reviewed = chat.take_reviewed_page(&call.id);
    let r = call
        .input
        .get("ref")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim();
    let expect = || -> Option<Expect> {
        let known = browser.known(&chat.id)?;
        let element = known.elements.get(r)?;
        Some(Expect {
            element: format!("{} on {}", element.identity(), known.url),
            page: reviewed.clone(),
        })
    };
    let result = match approved.op {
        BrowserOp::Open => browser
            .open(&chat.id, &call.id, &approved.url)
            .await
            .map(|s| (s, None)),
        BrowserOp::Snapshot => browser
            .snapshot(&chat.id, &call.id)
            .await
            .map(|s| (s, None)),
        BrowserOp::Back => browser.back(&chat.id, &call.id).await.map(|s| (s, None)),
        BrowserOp::Click => {
            let expect = expect();
            browser
                .click(&chat.id, &call.id, r, expect.as_ref())
                .await
                .map(|s| (s, None))
        }
        BrowserOp::Type => {
            let text = call.input.get("text").and_then(Value::as_str).unwrap_or("");
            let expect = expect();
            browser
                .type_text(&chat.id, &call.id, r, text, expect.as_ref())
                .await
                .map(|s| (s, None))
        }
        BrowserOp::Screenshot => match browser.screenshot(&chat.id, &call.id).await {
            Ok((png, shown)) => match save_screenshot(chat, &call.id, &png).await {
                Ok(name) => Ok((shown, Some(name))),
                Err(e) => return Outcome::failed(e),
            },
            Err(e) => Err(e),
        },
    };
    match result {
        Ok((shown, screenshot)) => shown_outcome(&call.name, &shown, screenshot, approved),
        Err(e @ BrowserError::Changed(_)) => Outcome {
            ok: false,
            output: e.to_string(),
            detail: Some(json!({ "changed": true }).into()),
        },
        Err(e) => Outcome::failed(e.to_string()),
    }
}

/// What the model reads after a call, and the facts the chat keeps: the
/// page's address and site (which mark the chat), its title, and the
/// screenshot's file.
fn shown_outcome(
    tool: &str,
    shown: &Shown,
    screenshot: Option<String>,
    approved: &protocol::BrowserAction,
) -> Outcome {
    let s = &shown.snapshot;
    let site = guard::site::of_url(&s.url).unwrap_or_default();
    let mut text = s.text.clone();
    if text.chars().count() > MAX_TEXT {
        text = text.chars().take(MAX_TEXT).collect();
        text.push_str("\n[The page goes on; only the start is shown.]");
    }
    let mut head = String::new();
    if tool == classify::TYPE {
        head.push_str(if approved.password {
            "Typed into the password field (its value is never shown).\n"
        } else if approved.sends.is_some() {
            "Typed. The page's own script reads this field, so what was typed may already be sent.\n"
        } else if shown.sent.is_empty() {
            "Typed. Nothing is sent until a control that sends is clicked, unless the page's own script sends it.\n"
        } else {
            "Typed.\n"
        });
    }
    // Said after every call on a typed page, from what the browser saw
    // the page request, not from what the page claims.
    if !shown.sent.is_empty() {
        head.push_str(&format!(
            "Since text was typed on this page, it has sent requests to {}.\n",
            shown.sent.join(", ")
        ));
    }
    if let Some(name) = &screenshot {
        head.push_str(&format!(
            "Took a screenshot ({name}); the owner sees it in the chat.\n"
        ));
    }
    if !s.complete {
        head.push_str("Part of this page is in frames the snapshot can't show.\n");
    }
    let mut detail = json!({
        "url": s.url,
        "site": site,
        "title": s.title,
        "refs": s.elements.len(),
    });
    if let Some(back) = &shown.back {
        detail["back"] = json!(back);
    }
    if let Some(name) = screenshot {
        detail["screenshot"] = json!(name);
    }
    if !shown.sent.is_empty() {
        detail["sent_after_typing"] = json!(shown.sent);
    }
    Outcome::ok(format!("{head}{text}"), Some(detail))
}

/// Keeps a screenshot beside the chat's log, as `browser/<call>-<random>.png`;
/// the card shows it.
async fn save_screenshot(chat: &Core, call: &str, png: &[u8]) -> Result<String, String> {
    let Some(chats) = chat.shared.chats.upgrade() else {
        return Err("The screenshot couldn't be kept: Conch is stopping.".to_owned());
    };
    let dir = chats.home().chats_dir().join(&chat.id).join("browser");
    let safe: String = call
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    // Call ids can repeat (an engine's own counter, a new turn): a random
    // part keeps an earlier screenshot from being replaced.
    let name = format!("{safe}-{}.png", crate::ids::random_id(8));
    let path = dir.join(&name);
    let png = png.to_vec();
    let kept = tokio::task::spawn_blocking(move || -> std::io::Result<()> {
        crate::private_file::create_private_dir(&dir)?;
        crate::private_file::write_private(&path, &png)
    })
    .await;
    match kept {
        Ok(Ok(())) => Ok(format!("browser/{name}")),
        _ => Err("The screenshot couldn't be kept in the chat's folder.".to_owned()),
    }
}
