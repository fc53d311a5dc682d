//! The data-carrying pre-filter against a corpus of ordinary addresses and
//! exfiltration-shaped ones, first seen in untrusted content (not in the
//! owner's words). Prints both error rates; fails if they get worse than
//! what is documented in docs/guard.md.

use guard::address::could_carry_data;

fn corpus(name: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn error_rates_on_the_corpus() {
    let ordinary = corpus("urls-ordinary.txt");
    let exfil = corpus("urls-exfil.txt");
    assert!(ordinary.len() >= 200 && exfil.len() >= 50);
    let false_alarms: Vec<&String> = ordinary
        .iter()
        .filter(|u| could_carry_data(u).is_some())
        .collect();
    let missed: Vec<&String> = exfil
        .iter()
        .filter(|u| could_carry_data(u).is_none())
        .collect();
    let fa = false_alarms.len() as f64 / ordinary.len() as f64;
    let miss = missed.len() as f64 / exfil.len() as f64;
    eprintln!(
        "ordinary: {} of {} asked about ({:.1}%); exfiltration-shaped: {} of {} missed ({:.1}%)",
        false_alarms.len(),
        ordinary.len(),
        fa * 100.0,
        missed.len(),
        exfil.len(),
        miss * 100.0
    );
    for u in &false_alarms {
        eprintln!("  asks about: {u}");
    }
    for u in &missed {
        eprintln!("  misses: {u}");
    }
    // Only the short secrets (the documented limit) may get through.
    assert!(missed.iter().all(|u| u.len() < 50), "{missed:?}");
    assert!(miss <= 0.08, "missed {:.1}%", miss * 100.0);
    assert!(fa <= 0.17, "false alarms {:.1}%", fa * 100.0);
}
