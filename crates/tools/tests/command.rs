//! run_command for real: exit codes, output limits, the timeout and Stop,
//! and nothing left running afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::time::{Duration, Instant};

use protocol::Action;
use serde_json::json;
use tools::{Cancel, CommandConfig, RunContext, ToolBox, ToolCall, Tools, ToolsConfig};

fn tools(timeout: Duration, max_output: usize) -> Tools {
    Tools::new(ToolsConfig {
        command: CommandConfig {
            timeout,
            max_output,
        },
        ..ToolsConfig::default()
    })
}

async fn run(t: &Tools, work: &std::path::Path, command: &str, cancel: Cancel) -> tools::Outcome {
    let call = ToolCall {
        id: "c1".into(),
        name: "run_command".into(),
        input: json!({ "command": command }),
    };
    let action = t.classify(&call, work).unwrap();
    assert!(matches!(action, Action::Command { .. }));
    let ctx = RunContext {
        work: work.to_path_buf(),
        cancel,
        protected: Default::default(),
        masker: None,
    };
    t.run(&call, &action, &ctx).await
}

fn gone(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        let status = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Gone, or a zombie waiting for init to reap it: not running either way.
        if status.is_empty() || status.split_whitespace().nth(2) == Some("Z") {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[tokio::test]
async fn output_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let t = tools(Duration::from_secs(10), 64 * 1024);
    let out = run(
        &t,
        dir.path(),
        "echo hello; echo oops >&2; pwd; exit 3",
        Cancel::default(),
    )
    .await;
    assert!(!out.ok);
    assert!(out.output.starts_with("hello\n"), "{}", out.output);
    assert!(out.output.contains("[stderr]\noops"), "{}", out.output);
    assert!(out.output.ends_with("[exit code 3]"), "{}", out.output);
    assert!(out
        .output
        .contains(&dir.path().canonicalize().unwrap().display().to_string()));
    assert_eq!(out.detail.unwrap()["exit_code"], 3);
    let ok = run(&t, dir.path(), "true", Cancel::default()).await;
    assert!(ok.ok);
}

#[tokio::test]
async fn huge_output_keeps_the_start_and_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let t = tools(Duration::from_secs(10), 4096);
    let out = run(
        &t,
        dir.path(),
        "echo START; head -c 1000000 /dev/zero | tr '\\0' x; echo; echo END",
        Cancel::default(),
    )
    .await;
    assert!(out.output.starts_with("START"));
    assert!(out.output.contains("bytes left out"));
    assert!(
        out.output.contains("END\n[exit code 0]"),
        "{}",
        &out.output[out.output.len() - 100..]
    );
    assert!(out.output.len() < 6000);
}

#[tokio::test]
async fn a_timeout_kills_the_command_and_what_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let t = tools(Duration::from_millis(500), 4096);
    let started = Instant::now();
    let out = run(
        &t,
        dir.path(),
        "sleep 300 & echo $!; sleep 300",
        Cancel::default(),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(out.output.contains("timed out"), "{}", out.output);
    let pid: i32 = out.output.lines().next().unwrap().trim().parse().unwrap();
    assert!(gone(pid), "the background sleep {pid} was killed too");
}

#[tokio::test]
async fn stop_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let t = tools(Duration::from_secs(60), 4096);
    let pidfile = dir.path().join("pid");
    let cancel = Cancel::default();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        stopper.cancel();
    });
    let started = Instant::now();
    let command = format!(
        "(sleep 300; echo never) & echo $! > {}; wait",
        pidfile.display()
    );
    let out = run(&t, dir.path(), &command, cancel).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        out.output.contains("stopped by the owner"),
        "{}",
        out.output
    );
    assert_eq!(out.detail.unwrap()["stopped"], true);
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(gone(pid));
}

#[tokio::test]
async fn a_finished_command_leaves_nothing_behind_holding_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let t = tools(Duration::from_secs(60), 4096);
    let started = Instant::now();
    let out = run(&t, dir.path(), "sleep 300 & echo $!", Cancel::default()).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "didn't wait for the background job"
    );
    let pid: i32 = out.output.lines().next().unwrap().trim().parse().unwrap();
    assert!(gone(pid));
}
