//! One search over 1,000 chats of 1,000 events each (issue 36: < 100 ms).
//!
//! The events are messages, replies and command output in several scripts,
//! with numbers, paths and hashes, so the vocabulary grows as a real
//! home's does. `cargo bench -p search --bench search`

use criterion::{criterion_group, criterion_main, Criterion};
use search::sample::{text, Rng};
use search::{Index, Kind, Place};

fn event_text(rng: &mut Rng) -> String {
    let n = 5 + rng.below(55);
    text(rng, n)
}

fn corpus() -> Index {
    let mut rng = Rng(36);
    let mut index = Index::new();
    for chat in 0..1000u32 {
        let id = format!("c{chat:05}");
        for seq in 1..=1000u64 {
            let kind = match seq % 3 {
                0 => Kind::Message,
                1 => Kind::Reply,
                _ => Kind::Output,
            };
            let at = i64::from(chat) * 1000 + seq as i64;
            index.add(&id, seq, at, kind, &event_text(&mut rng), Place::default());
        }
    }
    index
}

fn bench(c: &mut Criterion) {
    let started = std::time::Instant::now();
    let mut index = corpus();
    index.settle();
    eprintln!(
        "index: {} events, about {} MB, built in {:.1} s",
        index.len(),
        index.size() / 1_000_000,
        started.elapsed().as_secs_f64()
    );
    let mut group = c.benchmark_group("search_1000_chats_1m_events");
    group.sample_size(20);
    for (name, query) in [
        ("rare_word", "project123"),
        ("common_word", "the"),
        ("two_words", "weekly sales"),
        ("prefix", "depl"),
        ("one_letter", "t"),
        ("accented", "reunion demain"),
        ("japanese", "会議"),
        ("three_common", "the file run"),
    ] {
        group.bench_function(name, |b| b.iter(|| index.find(query, 30)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
