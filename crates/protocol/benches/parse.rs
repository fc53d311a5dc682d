//! Reading and parsing a 100,000-event log (the foundation's target: under 50 ms).
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use protocol::{Body, ChatView, Event, Message, Reply, Speaker};

fn log_lines(n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for seq in 1..=n {
        let body = if seq % 2 == 0 {
            Body::Message(Message {
                from: Speaker::Owner,
                text: format!(
                    "Please look at item {seq} and tell me what changed since yesterday."
                ),
                name: None,
                app: None,
                replaces: None,
            })
        } else {
            Body::Reply(Reply {
                turn: seq,
                text: format!("Item {seq} has two new lines and one removed; nothing else moved."),
            })
        };
        let e = Event {
            seq,
            id: format!("{seq:016x}"),
            at: "2026-11-29T15:30:23.123Z".into(),
            body,
        };
        out.extend_from_slice(e.to_line().as_bytes());
        out.push(b'\n');
    }
    out
}

fn parse(c: &mut Criterion) {
    let bytes = log_lines(100_000);
    let mut group = c.benchmark_group("log");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("parse_100k_events", |b| {
        b.iter(|| {
            let events: Vec<Event> = bytes
                .split(|&c| c == b'\n')
                .filter(|l| !l.is_empty())
                .filter_map(|l| Event::from_line(l).ok())
                .collect();
            assert_eq!(events.len(), 100_000);
            events
        })
    });
    group.bench_function("parse_and_fold_100k_events", |b| {
        b.iter(|| {
            let mut view = ChatView::default();
            for line in bytes.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
                if let Ok(e) = Event::from_line(line) {
                    view.apply(&e);
                }
            }
            view
        })
    });
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
