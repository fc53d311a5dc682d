//! Claude Code as a person sets it up: `conch providers add --kind
//! claude-code`, `conch doctor`, and a turn through `conch serve` and
//! `conch chat`, with the real binary and the scripted model.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "claude_code/model.rs"]
mod model;
#[path = "claude_code/rig.rs"]
mod rig;

mod support;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use support::{run_env as conch, text, EXE};

use model::tool;
use serde_json::json;

struct Serving {
    child: Child,
    url: String,
    banner: Vec<String>,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(home: &Path) -> Serving {
    let mut child = Command::new(EXE)
        .arg("--home")
        .arg(home)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let url = first
        .strip_prefix("Conch is running at ")
        .unwrap_or_else(|| panic!("{first}"))
        .to_owned();
    let mut banner = vec![first];
    for line in lines.by_ref().take(6) {
        let line = line.unwrap();
        let engine = line.starts_with("Turns run on Claude Code");
        banner.push(line);
        if engine {
            break;
        }
    }
    std::thread::spawn(move || for _ in lines {});
    Serving { child, url, banner }
}

#[test]
fn a_claude_code_provider_is_checked_when_added_and_by_doctor() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let claude = rig::claude_bin();
    let out = conch(
        home,
        &[
            "providers",
            "add",
            "cc",
            "--kind",
            "claude-code",
            "--bin",
            &claude.to_string_lossy(),
            "--key-env",
            "CONCH_TEST_CC_KEY",
        ],
        None,
        &[("CONCH_TEST_CC_KEY", "sk-ant-from-env")],
    );
    let said = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(said.contains("Claude Code 2.1.332 is installed"), "{said}");
    let settings = std::fs::read_to_string(home.join("settings.json")).unwrap();
    assert!(settings.contains("\"kind\": \"claude-code\""), "{settings}");
    assert!(!settings.contains("sk-ant-from-env"));
    let list = text(&conch(home, &["providers", "list"], None, &[]).stdout);
    assert!(
        list.contains("cc\tclaude-code\t(its default model)"),
        "{list}"
    );
    assert!(list.contains("key: set"), "{list}");

    // One whose program isn't there: said when added, and by doctor.
    let out = conch(
        home,
        &[
            "providers",
            "add",
            "missing",
            "--kind",
            "claude-code",
            "--bin",
            "/nonexistent/claude",
        ],
        None,
        &[],
    );
    assert!(out.status.success());
    assert!(
        text(&out.stdout).contains("/nonexistent/claude isn't installed"),
        "{}",
        text(&out.stdout)
    );
    let doctor = text(&conch(home, &["doctor"], None, &[]).stdout);
    assert!(
        doctor.contains("ok: Provider \"cc\": Claude Code 2.1.332 is installed"),
        "{doctor}"
    );
    assert!(
        doctor.contains(
            "warning: Provider \"missing\": Claude Code: /nonexistent/claude isn't installed"
        ),
        "{doctor}"
    );

    // --bin is only for a program; other kinds still need a model.
    let out = conch(
        home,
        &[
            "providers",
            "add",
            "x",
            "--kind",
            "openai",
            "--model",
            "m",
            "--bin",
            "claude",
        ],
        None,
        &[],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--bin is for"),
        "{}",
        text(&out.stderr)
    );
    let out = conch(
        home,
        &["providers", "add", "y", "--kind", "anthropic"],
        None,
        &[],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--model"),
        "{}",
        text(&out.stderr)
    );
}

/// The whole way: `conch serve` runs the turn on Claude Code, the hook is
/// this very binary, and the question reaches the terminal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conch_serve_runs_a_turn_on_claude_code() {
    let model = model::Model::start().await;
    model.script(
        "serve-run",
        vec![tool(
            "Bash",
            json!({"command": "echo fait-par-claude > proof.txt", "description": "write"}),
        )],
    );
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let home = dir.path().join("home");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("settings.json"),
        format!("{{\"defaultWork\": {:?}}}", work),
    )
    .unwrap();
    conch(
        &home,
        &["setup", "--password-stdin"],
        Some("a long enough one"),
        &[],
    );
    let claude = rig::claude_bin();
    let out = conch(
        &home,
        &[
            "providers",
            "add",
            "cc",
            "--kind",
            "claude-code",
            "--bin",
            &claude.to_string_lossy(),
            "--base-url",
            &model.base,
            "--model",
            rig::MODEL,
            "--key-stdin",
        ],
        Some("sk-ant-test\n"),
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (home2, work2) = (home.clone(), work.clone());
    let (out, banner) = tokio::task::spawn_blocking(move || {
        let s = serve(&home2);
        let out = Command::new(EXE)
            .arg("--home")
            .arg(&home2)
            .args(["chat", "serve-run: écris la preuve", "--url", &s.url])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                child.stdin.take().unwrap().write_all(b"o\n")?;
                child.wait_with_output()
            })
            .unwrap();
        let _ = &work2;
        (out, s.banner.clone())
    })
    .await
    .unwrap();
    let (said, asked) = (text(&out.stdout), text(&out.stderr));
    assert!(
        banner
            .iter()
            .any(|l| l.starts_with("Turns run on Claude Code (cc). Claude Code 2.1.332")),
        "{banner:?}"
    );
    assert!(out.status.success(), "{said}\n{asked}");
    assert!(asked.contains("Can I run this command?"), "{asked}");
    assert_eq!(
        std::fs::read_to_string(work.join("proof.txt"))
            .unwrap()
            .trim(),
        "fait-par-claude"
    );
    // Claude Code's own state is in Conch's folder, and its private run
    // folder is closed to others.
    assert!(home.join("engines/claude-code/chats").is_dir());
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(home.join("run")).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o700);
}
