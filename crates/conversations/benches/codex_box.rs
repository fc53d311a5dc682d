//! The cost of Conch's box around Codex: the same turns, the real binary
//! the tests install, against the same scripted Responses API on
//! 127.0.0.1, in the box and not, interleaved. A one-reply turn (from the
//! start to the turn's end, which is when its first and only text arrives)
//! and a turn of five commands. Medians and the ratio.
//!
//! cargo bench -p conversations --bench codex_box

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "../../engines/tests/support/codex_bin.rs"]
mod codex_bin;
#[path = "../../engines/tests/support/responses.rs"]
mod responses;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use engines::{BoxFuture, Gate, NativeCall, NativeEngine, NativeEvent, NativeTurn, Quick, Verdict};
use protocol::Mode;
use responses::{run, say, Responses};
use serde_json::Value;

const RUNS: usize = 9;

struct Open;

impl Gate for Open {
    fn quick(&self, _call: NativeCall) -> BoxFuture<'_, Quick> {
        Box::pin(async { Quick::Allow })
    }
    fn ask(&self, call: NativeCall) -> BoxFuture<'_, Verdict> {
        Box::pin(async move { Verdict::Allow { input: call.input } })
    }
    fn report(&self, _event: NativeEvent) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

fn script(commands: usize) -> Vec<Vec<Value>> {
    let mut s: Vec<Vec<Value>> = (0..commands)
        .map(|i| vec![run(&format!("c{i}"), "ls -la > /dev/null; echo größe")])
        .collect();
    s.push(vec![say("Fertig ✓ — done.")]);
    s
}

/// Milliseconds for one turn of `commands` commands, in the box or not.
async fn one(root: &Path, commands: usize, boxed: bool) -> f64 {
    let dir = tempfile::tempdir_in(root).unwrap();
    let base = dir.path().canonicalize().unwrap();
    let work = base.join("work");
    let home = base.join("home");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let server = Responses::start(script(commands)).await;
    let engine = codex_bin::codex_engine("codex", &server.url, &home.join("engines/codex"));
    let boxing = boxed.then(|| {
        let sealed = seal::Sealed::new(&home, tools::protected::here(&home)).unwrap();
        Arc::new(conversations::EngineBox(Arc::new(sealed))) as Arc<dyn engines::boxing::Boxing>
    });
    let turn = NativeTurn {
        chat: "bench".into(),
        work,
        system: "s".into(),
        prompt: "Go".into(),
        mode: Mode::Full,
        tight: false,
        hidden: Vec::new(),
        sealing: true,
        apps: Vec::new(),
        boxed: boxing,
    };
    let (_stop, rx) = tokio::sync::watch::channel(false);
    let t = Instant::now();
    engine.turn(turn, Arc::new(Open), rx).await.unwrap();
    t.elapsed().as_secs_f64() * 1000.0
}

/// The resident memory of every `codex` process now, in MiB.
fn codex_rss() -> f64 {
    let mut kib = 0u64;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        if !status
            .lines()
            .any(|l| l.starts_with("Name:") && l.contains("codex"))
        {
            continue;
        }
        kib += status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0);
    }
    kib as f64 / 1024.0
}

/// The most `codex` held at once while `f` ran, in MiB.
async fn peak<F: std::future::Future<Output = f64>>(f: F) -> (f64, f64) {
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let d = done.clone();
    let watcher = std::thread::spawn(move || {
        let mut most = 0f64;
        while !d.load(std::sync::atomic::Ordering::SeqCst) {
            most = most.max(codex_rss());
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        most
    });
    let ms = f.await;
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    (ms, watcher.join().unwrap())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
        println!("codex_box: Codex through its engine, {RUNS} runs each, interleaved");
        for (what, commands) in [("a one-reply turn", 0), ("a turn of five commands", 5)] {
            // One of each first, not counted: caches warm.
            one(root, commands, true).await;
            one(root, commands, false).await;
            let (mut inside, mut outside) = (Vec::new(), Vec::new());
            for _ in 0..RUNS {
                inside.push(one(root, commands, true).await);
                outside.push(one(root, commands, false).await);
            }
            let (i, o) = (median(&mut inside), median(&mut outside));
            println!("  {what}: boxed {i:.0} ms, not {o:.0} ms ({:.2}x)", i / o);
        }
        let (_, boxed) = peak(one(root, 5, true)).await;
        let (_, bare) = peak(one(root, 5, false)).await;
        println!("  codex's resident memory at most, five commands: boxed {boxed:.0} MiB, not {bare:.0} MiB");
    });
}
