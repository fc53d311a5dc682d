//! Codex as Conch's engine vs the same Codex run bare, against the same
//! scripted Responses API on 127.0.0.1 (whole processes, the real binary
//! the tests install).
//!
//! - Per tool call: the model asks for `true` 40 times a turn; the time
//!   from one model request to the next is one call as Codex runs it
//!   (its hook, the command, building the next request). With Conch that
//!   includes the PreToolUse hook's round trip (a process, the socket, the
//!   guard, two log appends). Median and p99 of each, and the difference.
//! - Per turn: one command and a reply, from the owner's message to the
//!   turn's end (Conch: `post` to `turn.ended`; bare: spawning
//!   `codex app-server` to `turn/completed`).
//!
//! cargo bench -p conversations --bench codex

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "../../engines/tests/support/codex_bin.rs"]
mod codex_bin;
#[path = "../../engines/tests/support/responses.rs"]
mod responses;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use conversations::{Chats, ChatsConfig, Durability, GuardConfig, Home, NewChat, NoTools};
use protocol::{Body, Mode};
use responses::{run, say, Responses};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const CALLS: usize = 40;
const TURNS: usize = 5;
const SMALL: usize = 15;
const HOOKS: usize = 300;

fn script(calls: usize) -> Vec<Vec<Value>> {
    let mut s: Vec<Vec<Value>> = (0..calls)
        .map(|i| vec![run(&format!("c{i}"), "true")])
        .collect();
    s.push(vec![say("Done ✓")]);
    s
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// Milliseconds between consecutive requests of one turn.
fn gaps(server: &Responses) -> Vec<f64> {
    let a = server.arrivals();
    a.windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64() * 1000.0)
        .collect()
}

async fn conch_turn(root: &Path, calls: usize) -> (f64, Vec<f64>) {
    let server = Responses::start(script(calls)).await;
    let (_home, chats) = codex_chats(root, &server);
    let chat = chats.create(NewChat::default()).await.unwrap();
    let mut follow = chat.log.follow();
    let start = Instant::now();
    chat.post("Run true, many times").await.unwrap();
    loop {
        let events = chat.log.events_after(0).unwrap();
        if let Some(e) = events.iter().find_map(|e| match &e.body {
            Body::TurnEnded(t) => Some(t.clone()),
            _ => None,
        }) {
            assert_eq!(e.error, None, "the turn failed");
            break;
        }
        let _ = tokio::time::timeout(Duration::from_secs(60), follow.recv()).await;
    }
    let took = start.elapsed().as_secs_f64() * 1000.0;
    (took, gaps(&server))
}

fn codex_chats(root: &Path, server: &Responses) -> (Home, Arc<Chats>) {
    let home = Home::open(&root.join("home")).unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let engine = codex_bin::codex_engine("codex", &server.url, home.root());
    let chats = Chats::new(
        home.clone(),
        Arc::new(engine),
        Arc::new(NoTools),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work,
            default_mode: Mode::Full,
            policies: Default::default(),
            guard: GuardConfig {
                protected: Arc::new(guard::Protected::usual(
                    None,
                    &home.root().to_string_lossy(),
                )),
                ..GuardConfig::default()
            },
            skills: None,
            max_steps: None,
        },
    );
    (home, chats)
}

/// The hook's round trip as Codex runs it (`bash -c` on the command in
/// the chat's hooks.json, the call on standard input), against a live
/// turn: the shell, the pipe, Conch's side (the guard, `tool.called` on
/// disk) and back. And the same shell running a hook that answers at once
/// without Conch, for the floor any hook costs.
async fn hook_round_trips(root: &Path, n: usize) -> (Vec<f64>, Vec<f64>) {
    let server = Responses::start(vec![vec![run("s1", "sleep 60")], vec![say("ok")]]).await;
    let (home, chats) = codex_chats(root, &server);
    let chat = chats.create(NewChat::default()).await.unwrap();
    chat.post("Wait a minute").await.unwrap();
    let hooks = home
        .root()
        .join("engines/codex")
        .join(&chat.id)
        .join("hooks.json");
    // The turn is live once its first call has passed the hook.
    for _ in 0..600 {
        let called = chat
            .log
            .events_after(0)
            .unwrap()
            .iter()
            .any(|e| matches!(&e.body, Body::ToolCalled(c) if c.call == "s1"));
        if called {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let config: Value = serde_json::from_slice(&std::fs::read(&hooks).unwrap()).unwrap();
    let command = config["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    let work = root.join("work");
    let time = |cmd: String, i: usize| {
        let input = json!({"session_id": "bench", "turn_id": "t", "cwd": work,
            "hook_event_name": "PreToolUse", "model": "test-model", "permission_mode": "default",
            "tool_name": "Bash", "tool_input": {"command": "ls -la"},
            "tool_use_id": format!("hook-{i}")})
        .to_string();
        async move {
            let start = Instant::now();
            let mut child = tokio::process::Command::new("/bin/bash")
                .args(["-c", &cmd])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(input.as_bytes()).await.unwrap();
            drop(stdin);
            let out = child.wait_with_output().await.unwrap();
            assert!(out.status.success(), "the hook failed");
            start.elapsed().as_secs_f64() * 1000.0
        }
    };
    let (mut with_conch, mut floor) = (Vec::new(), Vec::new());
    for i in 0..n {
        with_conch.push(time(command.clone(), i).await);
        floor.push(time("cat >/dev/null; printf '{}'".to_owned(), i).await);
    }
    chat.stop();
    (with_conch, floor)
}

/// The same Codex, the same settings, no Conch: a client that starts it,
/// starts a thread and a turn, and waits for the turn to complete.
async fn bare_turn(root: &Path, calls: usize, hook: bool) -> (f64, Vec<f64>) {
    let server = Responses::start(script(calls)).await;
    let codex_home = root.join("codex-home");
    let work = root.join("work");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model = \"test-model\"\nmodel_provider = \"conch\"\ncheck_for_update_on_startup = false\n\n[analytics]\nenabled = false\n\n[model_providers.conch]\nname = \"codex\"\nbase_url = \"{}\"\nwire_api = \"responses\"\nenv_key = \"CONCH_CODEX_KEY\"\n",
            server.url
        ),
    )
    .unwrap();
    if hook {
        // The cheapest hook there is: it allows without asking anyone.
        std::fs::write(
            codex_home.join("hooks.json"),
            json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
                {"type": "command", "command": "cat >/dev/null; printf '{}'"}]}]}})
            .to_string(),
        )
        .unwrap();
    }
    let (program, _) = engines::codex::resolve(&codex_bin::codex_bin().to_string_lossy()).unwrap();
    let start = Instant::now();
    let mut cmd = tokio::process::Command::new(program);
    cmd.arg("app-server");
    for f in [
        "plugins",
        "remote_plugin",
        "apps",
        "tool_suggest",
        "multi_agent",
        "goals",
    ] {
        cmd.args(["--disable", f]);
    }
    let mut child = cmd
        .env("CODEX_HOME", &codex_home)
        .env("CONCH_CODEX_KEY", "sk-bench")
        .current_dir(&work)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    send(&mut stdin, json!({"id": 1, "method": "initialize", "params": {
        "clientInfo": {"name": "bare", "version": "0"}, "capabilities": {"experimentalApi": true}}})).await;
    send(&mut stdin, json!({"method": "initialized", "params": {}})).await;
    let thread_start = json!({"id": 2, "method": "thread/start", "params": {
        "cwd": work, "approvalPolicy": "on-request", "sandbox": "workspace-write",
        "developerInstructions": "You are an assistant."}});
    if hook {
        send(
            &mut stdin,
            json!({"id": 10, "method": "hooks/list", "params": {"cwds": [work]}}),
        )
        .await;
    } else {
        send(&mut stdin, thread_start.clone()).await;
    }
    while let Ok(Some(line)) = lines.next_line().await {
        let m: Value = serde_json::from_str(&line).unwrap_or_default();
        if m["id"] == 10 {
            let h = &m["result"]["data"][0]["hooks"][0];
            send(
                &mut stdin,
                json!({"id": 11, "method": "config/value/write", "params": {
                "keyPath": format!("hooks.state.\"{}\".trusted_hash", h["key"].as_str().unwrap()),
                "value": h["currentHash"], "mergeStrategy": "upsert"}}),
            )
            .await;
        } else if m["id"] == 11 {
            send(&mut stdin, thread_start.clone()).await;
        } else if m["id"] == 2 {
            let thread = m["result"]["thread"]["id"].as_str().unwrap().to_owned();
            send(&mut stdin, json!({"id": 3, "method": "turn/start", "params": {
                "threadId": thread,
                "input": [{"type": "text", "text": "Run true, many times", "text_elements": []}],
                "sandboxPolicy": {"type": "workspaceWrite", "writableRoots": [], "networkAccess": true,
                                  "excludeTmpdirEnvVar": false, "excludeSlashTmp": false}}})).await;
        } else if m["method"] == "turn/completed" {
            break;
        } else if m.get("method").is_some() && m.get("id").is_some() {
            send(
                &mut stdin,
                json!({"id": m["id"], "result": {"decision": "accept"}}),
            )
            .await;
        }
    }
    let took = start.elapsed().as_secs_f64() * 1000.0;
    let _ = child.kill().await;
    (took, gaps(&server))
}

async fn send(stdin: &mut tokio::process::ChildStdin, v: Value) {
    stdin.write_all(format!("{v}\n").as_bytes()).await.unwrap();
    stdin.flush().await.unwrap();
}

fn fresh() -> tempfile::TempDir {
    // Not under /tmp: Codex won't make its helpers there.
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        // Warm the binary's pages once each way.
        let d = fresh();
        conch_turn(&d.path().canonicalize().unwrap(), 1).await;
        let d = fresh();
        bare_turn(&d.path().canonicalize().unwrap(), 1, false).await;

        let d = fresh();
        let (mut hook, mut floor) = hook_round_trips(&d.path().canonicalize().unwrap(), HOOKS).await;
        println!("the hook's round trip ({HOOKS} calls, interleaved):");
        println!(
            "  Conch's hook: median {:.2} ms, p99 {:.2} ms",
            percentile(&mut hook, 0.5),
            percentile(&mut hook, 0.99)
        );
        println!(
            "  a hook that answers at once without Conch: median {:.2} ms, p99 {:.2} ms",
            percentile(&mut floor, 0.5),
            percentile(&mut floor, 0.99)
        );
        println!(
            "  Conch's part: median {:.2} ms",
            percentile(&mut hook, 0.5) - percentile(&mut floor, 0.5)
        );

        let (mut conch_calls, mut bare_calls, mut hooked_calls) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..TURNS {
            let d = fresh();
            conch_calls.extend(conch_turn(&d.path().canonicalize().unwrap(), CALLS).await.1);
            let d = fresh();
            bare_calls.extend(bare_turn(&d.path().canonicalize().unwrap(), CALLS, false).await.1);
            let d = fresh();
            hooked_calls.extend(bare_turn(&d.path().canonicalize().unwrap(), CALLS, true).await.1);
        }
        let (cm, cp) = (percentile(&mut conch_calls, 0.5), percentile(&mut conch_calls, 0.99));
        let (bm, bp) = (percentile(&mut bare_calls, 0.5), percentile(&mut bare_calls, 0.99));
        let (hm, hp) = (percentile(&mut hooked_calls, 0.5), percentile(&mut hooked_calls, 0.99));
        println!("one tool call ({} calls each, {CALLS} a turn):", conch_calls.len());
        println!("  with Conch:                median {cm:.1} ms, p99 {cp:.1} ms");
        println!("  bare Codex:                median {bm:.1} ms, p99 {bp:.1} ms");
        println!("  bare Codex, a no-op hook:  median {hm:.1} ms, p99 {hp:.1} ms");
        println!("  Conch adds to bare:        median {:.1} ms", cm - bm);
        println!("  of which running a hook at all: median {:.1} ms", hm - bm);

        let (mut conch_small, mut bare_small) = (Vec::new(), Vec::new());
        for _ in 0..SMALL {
            let d = fresh();
            conch_small.push(conch_turn(&d.path().canonicalize().unwrap(), 1).await.0);
            let d = fresh();
            bare_small.push(bare_turn(&d.path().canonicalize().unwrap(), 1, false).await.0);
        }
        let (cs, bs) = (percentile(&mut conch_small, 0.5), percentile(&mut bare_small, 0.5));
        println!("a turn with one command ({SMALL} each, medians):");
        println!("  with Conch: {cs:.0} ms (p90 {:.0} ms)", percentile(&mut conch_small, 0.9));
        println!("  bare Codex: {bs:.0} ms (p90 {:.0} ms)", percentile(&mut bare_small, 0.9));
        println!("  ratio: {:.2}x, +{:.0} ms", cs / bs, cs - bs);
        let (mut ct, mut bt) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            let d = fresh();
            ct.push(conch_turn(&d.path().canonicalize().unwrap(), CALLS).await.0);
            let d = fresh();
            bt.push(bare_turn(&d.path().canonicalize().unwrap(), CALLS, false).await.0);
        }
        let (c, b) = (percentile(&mut ct, 0.5), percentile(&mut bt, 0.5));
        println!("a turn with {CALLS} commands (3 each, medians): with Conch {c:.0} ms, bare {b:.0} ms, ratio {:.2}x", c / b);
    });
}
