//! A provider key Conch holds, printed by a sealed command in the clear,
//! in base64, in hex and folded across lines, and then said by the model
//! in its reply, never reaches the log (what the page and Activity read),
//! the model, the stream of a reply's words, or Telegram. Each place has
//! `[secret: openai key]` instead.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "support/bot_api.rs"]
mod bot_api;

use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use bot_api::{BotApi, TOKEN};
use bridges::telegram::Telegram;
use bridges::{access, ChatApp, Relay, StateFile, Waits};
use conversations::secrets::ProviderSecret;
use conversations::{Chats, ChatsConfig, Durability, GuardConfig, Home, Live, Secrets, Settings};
use engines::{Chunk, ScriptedEngine};
use protocol::{Body, Mode};
use serde_json::json;
use tools::{Tools, ToolsConfig};

const ADA: i64 = 100;
const MARK: &str = "[secret: openai key]";

fn planted() -> String {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).unwrap();
    format!(
        "sk-proj-{}",
        STANDARD.encode(bytes).replace(['+', '/', '='], "x")
    )
}

/// Where the key could still be read in `text`: as it is, its line breaks
/// (real or escaped) left out, in base64 (any alignment), or in hex.
fn leaked(text: &str, key: &str) -> Option<&'static str> {
    let flat = text.replace("\\n", "").replace(['\n', '\r'], "");
    let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
    let b64 = (0..3).map(|lead| {
        let mut bytes = vec![b'a'; lead];
        bytes.extend_from_slice(key.as_bytes());
        let e = STANDARD.encode(bytes);
        e[4..e.len() - 4].to_owned()
    });
    if flat.contains(key) {
        Some("in the clear")
    } else if flat.contains(&hex) {
        Some("in hex")
    } else if b64.into_iter().any(|b| flat.contains(&b)) {
        Some("in base64")
    } else {
        None
    }
}

#[tokio::test]
async fn a_planted_key_printed_every_way_never_reaches_the_log_the_model_the_page_or_telegram() {
    let key = planted();
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = (dir.path().join("home"), dir.path().join("work"));
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("creds.txt"), &key).unwrap();
    let home = Home::open(&home).unwrap();
    let settings = Settings {
        keystore_mode: Some(vault::KeystoreMode::File),
        ..Settings::default()
    };
    settings.save(home.root()).unwrap();
    let mut secrets = Secrets::default();
    secrets
        .providers
        .insert("openai".into(), ProviderSecret { key: key.clone() });
    secrets.save(&settings.vault(home.root())).unwrap();

    let b64 = STANDARD.encode(format!("token={key}"));
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::ToolCall {
            id: "c1".into(),
            name: "run_command".into(),
            input: json!({ "command":
                "cat creds.txt; echo; base64 -w 0 creds.txt; echo; base64 -w 20 creds.txt; \
                 fold -w 7 creds.txt; echo; od -An -v -tx1 creds.txt | tr -d ' \\n'; echo" }),
        }],
        vec![Chunk::Text(format!("Found it: {key} (or {b64})."))],
    ]));
    let home_path = home.root().to_path_buf();
    let chats = Chats::new(
        home,
        engine.clone(),
        Arc::new(Tools::new(ToolsConfig::default())),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work,
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
    let state = StateFile::new(&home_path);
    let app: Arc<dyn ChatApp> = Telegram::new(TOKEN, Some(&api.base), 1).unwrap();
    let relay = Relay::new(
        app,
        chats.clone(),
        &home_path,
        "Ada",
        Waits {
            unreachable: Duration::from_millis(50),
            conflict: Duration::from_millis(100),
            most: Duration::from_secs(2),
        },
    );
    tokio::spawn(relay.clone().run());
    let (code, kept) = access::new_code([7, 1, 30, 12, 99, 250, 3, 18], now());
    state.update("telegram", |s| s.link = Some(kept)).unwrap();
    api.direct(ADA, "Ada", Some("ada"), &format!("/link {code}"));
    api.until("the owner is linked", |a| {
        a.said_in(ADA).iter().any(|m| m.text == access::LINKED)
    })
    .await;

    api.direct(ADA, "Ada", Some("ada"), "What's in creds.txt?");
    api.until("the command is asked", |a| {
        a.said_in(ADA).iter().any(|m| m.buttons.is_some())
    })
    .await;
    let question = api
        .said_in(ADA)
        .into_iter()
        .find(|m| m.buttons.is_some())
        .unwrap();
    let once = question.buttons.as_ref().unwrap()[0][0]["callback_data"]
        .as_str()
        .unwrap()
        .to_owned();
    api.press(ADA, "Ada", &question, &once);
    api.until("the reply is in telegram", |a| {
        a.said_in(ADA)
            .iter()
            .any(|m| m.text.starts_with("Found it"))
    })
    .await;
    let chat_id = state.get("telegram").unwrap().chats[&ADA.to_string()].clone();
    let chat = chats.get(&chat_id).unwrap();
    // The page reads the stored lines and the streamed words.
    let mut follow = chat.log.follow();
    let stored = std::fs::read_to_string(chat.log.path()).unwrap();

    let output = chat
        .log
        .events_after(0)
        .unwrap()
        .into_iter()
        .find_map(|e| match e.body {
            Body::ToolFinished(f) => Some(f.output),
            _ => None,
        })
        .unwrap();
    // The command did print it, five ways: each is a mark now.
    assert!(output.matches(MARK).count() >= 5, "{output}");
    assert_eq!(leaked(&output, &key), None, "{output}");
    assert_eq!(leaked(&stored, &key), None, "the log: {stored}");
    let page = chat.log.json_after(0, usize::MAX).unwrap();
    assert_eq!(leaked(&page, &key), None);
    for (i, request) in engine.requests().iter().enumerate() {
        let seen = format!("{:?}", request.items);
        assert_eq!(leaked(&seen, &key), None, "the model's request {i}: {seen}");
    }
    assert!(format!("{:?}", engine.requests()[1].items).contains(MARK));
    for body in api.bodies() {
        assert_eq!(leaked(&body, &key), None, "telegram: {body}");
    }
    assert!(api
        .said_in(ADA)
        .iter()
        .any(|m| m.text.contains(&format!("Found it: {MARK}"))));

    // A reply streamed word by word is masked as it goes.
    chat.log.send_delta(9, &format!("so {key} it is"));
    match follow.recv().await.unwrap() {
        Live::Delta { text, .. } => {
            assert_eq!(&*text, format!("so {MARK} it is"));
        }
        Live::Event(_) => panic!("expected the streamed words"),
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}
