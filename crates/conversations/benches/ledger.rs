//! The marks ledger's cost: a 1 MB file (non-ASCII text) written and read
//! back, as a file tool does, with the ledger noting the write and looking
//! up the read, against without; and the ledger's size after 10,000 writes.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use conversations::ledger::{hash_file, Ledger, LEDGER_FILE};

use criterion::{criterion_group, criterion_main, Criterion};

fn megabyte() -> String {
    let line = "- Relevé de la semaine: café, thé, 日本語のメモ, ünïcödé — done\n";
    line.repeat(1024 * 1024 / line.len() + 1)
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("TODO.md");
    let text = megabyte();
    let ledger = Ledger::new(dir.path());
    let path = file.to_string_lossy().into_owned();
    let marks = vec!["read news.example".to_owned()];
    let mut g = c.benchmark_group("ledger");
    g.bench_function("write and read 1 MB, without", |b| {
        b.iter(|| {
            std::fs::write(&file, &text).unwrap();
            std::fs::read_to_string(&file).unwrap().len()
        })
    });
    // A marked chat writes it (noted, no hash on the call's path), and a
    // chat reads it back (known by its path).
    g.bench_function("write and read 1 MB, with the ledger", |b| {
        b.iter(|| {
            std::fs::write(&file, &text).unwrap();
            ledger.wrote(&path, marks.clone(), "c1");
            let read = std::fs::read_to_string(&file).unwrap().len();
            (read, ledger.known_file(&path).is_some())
        })
    });
    // What runs off the call's path after a marked write: the hash.
    g.bench_function(
        "hash 1 MB after a marked write (off the call's path)",
        |b| b.iter(|| hash_file(&file)),
    );
    // A chat reads a file the ledger doesn't know, while it knows 1,000.
    let other = dir.path().join("other.md");
    std::fs::write(&other, &text[..text.len() / 2]).unwrap();
    let other_path = other.to_string_lossy().into_owned();
    for i in 0..1000 {
        let p = dir.path().join(format!("n{i}.md"));
        std::fs::write(&p, format!("note {i}")).unwrap();
        let p = p.to_string_lossy().into_owned();
        ledger.wrote(&p, marks.clone(), "c1");
        ledger.hash_written(&p);
    }
    g.bench_function("read 0.5 MB the ledger doesn't know, without", |b| {
        b.iter(|| std::fs::read_to_string(&other).unwrap().len())
    });
    g.bench_function("read 0.5 MB the ledger doesn't know, with it", |b| {
        b.iter(|| {
            let read = std::fs::read_to_string(&other).unwrap().len();
            (read, ledger.known_file(&other_path).is_some())
        })
    });
    g.finish();

    // Its size after 10,000 writes of different files.
    let sized = tempfile::tempdir().unwrap();
    let big = Ledger::new(sized.path());
    for i in 0..10_000 {
        let p = sized.path().join(format!("page-{i}.md"));
        std::fs::write(&p, format!("page {i}")).unwrap();
        let p = p.to_string_lossy().into_owned();
        big.wrote(&p, marks.clone(), "kzn24mp5wv3zybua");
        big.hash_written(&p);
    }
    let bytes = std::fs::metadata(sized.path().join(LEDGER_FILE))
        .unwrap()
        .len();
    println!(
        "ledger size after 10,000 writes: {bytes} bytes ({:.1} KB)",
        bytes as f64 / 1024.0
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
