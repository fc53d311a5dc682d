//! `conch routines add|list|remove|run` from the terminal: what a new user
//! types, right and wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod support;
use support::run_parts as conch;

#[test]
fn routines_from_the_terminal_right_and_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let (ok, out, err) = conch(&home, &["routines", "list"]);
    assert!(ok, "{err}");
    assert!(out.contains("No routines"), "{out}");
    let (ok, out, err) = conch(
        &home,
        &[
            "routines",
            "add",
            "every weekday at 8:00",
            "Résumé de ma boîte — 要約",
            "--mode",
            "full",
            "--name",
            "inbox",
        ],
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("Made the routine \"inbox\"") && out.contains("Next run:"),
        "{out}"
    );
    for (args, says) in [
        (vec!["routines", "add", "61 * * * *", "x"], "minute"),
        (vec!["routines", "add", "every fortnight-ish", "x"], ""),
        (
            vec![
                "routines",
                "add",
                "every day at 8:00",
                "x",
                "--mode",
                "yolo",
            ],
            "no mode called \"yolo\"",
        ),
        (
            vec![
                "routines",
                "add",
                "every day at 8:00",
                "x",
                "--name",
                "inbox",
            ],
            "inbox",
        ),
        (vec!["routines", "add", "every day at 8:00", "   "], ""),
        (
            vec!["routines", "remove", "nope"],
            "no routine called \"nope\"",
        ),
    ] {
        let (ok, _, err) = conch(&home, &args);
        assert!(!ok, "{args:?} should fail");
        assert!(
            err.starts_with("conch: ") && err.trim_end().ends_with('.'),
            "{args:?}: {err}"
        );
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let (ok, out, _) = conch(&home, &["routines", "list", "--json"]);
    assert!(ok);
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["task"], "Résumé de ma boîte — 要約");
    assert_eq!(list[0]["mode"], "full");
    assert_eq!(list[0]["madeIn"], "terminal");
    assert!(list[0]["next"].as_str().unwrap().contains(":00"));
    // Run now needs the running Conch; without one, a sentence.
    let (ok, _, err) = conch(
        &home,
        &["routines", "run", "inbox", "--url", "http://127.0.0.1:9"],
    );
    assert!(!ok);
    assert!(
        err.contains("Conch isn't answering at http://127.0.0.1:9"),
        "{err}"
    );
    let (ok, out, _) = conch(&home, &["routines", "remove", "inbox"]);
    assert!(ok && out.contains("Removed the routine \"inbox\""), "{out}");
}
