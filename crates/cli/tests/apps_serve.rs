//! The Apps page's API on a real `conch serve`: start-up doesn't wait for
//! an app, which connects in the background (server-everything from npm);
//! `GET /api/apps` shows it, and only a person can choose for a tool.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const EXE: &str = env!("CARGO_BIN_EXE_conch");
const PASSWORD: &str = "correct horse battery";

struct Serving(Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn everything() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(
            "../apps/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        )
        .to_string_lossy()
        .into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_apps_page_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("conch");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let added = Command::new(EXE)
        .arg("--home")
        .arg(&home)
        .args([
            "apps",
            "add",
            "everything",
            "--no-connect",
            "--",
            "node",
            &everything(),
            "stdio",
        ])
        .output()
        .unwrap();
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    gateway::auth::password::set(&home, PASSWORD).unwrap();
    let (_, key) = gateway::auth::keys::create(&home, "script").unwrap();

    let mut child = Command::new(EXE)
        .arg("--home")
        .arg(&home)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .current_dir(&work)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let url = first
        .strip_prefix("Conch is running at ")
        .unwrap()
        .trim()
        .to_owned();
    std::thread::spawn(move || for _ in lines {});
    let _serving = Serving(child);

    let res = reqwest::Client::new()
        .post(format!("{url}/api/session"))
        .json(&json!({ "password": PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let cookie = res.headers()["set-cookie"].to_str().unwrap();
    let session = cookie.split(';').next().unwrap().to_owned();
    let owner = reqwest::Client::new();
    let get_apps = || async {
        owner
            .get(format!("{url}/api/apps"))
            .header("cookie", &session)
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    };
    // It connects in the background and lists its tools.
    let end = Instant::now() + Duration::from_secs(120);
    let apps = loop {
        let apps = get_apps().await;
        if apps["apps"][0]["status"]["state"] == "connected"
            && apps["apps"][0]["tools"]
                .as_array()
                .is_some_and(|t| !t.is_empty())
        {
            break apps;
        }
        assert!(Instant::now() < end, "never connected: {apps:#}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let app = &apps["apps"][0];
    assert_eq!(app["name"], "everything");
    assert_eq!(app["reach"]["transport"], "stdio");
    assert!(app["status"]["protocol"].is_string(), "{app:#}");
    let echo = app["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .unwrap();
    assert_eq!(echo["annotations"]["readOnlyHint"], true);
    assert_eq!(echo["standing"], "on");

    let choose = |body: Value, by_key: bool| {
        let req = owner
            .post(format!("{url}/api/apps/everything/tools/echo"))
            .json(&body);
        let req = if by_key {
            req.bearer_auth(&key)
        } else {
            req.header("cookie", &session)
        };
        async move { req.send().await.unwrap() }
    };
    // An access key can't choose.
    let res = choose(json!({"choice": "follow"}), true).await;
    assert_eq!(res.status(), 403);
    let res = choose(json!({"choice": "sometimes"}), false).await;
    assert_eq!(res.status(), 400);
    // Only toward stricter: nothing makes a write read-only.
    let res = owner
        .post(format!(
            "{url}/api/apps/everything/tools/gzip-file-as-resource"
        ))
        .header("cookie", &session)
        .json(&json!({"choice": "follow", "writes": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let said: Value = res.json().await.unwrap();
    assert!(said.to_string().contains("stricter, not looser"), "{said}");
    let res = owner
        .post(format!("{url}/api/apps/everything/tools/nope"))
        .header("cookie", &session)
        .json(&json!({"choice": "off"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);

    let res = choose(json!({"choice": "off"}), false).await;
    assert_eq!(res.status(), 200);
    let app: Value = res.json().await.unwrap();
    let echo = app["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .unwrap();
    assert_eq!(echo["choice"], "off");
    assert_eq!(echo["standing"], "off");
    let apps = get_apps().await;
    assert!(apps.to_string().contains("\"choice\":\"off\""));
}
