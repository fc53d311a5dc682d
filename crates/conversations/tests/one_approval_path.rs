//! Every call is decided in one place: the approval machine (`approval`).
//! No other source of the running product asks the guard, triages for
//! Auto mode, reads a reviewer's verdict or maps a decision to an answer
//! by itself; the hooks of Claude Code and Codex get their quick answer
//! from the same machine.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether a source file is a test (its own, or a `tests` module's).
fn is_test(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == "tests") || path.ends_with("tests.rs")
}

#[test]
fn only_the_approval_machine_decides() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in [
        "conversations",
        "engines",
        "gateway",
        "cli",
        "bridges",
        "routines",
    ] {
        sources(&crates.join(krate).join("src"), &mut files);
    }
    assert!(files.len() > 50, "found only {} sources", files.len());
    let shapes = [
        "guard::decide(",
        "review::triage(",
        "parse_verdict(",
        "only_quotations(",
        "Triage::",
    ];
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !is_test(f)) {
        let text = std::fs::read_to_string(file).unwrap();
        for shape in shapes {
            if text.contains(shape) {
                found.push(format!("{} has {shape}", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "decided outside approval:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_native_hooks_answer_through_the_machine() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let native = std::fs::read_to_string(dir.join("native_turn.rs")).unwrap();
    for shape in ["Decision::", "guard::decide", "guard::Settings"] {
        assert!(
            !native.contains(shape),
            "native_turn.rs reads {shape} itself"
        );
    }
    assert!(native.contains("approval::Approval::quick"));
    assert!(native.contains("drive("));
}
