//! One search over 1,000 chats of 1,000 events each (issue 36: < 100 ms).
//!
//! The events are messages, replies and command output in several scripts,
//! with numbers, paths and hashes, so the vocabulary grows as a real
//! home's does. `cargo bench -p search --bench search`

use criterion::{criterion_group, criterion_main, Criterion};
use search::{Index, Kind, Place};

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

fn event_text(rng: &mut Rng) -> String {
    let n = 5 + rng.below(55);
    let mut out = String::new();
    for i in 0..n {
        if i > 0 {
            out.push(if rng.below(12) == 0 { '\n' } else { ' ' });
        }
        match rng.below(20) {
            0 => out.push_str(&format!("{:x}", rng.next())),
            1 => out.push_str(&format!("{}", rng.below(100_000))),
            2 => out.push_str(&format!("/home/owner/project{}/src", rng.below(500))),
            _ => out.push_str(WORDS[rng.below(WORDS.len())]),
        }
    }
    out
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
