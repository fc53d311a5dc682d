//! Activity over a home with 1,000 chats and 1,000,000 events in all:
//! the index's start-up (reading every log), the first page, each page
//! after (medians), and the memory the index costs.
//!
//! cargo bench -p conversations --bench activity
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::io::Write;
use std::time::Instant;

use conversations::activity::Activity;
use protocol::{Body, Event, Message, Reply, Speaker, Taint, ToolCalled, ToolFinished};
use serde_json::json;

const CHATS: usize = 1_000;
const EVENTS_PER_CHAT: u64 = 1_000;

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn at(ms: u64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_795_000_000_000 + ms);
    protocol::format_rfc3339(t)
}

/// One chat: turns of a message, a tool call and its result, a reply; now
/// and then a mark.
fn write_chat(dir: &std::path::Path, chat: usize) {
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(dir.join("log.jsonl")).unwrap_or_else(|e| panic!("{e}")),
    );
    let mut seq = 0u64;
    let written = std::cell::Cell::new(0u64);
    let mut push = |body: Body| {
        seq += 1;
        written.set(seq);
        let e = Event {
            seq,
            id: format!("e{chat}x{seq}"),
            // Chats interleave in time.
            at: at(seq * 1000 + chat as u64),
            body,
        };
        let _ = writeln!(out, "{}", e.to_line());
    };
    let mut n = 0u64;
    while written.get() < EVENTS_PER_CHAT {
        push(Body::Message(Message {
            from: Speaker::Owner,
            text: format!("Please do step {n} of the plan."),
            name: None,
            app: None,
            replaces: None,
        }));
        let call = format!("c{n}");
        let (tool, input) = match n % 4 {
            0 => (
                "run_command",
                json!({ "command": format!("cargo test step_{n}") }),
            ),
            1 => (
                "write_file",
                json!({ "path": format!("/w/notes/{n}.md"), "content": "x" }),
            ),
            2 => (
                "web_fetch",
                json!({ "url": format!("https://docs.example/{n}") }),
            ),
            _ => ("read_file", json!({ "path": "/w/a.txt" })),
        };
        push(Body::ToolCalled(ToolCalled {
            turn: 1,
            call: call.clone(),
            tool: tool.into(),
            input,
        }));
        push(Body::ToolFinished(ToolFinished {
            turn: 1,
            call,
            ok: true,
            output: "ok".into(),
            detail: Some(json!({ "exit_code": 0 }).into()),
        }));
        if n % 10 == 2 {
            push(Body::Taint(Taint {
                source: protocol::MarkSource::Page,
                what: "docs.example".into(),
                call: None,
                says: None,
                from: None,
                path: None,
            }));
        }
        push(Body::Reply(Reply {
            turn: 1,
            text: format!("Step {n} is done."),
        }));
        n += 1;
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let chats = dir.path().join("chats");
    let t = Instant::now();
    for c in 0..CHATS {
        let id = conversations::ids::random_id(16);
        let d = chats.join(&id);
        std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
        write_chat(&d, c);
    }
    let bytes: u64 = std::fs::read_dir(&chats)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::metadata(e.path().join("log.jsonl")).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "made {CHATS} chats, {} events, {:.0} MB, in {:.1} s",
        CHATS as u64 * EVENTS_PER_CHAT,
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );

    let before = rss_kb();
    let activity = Activity::new(&chats);
    let t = Instant::now();
    activity.build();
    let build = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let first = activity.page(None, &[], false, 50);
    let first_page = t.elapsed().as_secs_f64() * 1000.0;
    let after = rss_kb();
    let (rows, n_chats) = activity.size();
    println!("start-up index (every log read): {build:.2} s; first page then {first_page:.2} ms");
    println!(
        "index: {rows} rows over {n_chats} chats, about {:.0} MB of memory ({:.0} bytes a row)",
        after.saturating_sub(before) as f64 / 1024.0,
        after.saturating_sub(before) as f64 * 1024.0 / rows.max(1) as f64
    );
    // Paging back: 200 pages of 50.
    let mut times = Vec::new();
    let mut next = first.next;
    for _ in 0..200 {
        let t = Instant::now();
        let page = activity.page(next.as_deref(), &[], false, 50);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        next = page.next;
    }
    println!(
        "a page after that (50 rows): median {:.3} ms over 200 pages",
        median(times)
    );
    let mut times = Vec::new();
    let mut next: Option<String> = None;
    for _ in 0..100 {
        let t = Instant::now();
        let page = activity.page(next.as_deref(), &[protocol::ActivityKind::Read], false, 50);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        next = page.next;
    }
    println!("a page of one kind (read): median {:.3} ms", median(times));
}
