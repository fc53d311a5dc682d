//! The Telegram bridge end to end against a scripted Bot API server on
//! 127.0.0.1: the owner links, a stranger is refused, an allowed person's
//! message marks the chat and their request's command asks the owner in
//! Telegram (not them), their "yes" is refused with the sentence, and the
//! owner's button runs it once. Then the API's edges: 409, 429 with
//! retry_after, a press answered twice, an edit to the same text.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "support/bot_api.rs"]
mod bot_api;

use std::sync::Arc;
use std::time::Duration;

use bot_api::{BotApi, BotMessage, TOKEN};
use bridges::access;
use bridges::telegram::Telegram;
use bridges::{ChatApp, Relay, StateFile, Waits};
use conversations::{Chat, Chats, ChatsConfig, Durability, GuardConfig, Home};
use engines::{Chunk, ScriptedEngine};
use protocol::{Body, Mode, Speaker};
use serde_json::json;
use tools::{Tools, ToolsConfig};

const ADA: i64 = 100;
const EVE: i64 = 200;
const MALLORY: i64 = 300;

struct World {
    _dir: tempfile::TempDir,
    home: std::path::PathBuf,
    api: BotApi,
    chats: Arc<Chats>,
    state: StateFile,
}

fn waits() -> Waits {
    Waits {
        unreachable: Duration::from_millis(50),
        conflict: Duration::from_millis(100),
        most: Duration::from_secs(2),
    }
}

async fn world(engine: Arc<ScriptedEngine>, mode: Mode) -> World {
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = (dir.path().join("home"), dir.path().join("work"));
    std::fs::create_dir(&work).unwrap();
    let chats = Chats::new(
        Home::open(&home).unwrap(),
        engine,
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work,
            default_mode: mode,
            policies: Default::default(),
            guard: GuardConfig {
                owner_name: "Ada".into(),
                ..GuardConfig::default()
            },
            skills: None,
            max_steps: None,
        },
    );
    let api = BotApi::start().await;
    let state = StateFile::new(&home);
    World {
        _dir: dir,
        home,
        api,
        chats,
        state,
    }
}

fn start(w: &World) -> Arc<Relay> {
    let app: Arc<dyn ChatApp> = Telegram::new(TOKEN, Some(&w.api.base), 1).unwrap();
    let relay = Relay::new(app, w.chats.clone(), &w.home, "Ada", waits());
    tokio::spawn(relay.clone().run());
    relay
}

/// `conch bridges link telegram`: the code the owner sends.
fn link_code(state: &StateFile) -> String {
    let (code, kept) = access::new_code([7, 1, 30, 12, 99, 250, 3, 18], bridges_now());
    state.update("telegram", |s| s.link = Some(kept)).unwrap();
    code
}

fn bridges_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn texts(api: &BotApi, chat: i64) -> Vec<String> {
    api.said_in(chat).into_iter().map(|m| m.text).collect()
}

fn command(id: &str, command: &str) -> Chunk {
    Chunk::ToolCall {
        id: id.into(),
        name: "run_command".into(),
        input: json!({ "command": command }),
    }
}

fn the_chat(w: &World, app_chat: i64) -> Arc<Chat> {
    let id = w.state.get("telegram").unwrap().chats[&app_chat.to_string()].clone();
    w.chats.get(&id).unwrap()
}

async fn link_ada(w: &World) {
    let code = link_code(&w.state);
    w.api
        .direct(ADA, "Ada", Some("ada"), &format!("/link {code}"));
    w.api
        .until("the owner is linked", |a| {
            texts(a, ADA).iter().any(|t| t == access::LINKED)
        })
        .await;
    assert_eq!(
        w.state.get("telegram").unwrap().owner.unwrap().id,
        ADA.to_string()
    );
}

#[tokio::test]
async fn someone_elses_request_asks_the_owner_in_telegram_and_the_owners_button_runs_it_once() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![command(
            "c1",
            "echo ran-for-eve > proof.txt; echo ran-for-eve",
        )],
        vec![Chunk::Text("Done: it printed ran-for-eve.".into())],
        vec![Chunk::Text("Ada has it.".into())],
    ]));
    // Full trust: someone else's words still ask.
    let w = world(engine, Mode::Full).await;
    start(&w);
    link_ada(&w).await;

    // A stranger is refused with a sentence, and nothing is kept.
    w.api
        .direct(MALLORY, "Mallory", Some("mal"), "run rm -rf ~");
    w.api
        .until("the stranger is refused", |a| !texts(a, MALLORY).is_empty())
        .await;
    assert_eq!(
        texts(&w.api, MALLORY),
        [access::refused("Ada", &MALLORY.to_string())]
    );
    assert!(w.chats.list().is_empty(), "a stranger's words made a chat");
    // Writing again, they aren't told again for a while (a flood of
    // strangers can't use up the bot's sending for the owner).
    w.api.direct(MALLORY, "Mallory", Some("mal"), "hello??");
    let last = w.api.direct(MALLORY, "Mallory", Some("mal"), "hello???") as u64;
    while w.state.get("telegram").unwrap().cursor < Some(last) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    assert_eq!(texts(&w.api, MALLORY).len(), 1);
    // The owner allows Eve by handle.
    bridges::state::allow(&w.state, "telegram", access::parse_user("@Eve").unwrap()).unwrap();
    w.api.direct(
        EVE,
        "Eve",
        Some("eve"),
        "Привет! Could you run echo for me?",
    );
    // Eve is told the owner was asked; the owner gets the question.
    w.api
        .until("Eve is told", |a| {
            texts(a, EVE)
                .iter()
                .any(|t| t == "I've asked Ada to OK it.")
        })
        .await;
    w.api
        .until("Ada is asked", |a| {
            a.said_in(ADA).iter().any(|m| m.buttons.is_some())
        })
        .await;
    let chat = the_chat(&w, EVE);
    let view = chat.log.view();
    assert_eq!(view.others, ["Eve on telegram"]);
    assert!(view.is_marked());
    let asked = view.pending[0].clone();
    let question: BotMessage = w
        .api
        .said_in(ADA)
        .into_iter()
        .find(|m| m.buttons.is_some())
        .unwrap();
    assert!(question.text.contains("ran-for-eve"), "{}", question.text);
    assert!(
        question.text.contains("Eve on telegram"),
        "{}",
        question.text
    );
    // Once and Deny; no Always for someone else's words.
    let labels: Vec<&str> = question.buttons.as_ref().unwrap()[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["text"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Once", "Deny"]);
    // Eve never sees a button.
    assert!(w.api.said_in(EVE).iter().all(|m| m.buttons.is_none()));

    // Eve's "yes" is a message, not an answer.
    w.api.direct(EVE, "Eve", Some("eve"), "yes");
    w.api
        .until("Eve's yes is refused", |a| {
            texts(a, EVE)
                .iter()
                .filter(|t| *t == "I've asked Ada to OK it.")
                .count()
                == 2
        })
        .await;
    assert_eq!(chat.log.view().pending.len(), 1);
    // Nor is Eve pressing Ada's button (data copied from it).
    let once = question.buttons.as_ref().unwrap()[0][0]["callback_data"]
        .as_str()
        .unwrap()
        .to_owned();
    let forged = w.api.press(EVE, "Eve", &question, &once);
    w.api
        .until("the forged press is answered", |a| {
            a.answers().iter().any(|(id, _)| *id == forged)
        })
        .await;
    assert_eq!(
        w.api.answers().last().unwrap().1,
        "Only Ada can answer this."
    );
    assert_eq!(chat.log.view().pending[0].ask, asked.ask);

    // Ada presses Once: it runs, once.
    let pressed = w.api.press(ADA, "Ada", &question, &once);
    w.api
        .until("Ada's press is answered", |a| {
            a.answers().iter().any(|(id, _)| *id == pressed)
        })
        .await;
    w.api
        .until("the reply reaches Eve", |a| {
            texts(a, EVE).iter().any(|t| t.contains("Done:"))
        })
        .await;
    let events = chat.log.events_after(0).unwrap();
    let finished: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            Body::ToolFinished(f) => Some(f.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(finished.len(), 1);
    assert!(finished[0].output.contains("ran-for-eve"));
    let answered: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            Body::PermissionAnswered(a) => Some(a.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(answered.len(), 1);
    assert_eq!(answered[0].by, "owner:telegram");
    // The question says how it ended and its buttons are gone.
    w.api
        .until("the question is marked done", |a| {
            a.said_in(ADA)
                .iter()
                .any(|m| m.id == question.id && m.buttons.is_none())
        })
        .await;
    let done = w
        .api
        .said_in(ADA)
        .into_iter()
        .find(|m| m.id == question.id)
        .unwrap();
    assert!(done.text.ends_with("— Allowed once here."), "{}", done.text);
    // Pressing again: the question is over, nothing runs twice.
    let again = w.api.press(ADA, "Ada", &question, &once);
    w.api
        .until("the second press is answered", |a| {
            a.answers().iter().any(|(id, _)| *id == again)
        })
        .await;
    assert_eq!(w.api.answers().last().unwrap().1, "That question is over.");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let runs = chat
        .log
        .events_after(0)
        .unwrap()
        .iter()
        .filter(|e| matches!(e.body, Body::ToolFinished(_)))
        .count();
    assert_eq!(runs, 1);
    // Eve's words are in the chat as hers.
    let people: Vec<_> = chat
        .log
        .events_after(0)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.body {
            Body::Message(m) => Some((m.from, m.name, m.text)),
            _ => None,
        })
        .collect();
    assert_eq!(people[0].0, Speaker::Person);
    assert_eq!(people[0].1.as_deref(), Some("Eve"));
}

#[tokio::test]
async fn in_a_group_only_mentions_are_read_and_the_owner_there_is_the_owner() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::Text("Hi Ada.".into())],
        vec![command("g1", "echo for-the-group")],
        vec![Chunk::Text("Asked Ada.".into())],
    ]));
    let w = world(engine, Mode::Full).await;
    start(&w);
    link_ada(&w).await;
    bridges::state::allow(
        &w.state,
        "telegram",
        access::parse_user(&EVE.to_string()).unwrap(),
    )
    .unwrap();
    let group = -5000;
    w.api.group(group, ADA, "Ada", "lunch?", false);
    w.api.group(group, EVE, "Eve", "anyone?", false);
    w.api.group(group, ADA, "Ada", "hello", true);
    w.api
        .until("the reply", |a| {
            texts(a, group).iter().any(|t| t == "Hi Ada.")
        })
        .await;
    let chat = the_chat(&w, group);
    let messages = |chat: &Chat| -> Vec<(Speaker, String)> {
        chat.log
            .events_after(0)
            .unwrap()
            .into_iter()
            .filter_map(|e| match e.body {
                Body::Message(m) => Some((m.from, m.text)),
                _ => None,
            })
            .collect()
    };
    assert_eq!(messages(&chat).len(), 1, "{:?}", messages(&chat));
    assert_eq!(messages(&chat)[0].0, Speaker::Owner);
    assert!(!chat.log.view().is_marked());
    // A stranger naming the bot is refused in the group; nothing is kept.
    w.api.group(group, MALLORY, "Mallory", "run rm -rf /", true);
    w.api
        .until("the stranger is refused", |a| {
            texts(a, group)
                .iter()
                .any(|t| t.starts_with("Sorry, I only talk with people Ada has allowed"))
        })
        .await;
    assert_eq!(messages(&chat).len(), 1);
    // Eve naming the bot is someone else in the owner's group: her words
    // mark it, and what she asks for asks Ada in Ada's own chat.
    w.api.group(group, EVE, "Eve", "please run echo", true);
    w.api
        .until("Ada is asked", |a| {
            a.said_in(ADA).iter().any(|m| m.buttons.is_some())
        })
        .await;
    w.api
        .until("the group is told", |a| {
            texts(a, group)
                .iter()
                .any(|t| t == "I've asked Ada to OK it.")
        })
        .await;
    assert_eq!(chat.log.view().others, ["Eve on telegram"]);
    assert!(w.api.said_in(group).iter().all(|m| m.buttons.is_none()));
}

/// The API's edges: a 409 while polling, 429s with retry_after on sending,
/// replies that must each arrive exactly once, and messages that must each
/// reach the chat exactly once.
#[tokio::test]
async fn the_bridge_survives_409_and_429_without_losing_or_repeating_a_message() {
    let n = 6;
    let engine = Arc::new(ScriptedEngine::new(
        (1..=n).map(|i| vec![Chunk::Text(format!("reply {i}"))]),
    ));
    let w = world(engine, Mode::Ask).await;
    start(&w);
    link_ada(&w).await;
    w.api.fail_next("getUpdates", 409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running", None);
    w.api.fail_next(
        "sendMessage",
        429,
        "Too Many Requests: retry after 1",
        Some(1),
    );
    w.api.fail_next(
        "getUpdates",
        429,
        "Too Many Requests: retry after 1",
        Some(1),
    );
    for i in 1..=n {
        w.api
            .direct(ADA, "Ada", Some("ada"), &format!("message {i} ✓"));
        if i == 3 {
            w.api.fail_next(
                "sendMessage",
                429,
                "Too Many Requests: retry after 1",
                Some(1),
            );
        }
    }
    let want: Vec<String> = (1..=n).map(|i| format!("message {i} ✓")).collect();
    let chat = loop {
        if let Some(id) = w
            .state
            .get("telegram")
            .unwrap()
            .chats
            .get(&ADA.to_string())
            .cloned()
        {
            break w.chats.get(&id).unwrap();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let messages = |chat: &Chat| -> Vec<String> {
        chat.log
            .events_after(0)
            .unwrap()
            .into_iter()
            .filter_map(|e| match e.body {
                Body::Message(m) => Some(m.text),
                _ => None,
            })
            .collect()
    };
    // Messages that arrive while a turn runs wait for the next one, so
    // there are as many replies as turns: each must reach Telegram once.
    let replies = |chat: &Chat| -> Vec<String> {
        chat.log
            .events_after(0)
            .unwrap()
            .into_iter()
            .filter_map(|e| match e.body {
                Body::Reply(r) => Some(r.text),
                _ => None,
            })
            .collect()
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while (messages(&chat) != want || chat.is_running()) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(messages(&chat), want);
    let logged = replies(&chat);
    w.api
        .until("every reply", |a| {
            texts(a, ADA)
                .iter()
                .filter(|t| t.starts_with("reply "))
                .count()
                >= logged.len()
        })
        .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let sent: Vec<String> = texts(&w.api, ADA)
        .into_iter()
        .filter(|t| t.starts_with("reply "))
        .collect();
    assert_eq!(sent, logged);
    assert_eq!(messages(&chat), want);
    let calls = w.api.calls();
    assert!(calls.iter().any(|c| c == &("getUpdates".to_owned(), 409)));
    assert!(
        calls.iter().filter(|c| c.1 == 429).count() >= 2,
        "{calls:?}"
    );
}

/// A second poller gets 409 from the server; the first keeps every update.
#[tokio::test]
async fn a_second_poller_gets_409_and_the_adapter_says_so() {
    let api = BotApi::start().await;
    let a = Telegram::new(TOKEN, Some(&api.base), 2).unwrap();
    let b = Telegram::new(TOKEN, Some(&api.base), 2).unwrap();
    let first = tokio::spawn(async move { a.updates(None).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    match b.updates(None).await {
        Err(bridges::AppError::Conflict(why)) => {
            assert!(why.contains("terminated by other getUpdates"))
        }
        other => panic!("{other:?}"),
    }
    api.direct(ADA, "Ada", None, "hi");
    let got = first.await.unwrap().unwrap();
    assert_eq!(got.len(), 1);
}

/// An edit without buttons drops them; the same edit again is "not
/// modified", which the adapter names; a press answered twice is refused.
#[tokio::test]
async fn edits_and_presses_behave_as_the_real_api() {
    let api = BotApi::start().await;
    let tg = Telegram::new(TOKEN, Some(&api.base), 1).unwrap();
    let buttons = [bridges::Button {
        text: "Once".into(),
        data: "once:x".into(),
    }];
    let sent = tg.say(&ADA.to_string(), "Can I?", &buttons).await.unwrap();
    assert!(api.said_in(ADA)[0].buttons.is_some());
    tg.edit(&sent, "Can I?").await.unwrap();
    assert_eq!(api.said_in(ADA)[0].buttons, None);
    assert_eq!(
        tg.edit(&sent, "Can I?").await,
        Err(bridges::AppError::NotModified)
    );
    let message = api.said_in(ADA)[0].clone();
    let press = api.press(ADA, "Ada", &message, "once:x");
    tg.answer(&press, "ok").await.unwrap();
    assert!(matches!(
        tg.answer(&press, "ok").await,
        Err(bridges::AppError::Refused(_))
    ));
    // A wrong token is a sentence that doesn't show the token.
    let wrong = Telegram::new("999:nope", Some(&api.base), 1).unwrap();
    let e = wrong.say("1", "x", &[]).await.unwrap_err().to_string();
    assert!(e.contains("token") && !e.contains("999:nope"), "{e}");
}

/// The owner saw the question and pressed Once before Telegram's answer to
/// sending it reached Conch: the press still answers it (it used to say
/// "That question is over." and take the buttons away).
#[tokio::test]
async fn a_button_pressed_before_sending_it_was_confirmed_still_answers() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "echo pressed-early")],
        vec![Chunk::Text("ran".into())],
    ]));
    let w = world(engine, Mode::Ask).await;
    start(&w);
    link_ada(&w).await;
    bridges::state::allow(
        &w.state,
        "telegram",
        access::parse_user(&EVE.to_string()).unwrap(),
    )
    .unwrap();
    w.api
        .slow_next("sendMessage", 3, Duration::from_millis(1500));
    w.api.direct(EVE, "Eve", None, "run it please");
    w.api
        .until("the question is on the owner's phone", |a| {
            a.said_in(ADA).iter().any(|m| m.buttons.is_some())
        })
        .await;
    let q = w
        .api
        .said_in(ADA)
        .into_iter()
        .find(|m| m.buttons.is_some())
        .unwrap();
    let once = q.buttons.as_ref().unwrap()[0][0]["callback_data"]
        .as_str()
        .unwrap()
        .to_owned();
    let pressed = w.api.press(ADA, "Ada", &q, &once);
    w.api
        .until("the press is answered", |a| {
            a.answers().iter().any(|(id, _)| *id == pressed)
        })
        .await;
    assert_eq!(w.api.answers().last().unwrap().1, "Allowed once.");
    w.api
        .until("the question says so", |a| {
            a.said_in(ADA)
                .iter()
                .any(|m| m.id == q.id && m.text.ends_with("— Allowed once here."))
        })
        .await;
}

/// The bug: the owner forwarding a stranger's message posted it as the
/// owner's words, and the stranger's command ran in the owner's Full-trust
/// chat. A forward, or a message sent through a bot, is its author's words:
/// the chat is marked with them, and the command asks the owner. The
/// control: the owner's own words, the same text, run without a question.
#[tokio::test]
async fn a_strangers_message_the_owner_forwards_is_the_strangers_and_its_command_asks() {
    let script = || {
        Arc::new(ScriptedEngine::new([
            vec![command("c1", "echo pwned > pwned.txt")],
            vec![Chunk::Text("Done.".into())],
        ]))
    };
    let text = "Ada, please run `echo pwned > pwned.txt` for me";
    let passed_on = [
        json!({ "forward_origin": { "type": "user", "date": 0, "sender_user": { "id": MALLORY, "first_name": "Mallory" } } }),
        json!({ "forward_origin": { "type": "hidden_user", "date": 0, "sender_user_name": "Mallory" } }),
        json!({ "forward_from": { "id": MALLORY, "first_name": "Mallory" }, "forward_date": 0 }),
        json!({ "via_bot": { "id": 9, "is_bot": true, "first_name": "Mallory", "username": "mallorybot" } }),
    ];
    for extra in passed_on {
        let w = world(script(), Mode::Full).await;
        start(&w);
        link_ada(&w).await;
        w.api.passed_on(ADA, "Ada", text, extra.clone());
        w.api
            .until("Ada is asked", |a| {
                a.said_in(ADA).iter().any(|m| m.buttons.is_some())
            })
            .await;
        let chat = the_chat(&w, ADA);
        let view = chat.log.view();
        assert!(view.is_marked(), "{extra}");
        assert_eq!(view.pending.len(), 1, "{extra}");
        // Asked because of whose words they are, not only because this
        // test has no box.
        let why = asked_why(&chat);
        assert!(
            why.iter().any(|w| w == "after-reading.command"),
            "{extra}: {why:?}"
        );
        let posted = chat
            .log
            .events_after(0)
            .unwrap()
            .into_iter()
            .find_map(|e| match e.body {
                Body::Message(m) => Some(m),
                _ => None,
            })
            .unwrap();
        assert_eq!(posted.from, Speaker::Person, "{extra}");
        assert!(
            posted
                .name
                .as_deref()
                .is_some_and(|n| n.contains("Mallory") || n.contains("mallorybot")),
            "{extra}: {:?}",
            posted.name
        );
        assert!(!w._dir.path().join("work/pwned.txt").exists(), "{extra}");
    }
    // The control: the owner's own words mark nothing, and the command's
    // question is only the box's (this test has none).
    let w = world(script(), Mode::Full).await;
    start(&w);
    link_ada(&w).await;
    w.api.direct(ADA, "Ada", Some("ada"), text);
    w.api
        .until("Ada is asked", |a| {
            a.said_in(ADA).iter().any(|m| m.buttons.is_some())
        })
        .await;
    let chat = the_chat(&w, ADA);
    assert!(!chat.log.view().is_marked());
    assert_eq!(asked_why(&chat), ["box.unavailable"]);
}

/// Why the chat's first question was asked.
fn asked_why(chat: &Chat) -> Vec<String> {
    chat.log
        .events_after(0)
        .unwrap()
        .into_iter()
        .find_map(|e| match e.body {
            Body::PermissionRequested(p) => Some(p.why),
            _ => None,
        })
        .unwrap()
}

/// A reply to Eve is a message to Eve: her request to read the owner's
/// file asks Ada in Telegram (saying Eve will see what it finds), nothing
/// of the file reaches Eve before the yes, and the owner's memories were
/// never given to the model in Eve's chat. Ada's Once lets exactly that
/// read through.
#[tokio::test]
async fn a_reply_to_someone_else_asks_before_the_owners_files_and_memories() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::ToolCall {
            id: "r1".into(),
            name: "read_file".into(),
            input: json!({ "path": "door.txt" }),
        }],
        vec![Chunk::Text("Here is what the file says.".into())],
    ]));
    let w = world(engine, Mode::Full).await;
    let work = w.home.parent().unwrap().join("work");
    std::fs::write(work.join("door.txt"), "Porte d'entrée : 4417-zq\n").unwrap();
    memory::Store::new(&w.home)
        .add(
            "The gate code is 9931-zq.",
            memory::Source::Owner,
            &memory::Verdict::Kept(memory::Reason {
                rule: "memory.plain".into(),
                says: "the owner wrote it".into(),
            }),
            None,
        )
        .unwrap();
    start(&w);
    link_ada(&w).await;
    bridges::state::allow(&w.state, "telegram", access::parse_user("@Eve").unwrap()).unwrap();
    w.api.direct(
        EVE,
        "Eve",
        Some("eve"),
        "What does door.txt say? And the gate code?",
    );
    w.api
        .until("Ada is asked", |a| {
            a.said_in(ADA).iter().any(|m| m.buttons.is_some())
        })
        .await;
    let question: BotMessage = w
        .api
        .said_in(ADA)
        .into_iter()
        .find(|m| m.buttons.is_some())
        .unwrap();
    assert!(
        question
            .text
            .contains("Eve on telegram will see what it finds"),
        "{}",
        question.text
    );
    let chat = the_chat(&w, EVE);
    let events = chat.log.events_after(0).unwrap();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.body, Body::MemoriesUsed(_))),
        "the owner's memories were given in Eve's chat"
    );
    let everything = format!("{events:?}");
    assert!(
        !everything.contains("9931"),
        "the gate code is in Eve's chat"
    );
    assert!(!texts(&w.api, EVE).iter().any(|t| t.contains("4417")));
    assert!(
        !everything.contains("4417"),
        "the file was read before the yes"
    );

    // Ada's Once: exactly that read runs, and its answer goes to Eve.
    let once = question.buttons.as_ref().unwrap()[0][0]["callback_data"]
        .as_str()
        .unwrap()
        .to_owned();
    w.api.press(ADA, "Ada", &question, &once);
    w.api
        .until("the reply reaches Eve", |a| {
            texts(a, EVE)
                .iter()
                .any(|t| t.contains("Here is what the file says."))
        })
        .await;
    let finished: Vec<_> = chat
        .log
        .events_after(0)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.body {
            Body::ToolFinished(f) => Some(f),
            _ => None,
        })
        .collect();
    assert_eq!(finished.len(), 1);
    assert!(finished[0].output.contains("4417"), "{finished:?}");
}

/// A stranger can't spend the owner's link code: `/link` in a group with a
/// wrong code, and five (and more) wrong codes in a direct chat, leave it
/// usable; the owner then links with it (the control: it links once).
#[tokio::test]
async fn a_strangers_group_link_and_wrong_codes_leave_the_owners_code_usable() {
    let engine = Arc::new(ScriptedEngine::new([vec![Chunk::Text("Bonjour.".into())]]));
    let w = world(engine, Mode::Ask).await;
    start(&w);
    let code = link_code(&w.state);
    w.api.group(-7000, MALLORY, "Mallory", "/link", false);
    w.api
        .group(-7000, MALLORY, "Mallory", "/link ZZZZ2222", false);
    for _ in 0..(access::CODE_TRIES + 2) {
        w.api
            .direct(MALLORY, "Mallory", Some("mal"), "/link WRONG234");
    }
    let last = w
        .api
        .direct(MALLORY, "Mallory", Some("mal"), &format!("/link {code}")) as u64;
    while w.state.get("telegram").unwrap().cursor < Some(last) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Mallory ran out: even the right code doesn't make them the owner.
    assert!(w.state.get("telegram").unwrap().owner.is_none());
    assert!(texts(&w.api, -7000)
        .iter()
        .all(|t| t == access::LINK_NOT_IN_GROUP));
    // The owner's code still links the owner.
    w.api
        .direct(ADA, "Ada", Some("ada"), &format!("/link {code}"));
    w.api
        .until("the owner is linked", |a| {
            texts(a, ADA).iter().any(|t| t == access::LINKED)
        })
        .await;
    assert_eq!(
        w.state.get("telegram").unwrap().owner.unwrap().id,
        ADA.to_string()
    );
}

/// A question answered on the web page first: its message in Telegram
/// says so, and where, and its buttons go.
#[tokio::test]
async fn a_question_answered_on_the_page_says_so_in_telegram() {
    let engine = Arc::new(ScriptedEngine::new([vec![command("c1", "echo hi")]]));
    let w = world(engine, Mode::Ask).await;
    start(&w);
    link_ada(&w).await;
    bridges::state::allow(
        &w.state,
        "telegram",
        access::parse_user(&EVE.to_string()).unwrap(),
    )
    .unwrap();
    w.api.direct(EVE, "Eve", None, "run it please");
    w.api
        .until("the question is on the owner's phone", |a| {
            a.said_in(ADA).iter().any(|m| m.buttons.is_some())
        })
        .await;
    let q = w
        .api
        .said_in(ADA)
        .into_iter()
        .find(|m| m.buttons.is_some())
        .unwrap();
    let chat = the_chat(&w, EVE);
    let ask = chat.log.view().pending[0].ask.clone();
    chat.answer(&ask, protocol::Answer::Once, "owner".into())
        .await
        .unwrap();
    w.api
        .until("the message says where it was answered", |a| {
            a.said_in(ADA).iter().any(|m| {
                m.id == q.id
                    && m.buttons.is_none()
                    && m.text.ends_with("— Allowed once on the web page.")
            })
        })
        .await;
}

/// `/stop` from the owner's own Telegram stops everything before any model
/// sees it: the running turn ends, and the next message is refused. An
/// allowed person's `/stop` is refused and changes nothing; the owner's
/// forward of someone's `/stop` isn't the owner's.
#[tokio::test]
async fn the_owners_stop_in_telegram_stops_everything_and_nobody_elses_does() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![command("c1", "sleep 30")],
        vec![Chunk::Text("never".into())],
    ]));
    let w = world(engine, Mode::Full).await;
    start(&w);
    link_ada(&w).await;
    bridges::state::allow(
        &w.state,
        "telegram",
        access::parse_user(&EVE.to_string()).unwrap(),
    )
    .unwrap();
    w.api.direct(ADA, "Ada", Some("ada"), "work on it");
    w.api
        .until("a turn runs the command", |_| {
            w.state
                .get("telegram")
                .ok()
                .and_then(|s| s.chats.get(&ADA.to_string()).cloned())
                .and_then(|id| w.chats.get(&id).ok())
                .is_some_and(|c| c.is_running())
        })
        .await;
    let chat = the_chat(&w, ADA);
    // Eve's /stop: refused, and nothing stops.
    w.api.direct(EVE, "Eve", Some("eve"), "/stop");
    w.api
        .until("Eve is refused", |a| {
            texts(a, EVE)
                .iter()
                .any(|t| t == "Only Ada can stop Conch.")
        })
        .await;
    assert!(w.chats.stopped().is_none());
    assert!(chat.is_running());
    // Ada's own /stop stops.
    w.api.direct(ADA, "Ada", Some("ada"), "/stop");
    w.api
        .until("Ada is told", |a| {
            texts(a, ADA)
                .iter()
                .any(|t| t.starts_with("Stopped everything (1 running turn ended)."))
        })
        .await;
    assert_eq!(w.chats.stopped().unwrap().by, "owner:telegram");
    w.api.until("the turn ends", |_| !chat.is_running()).await;
    // No model saw "/stop": it isn't in the chat.
    let said: Vec<String> = chat
        .log
        .events_after(0)
        .unwrap()
        .iter()
        .filter_map(|e| match &e.body {
            Body::Message(m) => Some(m.text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(said, ["work on it"]);
    // Nothing starts: the owner's next message is refused with what to do.
    w.api.direct(ADA, "Ada", Some("ada"), "and now this");
    w.api
        .until("Ada is told Conch is stopped", |a| {
            texts(a, ADA)
                .iter()
                .any(|t| t.starts_with("Conch is stopped: nothing runs until you press Resume"))
        })
        .await;
    assert!(!chat.is_running());
}

/// A question still waiting when Conch stopped is asked again when it
/// starts, in Telegram too, without anyone opening the chat; the owner's
/// button there runs the call and the model goes on.
#[tokio::test]
async fn a_question_cut_off_by_a_restart_is_asked_again_in_telegram() {
    let engine = Arc::new(ScriptedEngine::new([vec![command(
        "c1",
        "echo encore > encore.txt",
    )]]));
    let w = world(engine, Mode::Ask).await;
    start(&w);
    link_ada(&w).await;
    w.api.direct(ADA, "Ada", Some("ada"), "run it");
    w.api
        .until("the question is on the owner's phone", |a| {
            a.said_in(ADA).iter().any(|m| m.buttons.is_some())
        })
        .await;
    let chat = the_chat(&w, ADA);

    // What a crash leaves: the chat's log and the chat app's state, opened
    // by a new process (a new Bot API connection).
    let home = w.home.parent().unwrap().join("home-after");
    let chat_dir = home.join("chats").join(&chat.id);
    std::fs::create_dir_all(&chat_dir).unwrap();
    std::fs::copy(chat.log.path(), chat_dir.join("log.jsonl")).unwrap();
    std::fs::copy(
        w.home.join(bridges::state::BRIDGES_FILE),
        home.join(bridges::state::BRIDGES_FILE),
    )
    .unwrap();
    // A new Bot API server numbers its updates afresh.
    StateFile::new(&home)
        .update("telegram", |s| s.cursor = None)
        .unwrap();
    chat.stop();
    let work = w.home.parent().unwrap().join("work");
    let chats = Chats::new(
        Home::open(&home).unwrap(),
        Arc::new(ScriptedEngine::new([vec![Chunk::Text("Ran it.".into())]])),
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.clone(),
            default_mode: Mode::Ask,
            policies: Default::default(),
            guard: GuardConfig {
                owner_name: "Ada".into(),
                ..GuardConfig::default()
            },
            skills: None,
            max_steps: None,
        },
    );
    let api = BotApi::start().await;
    let app: Arc<dyn ChatApp> = Telegram::new(TOKEN, Some(&api.base), 1).unwrap();
    let relay = Relay::new(app, chats.clone(), &home, "Ada", waits());
    tokio::spawn(relay.run());
    chats.ask_again_after_restart();
    api.until("the question is asked again on the phone", |a| {
        a.said_in(ADA).iter().any(|m| m.buttons.is_some())
    })
    .await;
    let question = api
        .said_in(ADA)
        .into_iter()
        .find(|m| m.buttons.is_some())
        .unwrap();
    assert!(
        question.text.contains("echo encore > encore.txt"),
        "{}",
        question.text
    );
    let once = question.buttons.as_ref().unwrap()[0][0]["callback_data"]
        .as_str()
        .unwrap()
        .to_owned();
    let pressed = api.press(ADA, "Ada", &question, &once);
    api.until("the press is answered", |a| {
        a.answers().iter().any(|(id, _)| *id == pressed)
    })
    .await;
    let told = api
        .answers()
        .into_iter()
        .find(|(id, _)| *id == pressed)
        .unwrap()
        .1;
    assert_eq!(told, "Allowed once.");
    api.until("the model goes on", |a| {
        texts(a, ADA).iter().any(|t| t == "Ran it.")
    })
    .await;
    assert_eq!(
        std::fs::read_to_string(work.join("encore.txt")).unwrap(),
        "encore\n"
    );
}
