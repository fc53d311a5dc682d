//! `conch serve`, whole process: time from spawn to the first 200 on
//! /api/health, and resident memory when idle. Runs the release binary 30
//! times and prints medians.
//!
//! cargo bench -p conch --bench startup
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 30;

fn health(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let req =
        format!("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    if s.write_all(req.as_bytes()).is_err() {
        return false;
    }
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out.starts_with("HTTP/1.1 200")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let exe = env!("CARGO_BIN_EXE_conch");
    let mut startup = Vec::new();
    let mut rss = Vec::new();
    for _ in 0..RUNS {
        let home = tempfile::tempdir().unwrap();
        let port = free_port();
        let start = Instant::now();
        let mut child = Command::new(exe)
            .args(["--home", home.path().to_str().unwrap(), "serve", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        while !health(port) {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "conch serve didn't answer"
            );
            std::thread::sleep(Duration::from_micros(200));
        }
        startup.push(start.elapsed().as_secs_f64() * 1000.0);
        // Drain the banner so the pipe never blocks the server.
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || for _ in BufReader::new(out).lines() {});
        std::thread::sleep(Duration::from_millis(300));
        rss.push(rss_kb(child.id()) as f64 / 1024.0);
        let _ = child.kill();
        let _ = child.wait();
    }
    println!(
        "conch serve: start to first 200 on /api/health: median {:.1} ms (min {:.1}, max {:.1}) over {RUNS} runs",
        median(startup.clone()),
        startup.iter().cloned().fold(f64::MAX, f64::min),
        startup.iter().cloned().fold(0.0, f64::max),
    );
    println!(
        "conch serve: idle resident memory: median {:.1} MB (max {:.1})",
        median(rss.clone()),
        rss.iter().cloned().fold(0.0, f64::max)
    );
}
