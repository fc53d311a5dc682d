//! `conch seal …` and sealed commands in a chat, end to end: what the box
//! hides on this computer, support probed once and remembered, and a
//! download through an interpreter marking the chat with the host it
//! reached (in a network of the test's own).
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod support;
use std::path::Path;
use std::process::Command;
use support::{run_as as conch, text, EXE};

use serde_json::{json, Value};

#[path = "../../seal/tests/common/netns.rs"]
mod netns;

/// A person's home outside temp (the box may write temp).
fn outside_temp() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

#[test]
fn seal_check_json_lists_what_the_box_hides_here() {
    let dir = outside_temp();
    let person = dir.path().join("ada");
    let conch_home = dir.path().join("conch");
    std::fs::create_dir_all(person.join(".ssh")).unwrap();
    std::fs::write(person.join(".ssh/id_ed25519"), "k").unwrap();
    std::fs::create_dir_all(person.join(".config/op")).unwrap();
    std::fs::create_dir_all(person.join(".cargo")).unwrap();
    std::fs::write(person.join(".cargo/credentials.toml"), "t").unwrap();
    std::fs::write(person.join(".cargo/config.toml"), "c").unwrap();
    std::fs::create_dir_all(person.join("work")).unwrap();
    let work = person.join("work");
    let out = conch(
        &conch_home,
        &person,
        &["seal", "check", "--json", "--work", work.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    if v["ready"] != true {
        panic!("bubblewrap can't make a box here: {v}");
    }
    let hidden: Vec<(String, String)> = v["hidden"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["path"].as_str().unwrap().to_owned(),
                h["what"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let real = |p: &Path| p.canonicalize().unwrap().to_string_lossy().into_owned();
    let has = |p: &Path| hidden.iter().any(|(h, _)| *h == real(p));
    assert!(has(&person.join(".ssh")), "{hidden:?}");
    assert!(has(&person.join(".config/op")), "{hidden:?}");
    assert!(has(&person.join(".cargo/credentials.toml")), "{hidden:?}");
    assert!(!has(&person.join(".cargo/config.toml")), "{hidden:?}");
    assert!(has(&conch_home), "Conch's own folder: {hidden:?}");
    let why = &hidden
        .iter()
        .find(|(h, _)| *h == real(&person.join(".ssh")))
        .unwrap()
        .1;
    assert!(why.contains("SSH"), "{why}");
    assert!(v["writable"]
        .as_array()
        .unwrap()
        .contains(&json!(real(&work))));
    assert!(v["environment"]["kept"]
        .as_array()
        .unwrap()
        .contains(&json!("PATH")));
    assert!(v["observes"].is_boolean());
}

#[test]
fn seal_run_probes_once_and_remembers_until_the_computer_changes() {
    let dir = outside_temp();
    let person = dir.path().join("ada");
    let conch_home = dir.path().join("conch");
    std::fs::create_dir_all(&person).unwrap();
    let work = person.to_str().unwrap();
    let out = conch(
        &conch_home,
        &person,
        &[
            "seal",
            "run",
            "--work",
            work,
            "--",
            "echo",
            "sealed ünïcode",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "sealed ünïcode\n");
    let note = conch_home.join("seal/support.json");
    let remembered: Value = serde_json::from_str(&std::fs::read_to_string(&note).unwrap()).unwrap();
    let fingerprint = remembered["fingerprint"].as_str().unwrap().to_owned();
    assert!(
        fingerprint.contains("bwrap") && fingerprint.contains("kernel"),
        "{fingerprint}"
    );
    // Remembered: the next run reads it and leaves it as it was.
    let stamp = std::fs::metadata(&note).unwrap().modified().unwrap();
    let out = conch(
        &conch_home,
        &person,
        &["seal", "run", "--work", work, "--", "true"],
    );
    assert!(out.status.success());
    assert_eq!(std::fs::metadata(&note).unwrap().modified().unwrap(), stamp);
    // A different computer (another bubblewrap, another kernel): probed again.
    std::fs::write(
        &note,
        json!({"fingerprint": "another computer", "observes": false}).to_string(),
    )
    .unwrap();
    let out = conch(
        &conch_home,
        &person,
        &["seal", "run", "--work", work, "--", "true"],
    );
    assert!(out.status.success());
    let again: Value = serde_json::from_str(&std::fs::read_to_string(&note).unwrap()).unwrap();
    assert_eq!(again["fingerprint"], fingerprint.as_str());
}

/// A scripted chat (conch replay) in Full trust, someone there, commands
/// sealed: one command, then its marks.
fn replay_marks(command: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("scenario.json");
    let s = json!({
        "mode": "full",
        "present": true,
        "sealed": true,
        "steps": [
            {"owner": "Get the file, please."},
            {"call": {"tool": "run_command", "input": {"command": command}}, "answer": "once"},
            {"reply": "Done."}
        ]
    });
    std::fs::write(&scenario, s.to_string()).unwrap();
    let out = Command::new(EXE)
        .args(["replay", "--json"])
        .arg(&scenario)
        .env_remove("CONCH_HOME")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ran = &report["calls"][0];
    assert_eq!(ran["ran"], true, "{report}");
    report["marks"].clone()
}

#[test]
fn a_sealed_download_through_python_marks_the_chat_naming_the_host() {
    if !netns::inside() {
        return netns::in_own_network(
            "a_sealed_download_through_python_marks_the_chat_naming_the_host",
        );
    }
    let scratch = tempfile::tempdir().unwrap();
    netns::network_of_our_own(scratch.path());
    let marks = replay_marks(
        r#"python3 -c 'import urllib.request as u; h = "files" + "." + "example"; print(u.urlopen("http:" + "/" + "/" + h + "/a").read().decode())'"#,
    );
    assert_eq!(
        marks,
        json!([{"source": "download", "what": "files.example", "call": marks[0]["call"], "holds": true}])
    );
    // Reading local files marks nothing.
    let marks = replay_marks("cat /etc/os-release | head -3; ls -la");
    assert_eq!(marks, json!([]));
    // conch seal run says what the command reached, through node this time.
    let dir = outside_temp();
    let out = conch(
        &dir.path().join("conch"),
        dir.path(),
        &[
            "seal",
            "run",
            "--work",
            dir.path().to_str().unwrap(),
            "--",
            r#"node -e 'require("http").get({host: ["files", "example"].join("."), path: "/"}, r => r.pipe(process.stdout))'"#,
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains(netns::BODY.trim()));
    assert!(
        text(&out.stderr).ends_with("conch: the command reached files.example.\n"),
        "{}",
        text(&out.stderr)
    );
}
