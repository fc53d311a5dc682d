//! The live stream's fan-out never holds up the append path: a follower
//! that stops reading falls behind on its own, and everyone else goes on.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use std::time::Duration;

use common::{start, SseReader};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follower_that_stops_reading_doesnt_hold_up_appends() {
    let s = start().await;
    let chat = s.new_chat().await;
    // A follower that asks for the stream and never reads a byte of it.
    let mut stuck = TcpStream::connect(s.addr).await.unwrap();
    stuck
        .write_all(
            format!(
                "GET /api/chats/{chat}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {}\r\n\r\n",
                s.cookie
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    // A follower that reads.
    let mut live = SseReader::new(s.get(format!("/api/chats/{chat}/stream")).await);
    // Far more than the stuck socket's buffers hold (400 messages of 20 KB,
    // each stored and streamed, and echoed back word by word).
    let long = "Wörter über Wörter, 言葉 and more words to echo back. ".repeat(350);
    let mut last = 0;
    for n in 0..400 {
        let res = tokio::time::timeout(
            Duration::from_secs(10),
            s.post(
                format!("/api/chats/{chat}/messages"),
                &json!({ "text": format!("{n}: {long}") }),
            ),
        )
        .await
        .expect("an append isn't held up by a follower that doesn't read");
        assert_eq!(res.status(), StatusCode::ACCEPTED);
        last = res.json::<Value>().await.unwrap()["seq"].as_u64().unwrap();
    }
    // Every turn gets answered, and the reading follower sees all of it.
    let mut seen = 0;
    loop {
        let event = tokio::time::timeout(Duration::from_secs(20), live.next())
            .await
            .expect("the reading follower keeps getting events")
            .unwrap();
        if event.event.as_deref() == Some("delta") {
            continue;
        }
        let stored: Value = serde_json::from_str(&event.data).unwrap();
        let seq = stored["seq"].as_u64().unwrap();
        assert_eq!(seq, seen + 1, "nothing skipped, nothing repeated");
        seen = seq;
        if seq > last && stored["type"] == "turn.ended" {
            let view: Value = s.get_json(format!("/api/chats/{chat}")).await;
            if view["lastSeq"].as_u64() == Some(seq) && view["running"] == false {
                break;
            }
        }
    }
    drop(stuck);
}
