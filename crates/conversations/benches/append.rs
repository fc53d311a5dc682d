//! Appending: events per second with an fsync per event and with group
//! commit, on one chat (16 writers at once) and on 100 chats at once (one
//! writer each). Every append waits for its acknowledgement, as the turn
//! loop does.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::time::{Duration, Instant};

use conversations::{ChatLog, Durability};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use protocol::{Body, Message, Speaker};

fn body(n: u64) -> Body {
    Body::Message(Message {
        from: Speaker::Owner,
        text: format!("Event number {n}, about as long as a short chat message."),
        name: None,
        app: None,
        replaces: None,
    })
}

/// `chats` logs, `writers` threads per log, `per_writer` appends each.
fn run(durability: Durability, chats: usize, writers: usize, per_writer: u64) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let logs: Vec<ChatLog> = (0..chats)
        .map(|i| {
            let d = dir.path().join(format!("c{i}"));
            std::fs::create_dir(&d).unwrap();
            ChatLog::open(&d, durability).unwrap().0
        })
        .collect();
    let start = Instant::now();
    std::thread::scope(|s| {
        for log in &logs {
            for w in 0..writers {
                s.spawn(move || {
                    for n in 0..per_writer {
                        log.append_blocking(body(n * 100 + w as u64)).unwrap();
                    }
                });
            }
        }
    });
    start.elapsed()
}

fn append(c: &mut Criterion) {
    let mut group = c.benchmark_group("append");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(5));
    let shapes = [
        ("1_chat_16_writers", 1usize, 16usize, 20u64),
        ("100_chats_1_writer", 100, 1, 5),
    ];
    for (name, chats, writers, per) in shapes {
        let events = (chats * writers) as u64 * per;
        group.throughput(Throughput::Elements(events));
        for (mode, durability) in [
            ("fsync_each", Durability::EachEvent),
            ("group_commit", Durability::Group),
        ] {
            group.bench_function(BenchmarkId::new(name, mode), |b| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| run(durability, chats, writers, per))
                        .sum()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, append);
criterion_main!(benches);
