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
use serde_json::json;

const CHATS: usize = 1_000;
const EVENTS_PER_CHAT: u64 = 1_000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "the",
    "a",
    "to",
    "of",
    "and",
    "in",
    "is",
    "for",
    "that",
    "with",
    "file",
    "files",
    "run",
    "command",
    "build",
    "test",
    "tests",
    "deploy",
    "deployment",
    "server",
    "error",
    "warning",
    "invoice",
    "meeting",
    "schedule",
    "tomorrow",
    "please",
    "check",
    "chart",
    "sales",
    "weekly",
    "Réunion",
    "demain",
    "facture",
    "café",
    "Straße",
    "Rechnung",
    "morgen",
    "счёт",
    "встреча",
    "завтра",
    "الفاتورة",
    "اجتماع",
    "東京",
    "会議",
    "明日",
    "請求書",
    "ファイル",
    "テスト",
    "git",
    "log",
    "status",
    "cargo",
    "npm",
    "install",
    "src/main.rs",
    "README.md",
    "docs",
];

fn text(rng: &mut Rng, words: usize) -> String {
    let mut out = String::new();
    for i in 0..words {
        if i > 0 {
            out.push(if rng.below(12) == 0 { '\n' } else { ' ' });
        }
        match rng.below(40) {
            0 => out.push_str(&format!("{:x}", rng.next())),
            1 | 2 => out.push_str(&format!("{}", rng.below(100_000))),
            3 => out.push_str(&format!("/home/owner/project{}/src", rng.below(500))),
            _ => out.push_str(WORDS[rng.below(WORDS.len())]),
        }
    }
    out
}

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
