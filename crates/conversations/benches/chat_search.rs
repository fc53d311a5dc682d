//! Search inside chats over a home of 1,000 chats and 1,000,000 events
//! (issue 36: one search in under 100 ms): the first search (which reads
//! every log), then each search after (medians of 21), with the lines read
//! back from the logs and cut, as `GET /api/search` gives them; and the
//! memory the index costs.
//!
//! The events are messages, replies, commands and their output in
//! English, French, German, Russian, Arabic and Japanese, with numbers,
//! paths and hashes, so the words grow as a real home's do.
//!
//! cargo bench -p conversations --bench chat_search
#![allow(clippy::unwrap_used, clippy::expect_used)] // Benches may panic: that is the bench failing.

use std::io::Write;
use std::time::Instant;

use conversations::chat_search::ChatSearch;
use protocol::{Body, Event, Message, Reply, Speaker, ToolCalled, ToolFinished};
use search::sample::{text, Rng};
use serde_json::json;

const CHATS: usize = 1_000;
const EVENTS_PER_CHAT: u64 = 1_000;

fn at(ms: u64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_795_000_000_000 + ms);
    protocol::format_rfc3339(t)
}

fn write_chat(dir: &std::path::Path, chat: usize, rng: &mut Rng) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(dir.join("log.jsonl")).unwrap());
    for seq in 1..=EVENTS_PER_CHAT {
        let n = 5 + rng.below(40);
        let body = match seq % 4 {
            0 => Body::Message(Message {
                from: Speaker::Owner,
                text: text(rng, n),
                name: None,
                app: None,
                replaces: None,
            }),
            1 => Body::ToolCalled(ToolCalled {
                turn: 1,
                call: format!("c{seq}"),
                tool: "run_command".into(),
                input: json!({ "command": text(rng, 4) }),
            }),
            2 => Body::ToolFinished(ToolFinished {
                turn: 1,
                call: format!("c{}", seq - 1),
                ok: true,
                output: text(rng, n * 3),
                detail: None,
            }),
            _ => Body::Reply(Reply {
                turn: 1,
                text: text(rng, n),
            }),
        };
        let e = Event {
            seq,
            id: format!("e{chat}x{seq}"),
            at: at(seq * 1000 + chat as u64),
            body,
        };
        writeln!(out, "{}", e.to_line()).unwrap();
    }
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    let mut rng = Rng(36);
    let t = Instant::now();
    for c in 0..CHATS {
        let d = chats.join(conversations::ids::random_id(16));
        std::fs::create_dir_all(&d).unwrap();
        write_chat(&d, c, &mut rng);
    }
    let bytes: u64 = std::fs::read_dir(&chats)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::metadata(e.path().join("log.jsonl")).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "made {CHATS} chats, {} events, {:.0} MB of logs, in {:.1} s",
        CHATS as u64 * EVENTS_PER_CHAT,
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    let before = rss_kb();
    let search = ChatSearch::new(&chats);
    let t = Instant::now();
    let first = search.find("weekly sales", 30);
    println!(
        "first search (reads every log): {:.2} s, {} matches",
        t.elapsed().as_secs_f64(),
        first.total
    );
    let (events, held) = search.size();
    println!(
        "index: {events} events with words, about {:.0} MB held ({:.0} MB more resident)",
        held as f64 / 1e6,
        rss_kb().saturating_sub(before) as f64 / 1024.0
    );
    for query in [
        "project123",
        "the",
        "weekly sales",
        "depl",
        "t",
        "reunion demain",
        "会議",
        "ＳＴＲＡＳＳＥ",
        "the file run",
    ] {
        let mut times = Vec::new();
        let mut found = 0;
        for _ in 0..21 {
            let t = Instant::now();
            let r = search.find(query, 30);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            found = r.total;
            assert!(
                r.total == 0 || !r.results.is_empty(),
                "{query}: no line read back"
            );
        }
        println!(
            "{query:>16}: median {:>7.2} ms (30 newest of {found} matches, lines read back)",
            median(times)
        );
    }
}
