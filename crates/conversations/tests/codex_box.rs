//! The real Codex (installed from npm by ./run-tests) in Conch's box,
//! against a scripted Responses API on 127.0.0.1. The gate lets every step
//! through, as Full trust would: what its commands can touch is the box's
//! doing, not the guard's reading of their input. Inside, the places where
//! keys live and Conch's folder aren't there, whatever the command says,
//! and Codex's folder is at a neutral path no `..` leads out of. The
//! control (the same turn outside the box) reads them, so the test can
//! fail.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "../../engines/tests/support/codex_bin.rs"]
mod codex_bin;
#[path = "../../engines/tests/support/responses.rs"]
mod responses;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engines::codex::CodexEngine;
use engines::{BoxFuture, Gate, NativeCall, NativeEngine, NativeEvent, NativeTurn, Quick, Verdict};
use protocol::Mode;
use responses::{run, say, Responses};

/// Lets everything through and writes down what it heard.
#[derive(Default)]
struct Open {
    events: Mutex<Vec<NativeEvent>>,
}

impl Gate for Open {
    fn quick(&self, _call: NativeCall) -> BoxFuture<'_, Quick> {
        Box::pin(async { Quick::Allow })
    }
    fn ask(&self, call: NativeCall) -> BoxFuture<'_, Verdict> {
        Box::pin(async move { Verdict::Allow { input: call.input } })
    }
    fn report(&self, event: NativeEvent) -> BoxFuture<'_, ()> {
        Box::pin(async move { self.events.lock().unwrap().push(event) })
    }
}

struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    work: PathBuf,
    home: PathBuf,
    keys: PathBuf,
    engine: CodexEngine,
    server: Responses,
}

const DEVICE_KEY: &str = "geräte-schlüssel-7f3a";
const SSH_KEY: &str = "ssh-geheimnis-91c2";
const WORK_TEXT: &str = "arbeit-text-ü";

async fn world(script: Vec<Vec<serde_json::Value>>) -> World {
    // Not under /tmp: Codex won't make its helpers there.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("notes.txt"), WORK_TEXT).unwrap();
    let home = root.join("home");
    std::fs::create_dir_all(home.join("keystore")).unwrap();
    std::fs::write(home.join("keystore/device.key"), DEVICE_KEY).unwrap();
    let keys = root.join("keys");
    std::fs::create_dir_all(&keys).unwrap();
    std::fs::write(keys.join("id_ed25519"), SSH_KEY).unwrap();
    let server = Responses::start(script).await;
    let engine = codex_bin::codex_engine("codex", &server.url, &home.join("engines/codex"));
    World {
        _dir: dir,
        root,
        work,
        home,
        keys,
        engine,
        server,
    }
}

/// The seal as `conch serve` sets it up for the Conch folder, also hiding
/// the keys folder (as it hides `~/.ssh`).
fn engine_box(w: &World) -> Arc<dyn engines::boxing::Boxing> {
    let mut sealed = seal::Sealed::new(&w.home, tools::protected::here(&w.home)).unwrap();
    sealed.extra_hidden = vec![w.keys.clone()];
    Arc::new(conversations::EngineBox(Arc::new(sealed)))
}

async fn turn(w: &World, boxed: bool, tight: bool) -> Arc<Open> {
    let gate = Arc::new(Open::default());
    let (_stop, rx) = tokio::sync::watch::channel(false);
    let turn = NativeTurn {
        chat: "chat1".into(),
        work: w.work.clone(),
        system: "You are Conch's assistant.".into(),
        prompt: "Look around".into(),
        mode: Mode::Full,
        tight,
        hidden: vec![w.keys.clone()],
        sealing: true,
        apps: Vec::new(),
        boxed: boxed.then(|| engine_box(w)),
    };
    tokio::time::timeout(
        Duration::from_secs(90),
        w.engine.turn(turn, gate.clone(), rx),
    )
    .await
    .expect("the turn ends")
    .unwrap();
    gate
}

/// Every way of reaching the secrets a command might try: their plain
/// paths, a walk of the Conch folder, `..` out of Codex's folder (from
/// inside, where it is at its neutral path), and a search from the root
/// of each folder it could start from.
fn looks_everywhere(w: &World) -> String {
    format!(
        r#"cat notes.txt; echo;
cat {home}/keystore/device.key {keys}/id_ed25519 2>&1;
grep -rs -e geräte -e ssh-geheimnis {home} {keys} {root} 2>/dev/null | head -5;
for d in /var/tmp/conch-codex-*; do echo "seen=$d"; ls -a "$d/.." | head -3; grep -rs -e geräte -e ssh-geheimnis "$d/.." "$d/../.." 2>/dev/null | head -3; done;
echo end"#,
        home = w.home.display(),
        keys = w.keys.display(),
        root = w.root.display(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_box_codexs_commands_find_nothing_protected() {
    for tight in [false, true] {
        // A marked chat's commands have no network in the box either:
        // Codex's own sandbox nests inside it.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let w = world(Vec::new()).await;
        let cmd = format!(
            "{} ; (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null; echo connected=$?",
            looks_everywhere(&w)
        );
        w.server
            .then(vec![vec![run("c1", &cmd)], vec![say("Done.")]]);
        turn(&w, true, tight).await;
        let arrived = listener.accept().is_ok();
        assert_eq!(
            arrived, !tight,
            "tight={tight}: a connect arrived: {arrived}"
        );
        let out = w.server.output_of("c1").expect("the command ran");
        assert!(out.contains(WORK_TEXT), "the work folder is read: {out}");
        assert!(out.contains("end"), "{out}");
        assert!(!out.contains(DEVICE_KEY), "tight={tight}: {out}");
        assert!(!out.contains(SSH_KEY), "tight={tight}: {out}");
        assert!(
            out.contains("seen=/var/tmp/conch-codex-"),
            "Codex's folder is at its neutral path: {out}"
        );
        let seen = out
            .lines()
            .find_map(|l| l.strip_prefix("seen="))
            .unwrap_or_default();
        assert!(
            !std::path::Path::new(seen).exists(),
            "the neutral mount point {seen} is removed after the turn"
        );
    }
}

/// The control: outside the box the same command reads both, so the box
/// is what keeps them out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outside_the_box_the_same_command_reads_them() {
    let w = world(Vec::new()).await;
    w.server.then(vec![
        vec![run("c1", &looks_everywhere(&w))],
        vec![say("Done.")],
    ]);
    turn(&w, false, false).await;
    let out = w.server.output_of("c1").expect("the command ran");
    assert!(out.contains(DEVICE_KEY), "{out}");
    assert!(out.contains(SSH_KEY), "{out}");
}

/// In the box the apps' relays can't start: the chat is told once, not
/// every turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_box_a_chat_is_told_once_its_apps_arent_offered() {
    let w = world(vec![vec![say("One.")], vec![say("Two.")]]).await;
    let mut told = 0;
    for _ in 0..2 {
        let gate = Arc::new(Open::default());
        let (_stop, rx) = tokio::sync::watch::channel(false);
        let turn = NativeTurn {
            chat: "chat1".into(),
            work: w.work.clone(),
            system: "s".into(),
            prompt: "Hi".into(),
            mode: Mode::Ask,
            tight: false,
            hidden: Vec::new(),
            sealing: true,
            apps: vec![engines::NativeApp {
                name: "notes".into(),
                args: vec!["apps".into(), "relay".into(), "notes".into()],
            }],
            boxed: Some(engine_box(&w)),
        };
        w.engine.turn(turn, gate.clone(), rx).await.unwrap();
        told += gate
            .events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| matches!(e, NativeEvent::Note(n) if n == engines::codex::NO_APPS_NOTE))
            .count();
    }
    assert_eq!(told, 1);
}
