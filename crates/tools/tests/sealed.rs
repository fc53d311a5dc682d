//! run_command in the box: keys out of reach, and nothing left running
//! after a timeout, a Stop, or the end.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::Action;
use serde_json::json;
use tools::{Cancel, CommandConfig, RunContext, ToolBox, ToolCall, Tools, ToolsConfig};

#[path = "../../seal/tests/common/netns.rs"]
mod netns;

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
    tools: Tools,
}

fn world(timeout: Duration) -> World {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = root.join("home");
    let work = home.join("project");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "SECRET-KEY\n").unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let conch = root.join("conch");
    let protected = guard::Protected::usual(home.to_str(), &conch.to_string_lossy());
    let mut sealed = seal::Sealed::new(&conch, protected).unwrap();
    sealed.person_home = Some(home.clone());
    let tools = Tools::new(ToolsConfig {
        command: CommandConfig {
            timeout,
            max_output: 64 * 1024,
        },
        seal: Some(Arc::new(sealed)),
        ..ToolsConfig::default()
    });
    World {
        _dir: dir,
        home,
        work,
        tools,
    }
}

async fn run(w: &World, input: serde_json::Value, cancel: Cancel) -> (Action, tools::Outcome) {
    let call = ToolCall {
        id: "c".into(),
        name: "run_command".into(),
        input,
    };
    let action = w.tools.classify(&call, &w.work).unwrap();
    let ctx = RunContext {
        work: w.work.clone(),
        cancel,
        protected: Default::default(),
        masker: None,
    };
    let out = w.tools.run(&call, &action, &ctx).await;
    (action, out)
}

/// Whether any process on this computer has `marker` in its command line.
fn running(marker: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let found = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(Result::ok)
            .any(|e| {
                let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
                let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
                String::from_utf8_lossy(&cmdline).contains(marker)
                    && stat.split_whitespace().nth(2) != Some("Z")
            });
        if !found || Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn key_of(home: &Path) -> String {
    home.join(".ssh/id_ed25519").display().to_string()
}

#[tokio::test]
async fn commands_are_sealed_unless_they_ask_to_leave() {
    let w = world(Duration::from_secs(30));
    let (action, out) = run(
        &w,
        json!({ "command": format!("cat {}; echo done", key_of(&w.home)) }),
        Cancel::default(),
    )
    .await;
    assert!(matches!(
        action,
        Action::Command {
            unsealed: false,
            leaves_box: false,
            ..
        }
    ));
    assert!(!out.output.contains("SECRET-KEY"), "{}", out.output);
    assert_eq!(out.detail.as_ref().unwrap()["sealed"], true);
    let (action, out) = run(
        &w,
        json!({ "command": format!("cat {}", key_of(&w.home)), "dangerouslyDisableSandbox": true }),
        Cancel::default(),
    )
    .await;
    assert!(matches!(
        action,
        Action::Command {
            unsealed: true,
            leaves_box: true,
            ..
        }
    ));
    assert!(
        out.output.contains("SECRET-KEY"),
        "out of the box it runs with the person's access"
    );
    assert_eq!(out.detail.unwrap()["sealed"], false);
}

#[tokio::test]
async fn a_timeout_leaves_nothing_behind() {
    let w = world(Duration::from_millis(700));
    let marker = format!("300.{}1", std::process::id());
    let started = Instant::now();
    let (_, out) = run(
        &w,
        json!({ "command": format!("sleep {marker} & sleep {marker}") }),
        Cancel::default(),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(out.output.contains("timed out"), "{}", out.output);
    assert!(!running(&marker), "a sealed sleep survived");
}

#[tokio::test]
async fn stop_leaves_nothing_behind() {
    let w = world(Duration::from_secs(60));
    let marker = format!("300.{}2", std::process::id());
    let cancel = Cancel::default();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        stopper.cancel();
    });
    let (_, out) = run(
        &w,
        json!({ "command": format!("(setsid sleep {marker} &); sleep {marker}") }),
        cancel,
    )
    .await;
    assert!(
        out.output.contains("stopped by the owner"),
        "{}",
        out.output
    );
    assert!(
        !running(&marker),
        "a sealed sleep survived, even one that left its group"
    );
}

#[tokio::test]
async fn background_jobs_end_with_the_command() {
    let w = world(Duration::from_secs(60));
    let marker = format!("300.{}3", std::process::id());
    let started = Instant::now();
    let (_, out) = run(
        &w,
        json!({ "command": format!("nohup sleep {marker} >/dev/null 2>&1 & echo started") }),
        Cancel::default(),
    )
    .await;
    assert!(out.ok, "{}", out.output);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(!running(&marker));
}

#[tokio::test]
async fn the_outcome_names_the_hosts_a_command_reached_and_marks_the_chat() {
    if !netns::inside() {
        return netns::in_own_network(
            "the_outcome_names_the_hosts_a_command_reached_and_marks_the_chat",
        );
    }
    let w = world(Duration::from_secs(30));
    netns::network_of_our_own(&w.work);
    let download = r#"python3 -c 'import urllib.request as u; h = "files" + "." + "example"; print(u.urlopen("http:" + "/" + "/" + h + "/a").read().decode())'"#;
    let (action, out) = run(&w, json!({ "command": download }), Cancel::default()).await;
    assert!(out.ok, "{}", out.output);
    assert!(out.output.contains(netns::BODY.trim()), "{}", out.output);
    let detail = out.detail.clone().unwrap();
    assert_eq!(detail["sealed"], true);
    assert_eq!(detail["network_observed"], true);
    assert_eq!(detail["reached_hosts"], json!(["files.example"]));
    assert_eq!(
        guard::mark_for(&action, out.detail.as_ref()),
        Some((protocol::MarkSource::Download, "files.example".to_owned()))
    );
    // Reading local files reaches nothing, and marks nothing.
    let (action, out) = run(
        &w,
        json!({ "command": "cat /etc/os-release | head -2" }),
        Cancel::default(),
    )
    .await;
    assert!(out.ok, "{}", out.output);
    assert_eq!(out.detail.as_ref().unwrap()["reached_hosts"], json!([]));
    assert_eq!(out.detail.as_ref().unwrap()["network_observed"], true);
    assert_eq!(guard::mark_for(&action, out.detail.as_ref()), None);
}

/// Every way a command writes a file, against every kind of place that runs
/// later (there already, not there yet, in a repository inside the work
/// folder, in the home outside it): nothing is left there that the owner
/// wasn't asked about. Each case is a fresh world, since a case that moves
/// `.git` aside changes the next one's.
#[tokio::test]
async fn a_sealed_command_changes_nothing_that_runs_later_however_it_writes() {
    let targets = [
        ".git/hooks/pre-commit",
        ".git/hooks/post-checkout",
        ".git/config",
        ".envrc",
        ".github/workflows/ci.yml",
        "sub/.git/hooks/pre-push",
        "../.bashrc",
    ];
    let writers = [
        "echo evil > \"$T\"",
        "echo evil | tee \"$T\"",
        "printf evil > src.txt; cp src.txt \"$T\"",
        "sed -i 's/^/evil/' \"$T\"",
        "python3 -c 'import sys; open(sys.argv[1], \"w\").write(\"evil\")' \"$T\"",
        "perl -e 'open(F, \">\", $ARGV[0]); print F \"evil\"' \"$T\"",
        "printf evil > x.tmp; mv x.tmp \"$T\"",
        "printf evil > src.txt; ln -sf \"$PWD/src.txt\" \"$T\"",
        "mkdir -p \"$(dirname \"$T\")\" && echo evil > \"$T\"",
        "mv .git .git-old && cp -r .git-old .git && echo evil > \"$T\"",
    ];
    for target in targets {
        for writer in writers {
            let w = world(Duration::from_secs(30));
            std::fs::write(w.home.join(".bashrc"), "# mine\n").unwrap();
            for repo in [w.work.clone(), w.work.join("sub")] {
                std::fs::create_dir_all(repo.join(".git/hooks")).unwrap();
                std::fs::write(repo.join(".git/config"), "[core]\n").unwrap();
            }
            std::fs::write(w.work.join(".git/hooks/post-checkout"), "# mine\n").unwrap();
            let path = w.work.join(target);
            let before = std::fs::read_to_string(&path).ok();
            let command = format!("T={target}; {writer}; echo ran");
            let (_, out) = run(&w, json!({ "command": command }), Cancel::default()).await;
            let after = std::fs::read_to_string(&path).ok();
            let case = format!("{target} by `{writer}`:\n{}", out.output);
            assert!(
                after.as_deref().is_none_or(|a| !a.contains("evil")),
                "{case}"
            );
            if writer.starts_with("mv .git") {
                // The copy's own files were seen too, and held: the
                // repository is broken, and nothing in it runs.
                assert!(out.output.contains("Conch held .git/config"), "{case}");
            } else {
                assert_eq!(after, before, "{case}");
            }
        }
    }
}

/// The control: ordinary work in the box still works, and git's own files
/// in a repository the command made stay.
#[tokio::test]
async fn ordinary_work_and_a_new_repository_are_left_alone() {
    let w = world(Duration::from_secs(30));
    // Where the home itself is writable in the box (this test's is, when
    // the checkout sits under /tmp), a missing ~/.gitconfig is kept from
    // being made by an empty folder, which git can't read: a person's
    // own file is bound read-only instead (a known limit in docs/seal.md).
    std::fs::write(w.home.join(".gitconfig"), "[user]\n\tname = Ada\n").unwrap();
    let (_, out) = run(
        &w,
        json!({ "command": "mkdir -p src && echo 'fn main() {}' > src/main.rs && echo ünï > notes.txt && git init -q fresh && echo done" }),
        Cancel::default(),
    )
    .await;
    assert!(out.ok, "{}", out.output);
    assert!(!out.output.contains("Conch held"), "{}", out.output);
    assert!(w.work.join("fresh/.git/config").exists());
    assert_eq!(
        std::fs::read_to_string(w.work.join("notes.txt")).unwrap(),
        "ünï\n"
    );
    assert_eq!(
        out.detail.unwrap()["held_runs_later"],
        json!([]),
        "nothing held"
    );
}
