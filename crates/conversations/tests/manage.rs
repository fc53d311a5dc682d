//! What the owner says about a chat itself (its name, archive, its model)
//! is read from anywhere in the log, by this process and the next; the
//! model sees only the branch that stands after Edit and resend.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::sync::Arc;
use std::time::Duration;

use conversations::{Chats, ChatsConfig, Durability, Home, NewChat, NoTools};
use engines::{Chunk, Engine, Item, MockEngine, ScriptedEngine};
use protocol::{Body, Event};

fn chats_in(dir: &std::path::Path, engine: Arc<dyn Engine>) -> Arc<Chats> {
    let home = Home::open(&dir.join("home")).unwrap();
    Chats::new(
        home,
        engine,
        Arc::new(NoTools),
        ChatsConfig {
            durability: Durability::Group,
            default_work: dir.to_path_buf(),
            default_mode: protocol::Mode::Ask,
            policies: Default::default(),
            guard: Default::default(),
            skills: None,
            max_steps: None,
        },
    )
}

async fn turns_ended(chat: &conversations::Chat, n: usize) -> Vec<Event> {
    let mut follow = chat.log.follow();
    loop {
        let events = chat.log.events_after(0).unwrap();
        if events
            .iter()
            .filter(|e| matches!(e.body, Body::TurnEnded(_)))
            .count()
            >= n
        {
            return events;
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), follow.recv())
            .await
            .expect("the turn ends");
    }
}

/// A long chat renamed, archived and given a model late in its log: a list
/// from another process (which doesn't open it) still says so.
#[tokio::test]
async fn a_list_reads_names_archives_and_models_past_the_start_of_a_long_log() {
    let dir = tempfile::tempdir().unwrap();
    let chats = chats_in(dir.path(), Arc::new(MockEngine::new(Duration::ZERO)));
    let chat = chats.create(NewChat::default()).await.unwrap();
    // Past the first 64 KB a list reads of an unopened chat.
    let long = "ünïcödé 日本語 ".repeat(400);
    for i in 0..20 {
        chat.post(&format!("{i} {long}")).await.unwrap();
        turns_ended(&chat, i + 1).await;
    }
    chat.rename("Trip planning — été").await.unwrap();
    chat.archive(true).await.unwrap();
    chat.pick_model(Some("local".into())).await.unwrap();
    let size = std::fs::metadata(
        dir.path()
            .join("home/chats")
            .join(&chat.id)
            .join("log.jsonl"),
    )
    .unwrap()
    .len();
    assert!(
        size > 128 * 1024,
        "{size} bytes, well past the 64 KB read first"
    );
    drop(chat);
    drop(chats);

    let again = chats_in(dir.path(), Arc::new(MockEngine::new(Duration::ZERO)));
    let list = again.list();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].title.as_deref(), Some("Trip planning — été"));
    assert!(list[0].archived);
    assert_eq!(list[0].provider.as_deref(), Some("local"));
    assert!(list[0].messages > 0);
    // Listed twice, the log is read once (the cache), and says the same.
    let twice = again.list();
    assert_eq!(twice[0].title, list[0].title);
    assert_eq!(
        again.empty_chat(None, None),
        None,
        "not empty, and archived"
    );
}

/// Edit and resend: the model is sent the chat as if it had been written
/// that way; the earlier message and its answer stay in the log.
#[tokio::test]
async fn the_model_sees_only_the_branch_that_stands() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::Text("First answer.".into())],
        vec![Chunk::Text("Second answer.".into())],
        vec![Chunk::Text("Third answer.".into())],
    ]));
    let chats = chats_in(dir.path(), engine.clone());
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("one").await.unwrap();
    turns_ended(&chat, 1).await;
    let two = chat.post("two, first try").await.unwrap();
    turns_ended(&chat, 2).await;
    let wrong = chat.edit_and_resend(1, "not the last").await;
    assert!(wrong.is_err(), "only the last message");
    chat.edit_and_resend(two.event.seq, "two, edited")
        .await
        .unwrap();
    let events = turns_ended(&chat, 3).await;
    let seen = engine.requests();
    let last = seen.last().unwrap();
    let words: Vec<&Item> = last.items.iter().collect();
    assert_eq!(
        words,
        [
            &Item::Owner("one".into()),
            &Item::Assistant("First answer.".into()),
            &Item::Owner("two, edited".into()),
        ]
    );
    let messages: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.body {
            Body::Message(m) => Some(m.text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(messages, ["one", "two, first try", "two, edited"]);
    // Nothing failed: nothing to retry.
    assert!(chat.retry().await.is_err());
}

/// Two New chats at once: the second was given the chat the first was
/// still making, and opening it found its log held (a 409 in the browser).
/// A chat being made is neither reused nor found held by anyone who
/// learns its id from the list meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_being_made_is_neither_reused_nor_found_held() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let chats = chats_in(dir.path(), Arc::new(MockEngine::new(Duration::ZERO)));
    for round in 0..40 {
        let maker = {
            let chats = chats.clone();
            tokio::spawn(async move { chats.create(NewChat::default()).await })
        };
        while !maker.is_finished() {
            let c = chats.clone();
            let seen = tokio::task::spawn_blocking(move || {
                let ids: Vec<String> = c
                    .list()
                    .into_iter()
                    .map(|s| s.id)
                    .chain(c.empty_chat(None, None))
                    .collect();
                ids.into_iter()
                    .map(|id| c.get(&id).map(|_| ()))
                    .collect::<Vec<_>>()
            })
            .await
            .unwrap();
            for got in seen {
                assert!(got.is_ok(), "round {round}: {got:?}");
            }
        }
        maker.await.unwrap().unwrap();
    }
}
