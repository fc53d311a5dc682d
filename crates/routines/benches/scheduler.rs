//! The scheduler with 1,000 routines: CPU while idle (between runs), and
//! how late each run starts after its due time. The routines mix "every
//! minute", "*/2 * * * *", "every 5 minutes" and "0-59/3 * * * *" in UTC,
//! so every minute boundary has hundreds due at once. It runs for
//! `ROUTINES_BENCH_MINUTES` (default 3) minute boundaries; the runner only
//! records when it was called (starting a chat is the chats' cost, measured
//! elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use routines::store::NewRoutine;
use routines::{Routine, Runner, Scheduler, Store};

struct Record(Mutex<Vec<(i64, f64)>>);

struct Recorder(Arc<Record>);

impl Runner for Recorder {
    fn run(
        &self,
        _r: Routine,
        due: i64,
    ) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'static>> {
        self.0 .0.lock().unwrap().push((due, now_f64()));
        Box::pin(async { Ok("chat".to_owned()) })
    }
}

fn now_f64() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// This process's CPU time (user + system), in seconds.
fn cpu() -> f64 {
    // SAFETY: getrusage fills the struct it is given; a zeroed rusage is a valid value to pass.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(usage.ru_utime) + t(usage.ru_stime)
}

async fn sleep_until(t: f64) {
    let wait = t - now_f64();
    if wait > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(wait)).await;
    }
}

fn main() {
    let minutes: i64 = std::env::var("ROUTINES_BENCH_MINUTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let made = std::time::Instant::now();
        let kinds = [
            "every minute",
            "*/2 * * * *",
            "every 5 minutes",
            "0-59/3 * * * *",
        ];
        for i in 0..1000 {
            store
                .add(
                    NewRoutine {
                        schedule: kinds[i % 4].into(),
                        task: format!("Résumé n°{i} — 要約してください"),
                        name: Some(format!("routine-{i}")),
                        ..NewRoutine::default()
                    },
                    routines::now(),
                )
                .unwrap();
        }
        println!(
            "made 1,000 routines in {:.1} s",
            made.elapsed().as_secs_f64()
        );
        let record = Arc::new(Record(Mutex::new(Vec::new())));
        let scheduler = Scheduler::new(
            dir.path(),
            Arc::new(Recorder(record.clone())),
            Box::new(|| jiff::tz::TimeZone::UTC),
            &[],
        )
        .unwrap();
        tokio::spawn(scheduler.run());
        let first = (routines::now() / 60 + 1) * 60;
        let mut idle_cpu = 0.0;
        let mut idle_wall = 0.0;
        for k in 0..minutes {
            let boundary = (first + 60 * k) as f64;
            // Idle: from 10 s after a boundary to 5 s before the next.
            sleep_until(boundary + 10.0).await;
            let (c0, w0) = (cpu(), now_f64());
            sleep_until(boundary + 55.0).await;
            idle_cpu += cpu() - c0;
            idle_wall += now_f64() - w0;
        }
        sleep_until((first + 60 * minutes) as f64 + 10.0).await;
        let runs = record.0.lock().unwrap().clone();
        let mut late: Vec<f64> = runs
            .iter()
            .filter(|(due, _)| *due >= first)
            .map(|(due, at)| (at - *due as f64) * 1000.0)
            .collect();
        late.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let at = |q: f64| late[((late.len() - 1) as f64 * q).round() as usize];
        println!(
            "idle CPU: {:.4}% of one core ({:.1} ms over {:.0} s)",
            idle_cpu / idle_wall * 100.0,
            idle_cpu * 1000.0,
            idle_wall
        );
        println!(
            "lateness of {} runs over {} boundaries: median {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            late.len(),
            minutes + 1,
            at(0.5),
            at(0.99),
            late[late.len() - 1]
        );
    });
}
