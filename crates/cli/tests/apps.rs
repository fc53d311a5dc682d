//! `conch apps add|list|policy|remove` with a real MCP server from npm
//! (server-everything, installed by ./run-tests in crates/apps/tests/npm).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use std::path::Path;
use support::{run as conch, said as text};

use serde_json::Value;

fn everything() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(
            "../apps/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        )
        .to_string_lossy()
        .into_owned()
}

fn tool<'a>(list: &'a Value, app: &str, name: &str) -> &'a Value {
    list[app]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap()
}

#[test]
fn add_list_choose_and_remove_a_real_server() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("conch");
    let js = everything();
    let secret = "tøken-only-in-the-vault-81f";
    let env = format!("EVERYTHING_TOKEN={secret}");
    let out = conch(
        &home,
        &[
            "apps",
            "add",
            "everything",
            "--env",
            &env,
            "--",
            "node",
            &js,
            "stdio",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Added everything with"),
        "{}",
        text(&out)
    );
    // The value is sealed: not in apps.json, not in the clear anywhere.
    for f in ["apps.json", "secrets.json"] {
        let bytes = std::fs::read(home.join(f)).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(secret),
            "{f} holds the secret in the clear"
        );
    }

    let out = conch(&home, &["apps", "list", "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let echo = tool(&list, "everything", "echo");
    assert_eq!(echo["readOnly"], true);
    assert_eq!(echo["annotations"]["readOnlyHint"], true);
    assert_eq!(echo["choice"], "follow");
    assert_eq!(echo["standing"], "on");
    assert_eq!(echo["engineName"], "mcp__everything__echo");
    assert_eq!(list["everything"]["reach"]["env"][0], "EVERYTHING_TOKEN");
    assert!(!out
        .stdout
        .windows(secret.len())
        .any(|w| w == secret.as_bytes()));

    // Choices, and the override only toward stricter.
    let out = conch(&home, &["apps", "policy", "everything", "get-sum", "off"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = conch(
        &home,
        &["apps", "policy", "everything", "echo", "ask", "--writes"],
    );
    assert!(out.status.success(), "{}", text(&out));
    let out = conch(
        &home,
        &[
            "apps",
            "policy",
            "everything",
            "gzip-file-as-resource",
            "follow",
            "--as-listed",
        ],
    );
    assert!(!out.status.success());
    assert!(
        text(&out).contains("stricter, not looser"),
        "{}",
        text(&out)
    );
    let out = conch(&home, &["apps", "policy", "everything", "nope", "ask"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("Its tools: echo"), "{}", text(&out));
    let out = conch(
        &home,
        &["apps", "policy", "everything", "echo", "sometimes"],
    );
    assert!(
        text(&out).contains("follow, ask, read-only or off"),
        "{}",
        text(&out)
    );

    let list: Value =
        serde_json::from_slice(&conch(&home, &["apps", "list", "--json"]).stdout).unwrap();
    assert_eq!(tool(&list, "everything", "get-sum")["standing"], "off");
    let echo = tool(&list, "everything", "echo");
    assert_eq!(echo["choice"], "ask");
    assert_eq!(echo["readOnly"], false, "the owner said it writes");
    // A refused change left the file as it was.
    assert_eq!(
        tool(&list, "everything", "gzip-file-as-resource")["choice"],
        "follow"
    );

    let out = conch(&home, &["apps", "list"]);
    let shown = text(&out);
    assert!(shown.contains("everything.get-sum"), "{shown}");
    assert!(
        shown.contains("everything.echo  writes  asks every time"),
        "{shown}"
    );

    let out = conch(&home, &["apps", "remove", "everything"]);
    assert!(out.status.success(), "{}", text(&out));
    let list: Value =
        serde_json::from_slice(&conch(&home, &["apps", "list", "--json"]).stdout).unwrap();
    assert_eq!(list, serde_json::json!({}));
    let out = conch(&home, &["apps", "remove", "everything"]);
    assert!(text(&out).contains("no connection named"), "{}", text(&out));
}

#[test]
fn what_cant_be_an_app_is_said_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("conch");
    let cases: [(&[&str], &str); 5] = [
        (
            &["apps", "add", "Mail", "--", "x"],
            "can't be an app's name",
        ),
        (&["apps", "add", "mail"], "Say how to reach it"),
        (
            &["apps", "add", "mail", "--url", "ftp://a.example/"],
            "http or https",
        ),
        (
            &["apps", "add", "mail", "--url", "https://u:p@a.example/"],
            "Put a password in a header",
        ),
        (
            &[
                "apps",
                "add",
                "mail",
                "--url",
                "http://127.0.0.1:9/",
                "--header",
                "NoColon",
            ],
            "NAME:VALUE",
        ),
    ];
    for (args, says) in cases {
        let out = conch(&home, args);
        assert!(!out.status.success(), "{args:?}");
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
    // A program that isn't there: added, and it says why it can't be
    // reached.
    let out = conch(
        &home,
        &["apps", "add", "ghost", "--", "no-such-program-c0nch"],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("couldn't be reached"), "{}", text(&out));
    assert!(text(&out).contains("no program called"), "{}", text(&out));
}
