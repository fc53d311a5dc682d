//! Every scenario in tests/replay/ runs through `conch replay --json`, and
//! its `expect` must hold: each expected call's fields equal the outcome's
//! (for the same step), `marks` lists each mark's source and whether it
//! holds, `provenance` maps parts to where they came from, and `error` is a
//! sentence replay must fail with.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const EXE: &str = env!("CARGO_BIN_EXE_conch");

fn check(file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let scenario: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let expect = scenario.get("expect").cloned().ok_or("no expect")?;
    let out = Command::new(EXE)
        .args(["replay", "--json"])
        .arg(file)
        .env_remove("CONCH_HOME")
        .output()
        .map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Some(error) = expect.get("error").and_then(Value::as_str) {
        return if !out.status.success() && stderr.contains(error) {
            Ok(())
        } else {
            Err(format!("expected the error {error:?}, got {stderr}"))
        };
    }
    if !out.status.success() {
        return Err(format!("replay failed: {stderr}"));
    }
    let report: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let calls = report["calls"].as_array().cloned().unwrap_or_default();
    for want in expect["calls"].as_array().into_iter().flatten() {
        let step = &want["step"];
        let helper_step = want.get("helper_step");
        let got = calls
            .iter()
            .find(|c| c["step"] == *step && c.get("helper_step") == helper_step)
            .ok_or(format!("no outcome for step {step}"))?;
        for (key, value) in want.as_object().into_iter().flatten() {
            if key == "provenance" {
                for (part, from) in value.as_object().into_iter().flatten() {
                    let found = got["provenance"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .find(|p| p["part"] == part.as_str())
                        .map(|p| p["from"].clone());
                    if found.as_ref() != Some(from) {
                        return Err(format!(
                            "step {step}: {part} came from {found:?}, wanted {from}"
                        ));
                    }
                }
            } else if key == "output_has" {
                let output = got["output"].as_str().unwrap_or("");
                if !output.contains(value.as_str().unwrap_or("")) {
                    return Err(format!(
                        "step {step}: the output {output:?} should have {value}"
                    ));
                }
            } else if key == "note_has" {
                let note = got["note"].as_str().unwrap_or("");
                if !note.contains(value.as_str().unwrap_or("")) {
                    return Err(format!(
                        "step {step}: the note {note:?} should have {value}"
                    ));
                }
            } else if got[key] != *value {
                return Err(format!(
                    "step {step}: {key} is {}, wanted {value}",
                    got[key]
                ));
            }
        }
    }
    if let Some(holds) = expect.get("holds") {
        let got: Vec<Value> = report["holds"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|h| h["skill"].clone())
            .collect();
        if got != holds.as_array().cloned().unwrap_or_default() {
            return Err(format!("holds are {got:?}, wanted {holds}"));
        }
    }
    for want in expect["stops"].as_array().into_iter().flatten() {
        let got = report["stops"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| s["step"] == want["step"])
            .ok_or("no stop outcome")?;
        for (key, value) in want.as_object().into_iter().flatten() {
            if key == "said_has" {
                let said = got["said"].as_str().unwrap_or("");
                if !said.contains(value.as_str().unwrap_or("")) {
                    return Err(format!("stop at step {}: said {said:?}", want["step"]));
                }
            } else if got[key] != *value {
                return Err(format!(
                    "stop at step {}: {key} is {}, wanted {value}",
                    want["step"], got[key]
                ));
            }
        }
    }
    if let Some(memories) = expect.get("memories") {
        // Each memory at the end: [text, state, the first reason's rule].
        let got: Vec<Value> = report["memories"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| serde_json::json!([m["text"], m["state"], m["why"][0]]))
            .collect();
        if got != memories.as_array().cloned().unwrap_or_default() {
            return Err(format!("memories are {got:?}, wanted {memories}"));
        }
    }
    if let Some(given) = expect.get("given") {
        if report["given"] != *given {
            return Err(format!("given {}, wanted {given}", report["given"]));
        }
    }
    if let Some(marks) = expect.get("marks") {
        let got: Vec<Value> = report["marks"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| serde_json::json!([m["source"], m["holds"]]))
            .collect();
        let want: Vec<Value> = marks.as_array().cloned().unwrap_or_default();
        if got != want {
            return Err(format!("marks are {got:?}, wanted {want:?}"));
        }
    }
    Ok(())
}

#[test]
fn every_replay_scenario_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replay");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 30, "{} scenarios", files.len());
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            check(f)
                .err()
                .map(|e| format!("{}: {e}", f.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn replay_keeps_the_chat_with_home_and_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("s.json");
    std::fs::write(&scenario, r#"{"mode":"full","steps":[{"owner":"hi"},{"call":{"tool":"list_files","input":{"path":"."}}},{"reply":"ok"}]}"#).unwrap();
    let home = dir.path().join("kept");
    let out = Command::new(EXE)
        .arg("--home")
        .arg(&home)
        .args(["replay", "--json"])
        .arg(&scenario)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let chat = report["chat"].as_str().unwrap();
    let log = std::fs::read_to_string(home.join("chats").join(chat).join("log.jsonl")).unwrap();
    assert!(log.contains("\"type\":\"tool.finished\""));

    std::fs::write(&scenario, r#"{"steps":[{"owner":"hi"},{"cal":{}}]}"#).unwrap();
    let out = Command::new(EXE)
        .args(["replay"])
        .arg(&scenario)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("isn't a replay scenario"));
}

/// `--review always-allow` stands in a reviewer that allows everything:
/// what review may judge runs, and what a rule keeps with the owner still
/// asks (download-and-run, in scenario 47, whose own replies differ).
#[test]
fn the_review_switch_allows_everything_and_the_rules_still_hold() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/replay/47-auto-fast-path-review-and-never-waivable.json");
    let out = Command::new(EXE)
        .args(["replay", "--json", "--review", "always-allow"])
        .arg(&file)
        .env_remove("CONCH_HOME")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let calls = report["calls"].as_array().unwrap();
    let step = |n: u64| calls.iter().find(|c| c["step"] == n).unwrap();
    assert_eq!(step(2)["review"], "allowed");
    assert_eq!(step(3)["ran"], false);
    assert!(step(3)["why"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w == "review.never-waivable.remote-code"));
    let bad = Command::new(EXE)
        .args(["replay", "--review", "always-yes"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!bad.status.success());
}
