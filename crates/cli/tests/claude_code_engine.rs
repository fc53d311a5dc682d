//! The Claude Code engine's own promises, with the real binary: its
//! sandbox hides the seal's list, a hook that can't reach Conch refuses,
//! a chat's later turns continue its session, Stop ends the turn and its
//! processes, Auto mode's reviewer is a one-shot `claude -p`, and a
//! sub-agent's calls pass the same guard.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "claude_code/model.rs"]
mod model;
#[path = "claude_code/rig.rs"]
mod rig;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use engines::claude_code::ClaudeCode;
use engines::{BoxFuture, Gate, NativeCall, NativeEngine, NativeEvent, NativeTurn, Quick, Verdict};
use model::{tool, Model};
use protocol::{Answer, Body, EndReason, Mode};
use rig::{asked, ended, rig, until};
use serde_json::json;

/// A gate that lets everything through and keeps what it was told.
#[derive(Default)]
struct Open {
    seen: Mutex<Vec<NativeEvent>>,
}

impl Gate for Open {
    fn quick(&self, _call: NativeCall) -> BoxFuture<'_, Quick> {
        Box::pin(async { Quick::Allow })
    }
    fn ask(&self, call: NativeCall) -> BoxFuture<'_, Verdict> {
        Box::pin(async move { Verdict::Allow { input: call.input } })
    }
    fn report(&self, event: NativeEvent) -> BoxFuture<'_, ()> {
        Box::pin(async move { self.seen.lock().unwrap().push(event) })
    }
}

fn native_turn(chat: &str, work: &std::path::Path, prompt: &str, mode: Mode) -> NativeTurn {
    NativeTurn {
        chat: chat.into(),
        work: work.to_path_buf(),
        system: "You are Conch.".into(),
        prompt: prompt.into(),
        mode,
        tight: false,
        hidden: Vec::new(),
        sealing: false,
        apps: Vec::new(),
        boxed: None,
    }
}

fn finished(seen: &[NativeEvent]) -> Vec<(bool, String)> {
    seen.iter()
        .filter_map(|e| match e {
            NativeEvent::ToolFinished { ok, output, .. } => Some((*ok, output.clone())),
            _ => None,
        })
        .collect()
}

struct Bare {
    _dir: tempfile::TempDir,
    root: PathBuf,
    work: PathBuf,
    model: Model,
}

async fn bare() -> Bare {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    Bare {
        _dir: dir,
        root,
        work,
        model: Model::start().await,
    }
}

/// Sealed, a command can't read what the seal hides, nor write outside
/// the work folder, nor see the key or the hook's token; inside the work
/// folder it writes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sandbox_hides_the_seals_list_and_the_secrets() {
    let b = bare().await;
    let hidden = b.root.join("keys");
    std::fs::create_dir_all(&hidden).unwrap();
    std::fs::write(hidden.join("id_ed25519"), "canary-clé").unwrap();
    let outside = b.root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let home = b.root.join("home");
    let engine = ClaudeCode::new(rig::config(&home, &b.model));
    b.model.script(
        "seal-run",
        vec![tool(
            "Bash",
            json!({
                "command": format!(
                    "cat {k} > read.txt 2>&1; echo \"key=$ANTHROPIC_API_KEY token=$CONCH_HOOK_TOKEN\" > env.txt; echo x > {o}/escaped.txt; echo inside > inside.txt",
                    k = hidden.join("id_ed25519").display(),
                    o = outside.display()
                ),
                "description": "try"
            }),
        )],
    );
    let gate = Arc::new(Open::default());
    let (_stop, stop) = tokio::sync::watch::channel(false);
    let mut turn = native_turn("sealed", &b.work, "seal-run", Mode::Full);
    turn.hidden = vec![hidden.clone()];
    turn.sealing = true;
    engine.turn(turn, gate.clone(), stop).await.unwrap();
    let seen = gate.seen.lock().unwrap();
    let read = std::fs::read_to_string(b.work.join("read.txt")).unwrap_or_default();
    assert!(
        !read.contains("canary"),
        "the hidden key was read: {read}\n{seen:?}"
    );
    let env = std::fs::read_to_string(b.work.join("env.txt")).unwrap();
    assert_eq!(env.trim(), "key= token=", "{seen:?}");
    assert!(!outside.join("escaped.txt").exists(), "{seen:?}");
    assert_eq!(
        std::fs::read_to_string(b.work.join("inside.txt"))
            .unwrap()
            .trim(),
        "inside"
    );
}

/// The hook's program is missing: Claude Code would step past a hook that
/// fails any other way, so the call must be refused, even when bypassing
/// permissions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_cant_reach_conch_refuses_the_call() {
    let b = bare().await;
    let mut config = rig::config(&b.root.join("home"), &b.model);
    config.hook = PathBuf::from("/nonexistent/conch");
    let engine = ClaudeCode::new(config);
    b.model.script(
        "lost-run",
        vec![tool(
            "Bash",
            json!({"command": "echo ran > ran.txt", "description": "write"}),
        )],
    );
    let gate = Arc::new(Open::default());
    let (_stop, stop) = tokio::sync::watch::channel(false);
    let _ = engine
        .turn(
            native_turn("lost", &b.work, "lost-run", Mode::Full),
            gate.clone(),
            stop,
        )
        .await;
    assert!(!b.work.join("ran.txt").exists());
    let seen = gate.seen.lock().unwrap();
    let results = finished(&seen);
    assert!(
        results
            .iter()
            .any(|(ok, out)| !ok && out.contains("Conch could not check this call")),
        "{seen:?}"
    );
}

/// A second turn in the chat continues the first's session: the model
/// sees the first turn's words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chats_later_turn_continues_its_session() {
    let b = bare().await;
    let home = b.root.join("home");
    let engine = ClaudeCode::new(rig::config(&home, &b.model));
    for prompt in ["Bonjour, je m'appelle Zoé.", "Comment je m'appelle ?"] {
        let gate = Arc::new(Open::default());
        let (_stop, stop) = tokio::sync::watch::channel(false);
        engine
            .turn(native_turn("c1", &b.work, prompt, Mode::Ask), gate, stop)
            .await
            .unwrap();
    }
    let last = b
        .model
        .requests()
        .into_iter()
        .rfind(|r| r["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .unwrap();
    let sent = last["messages"].to_string();
    assert!(sent.contains("Zoé"), "{sent}");
    assert!(sent.contains("Comment je m'appelle"), "{sent}");
    // Its HOME is a folder of Conch's, one per chat.
    assert!(home.join("engines/claude-code/chats/c1/.claude").is_dir());
}

/// A gate whose asks never come back: only Stop ends the turn.
struct Stuck;

impl Gate for Stuck {
    fn quick(&self, _call: NativeCall) -> BoxFuture<'_, Quick> {
        Box::pin(async { Quick::Ask("Can I?".into()) })
    }
    fn ask(&self, _call: NativeCall) -> BoxFuture<'_, Verdict> {
        Box::pin(std::future::pending())
    }
    fn report(&self, _event: NativeEvent) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_ends_the_turn_while_a_question_waits() {
    let b = bare().await;
    let engine = Arc::new(ClaudeCode::new(rig::config(&b.root.join("home"), &b.model)));
    b.model.script(
        "stop-run",
        vec![tool(
            "Bash",
            json!({"command": "echo ran > ran.txt", "description": "write"}),
        )],
    );
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let running = {
        let engine = engine.clone();
        let work = b.work.clone();
        tokio::spawn(async move {
            engine
                .turn(
                    native_turn("s1", &work, "stop-run", Mode::Ask),
                    Arc::new(Stuck),
                    stop,
                )
                .await
        })
    };
    // Wait until Claude Code has asked.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    stop_tx.send(true).unwrap();
    let result = tokio::time::timeout(std::time::Duration::from_secs(10), running)
        .await
        .expect("Stop ended the turn")
        .unwrap();
    assert_eq!(result, Err(engines::EngineError::Stopped));
    assert!(!b.work.join("ran.txt").exists());
}

/// Auto mode: the reviewer is asked through a one-shot `claude -p` with no
/// tools, and its yes lets the command run without the owner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_mode_asks_the_reviewer_through_claude_code() {
    // Sealed, so the command is Auto mode's to judge (an unsealed one is the owner's).
    let r = rig(Mode::Auto, BTreeMap::new(), true).await;
    r.model.plain(
        r#"{"verdict":"allow","risk":"low","evidence":["m1"],"reason":"The owner asked for this file."}"#,
    );
    r.model.script(
        "auto-run",
        vec![tool(
            "Bash",
            json!({"command": "printf 'auto' > auto.txt && rm -rf ./scratch", "description": "write"}),
        )],
    );
    let chat = r.chats.create(Default::default()).await.unwrap();
    chat.post("auto-run: write auto into auto.txt and remove ./scratch")
        .await
        .unwrap();
    let end = until(&chat, 0, |e| ended(e) || asked(e)).await;
    let log = chat.log.events_after(0).unwrap();
    assert!(matches!(end.body, Body::TurnEnded(_)), "{log:#?}");
    assert!(
        log.iter().any(|e| matches!(&e.body, Body::ReviewJudged(_))),
        "{log:#?}"
    );
    assert_eq!(
        std::fs::read_to_string(r.work.join("auto.txt")).unwrap(),
        "auto"
    );
    // The reviewer's call had no tools and Conch's own system prompt.
    let reviews: Vec<_> = r
        .model
        .requests()
        .into_iter()
        .filter(|q| {
            q.to_string().contains("auto-run") && q["tools"].as_array().is_none_or(|t| t.is_empty())
        })
        .collect();
    assert!(!reviews.is_empty());
}

/// A sub-agent (Task) is a helper: its own calls pass the same hook, so
/// the chat's mark holds for them too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agents_calls_carry_the_chats_mark() {
    let r = rig(Mode::Edits, BTreeMap::new(), false).await;
    r.model.script(
        "main-run",
        vec![
            tool("WebSearch", json!({"query": "nouvelles"})),
            tool(
                "Task",
                json!({"description": "Write a file", "prompt": "sub-run: write the file", "subagent_type": "general-purpose"}),
            ),
        ],
    );
    r.model.script(
        "sub-run",
        vec![tool(
            "Bash",
            json!({"command": "echo sub > sub.txt", "description": "write"}),
        )],
    );
    let chat = r.chats.create(Default::default()).await.unwrap();
    chat.post("main-run").await.unwrap();
    let e = until(&chat, 0, |e| asked(e) || ended(e)).await;
    let log = chat.log.events_after(0).unwrap();
    let Body::PermissionRequested(ask) = &e.body else {
        panic!("no question: {log:#?}")
    };
    assert_eq!(ask.tool, "Bash");
    assert!(
        ask.why.iter().any(|w| w == "after-reading.command"),
        "{:?}",
        ask.why
    );
    chat.answer(&ask.ask, Answer::Deny, "owner".into())
        .await
        .unwrap();
    let end = until(&chat, e.seq, ended).await;
    let Body::TurnEnded(end) = &end.body else {
        unreachable!()
    };
    assert_eq!(end.reason, EndReason::Done);
    assert!(!r.work.join("sub.txt").exists());
    // The sub-agent itself is recorded as a call (Claude Code's hooks name
    // the Task tool Agent; both read as a delegate).
    assert!(chat
        .log
        .events_after(0)
        .unwrap()
        .iter()
        .any(|e| matches!(&e.body, Body::ToolCalled(c) if c.tool == "Agent" || c.tool == "Task")));
}

/// Compaction (here asked for with /compact) reaches Conch as
/// `compacted`, from Claude Code's PostCompact hook.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compaction_is_reported() {
    let b = bare().await;
    let engine = ClaudeCode::new(rig::config(&b.root.join("home"), &b.model));
    let mut seen = Vec::new();
    for prompt in ["Bonjour, je suis Zoé.", "/compact"] {
        let gate = Arc::new(Open::default());
        let (_stop, stop) = tokio::sync::watch::channel(false);
        engine
            .turn(
                native_turn("k1", &b.work, prompt, Mode::Ask),
                gate.clone(),
                stop,
            )
            .await
            .unwrap();
        seen.extend(gate.seen.lock().unwrap().drain(..));
    }
    assert!(
        seen.iter()
            .any(|e| matches!(e, NativeEvent::Compacted { summary } if !summary.is_empty())),
        "{seen:?}"
    );
}

/// A gate that answers from the mode the owner has now; the owner picks
/// Full trust while a question waits.
struct Switching {
    full: std::sync::atomic::AtomicBool,
    asked: tokio::sync::Notify,
    go: tokio::sync::Notify,
}

impl Gate for Switching {
    fn quick(&self, _call: NativeCall) -> BoxFuture<'_, Quick> {
        Box::pin(async move {
            if self.full.load(std::sync::atomic::Ordering::SeqCst) {
                Quick::Allow
            } else {
                Quick::Ask("Can I?".into())
            }
        })
    }
    fn ask(&self, call: NativeCall) -> BoxFuture<'_, Verdict> {
        Box::pin(async move {
            self.asked.notify_one();
            self.go.notified().await;
            Verdict::Allow { input: call.input }
        })
    }
    fn report(&self, _event: NativeEvent) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

/// Full trust picked mid-turn: Claude Code switches to default (never to
/// bypassPermissions), and Conch answers from then on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_trust_picked_mid_turn_runs_as_default() {
    let b = bare().await;
    let engine = Arc::new(ClaudeCode::new(rig::config(&b.root.join("home"), &b.model)));
    b.model.script(
        "switch-run",
        vec![
            tool(
                "Bash",
                json!({"command": "echo one > one.txt", "description": "write"}),
            ),
            tool(
                "Bash",
                json!({"command": "echo two > two.txt", "description": "write"}),
            ),
        ],
    );
    let gate = Arc::new(Switching {
        full: false.into(),
        asked: tokio::sync::Notify::new(),
        go: tokio::sync::Notify::new(),
    });
    let (_stop, stop) = tokio::sync::watch::channel(false);
    let running = {
        let (engine, gate, work) = (engine.clone(), gate.clone(), b.work.clone());
        tokio::spawn(async move {
            engine
                .turn(
                    native_turn("m1", &work, "switch-run", Mode::Ask),
                    gate,
                    stop,
                )
                .await
        })
    };
    gate.asked.notified().await;
    gate.full.store(true, std::sync::atomic::Ordering::SeqCst);
    engine.set_mode("m1", Mode::Full);
    gate.go.notify_one();
    running.await.unwrap().unwrap();
    assert!(b.work.join("one.txt").exists());
    assert!(b.work.join("two.txt").exists());
}

/// A hook that answers nothing (exit 0, no verdict) lets Claude Code run
/// a call unchecked where its own mode allows by itself (an edit in
/// acceptEdits; Full trust is Claude Code's `default`, where the call
/// still reaches Conch's permission channel); Conch sees it and stops the
/// turn with a sentence.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_ran_unchecked_stops_the_turn() {
    let b = bare().await;
    let mut config = rig::config(&b.root.join("home"), &b.model);
    config.hook = PathBuf::from("/bin/true");
    let engine = ClaudeCode::new(config);
    let write = |name: &str| {
        tool(
            "Write",
            json!({"file_path": b.work.join(name).to_string_lossy(), "content": "x\n"}),
        )
    };
    b.model
        .script("silent-run", vec![write("one.txt"), write("two.txt")]);
    let gate = Arc::new(Open::default());
    let (_stop, stop) = tokio::sync::watch::channel(false);
    let result = engine
        .turn(
            native_turn("silent", &b.work, "silent-run", Mode::Edits),
            gate.clone(),
            stop,
        )
        .await;
    match result {
        Err(engines::EngineError::Protocol(said)) => {
            assert!(said.contains("so the turn was stopped"), "{said}")
        }
        other => panic!("{other:?}"),
    }
    // It went no further than the call it caught.
    assert!(!b.work.join("two.txt").exists());
}

/// The engine in the box: the seal, as `conch serve` sets it up for a
/// Conch folder at `conch_home`, also hiding `hidden`.
fn engine_box(
    conch_home: &std::path::Path,
    hidden: &[PathBuf],
) -> Arc<dyn engines::boxing::Boxing> {
    std::fs::create_dir_all(conch_home).unwrap();
    let mut sealed = seal::Sealed::new(conch_home, tools::protected::here(conch_home)).unwrap();
    sealed.extra_hidden = hidden.to_vec();
    Arc::new(conversations::EngineBox(Arc::new(sealed)))
}

/// In the box, Claude Code's commands run sealed beside it: they can't
/// read what the seal hides, write outside the work folder, or see the
/// key or the hook's token (in their environment or the engine's); inside
/// the work folder they write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_box_commands_run_sealed_beside_the_engine() {
    let b = bare().await;
    let hidden = b.root.join("keys");
    std::fs::create_dir_all(&hidden).unwrap();
    std::fs::write(hidden.join("id_ed25519"), "canary-clé").unwrap();
    let outside = b.root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let home = b.root.join("home");
    let engine = ClaudeCode::new(rig::config(&home, &b.model));
    b.model.script(
        "boxed-run",
        vec![tool(
            "Bash",
            json!({
                "command": format!(
                    "cat {k} > read.txt 2>&1; echo \"key=$ANTHROPIC_API_KEY token=$CONCH_HOOK_TOKEN\" > env.txt; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c sk-ant-test-key > proc.txt; echo x > {o}/escaped.txt; echo inside > inside.txt; pwd > pwd.txt",
                    k = hidden.join("id_ed25519").display(),
                    o = outside.display()
                ),
                "description": "try"
            }),
        )],
    );
    let gate = Arc::new(Open::default());
    let (_stop, stop) = tokio::sync::watch::channel(false);
    let mut turn = native_turn("boxed", &b.work, "boxed-run", Mode::Full);
    turn.sealing = true;
    turn.boxed = Some(engine_box(&home, std::slice::from_ref(&hidden)));
    engine.turn(turn, gate.clone(), stop).await.unwrap();
    let seen = gate.seen.lock().unwrap();
    let read = std::fs::read_to_string(b.work.join("read.txt")).unwrap_or_default();
    assert!(
        !read.contains("canary"),
        "the hidden key was read: {read}\n{seen:?}"
    );
    let env = std::fs::read_to_string(b.work.join("env.txt")).unwrap();
    assert_eq!(env.trim(), "key= token=", "{seen:?}");
    let proc = std::fs::read_to_string(b.work.join("proc.txt")).unwrap();
    assert_eq!(proc.trim(), "0", "the engine's key through /proc: {seen:?}");
    assert!(!outside.join("escaped.txt").exists(), "{seen:?}");
    assert_eq!(
        std::fs::read_to_string(b.work.join("inside.txt"))
            .unwrap()
            .trim(),
        "inside"
    );
}

/// In the box, Claude Code's own tools can't reach what the seal hides,
/// whatever they are pointed at: Grep, Glob and Read rooted at `/`, at the
/// engine's HOME and its parents, and at `..` of the work folder, in every
/// mode, bring no planted secret and nothing of Conch's folder (the device
/// key included) to the model. The control: a Grep of the work folder finds
/// its text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_box_the_engines_own_tools_find_nothing_protected() {
    // Made here, so no source file on this computer holds them.
    let nonce = format!(
        "{:x}{:x}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos()
    );
    let [ssh, device, hash] = ["ssh", "device", "hash"].map(|w| format!("zq{nonce}-{w}-clé"));
    for mode in [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full] {
        let b = bare().await;
        let hidden = b.root.join("keys");
        std::fs::create_dir_all(&hidden).unwrap();
        std::fs::write(hidden.join("id_ed25519"), &ssh).unwrap();
        let home = b.root.join("home");
        std::fs::create_dir_all(home.join("keystore")).unwrap();
        std::fs::write(home.join("keystore/device.key"), &device).unwrap();
        std::fs::write(home.join("owner.json"), &hash).unwrap();
        std::fs::write(b.work.join("notes.txt"), "control-mot-trouvé").unwrap();
        let engine = ClaudeCode::new(rig::config(&home, &b.model));
        let mut steps = Vec::new();
        // Walking all of `/` is slow: once is enough.
        let everything = (mode == Mode::Full).then(|| "/".to_owned());
        for root in everything.into_iter().chain([
            b.root.display().to_string(),
            format!("{}/..", b.work.display()),
            home.display().to_string(),
            "~".to_owned(),
            "~/..".to_owned(),
            "~/../..".to_owned(),
        ]) {
            steps.push(tool(
                "Grep",
                json!({"pattern": format!("zq{nonce}"), "path": root, "output_mode": "content"}),
            ));
            steps.push(tool(
                "Glob",
                json!({"pattern": "**/device.key", "path": root}),
            ));
        }
        for file in [
            hidden.join("id_ed25519"),
            home.join("keystore/device.key"),
            home.join("owner.json"),
        ] {
            steps.push(tool("Read", json!({"file_path": file})));
        }
        steps.push(tool(
            "Grep",
            json!({"pattern": "control-mot", "path": b.work, "output_mode": "content"}),
        ));
        b.model.script("walk", steps);
        let gate = Arc::new(Open::default());
        let (_stop, stop) = tokio::sync::watch::channel(false);
        let mut turn = native_turn("walker", &b.work, "walk", mode);
        turn.sealing = true;
        turn.boxed = Some(engine_box(&home, std::slice::from_ref(&hidden)));
        engine.turn(turn, gate.clone(), stop).await.unwrap();
        // What the tools brought back, as the model got it.
        let sent: String = b
            .model
            .requests()
            .iter()
            .flat_map(|r| r["messages"].as_array().cloned().unwrap_or_default())
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .filter(|c| c["type"] == "tool_result")
            .map(|c| c["content"].to_string())
            .collect();
        if let Some(i) = sent.find("canary-cl") {
            panic!(
                "{mode:?}: a hidden key reached the model: {}",
                &sent[i.saturating_sub(600)..(i + 100).min(sent.len())]
            );
        }
        assert!(
            !sent.contains(&device),
            "{mode:?}: the device key reached the model"
        );
        assert!(
            !sent.contains(&hash),
            "{mode:?}: Conch's folder reached the model"
        );
        // Other Conch folders on this computer (other tests') may be found;
        // this one's may not.
        let ours = home.join("keystore/device.key").display().to_string();
        assert!(
            !sent.contains(&ours),
            "{mode:?}: a Glob found the device key"
        );
        assert!(
            sent.contains("control-mot-trouvé"),
            "{mode:?}: the control found nothing: {sent}"
        );
    }
}
