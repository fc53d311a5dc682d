//! `conch skills scan`, one whole process per skill, on the same corpus of
//! real-looking skills (emoji, dashes, CJK) the in-process bench reads
//! (`crates/skills/benches/support/corpus.rs`, generated here, never
//! committed): the median process, and skills/s when every skill is its own
//! process, one after another; and one process over the whole corpus
//! folder, for the ratio. The release binary; `SCAN_CORPUS` skills
//! (default 300). Beside wall time, each process's CPU time (user + system,
//! from `getrusage` of the children): on a machine shared with other work,
//! waiting for a core inflates the first and not the second.
//!
//! cargo bench -p conch --bench skills_scan
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "../../skills/benches/support/corpus.rs"]
mod corpus;

use std::process::{Command, Stdio};
use std::time::Instant;

/// CPU seconds (user + system) used by the children waited for so far.
fn children_cpu() -> f64 {
    // SAFETY: getrusage only writes into the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_CHILDREN with a valid, writable rusage.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

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
        let cpu = children_cpu();
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
        (t.elapsed().as_secs_f64(), children_cpu() - cpu)
    };
    // Warm the page cache and the binary.
    for s in skills.iter().take(20) {
        run(s);
    }
    let all = Instant::now();
    let each: Vec<(f64, f64)> = skills.iter().map(|s| run(s)).collect();
    let total = all.elapsed().as_secs_f64();
    let whole: Vec<f64> = (0..5).map(|_| run(&root).0).collect();
    let whole = median(whole);
    let cpu = median(each.iter().map(|e| e.1).collect());
    println!(
        "conch skills scan, one process per skill: {n} skills ({:.1} MB), median process {:.2} ms wall, {:.2} ms CPU; {:.0} skills/s ({:.0} skills/s of CPU)",
        bytes as f64 / 1e6,
        median(each.iter().map(|e| e.0).collect()) * 1000.0,
        cpu * 1000.0,
        n as f64 / total,
        1.0 / cpu
    );
    println!(
        "conch skills scan, one process over the folder: {:.0} ms, {:.0} skills/s ({:.1}× one process per skill)",
        whole * 1000.0,
        n as f64 / whole,
        (n as f64 / whole) / (n as f64 / total)
    );
}
