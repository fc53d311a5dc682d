//! Search inside chats over HTTP (`GET /api/search`): words in messages,
//! replies and commands found in any case, accent or width, with the line
//! that holds them; what is said after the first search found too; a chat
//! in the trash not searched until it comes back; the same answers from
//! the logs alone (a restart).
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use std::sync::Arc;

use common::{start_engine, Server};
use engines::{Chunk, ScriptedEngine};
use serde_json::{json, Value};
use tools::{Tools, ToolsConfig};

/// Says `text` and waits for the turn it starts to end.
async fn say(s: &Server, id: &str, text: &str) {
    s.post(
        format!("/api/chats/{id}/messages"),
        &json!({ "text": text }),
    )
    .await;
    for _ in 0..500 {
        let events: Vec<Value> = s.get_json(format!("/api/chats/{id}/events")).await;
        let said = events
            .iter()
            .filter(|e| e["type"] == "message")
            .map(|e| e["seq"].as_u64().unwrap())
            .max()
            .unwrap_or(0);
        if events
            .iter()
            .any(|e| e["type"] == "turn.ended" && e["seq"].as_u64().unwrap() > said)
        {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the turn didn't end");
}

async fn search(s: &Server, q: &str) -> Value {
    let q: String = q.bytes().map(|b| format!("%{b:02X}")).collect();
    s.get_json(format!("/api/search?q={q}")).await
}

fn chats_of(found: &Value) -> Vec<String> {
    found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["chat"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn words_inside_chats_are_found_in_any_spelling_with_their_line() {
    let engine = Arc::new(ScriptedEngine::new([
        vec![Chunk::Text(
            "Die Rechnung für März ist geprüft.\nSonst nichts.".into(),
        )],
        vec![Chunk::Text("Fine.".into())],
        vec![Chunk::Text("東京都の会議は明日です。".into())],
        vec![Chunk::Text("Noted.".into())],
    ]));
    let s = start_engine(engine, Arc::new(Tools::new(ToolsConfig::default()))).await;
    let invoices = s.new_chat().await;
    let other = s.new_chat().await;
    // Said before anything searched: the first search reads it from the log.
    say(&s, &invoices, "Bitte die Rechnung prüfen").await;
    say(&s, &other, "Nothing about money here").await;

    let found = search(&s, "rechnung").await;
    assert_eq!(found["total"], 2, "{found}");
    assert_eq!(chats_of(&found), [invoices.clone(), invoices.clone()]);
    let newest = &found["results"][0];
    assert_eq!(newest["kind"], "reply", "newest first: {found}");
    assert_eq!(
        newest["line"], "Die Rechnung für März ist geprüft.",
        "the line that holds it"
    );
    let marked: Vec<&str> = newest["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["match"] == true)
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert_eq!(marked, ["Rechnung"]);
    assert!(newest["seq"].as_u64().unwrap() > 0 && newest["at"].is_string());
    assert_eq!(found["results"][1]["kind"], "message");

    for spelling in [
        "RECHNUNG",
        "ＲＥＣＨＮＵＮＧ",
        "rech",
        "marz rechnung",
        "Prufen",
    ] {
        let again = search(&s, spelling).await;
        assert!(chats_of(&again).contains(&invoices), "{spelling}: {again}");
    }
    assert_eq!(
        search(&s, "rechnung money").await["total"],
        0,
        "every word must be there"
    );

    // Said after the first search: found at once.
    say(&s, &other, "Wann ist das 会議?").await;
    let meeting = search(&s, "会議").await;
    assert_eq!(meeting["total"], 2, "{meeting}");
    assert_eq!(
        search(&s, "京東").await["total"],
        0,
        "Japanese words as written"
    );

    // The trash: not searched, until restored.
    let res = s
        .owner
        .delete(format!("{}/api/chats/{invoices}", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(search(&s, "rechnung").await["total"], 0);
    s.post(format!("/api/trash/{invoices}/restore"), &json!({}))
        .await;
    assert_eq!(search(&s, "rechnung").await["total"], 2);

    // An empty search finds nothing and fails nothing.
    let empty = search(&s, "  ").await;
    assert_eq!(empty["total"], 0);
    assert_eq!(empty["results"], json!([]));

    // From the logs alone, as after a restart.
    let fresh = conversations::chat_search::ChatSearch::new(&s.root().join("chats"));
    let again = fresh.find("rechnung", 10);
    assert_eq!(again.total, 2);
    assert_eq!(again.results[0].line, "Die Rechnung für März ist geprüft.");
}

/// A chat deleted before the first search and restored after it was never
/// read by the build: restoring reads it.
#[tokio::test]
async fn a_chat_restored_after_the_first_search_is_searched() {
    let engine = Arc::new(ScriptedEngine::new([vec![Chunk::Text("ok".into())]]));
    let s = start_engine(engine, Arc::new(Tools::new(ToolsConfig::default()))).await;
    let id = s.new_chat().await;
    say(&s, &id, "the quarterly invoice").await;
    s.owner
        .delete(format!("{}/api/chats/{id}", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(search(&s, "quarterly").await["total"], 0);
    s.post(format!("/api/trash/{id}/restore"), &json!({})).await;
    assert_eq!(search(&s, "quarterly").await["total"], 1);
}
