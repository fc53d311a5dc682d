//! What Conch adds to Claude Code, with the real binary (installed for the
//! tests, crates/cli/tests/npm) against the scripted Messages API:
//!
//! 1. the hooks' round trip per tool call: `conch hook pre-tool-use` and
//!    `conch hook post-tool-use`, each a whole process started by Claude
//!    Code, from the moment the hook has its input to the moment its answer
//!    is out (the process's start, the socket, the guard, the log's
//!    append), over one turn of CALLS commands in a real chat; median and
//!    p99;
//! 2. a turn's wall time through Conch (a chat, the engine, its hooks) vs
//!    the same `claude` run by itself on the same script, RUNS of each,
//!    interleaved; medians and their ratio.
//!
//! For (1) this very program stands in as the hook: Claude Code runs it,
//! it reads the hook's input, then times the real `conch hook` it starts.
//!
//! cargo bench -p conch --bench claude_code
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "../tests/claude_code/model.rs"]
mod model;
#[path = "../tests/claude_code/rig.rs"]
mod rig;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use model::{tool, Model, Say};
use protocol::{Body, Mode};
use serde_json::json;

const CALLS: usize = 100;
const RUNS: usize = 15;
const TURN_CALLS: usize = 5;

/// Claude Code runs this program as the hook: time the real one.
fn stand_in_hook(args: &[String]) -> ! {
    let mut input = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut input);
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_conch"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .and_then(|mut child| {
            if let Some(mut stdin) = child.stdin.take() {
                stdin.write_all(&input)?;
            }
            child.wait_with_output()
        });
    let took = start.elapsed();
    let Ok(out) = out else { std::process::exit(2) };
    if let Ok(socket) = std::env::var("CONCH_HOOK_SOCKET") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(format!("{socket}.times"))
        {
            let _ = writeln!(
                f,
                "{} {}",
                args.get(1).map_or("", String::as_str),
                took.as_micros()
            );
        }
    }
    let _ = std::io::stdout().write_all(&out.stdout);
    std::process::exit(out.status.code().unwrap_or(2))
}

fn quantile(v: &[f64], q: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() as f64 - 1.0) * q).round() as usize;
    v[i]
}

fn commands(n: usize) -> Vec<Say> {
    (0..n)
        .map(|i| {
            tool(
                "Bash",
                json!({"command": format!("echo {i}"), "description": "count"}),
            )
        })
        .collect()
}

/// One turn through a chat: post, wait for `turn.ended`.
async fn chat_turn(r: &rig::Rig, prompt: &str) -> Duration {
    let chat = r.chats.create(Default::default()).await.unwrap();
    let start = Instant::now();
    chat.post(prompt).await.unwrap();
    let end = rig::until_within(&chat, 0, rig::ended, Duration::from_secs(600)).await;
    let took = start.elapsed();
    if let Body::TurnEnded(t) = &end.body {
        assert!(t.error.is_none(), "{t:?}");
    }
    took
}

/// Hooks that answer at once without Conch: what Claude Code's own hook
/// machinery costs.
fn trivial_hooks(dir: &std::path::Path) -> std::path::PathBuf {
    let allow =
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#;
    let settings = json!({ "hooks": {
        "PreToolUse": [{ "matcher": "*", "hooks": [{ "type": "command",
            "command": format!("printf '%s' '{allow}'") }] }],
        "PostToolUse": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "true" }] }],
    }});
    let file = dir.join("hooks.json");
    std::fs::write(&file, settings.to_string()).unwrap();
    file
}

/// The same script, `claude` by itself: no Conch; with `hooks`, two hooks
/// per call that answer at once.
fn bare_turn(model: &Model, prompt: &str, hooks: bool) -> Duration {
    let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let mut extra: Vec<std::ffi::OsString> = Vec::new();
    if hooks {
        extra.push("--settings".into());
        extra.push(trivial_hooks(home.path()).into());
    }
    let start = Instant::now();
    let mut child = Command::new(rig::claude_bin())
        .args(extra)
        .args([
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--setting-sources",
            "",
            "--strict-mcp-config",
            "--permission-mode",
            "bypassPermissions",
            "--model",
            rig::MODEL,
        ])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("ANTHROPIC_BASE_URL", &model.base)
        .env("ANTHROPIC_API_KEY", "sk-ant-test-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS", "1")
        .env("IS_SANDBOX", "1")
        .current_dir(&work)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"type": "user", "message": {"role": "user", "content": prompt}})
    )
    .unwrap();
    let mut out = String::new();
    let mut stdout = child.stdout.take().unwrap();
    // Read until the result line, then let it go.
    let mut buf = [0u8; 8192];
    while !out.contains("\"type\":\"result\"") {
        let n = stdout.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        out.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    drop(stdin);
    let _ = child.wait();
    let took = start.elapsed();
    assert!(out.contains("\"is_error\":false"), "{out}");
    took
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("hook") {
        stand_in_hook(&args[1..]);
    }
    if args.iter().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // 1. The hooks' round trip, in a real chat (Full trust, so the
        // commands run without a question).
        let mut r = rig::rig(Mode::Full, BTreeMap::new(), false).await;
        let mut config = rig::config(r.home.root(), &r.model);
        config.hook = std::env::current_exe().unwrap();
        let engine = std::sync::Arc::new(engines::claude_code::ClaudeCode::new(config));
        r.chats = conversations::Chats::new(
            r.home.clone(),
            engine,
            std::sync::Arc::new(conversations::NoTools),
            conversations::ChatsConfig {
                durability: conversations::Durability::Group,
                default_work: r.work.clone(),
                default_mode: Mode::Full,
                policies: BTreeMap::new(),
                guard: conversations::GuardConfig::usual(&r.home),
                skills: None,
                max_steps: None,
            },
        );
        r.model.script("hook-bench", commands(CALLS));
        let took = chat_turn(&r, "hook-bench").await;
        let times = std::fs::read_dir(r.home.root().join("run"))
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().ends_with(".times"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .expect("the stand-in hook wrote its times");
        let of = |event: &str| -> Vec<f64> {
            times
                .lines()
                .filter_map(|l| l.split_once(' '))
                .filter(|(e, _)| *e == event)
                .filter_map(|(_, us)| us.parse::<f64>().ok())
                .map(|us| us / 1000.0)
                .collect()
        };
        let (pre, post) = (of("pre-tool-use"), of("post-tool-use"));
        assert_eq!(pre.len(), CALLS, "every call passed the hook");
        let both: Vec<f64> = pre.iter().zip(&post).map(|(a, b)| a + b).collect();
        println!("claude_code: {CALLS} commands in one turn ({:.2} s)", took.as_secs_f64());
        for (name, v) in [
            ("pre-tool-use round trip", &pre),
            ("post-tool-use round trip", &post),
            ("both, per tool call", &both),
        ] {
            println!(
                "  {name}: median {:.2} ms, p99 {:.2} ms",
                quantile(v, 0.5),
                quantile(v, 0.99)
            );
        }

        // 2. A turn through Conch vs the same binary by itself.
        let r = rig::rig(Mode::Full, BTreeMap::new(), false).await;
        r.model.script("turn-bench", commands(TURN_CALLS));
        let (mut with, mut bare, mut hooked) = (Vec::new(), Vec::new(), Vec::new());
        // One of each first, to warm the file cache.
        chat_turn(&r, "turn-bench").await;
        bare_turn(&r.model, "turn-bench", false);
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        for _ in 0..RUNS {
            with.push(ms(chat_turn(&r, "turn-bench").await));
            for (hooks, into) in [(false, &mut bare), (true, &mut hooked)] {
                let model = r.model.clone();
                into.push(ms(tokio::task::spawn_blocking(move || {
                    bare_turn(&model, "turn-bench", hooks)
                })
                .await
                .unwrap()));
            }
        }
        let (w, b, h) = (
            quantile(&with, 0.5),
            quantile(&bare, 0.5),
            quantile(&hooked, 0.5),
        );
        println!("claude_code: a turn of {TURN_CALLS} commands, {RUNS} runs each, interleaved");
        for (name, v) in [
            ("through Conch", &with),
            ("claude by itself", &bare),
            ("claude by itself, with two hooks that answer at once", &hooked),
        ] {
            println!(
                "  {name}: median {:.0} ms (p90 {:.0} ms)",
                quantile(v, 0.5),
                quantile(v, 0.9)
            );
        }
        println!(
            "  through Conch / by itself: {:.2}x, +{:.0} ms a turn, +{:.1} ms a call",
            w / b,
            w - b,
            (w - b) / TURN_CALLS as f64
        );
        println!(
            "  of which Claude Code's own hook machinery: +{:.1} ms a call; Conch beyond it: +{:.1} ms a call",
            (h - b) / TURN_CALLS as f64,
            (w - h) / TURN_CALLS as f64
        );
    });
}
