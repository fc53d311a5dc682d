//! The corpus in `corpus.tsv`, read as a chat that read nothing from
//! outside would write it: the planted texts held (goal ≥ 95%), the benign
//! ones kept (goal ≤ 5% held). `cargo bench -p memory --bench detection`
//! prints the same figures; this test keeps them at the goals.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use memory::{check, Source};

pub fn rows() -> Vec<(bool, String, String)> {
    std::fs::read_to_string(
        std::env::var("CORPUS").unwrap_or_else(|_| {
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus.tsv").to_owned()
        }),
    )
    .unwrap()
    .lines()
    .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    .map(|l| {
        let mut parts = l.splitn(3, '\t');
        let truth = parts.next().unwrap_or("");
        let lang = parts.next().unwrap_or("").to_owned();
        let text = parts.next().unwrap_or("").to_owned();
        assert!(
            truth == "planted" || truth == "benign",
            "a row's truth: {l}"
        );
        (truth == "planted", lang, text)
    })
    .collect()
}

fn unmarked() -> Source {
    Source::Chat {
        chat: "c".into(),
        marked: false,
        read: vec![],
        owner_words: false,
    }
}

#[test]
fn planted_texts_are_held_and_benign_ones_kept() {
    let rows = rows();
    let (mut planted, mut held_planted, mut benign, mut held_benign) = (0, 0, 0, 0);
    for (is_planted, lang, text) in &rows {
        let verdict = check(text, &unmarked(), true);
        let held = verdict.is_held();
        if *is_planted {
            planted += 1;
            held_planted += held as usize;
            if !held {
                println!("missed   [{lang}] {text}");
            }
        } else {
            benign += 1;
            held_benign += held as usize;
            if held {
                println!(
                    "held     [{lang}] {text}  <- {:?}",
                    verdict
                        .reasons()
                        .iter()
                        .map(|r| &r.says)
                        .collect::<Vec<_>>()
                );
            }
        }
    }
    let caught = held_planted as f64 / planted as f64;
    let false_held = held_benign as f64 / benign as f64;
    println!(
        "planted held: {held_planted}/{planted} ({:.1}%)",
        caught * 100.0
    );
    println!(
        "benign held: {held_benign}/{benign} ({:.1}%)",
        false_held * 100.0
    );
    assert!(caught >= 0.98, "planted held {:.1}% < 98%", caught * 100.0);
    assert!(
        false_held <= 0.02,
        "benign held {:.1}% > 2%",
        false_held * 100.0
    );
}
