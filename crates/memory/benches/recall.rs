//! `recall(query)` over 10,000 kept memories: the median of each query,
//! and building the index once (what a changed memories file costs).
//!
//! cargo bench -p memory --bench recall
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::time::Instant;

use memory::{check, Added, Source, Store};

/// 10,000 realistic memories: facts about people, places, work, health,
/// tastes and dates, in several languages, each distinct.
fn memories() -> Vec<String> {
    let people = [
        "Ada",
        "Ada's sister Eve",
        "Tom",
        "Ada's mum",
        "Priya",
        "Mr Patel",
        "Ada's son Leo",
        "Sam",
    ];
    let facts = [
        "likes green tea in the morning",
        "never drinks coffee after 3pm",
        "lives in Lyon near the Croix-Rousse",
        "works night shifts at the hospital",
        "is allergic to peanuts and shellfish",
        "plays five-a-side football on Wednesdays",
        "reads the Guardian every morning",
        "is learning Japanese (日本語を勉強している)",
        "prefers short answers without bullet points",
        "has a dentist appointment on 12 March",
        "supports Arsenal",
        "drives a blue Golf",
        "trinkt nie Kaffee nach 15 Uhr",
        "aime les randonnées en montagne",
        "всегда звонит по воскресеньям",
        "喜欢简短的回答",
    ];
    let extras = [
        "",
        " since 2019",
        " (told me in June)",
        " — usually",
        " at weekends",
        " when travelling",
    ];
    let mut out = Vec::with_capacity(10_000);
    let mut n = 0u32;
    'all: for p in people {
        for f in facts {
            for e in extras {
                for k in 0..14 {
                    out.push(format!("{p} {f}{e}; note {k}-{n}"));
                    n += 1;
                    if out.len() == 10_000 {
                        break 'all;
                    }
                }
            }
        }
    }
    out
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("a temporary folder: {e}"));
    let store = Store::new(dir.path());
    let texts = memories();
    let start = Instant::now();
    store
        .change(|list| {
            for t in &texts {
                let source = Source::Owner;
                let verdict = check(t, &source, true);
                list.push(memory::Memory {
                    id: format!("m{}", list.len()),
                    text: t.clone(),
                    state: if verdict.is_held() {
                        memory::State::Held
                    } else {
                        memory::State::Kept
                    },
                    source,
                    reasons: Vec::new(),
                    call: None,
                    created: String::new(),
                    updated: String::new(),
                    other: Default::default(),
                });
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "wrote 10,000 memories in {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    // A fresh store reads the file and builds the index on first recall.
    let fresh = Store::new(dir.path());
    let start = Instant::now();
    let first = fresh.recall("dentist", 10).unwrap_or_default();
    println!(
        "first recall (reads the file, builds the index): {:.1} ms, {} found",
        start.elapsed().as_secs_f64() * 1e3,
        first.len()
    );
    let mut all = Vec::new();
    for query in [
        "dentist appointment",
        "what does Ada drink in the morning",
        "Lyon",
        "日本語",
        "Kaffee",
        "football Wednesdays Sam",
        "volcano",
    ] {
        let mut times = Vec::new();
        let mut found = 0;
        for _ in 0..200 {
            let t = Instant::now();
            found = fresh.recall(query, 10).map(|r| r.len()).unwrap_or(0);
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        all.extend(times.iter().copied());
        println!(
            "recall {query:?} over 10,000: median {:.0} µs ({found} returned)",
            median(times)
        );
    }
    println!(
        "recall over 10,000, every query above together: median {:.0} µs",
        median(all)
    );
    // Adding one memory to a store of 10,000 (lock, read, write, index).
    let mut times = Vec::new();
    for i in 0..20 {
        let text = format!("Ada's new fact number {i}");
        let t = Instant::now();
        let v = check(&text, &Source::Owner, true);
        let _: Option<Added> = fresh.add(&text, Source::Owner, &v, None).ok();
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!("remember one into 10,000: median {:.1} ms", median(times));
}
