//! A scripted Telegram Bot API server on 127.0.0.1, for tests and the
//! benchmark. It answers `getMe`, `getUpdates`, `sendMessage`,
//! `editMessageText` and `answerCallbackQuery` as the documented API does,
//! with the real API's edges:
//!
//! - a `getUpdates` while another is waiting gets 409 ("Conflict:
//!   terminated by other getUpdates request");
//! - a fault scripted with [`BotApi::fail_next`] (429 with `retry_after`,
//!   or any other) answers the next call of that method instead;
//! - `editMessageText` without `reply_markup` drops the buttons;
//! - an edit to the same text and buttons is 400 "message is not modified";
//! - a callback query can be answered once; again is 400.
//!
//! Updates are kept until a `getUpdates` with a higher `offset` confirms
//! them, as Telegram keeps them. With `setWebhook`, they are pushed instead:
//! each POSTed in order to the address with `X-Telegram-Bot-Api-Secret-Token`,
//! sent again until it is answered 2xx, and `getUpdates` is 409.

// Each test file uses some of it.
#![allow(dead_code)]

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::sync::Notify;

pub const TOKEN: &str = "123456:test-token";
pub const BOT_ID: i64 = 4242;
pub const BOT_NAME: &str = "conch_test_bot";

/// A message the bot sent, as it stands now.
#[derive(Debug, Clone, PartialEq)]
pub struct BotMessage {
    pub chat: i64,
    pub id: i64,
    pub text: String,
    /// `inline_keyboard`, when it has buttons.
    pub buttons: Option<Value>,
    /// Times it was edited.
    pub edits: u32,
}

#[derive(Default)]
struct World {
    next_update: i64,
    updates: VecDeque<Value>,
    messages: Vec<BotMessage>,
    next_message: i64,
    /// Callback ids, and whether each was answered.
    callbacks: HashMap<String, bool>,
    answers: Vec<(String, String)>,
    polling: bool,
    faults: HashMap<String, VecDeque<(u16, String, Option<u64>)>>,
    /// Every call: (method, HTTP status answered).
    calls: Vec<(String, u16)>,
    /// Every request's body, as sent: what left Conch for the app.
    bodies: Vec<String>,
    /// setWebhook's address and secret.
    webhook: Option<(String, String)>,
    /// Push the next update twice (as when an answer was lost).
    repeat_next: bool,
    /// Every push: (update_id, HTTP status answered).
    pushes: Vec<(i64, u16)>,
    /// Calls of a method answered late (done at once, answered after the
    /// wait): how many more, and how late.
    slow: HashMap<String, (u32, Duration)>,
}

#[derive(Clone)]
pub struct BotApi {
    world: Arc<Mutex<World>>,
    arrived: Arc<Notify>,
    changed: Arc<Notify>,
    pub base: String,
}

fn err(status: u16, description: &str, retry_after: Option<u64>) -> Response {
    let mut body = json!({ "ok": false, "error_code": status, "description": description });
    if let Some(r) = retry_after {
        body["parameters"] = json!({ "retry_after": r });
    }
    (StatusCode::from_u16(status).unwrap(), Json(body)).into_response()
}

fn ok(result: Value) -> Response {
    Json(json!({ "ok": true, "result": result })).into_response()
}

impl BotApi {
    pub async fn start() -> BotApi {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let api = BotApi {
            world: Arc::new(Mutex::new(World {
                next_update: 100,
                next_message: 1,
                ..World::default()
            })),
            arrived: Arc::new(Notify::new()),
            changed: Arc::new(Notify::new()),
            base,
        };
        let app = Router::new()
            .route("/{bot}/{method}", post(handle))
            .with_state(api.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        tokio::spawn(pusher(api.clone()));
        api
    }

    /// The next `n` calls of `method` are done at once but answered `late`,
    /// as over a slow network.
    pub fn slow_next(&self, method: &str, n: u32, late: Duration) {
        self.world().slow.insert(method.to_owned(), (n, late));
    }

    /// The next update pushed is pushed twice.
    pub fn repeat_next_push(&self) {
        self.world().repeat_next = true;
    }

    pub fn pushes(&self) -> Vec<(i64, u16)> {
        self.world().pushes.clone()
    }

    pub fn webhook(&self) -> Option<(String, String)> {
        self.world().webhook.clone()
    }

    fn world(&self) -> std::sync::MutexGuard<'_, World> {
        self.world.lock().unwrap()
    }

    /// The next call of `method` fails with `status` (and `retry_after`).
    pub fn fail_next(
        &self,
        method: &str,
        status: u16,
        description: &str,
        retry_after: Option<u64>,
    ) {
        self.world()
            .faults
            .entry(method.to_owned())
            .or_default()
            .push_back((status, description.to_owned(), retry_after));
    }

    fn push(&self, mut update: Value) -> i64 {
        let id = {
            let mut w = self.world();
            w.next_update += 1;
            let id = w.next_update;
            update["update_id"] = json!(id);
            w.updates.push_back(update);
            id
        };
        self.arrived.notify_waiters();
        id
    }

    fn user(id: i64, first: &str, handle: Option<&str>) -> Value {
        let mut u = json!({ "id": id, "is_bot": false, "first_name": first });
        if let Some(h) = handle {
            u["username"] = json!(h);
        }
        u
    }

    /// Someone writes to the bot in their own chat with it.
    pub fn direct(&self, from: i64, first: &str, handle: Option<&str>, text: &str) -> i64 {
        self.push(json!({ "message": {
            "message_id": from * 1000 + self.world().next_update,
            "date": 0,
            "from": Self::user(from, first, handle),
            "chat": { "id": from, "type": "private", "first_name": first },
            "text": text,
        }}))
    }

    /// Someone sends on, in a direct chat, a message whose words are
    /// another's: `extra` carries `forward_origin`, `via_bot`, ….
    pub fn passed_on(&self, from: i64, first: &str, text: &str, extra: Value) -> i64 {
        let mut m = json!({
            "message_id": from * 1000 + self.world().next_update,
            "date": 0,
            "from": Self::user(from, first, None),
            "chat": { "id": from, "type": "private", "first_name": first },
            "text": text,
        });
        if let (Some(m), Some(extra)) = (m.as_object_mut(), extra.as_object()) {
            m.extend(extra.clone());
        }
        self.push(json!({ "message": m }))
    }

    /// Someone writes in a group; `mention` puts `@bot` first, as an entity.
    pub fn group(&self, group: i64, from: i64, first: &str, text: &str, mention: bool) -> i64 {
        let (text, entities) = if mention {
            let t = format!("@{BOT_NAME} {text}");
            (
                t,
                json!([{ "type": "mention", "offset": 0, "length": BOT_NAME.len() + 1 }]),
            )
        } else {
            (text.to_owned(), json!([]))
        };
        self.push(json!({ "message": {
            "message_id": 1,
            "date": 0,
            "from": Self::user(from, first, None),
            "chat": { "id": group, "type": "supergroup", "title": "Team" },
            "text": text,
            "entities": entities,
        }}))
    }

    /// Someone presses a button on a message the bot sent; the callback's id.
    pub fn press(&self, from: i64, first: &str, message: &BotMessage, data: &str) -> String {
        let id = format!("cb{}", self.world().next_update + 1);
        self.world().callbacks.insert(id.clone(), false);
        self.push(json!({ "callback_query": {
            "id": id,
            "from": Self::user(from, first, None),
            "message": { "message_id": message.id, "chat": { "id": message.chat, "type": "private" }, "date": 0 },
            "chat_instance": "1",
            "data": data,
        }}));
        id
    }

    /// What the bot has said in `chat`, as each message stands now.
    /// Every request body the bot sent, edits and answers included.
    pub fn bodies(&self) -> Vec<String> {
        self.world().bodies.clone()
    }

    pub fn said_in(&self, chat: i64) -> Vec<BotMessage> {
        self.world()
            .messages
            .iter()
            .filter(|m| m.chat == chat)
            .cloned()
            .collect()
    }

    pub fn answers(&self) -> Vec<(String, String)> {
        self.world().answers.clone()
    }

    pub fn calls(&self) -> Vec<(String, u16)> {
        self.world().calls.clone()
    }

    /// Waits until `want` holds of the server (10 seconds at most).
    pub async fn until(&self, what: &str, want: impl Fn(&BotApi) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let changed = self.changed.notified();
            if want(self) {
                return;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                assert!(
                    want(self),
                    "waited 10 s for {what}: {:#?}",
                    self.world().messages
                );
                return;
            }
        }
    }
}

async fn handle(
    State(api): State<BotApi>,
    Path((bot, method)): Path<(String, String)>,
    Json(body): Json<Value>,
) -> Response {
    let response = answer(&api, &bot, &method, body).await;
    api.world()
        .calls
        .push((method.clone(), response.status().as_u16()));
    api.changed.notify_waiters();
    let late = {
        let mut w = api.world();
        match w.slow.get_mut(&method) {
            Some((n, late)) if *n > 0 => {
                *n -= 1;
                Some(*late)
            }
            _ => None,
        }
    };
    if let Some(late) = late {
        tokio::time::sleep(late).await;
    }
    response
}

async fn answer(api: &BotApi, bot: &str, method: &str, body: Value) -> Response {
    api.world().bodies.push(body.to_string());
    if bot != format!("bot{TOKEN}") {
        return err(401, "Unauthorized", None);
    }
    let fault = api
        .world()
        .faults
        .get_mut(method)
        .and_then(VecDeque::pop_front);
    if let Some((status, description, retry_after)) = fault {
        return err(status, &description, retry_after);
    }
    match method {
        "setWebhook" => {
            let (Some(url), secret) = (body["url"].as_str(), body["secret_token"].as_str().unwrap_or("")) else {
                return err(400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook", None);
            };
            api.world().webhook = Some((url.to_owned(), secret.to_owned()));
            api.arrived.notify_waiters();
            ok(json!(true))
        }
        "deleteWebhook" => {
            api.world().webhook = None;
            ok(json!(true))
        }
        "getUpdates" if api.world().webhook.is_some() => err(
            409,
            "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
            None,
        ),
        "getMe" => {
            ok(json!({ "id": BOT_ID, "is_bot": true, "first_name": "Conch", "username": BOT_NAME }))
        }
        "getUpdates" => get_updates(api, &body).await,
        "sendMessage" => {
            let (Some(chat), Some(text)) = (body["chat_id"].as_i64(), body["text"].as_str()) else {
                return err(400, "Bad Request: chat_id and text are required", None);
            };
            if text.is_empty() {
                return err(400, "Bad Request: message text is empty", None);
            }
            let mut w = api.world();
            let id = w.next_message;
            w.next_message += 1;
            let buttons = body["reply_markup"].get("inline_keyboard").cloned();
            w.messages.push(BotMessage {
                chat,
                id,
                text: text.to_owned(),
                buttons,
                edits: 0,
            });
            ok(
                json!({ "message_id": id, "date": 0, "chat": { "id": chat, "type": "private" }, "text": text }),
            )
        }
        "editMessageText" => {
            let (Some(chat), Some(id), Some(text)) = (
                body["chat_id"].as_i64(),
                body["message_id"].as_i64(),
                body["text"].as_str(),
            ) else {
                return err(
                    400,
                    "Bad Request: chat_id, message_id and text are required",
                    None,
                );
            };
            let mut w = api.world();
            let Some(m) = w.messages.iter_mut().find(|m| m.chat == chat && m.id == id) else {
                return err(400, "Bad Request: message to edit not found", None);
            };
            // Without reply_markup, an inline keyboard goes.
            let buttons = body["reply_markup"].get("inline_keyboard").cloned();
            if m.text == text && m.buttons == buttons {
                return err(400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message", None);
            }
            m.text = text.to_owned();
            m.buttons = buttons;
            m.edits += 1;
            ok(
                json!({ "message_id": id, "date": 0, "chat": { "id": chat, "type": "private" }, "text": text }),
            )
        }
        "answerCallbackQuery" => {
            let Some(id) = body["callback_query_id"].as_str() else {
                return err(400, "Bad Request: callback_query_id is required", None);
            };
            let mut w = api.world();
            match w.callbacks.get_mut(id) {
                Some(answered @ false) => {
                    *answered = true;
                    let text = body["text"].as_str().unwrap_or("").to_owned();
                    w.answers.push((id.to_owned(), text));
                    ok(json!(true))
                }
                _ => err(400, "Bad Request: query is too old and response timeout expired or query ID is invalid", None),
            }
        }
        _ => err(404, "Not Found", None),
    }
}

async fn get_updates(api: &BotApi, body: &Value) -> Response {
    {
        let mut w = api.world();
        if w.polling {
            return err(409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running", None);
        }
        w.polling = true;
        if let Some(offset) = body["offset"].as_i64() {
            w.updates
                .retain(|u| u["update_id"].as_i64().unwrap() >= offset);
        }
    }
    // A poller that goes away mid-wait stops polling.
    let _polling = Polling(api.world.clone());
    let timeout = body["timeout"].as_u64().unwrap_or(0).min(50);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(timeout);
    loop {
        let arrived = api.arrived.notified();
        {
            let w = api.world();
            if !w.updates.is_empty() || tokio::time::Instant::now() >= deadline {
                let list: Vec<Value> = w.updates.iter().take(100).cloned().collect();
                return ok(json!(list));
            }
        }
        let _ = tokio::time::timeout_at(deadline, arrived).await;
    }
}

/// Pushes updates in order while a webhook is set.
async fn pusher(api: BotApi) {
    let http = reqwest::Client::new();
    loop {
        let arrived = api.arrived.notified();
        let next = {
            let w = api.world();
            match (&w.webhook, w.updates.front()) {
                (Some((url, secret)), Some(u)) => Some((url.clone(), secret.clone(), u.clone())),
                _ => None,
            }
        };
        let Some((url, secret, update)) = next else {
            let _ = tokio::time::timeout(Duration::from_millis(200), arrived).await;
            continue;
        };
        let status = http
            .post(&url)
            .header("X-Telegram-Bot-Api-Secret-Token", &secret)
            .json(&update)
            .send()
            .await
            .map(|r| r.status().as_u16())
            .unwrap_or(0);
        let id = update["update_id"].as_i64().unwrap();
        {
            let mut w = api.world();
            w.pushes.push((id, status));
            if (200..300).contains(&status) {
                if w.repeat_next {
                    w.repeat_next = false;
                } else if w.updates.front().and_then(|u| u["update_id"].as_i64()) == Some(id) {
                    w.updates.pop_front();
                }
            }
        }
        api.changed.notify_waiters();
        if !(200..300).contains(&status) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

struct Polling(Arc<Mutex<World>>);

impl Drop for Polling {
    fn drop(&mut self) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).polling = false;
    }
}
