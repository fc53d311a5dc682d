//! `conch skills scan`, one whole process per skill, on the same corpus of
//! real-looking skills (emoji, dashes, CJK) the in-process bench reads
//! (`crates/skills/benches/support/corpus.rs`, generated here, never
//! committed): the median process, and skills/s when every skill is its own
//! process, one after another; and one process over the whole corpus
//! folder, for the ratio. The release binary; `SCAN_CORPUS` skills
//! (default 300).
//!
//! cargo bench -p conch --bench skills_scan

#[path = "../../skills/benches/support/corpus.rs"]
mod corpus;

use std::process::{Command, Stdio};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let n: usize = std::env::var("SCAN_CORPUS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let home = dir.path().join("home");
    let root = dir.path().join("corpus");
    let bytes = corpus::write(&root, n).unwrap();
    let mut skills: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    skills.sort();
    let conch = env!("CARGO_BIN_EXE_conch");
    let run = |path: &std::path::Path| {
        let t = Instant::now();
        let status = Command::new(conch)
            .arg("--home")
            .arg(&home)
            .args(["skills", "scan"])
            .arg(path)
            .arg("--json")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{}", path.display());
        t.elapsed().as_secs_f64()
    };
    // Warm the page cache and the binary.
    for s in skills.iter().take(20) {
        run(s);
    }
    let all = Instant::now();
    let each: Vec<f64> = skills.iter().map(|s| run(s)).collect();
    let total = all.elapsed().as_secs_f64();
    let whole: Vec<f64> = (0..5).map(|_| run(&root)).collect();
    let whole = median(whole);
    println!(
        "conch skills scan, one process per skill: {n} skills ({:.1} MB), median process {:.2} ms, {:.0} skills/s",
        bytes as f64 / 1e6,
        median(each) * 1000.0,
        n as f64 / total
    );
    println!(
        "conch skills scan, one process over the folder: {:.0} ms, {:.0} skills/s ({:.1}× one process per skill)",
        whole * 1000.0,
        n as f64 / whole,
        (n as f64 / whole) / (n as f64 / total)
    );
}
