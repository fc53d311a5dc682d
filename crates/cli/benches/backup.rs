//! Backups, whole processes: `conch backup create` (without and with a
//! passphrase) and `conch backup restore` of a home with 1,000 chats
//! (1,000,000 events) and 1,000 artifact versions; wall time and peak
//! resident memory (the kernel's `ru_maxrss` for the child), medians of
//! `CONCH_BACKUP_RUNS` runs (3). The baseline is `tar -cf` of the same
//! folder (no encryption, no snapshot rule). Memory must stay flat: the
//! backup streams, it is never held whole.
//!
//! cargo bench -p conch --bench backup
//! (`CONCH_BACKUP_CHATS`, `CONCH_BACKUP_EVENTS` per chat, change the size)
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const PASSPHRASE: &str = "a benchmark passphrase ✓";

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `cmd` with `stdin`, returning (seconds, peak RSS in MiB).
// wait4 reaps the child (it also gives its peak memory, which wait can't).
#[allow(clippy::zombie_processes)]
fn timed(mut cmd: Command, stdin: Option<&str>) -> (f64, f64) {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).unwrap();
    }
    drop(input);
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for the child we spawned; both pointers are valid.
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(got, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed"
    );
    (secs, usage.ru_maxrss as f64 / 1024.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn du(path: &Path) -> u64 {
    let meta = std::fs::symlink_metadata(path).unwrap();
    if meta.is_dir() {
        std::fs::read_dir(path)
            .unwrap()
            .flatten()
            .map(|e| du(&e.path()))
            .sum()
    } else {
        meta.len()
    }
}

/// A home like a year of use: chats with words from several scripts, and
/// artifacts with ten versions each.
fn generate(home: &Path, chats: usize, events: usize) {
    for c in 0..chats {
        let dir = home.join("chats").join(format!("bench{c:011}"));
        std::fs::create_dir_all(&dir).unwrap();
        let mut log =
            std::io::BufWriter::new(std::fs::File::create(dir.join("log.jsonl")).unwrap());
        for seq in 1..=events {
            let line = serde_json::json!({
                "seq": seq, "id": format!("e{seq}"), "at": "2026-11-28T09:00:00.000Z",
                "type": if seq % 2 == 0 { "reply" } else { "message" }, "from": "owner",
                "text": format!("Réunion n°{seq} — 会議のメモ, Ελληνικά 🐚 {}", "lorem ipsum ".repeat(seq % 9)),
            });
            writeln!(log, "{line}").unwrap();
        }
    }
    let store = artifacts::Store::new(&home.join("artifacts"));
    for a in 0..100 {
        let id = format!("bencha{a:06}");
        store
            .create(
                &id,
                artifacts::Kind::Markdown,
                "Notes — ノート",
                &format!("# v1 {a}\n"),
                None,
                None,
            )
            .unwrap();
        for v in 2..=10 {
            let text = format!("# v{v}\n{}", "Une ligne de notes, 一行. ".repeat(200));
            store
                .update(&id, &text, artifacts::store::By::Updated)
                .unwrap();
        }
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let exe = env!("CARGO_BIN_EXE_conch");
    let runs = env_usize("CONCH_BACKUP_RUNS", 3);
    let chats = env_usize("CONCH_BACKUP_CHATS", 1000);
    let events = env_usize("CONCH_BACKUP_EVENTS", 1000);
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let t = Instant::now();
    generate(&home, chats, events);
    let bytes = du(&home);
    println!(
        "home: {chats} chats × {events} events, 1,000 artifact versions, {:.0} MiB (made in {:.1} s)",
        bytes as f64 / (1 << 20) as f64,
        t.elapsed().as_secs_f64()
    );
    let mut rows: Vec<(&str, Vec<f64>, Vec<f64>)> = Vec::new();
    let mut record =
        |name: &'static str, (s, m): (f64, f64)| match rows.iter_mut().find(|r| r.0 == name) {
            Some(r) => {
                r.1.push(s);
                r.2.push(m);
            }
            None => rows.push((name, vec![s], vec![m])),
        };
    for run in 0..runs {
        let plain = tmp.path().join(format!("plain-{run}.backup"));
        let locked = tmp.path().join(format!("locked-{run}.backup"));
        let tar = tmp.path().join(format!("home-{run}.tar"));
        let mut c = Command::new("tar");
        c.arg("-cf").arg(&tar).arg("-C").arg(&home).arg(".");
        record("tar -cf (baseline)", timed(c, None));
        let mut c = Command::new(exe);
        c.arg("--home")
            .arg(&home)
            .args(["backup", "create"])
            .arg(&plain);
        record("backup create, no passphrase", timed(c, None));
        let mut c = Command::new(exe);
        c.arg("--home")
            .arg(&home)
            .args(["backup", "create", "--passphrase-stdin"])
            .arg(&locked);
        record(
            "backup create, passphrase",
            timed(c, Some(&format!("{PASSPHRASE}\n"))),
        );
        let into = tmp.path().join(format!("restored-plain-{run}"));
        let mut c = Command::new(exe);
        c.arg("--home")
            .arg(&into)
            .args(["backup", "restore"])
            .arg(&plain);
        record("backup restore, no passphrase", timed(c, None));
        let into2 = tmp.path().join(format!("restored-locked-{run}"));
        let mut c = Command::new(exe);
        c.arg("--home")
            .arg(&into2)
            .args(["backup", "restore", "--passphrase-stdin"])
            .arg(&locked);
        record(
            "backup restore, passphrase",
            timed(c, Some(&format!("{PASSPHRASE}\n"))),
        );
        let into3 = tmp.path().join(format!("untarred-{run}"));
        std::fs::create_dir_all(&into3).unwrap();
        let mut c = Command::new("tar");
        c.arg("-xf").arg(&tar).arg("-C").arg(&into3);
        record("tar -xf (baseline)", timed(c, None));
        if run == 0 {
            println!(
                "backup file: {:.0} MiB without a passphrase, {:.0} MiB with",
                std::fs::metadata(&plain).unwrap().len() as f64 / (1 << 20) as f64,
                std::fs::metadata(&locked).unwrap().len() as f64 / (1 << 20) as f64
            );
        }
        for p in [&plain, &locked, &tar] {
            let _ = std::fs::remove_file(p);
        }
        for d in [&into, &into2, &into3] {
            let _ = std::fs::remove_dir_all(d);
        }
    }
    let tar_c = median(rows[0].1.clone());
    let tar_x = median(
        rows.iter()
            .find(|r| r.0 == "tar -xf (baseline)")
            .unwrap()
            .1
            .clone(),
    );
    println!(
        "{:<34} {:>10} {:>12} {:>10}",
        "", "median s", "peak RSS MiB", "vs tar"
    );
    for (name, secs, mem) in &rows {
        let s = median(secs.clone());
        let base = if name.contains("restore") || name.contains("-xf") {
            tar_x
        } else {
            tar_c
        };
        println!(
            "{name:<34} {s:>10.2} {:>12.1} {:>9.2}×",
            median(mem.clone()),
            s / base
        );
    }
}
