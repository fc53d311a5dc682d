//! An acknowledged event is on disk: a child process appends and reports each
//! acknowledgement; it is killed with SIGKILL at random moments, 200 times, and
//! every acknowledged event must be in the log afterwards, `seq` dense, the
//! log reopening every time.
//!
//! The child is this same test binary, run again with `CONCH_DURABILITY_CHILD`
//! set, so no helper program has to be built.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use conversations::{ChatLog, Durability};
use protocol::{Body, Event, Message, Speaker};

const CHILD_ENV: &str = "CONCH_DURABILITY_CHILD";

fn body(n: u64) -> Body {
    Body::Message(Message {
        from: Speaker::Owner,
        text: format!("event {n} {}", "x".repeat((n % 300) as usize)),
        name: None,
        app: None,
        replaces: None,
    })
}

/// In the child: append forever from several threads, printing each seq once
/// it is acknowledged.
#[test]
fn durability_child() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let (log, _) = ChatLog::open(Path::new(&dir), Durability::Group).unwrap();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let log = log.clone();
            std::thread::spawn(move || {
                let mut n = t;
                loop {
                    let e = log.append_blocking(body(n)).unwrap();
                    println!("{}", e.seq);
                    n += 4;
                }
            })
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
}

/// xorshift: the kill times are random but repeatable from the seed printed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn acknowledged_events_survive_sigkill_200_times() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("seed {seed}");
    let mut rng = Rng(seed);
    let exe = std::env::current_exe().unwrap();
    let mut acked_total = 0u64;
    for round in 0..200 {
        let mut child = Command::new(&exe)
            .args([
                "durability_child",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut max = 0u64;
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(seq) = line.trim().parse::<u64>() {
                    max = max.max(seq);
                }
            }
            max
        });
        // Let it start, then kill it at a random moment of its work.
        let wait = Duration::from_micros(2_000 + rng.next() % 40_000);
        let start = Instant::now();
        while start.elapsed() < wait {
            std::thread::sleep(Duration::from_micros(500));
        }
        // SAFETY: kill takes plain integers; the child is ours and not yet
        // waited for, so its pid can't have been reused.
        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
        let _ = child.wait();
        let acked = reader.join().unwrap();

        let (log, _report) = ChatLog::open(dir.path(), Durability::Group)
            .unwrap_or_else(|e| panic!("round {round}: the log doesn't reopen: {e}"));
        let events: Vec<Event> = log.events_after(0).unwrap();
        let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
        assert_eq!(
            seqs,
            (1..=seqs.len() as u64).collect::<Vec<_>>(),
            "round {round}: seq is dense"
        );
        let last = seqs.last().copied().unwrap_or(0);
        assert!(
            last >= acked,
            "round {round} (seed {seed}): seq {acked} was acknowledged but the log ends at {last}"
        );
        acked_total = acked_total.max(acked);
        // The file has only whole event lines now.
        let text = std::fs::read(log.path()).unwrap();
        assert!(text.is_empty() || text.ends_with(b"\n"));
    }
    assert!(
        acked_total > 200,
        "the child did append (got to {acked_total})"
    );
}

#[test]
fn a_torn_tail_from_a_crash_is_set_aside_not_dropped() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    {
        let (log, _) = ChatLog::open(dir.path(), Durability::Group).unwrap();
        for n in 0..3 {
            log.append_blocking(body(n)).unwrap();
        }
    }
    // What a crash mid-write looks like: half a line.
    let path = dir.path().join("log.jsonl");
    let mut bytes = std::fs::read(&path).unwrap();
    let full = Event {
        seq: 4,
        id: "torn".into(),
        at: "2026-11-29T00:00:00.000Z".into(),
        body: body(4),
    }
    .to_line();
    let half = &full.as_bytes()[..full.len() / 2];
    bytes.extend_from_slice(half);
    std::fs::write(&path, &bytes).unwrap();

    let (log, report) = ChatLog::open(dir.path(), Durability::Group).unwrap();
    assert_eq!(report.torn.as_ref().map(|t| t.0), Some(half.len() as u64));
    let side = std::fs::read(dir.path().join("log.jsonl.torn")).unwrap();
    assert!(side.starts_with(half));
    assert_eq!(log.last_seq(), 3);
    assert_eq!(log.append_blocking(body(5)).unwrap().seq, 4);
}
