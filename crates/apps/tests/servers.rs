//! The apps against real MCP servers written by others, installed from npm
//! by ./run-tests (crates/apps/tests/npm): `server-everything` and
//! `server-filesystem` over stdio, and a small streamable-HTTP server
//! (tests/npm/notes-server.mjs, on the official SDK) on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use apps::catalog;
use apps::file::{self, Reach};
use apps::{Apps, AppsConfig, Choice, Launch, Secrets, Standing};
use serde_json::json;

fn npm() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/npm")
}

fn server_js(package: &str) -> String {
    npm()
        .join("node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js")
        .to_string_lossy()
        .into_owned()
}

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
}

fn world() -> World {
    world_in(tempfile::tempdir().unwrap())
}

fn world_in(dir: tempfile::TempDir) -> World {
    let root = dir.path().canonicalize().unwrap();
    let home = root.join("conch");
    let work = root.join("work folder ü");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    World {
        _dir: dir,
        home,
        work,
    }
}

fn add(home: &Path, name: &str, reach: Reach) {
    file::update(home, |f| {
        catalog::add(f, name, reach, "2026-10-05T00:00:00.000Z")
    })
    .unwrap()
    .0
    .unwrap();
}

fn stdio(args: &[&str], env: &[&str]) -> Reach {
    Reach::Stdio {
        command: "node".into(),
        args: args.iter().map(|a| a.to_string()).collect(),
        env: env.iter().map(|a| a.to_string()).collect(),
    }
}

/// Polls `ok` until it holds (or fails the test after a while).
async fn until(what: &str, mut ok: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(60);
    while !ok() {
        assert!(Instant::now() < end, "waited a minute for: {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

fn standing(apps: &Apps, name: &str) -> Option<Standing> {
    apps.find(name).map(|f| f.standing)
}

async fn call(apps: &Apps, name: &str, input: serde_json::Value, work: &Path) -> tools::Outcome {
    apps.call(name, &input, work, &tools::Cancel::default())
        .await
}

/// server-everything: its tools with their annotations, the one registered
/// after connecting (a `list_changed`), a call, and the tool that prints
/// the server's whole environment, which must show only what the owner
/// gave it and the ordinary variables.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_lists_calls_and_sees_a_scrubbed_environment() {
    let w = world();
    add(
        &w.home,
        "everything",
        stdio(
            &[&server_js("server-everything"), "stdio"],
            &["EVERYTHING_TOKEN"],
        ),
    );
    let mut config = AppsConfig::new(&w.home, &w.work);
    let mut launch = Launch::plain();
    launch.vars.push((
        OsString::from("AWS_SECRET_ACCESS_KEY"),
        OsString::from("planted-conch-secret-3f9a"),
    ));
    launch.vars.push((
        OsString::from("CONCH_PROVIDER_KEY"),
        OsString::from("planted-provider-key-77c1"),
    ));
    config.launch = launch;
    config.secrets = Arc::new(|app| {
        assert_eq!(app, "everything");
        Ok(Secrets {
            env: vec![("EVERYTHING_TOKEN".into(), "given-by-the-owner-ü".into())],
            headers: vec![],
        })
    });
    let apps = Apps::start(config);
    assert!(
        apps.settled(Duration::from_secs(120)).await,
        "{:?}",
        apps.statuses()
    );
    assert!(
        matches!(
            apps.statuses()["everything"],
            apps::Status::Connected { .. }
        ),
        "{:?}",
        apps.statuses()
    );
    // Listed with their annotations: echo says it only reads.
    let echo = apps.find("everything.echo").expect("echo listed");
    assert_eq!(echo.standing, Standing::On);
    assert!(echo.read_only);
    assert_eq!(echo.engine, "mcp__everything__echo");
    assert_eq!(
        apps.find("mcp__everything__echo").unwrap().qualified,
        "everything.echo"
    );
    // A tool without readOnlyHint is a write.
    let toggles = apps.find("everything.toggle-simulated-logging").unwrap();
    assert!(!toggles.read_only, "{toggles:?}");
    // get-roots-list is registered once the client says it has roots, and
    // the server says its list changed: it arrives, new and off.
    until("get-roots-list listed", || {
        apps.find("everything.get-roots-list").is_some()
    })
    .await;
    // It lists the one root Conch declared: the work folder.
    if standing(&apps, "everything.get-roots-list") == Some(Standing::On) {
        let out = call(&apps, "mcp__everything__get_roots_list", json!({}), &w.work).await;
        assert!(
            out.output.contains("work%20folder%20%C3%BC"),
            "{}",
            out.output
        );
    }

    // A call, through its engine name; it marks nothing itself (the
    // guard does) but says what it returned.
    let out = call(
        &apps,
        "mcp__everything__echo",
        json!({"message": "héllo 🐚"}),
        &w.work,
    )
    .await;
    assert!(out.ok, "{}", out.output);
    assert!(out.output.contains("héllo 🐚"), "{}", out.output);
    let detail = out.detail.unwrap();
    assert_eq!(detail["server"], "everything");
    assert_eq!(detail["tool"], "echo");

    // The environment: the owner's variable, none of Conch's secrets.
    let out = call(&apps, "everything.get-env", json!({}), &w.work).await;
    assert!(out.ok, "{}", out.output);
    assert!(
        out.output.contains("given-by-the-owner-ü"),
        "{}",
        out.output
    );
    assert!(
        !out.output.contains("planted-conch-secret"),
        "{}",
        out.output
    );
    assert!(
        !out.output.contains("planted-provider-key"),
        "{}",
        out.output
    );
    assert!(out.output.contains("PATH"), "{}", out.output);

    // Off is off for calls too.
    file::update(&w.home, |f| {
        catalog::choose(f, "everything", "echo", Choice::Off, "t")
    })
    .unwrap()
    .0
    .unwrap();
    assert_eq!(standing(&apps, "everything.echo"), Some(Standing::Off));
    let out = call(&apps, "everything.echo", json!({"message": "x"}), &w.work).await;
    assert!(!out.ok, "{}", out.output);
    assert_eq!(apps.policies()["everything.echo"], guard::Policy::Off);
    apps.shutdown().await;
}

/// What server-filesystem says it may reach, once it has taken the roots
/// Conch declared (it asks for them after connecting, on its own time).
async fn allowed(apps: &Apps, work: &Path, expect: &str) -> String {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let out = call(apps, "files.list_allowed_directories", json!({}), work).await;
        assert!(out.ok, "{}", out.output);
        if out.output.contains(expect) || Instant::now() > end {
            assert!(out.output.contains(expect), "{}", out.output);
            return out.output;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// server-filesystem replaces the folders it was started with by the
/// client's roots: Conch declares only the chat's work folder, so a folder
/// named on its command line is out of reach.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_sees_only_the_work_folder() {
    let w = world();
    let elsewhere = w.home.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("secret.txt"), "not for it").unwrap();
    std::fs::write(w.work.join("notes.txt"), "Grüße aus dem Arbeitsordner").unwrap();
    add(
        &w.home,
        "files",
        stdio(
            &[&server_js("server-filesystem"), elsewhere.to_str().unwrap()],
            &[],
        ),
    );
    let apps = Apps::start(AppsConfig::new(&w.home, &w.work));
    assert!(apps.settled(Duration::from_secs(120)).await);
    let write = apps.find("files.write_file").unwrap();
    assert!(!write.read_only);
    assert!(apps.find("files.read_text_file").unwrap().read_only);

    let out = allowed(&apps, &w.work, "work folder ü").await;
    assert!(!out.contains("elsewhere"), "{out}");
    let out = call(
        &apps,
        "files.read_text_file",
        json!({"path": w.work.join("notes.txt")}),
        &w.work,
    )
    .await;
    assert!(out.output.contains("Grüße"), "{}", out.output);
    let out = call(
        &apps,
        "files.read_text_file",
        json!({"path": elsewhere.join("secret.txt")}),
        &w.work,
    )
    .await;
    assert!(!out.output.contains("not for it"), "{}", out.output);

    // A chat in another folder gets a connection of its own, rooted there.
    let other = w.home.parent().unwrap().join("other work");
    std::fs::create_dir_all(&other).unwrap();
    let out = allowed(&apps, &other, "other work").await;
    assert!(!out.contains("work folder ü"), "{out}");
    assert!(!out.contains("elsewhere"), "{out}");
    apps.shutdown().await;
}

struct Notes {
    child: Child,
    port: u16,
}

impl Drop for Notes {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn notes_server(token: &str) -> Notes {
    let mut child = Command::new("node")
        .arg(npm().join("notes-server.mjs"))
        .arg(token)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .strip_prefix("listening ")
        .unwrap()
        .parse()
        .unwrap();
    Notes { child, port }
}

/// Over streamable HTTP: the header the owner set is sent, the tool the
/// server adds (and announces) before the client's listening stream is
/// open is still seen, and a description that changes after the owner
/// turned the tool on turns it off until they look.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_a_late_tool_is_seen_and_a_rug_pull_turns_the_tool_off() {
    let w = world();
    let notes = notes_server("s3cret-token-9d2");
    add(
        &w.home,
        "notes",
        Reach::Http {
            url: format!("http://127.0.0.1:{}/mcp", notes.port),
            headers: vec!["Authorization".into()],
        },
    );
    let mut config = AppsConfig::new(&w.home, &w.work);
    config.secrets = Arc::new(|_| {
        Ok(Secrets {
            env: vec![],
            headers: vec![("Authorization".into(), "Bearer s3cret-token-9d2".into())],
        })
    });
    let apps = Apps::start(config);
    assert!(apps.settled(Duration::from_secs(60)).await);
    assert!(
        matches!(apps.statuses()["notes"], apps::Status::Connected { .. }),
        "{:?}",
        apps.statuses()
    );
    assert_eq!(standing(&apps, "notes.search"), Some(Standing::On));
    assert!(apps.find("notes.search").unwrap().read_only);
    assert!(!apps.find("notes.add").unwrap().read_only);
    until("the tool announced before the stream opened", || {
        apps.find("notes.late").is_some()
    })
    .await;
    assert_eq!(standing(&apps, "notes.late"), Some(Standing::New));

    let out = call(&apps, "notes.search", json!({"q": "lunch"}), &w.work).await;
    assert!(out.ok && out.output.contains("Zoë"), "{}", out.output);

    // The rug-pull: the server says something else about `search`.
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let rug = client
        .post(format!("http://127.0.0.1:{}/control/rug", notes.port))
        .send()
        .await
        .unwrap();
    assert!(rug.status().is_success());
    until("search changed", || {
        standing(&apps, "notes.search") == Some(Standing::Changed)
    })
    .await;
    assert_eq!(apps.policies()["notes.search"], guard::Policy::Changed);
    assert!(!apps.specs().iter().any(|s| s.name == "mcp__notes__search"));
    let out = call(&apps, "notes.search", json!({"q": "lunch"}), &w.work).await;
    assert!(!out.ok && out.output.contains("changed"), "{}", out.output);
    // What it said when turned on is kept, for the owner to compare.
    let f = file::load(&w.home).unwrap();
    let t = &f.servers["notes"].tools["search"];
    assert!(t
        .pinned
        .as_ref()
        .unwrap()
        .seen
        .description
        .as_deref()
        .unwrap()
        .contains("Returns matching notes"));
    assert!(t
        .seen
        .as_ref()
        .unwrap()
        .description
        .as_deref()
        .unwrap()
        .contains("evil.example"));
    // The owner looks and turns it on again, as it is now.
    file::update(&w.home, |f| {
        catalog::choose(f, "notes", "search", Choice::Ask, "t")
    })
    .unwrap()
    .0
    .unwrap();
    assert_eq!(standing(&apps, "notes.search"), Some(Standing::On));
    assert_eq!(apps.policies()["notes.search"], guard::Policy::Ask);
    apps.shutdown().await;
}

/// Without the header's value the server refuses, and the app says so
/// (and offers no tools), while start-up went on without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_refuses_is_failed_not_waited_for() {
    let w = world();
    let notes = notes_server("right");
    add(
        &w.home,
        "notes",
        Reach::Http {
            url: format!("http://127.0.0.1:{}/mcp", notes.port),
            headers: vec![],
        },
    );
    let started = Instant::now();
    let apps = Apps::start(AppsConfig::new(&w.home, &w.work));
    // Start-up returned before anything connected.
    assert!(matches!(
        apps.statuses()["notes"],
        apps::Status::Connecting { .. }
    ));
    let _ = started;
    assert!(apps.settled(Duration::from_secs(60)).await);
    assert!(
        matches!(apps.statuses()["notes"], apps::Status::Failed { .. }),
        "{:?}",
        apps.statuses()
    );
    assert!(apps.specs().is_empty());
    apps.shutdown().await;
}

/// Sealed, a stdio server runs in the box like a command: where keys live
/// is hidden from it, as is Conch's folder, and it writes only in the work
/// folder (and temp).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sealed_server_cant_reach_the_keys_or_write_outside() {
    if let seal::Support::Unavailable { problem } = seal::sandbox_support() {
        panic!("sealing is needed for this test: {}", problem.sentence());
    }
    // Not under /tmp, which the box lets anything write to.
    let w = world_in(tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap());
    let person = w.home.parent().unwrap().join("person");
    std::fs::create_dir_all(person.join(".ssh")).unwrap();
    let key = person.join(".ssh/id_ed25519");
    std::fs::write(&key, "canary-key-5e1").unwrap();
    let outside = w.home.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    add(
        &w.home,
        "greedy",
        stdio(&[npm().join("greedy-server.mjs").to_str().unwrap()], &[]),
    );
    let protected = guard::Protected::usual(person.to_str(), &w.home.to_string_lossy());
    let mut sealed = seal::Sealed::new(&w.home, protected).unwrap();
    sealed.person_home = Some(person.clone());
    let mut config = AppsConfig::new(&w.home, &w.work);
    config.launch.seal = Some(Arc::new(sealed));
    config.launch.home = Some(person.clone());
    let apps = Apps::start(config);
    assert!(apps.settled(Duration::from_secs(120)).await);
    assert!(
        matches!(
            apps.statuses()["greedy"],
            apps::Status::Connected { sealed: true, .. }
        ),
        "{:?}",
        apps.statuses()
    );
    let read = |path: &Path| json!({"path": path});
    let out = call(&apps, "greedy.read", read(&key), &w.work).await;
    assert!(!out.output.contains("canary"), "{}", out.output);
    // Conch's own folder is hidden too.
    let out = call(
        &apps,
        "greedy.read",
        read(&w.home.join("apps.json")),
        &w.work,
    )
    .await;
    assert!(!out.output.contains("greedy"), "{}", out.output);
    let out = call(
        &apps,
        "greedy.write",
        json!({"path": outside.join("escaped.txt"), "text": "x"}),
        &w.work,
    )
    .await;
    assert!(!out.ok, "{}", out.output);
    assert!(!outside.join("escaped.txt").exists());
    let inside = w.work.join("inside ü.txt");
    let out = call(
        &apps,
        "greedy.write",
        json!({"path": inside, "text": "Grüße"}),
        &w.work,
    )
    .await;
    assert!(out.ok, "{}", out.output);
    assert_eq!(std::fs::read_to_string(&inside).unwrap(), "Grüße");
    apps.shutdown().await;
}

/// An app that is off isn't started: its program never runs, whatever
/// else the file says; turned on, it starts within a reload.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_that_is_off_is_not_started() {
    let w = world();
    let marker = w.home.join("started-ü");
    add(
        &w.home,
        "stranger",
        Reach::Stdio {
            command: "sh".into(),
            args: vec![
                "-c".into(),
                format!("touch '{}'; sleep 30", marker.display()),
            ],
            env: vec![],
        },
    );
    file::update(&w.home, |f| catalog::set_on(f, "stranger", false))
        .unwrap()
        .0
        .unwrap();
    let apps = Apps::start(AppsConfig::new(&w.home, &w.work));
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(!marker.exists(), "an app that is off ran its program");
    assert!(!apps.statuses().contains_key("stranger"));
    // The control: turned on, it starts.
    file::update(&w.home, |f| catalog::set_on(f, "stranger", true))
        .unwrap()
        .0
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !marker.exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(marker.exists(), "turned on, it didn't start");
    apps.shutdown().await;
}
