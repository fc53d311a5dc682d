//! What masking costs on a whole text: 10 MB of a command's output
//! (multilingual log lines, base64 and hex blobs, 40 planted secrets in
//! every spelling) with 12 held secrets and 3 access keys, as plain text
//! and as a stored JSON line; against reading the same text as a JSON
//! string, which storing it costs anyway. Medians of 15.
//!
//! Run: `cargo bench -p mask --bench mask`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use mask::{Hashed, Masker, Secret, Syntax};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(n: usize, mut f: impl FnMut()) -> Duration {
    median(
        (0..n)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

const LINES: &[&str] = &[
    "2026-12-05T10:00:01Z INFO  compiling café-utils v0.3.1 (/src/café)",
    "東京の天気: 晴れ、最高気温 12°C — données reçues en 35 ms",
    "warning: unused variable `straße` at src/lib.rs:42:9",
    "GET /api/v1/users?page=2&sort=name 200 1.2 KB 14 ms",
    "Привет, мир! Обработано 1 024 записей за 0,8 с",
    "    at Object.<anonymous> (/home/app/node_modules/ünïcode/index.js:7:15)",
    "{\"level\":\"debug\",\"msg\":\"cache miss\",\"key\":\"user:9f8e7d\"}",
];

fn main() {
    let held: Vec<Secret> = (0..12)
        .map(|i| {
            Secret::new(
                &format!("KEY_{i}"),
                &format!("sk-proj-{i:02}Zq8vN3xR7tLmW2pK9sYd4HbF6jQe{i}"),
            )
        })
        .collect();
    let hashed: Vec<Hashed> = (0..3)
        .map(|i| Hashed::new(&format!("access key {i}"), "conch_", 40, &"ab".repeat(32)))
        .collect();
    let masker = Masker::new(&held, hashed);
    let mut text = String::with_capacity(10 << 20);
    let mut i = 0usize;
    while text.len() < 10 << 20 {
        text.push_str(LINES[i % LINES.len()]);
        text.push('\n');
        if i.is_multiple_of(500) {
            text.push_str(&STANDARD.encode(LINES[i % 3].as_bytes()));
            text.push('\n');
        }
        if i.is_multiple_of(3000) {
            let s = &held[i % held.len()].value;
            text.push_str(&format!("token={s} b64={} \n", STANDARD.encode(s)));
        }
        i += 1;
    }
    let line = serde_json::to_string(&text).unwrap();
    let mb = text.len() as f64 / (1 << 20) as f64;
    let read = time(15, || {
        let s: String = serde_json::from_str(&line).unwrap();
        assert_eq!(s.len(), text.len());
    });
    let plain = time(15, || {
        assert!(masker.mask(&text, Syntax::Text).contains("[secret: KEY_0]"));
    });
    let json = time(15, || {
        assert!(masker.mask(&line, Syntax::Json).contains("[secret: KEY_0]"));
    });
    let flat = text.replace('\n', " ");
    let unbroken = time(15, || {
        assert!(masker.mask(&flat, Syntax::Text).contains("[secret: KEY_0]"));
    });
    println!(
        "no line breaks:        {:.1} ms",
        unbroken.as_secs_f64() * 1e3
    );
    let none = time(15, || {
        assert!(!masker.mask(LINES[0], Syntax::Text).contains("[secret"));
    });
    println!("text: {mb:.1} MB, {} secrets", masker.len());
    println!("read as a JSON string: {:.1} ms", read.as_secs_f64() * 1e3);
    println!(
        "mask as text:          {:.1} ms ({:.0} MB/s)",
        plain.as_secs_f64() * 1e3,
        mb / plain.as_secs_f64()
    );
    println!(
        "mask as a JSON line:   {:.1} ms ({:.0} MB/s)",
        json.as_secs_f64() * 1e3,
        mb / json.as_secs_f64()
    );
    println!("one short line:        {:.2} µs", none.as_secs_f64() * 1e6);
}
