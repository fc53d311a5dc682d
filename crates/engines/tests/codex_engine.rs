//! The Codex engine against the real `codex` (installed from npm by
//! ./run-tests) and a scripted Responses API on 127.0.0.1: what Codex says
//! and does reaches the gate in order, its hook asks the gate before each
//! call, a chat keeps its Codex thread, and Stop ends a turn that waits.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "support/codex_bin.rs"]
mod codex_bin;
#[path = "support/responses.rs"]
mod responses;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engines::codex::CodexEngine;
use engines::providers::{Provider, ProviderKind, ProviderSettings};
use engines::{BoxFuture, Gate, NativeCall, NativeEngine, NativeEvent, NativeTurn, Quick, Verdict};
use protocol::Mode;
use responses::{patch, run, say, type_into, Responses};

/// A gate that answers from a rule and writes down everything.
struct Recorder {
    quick: Box<dyn Fn(&NativeCall) -> Quick + Send + Sync>,
    asked: Mutex<Vec<NativeCall>>,
    events: Mutex<Vec<NativeEvent>>,
    /// `ask` waits this long before it allows.
    ask_wait: Duration,
}

impl Gate for Recorder {
    fn quick(&self, call: NativeCall) -> BoxFuture<'_, Quick> {
        Box::pin(async move { (self.quick)(&call) })
    }
    fn ask(&self, call: NativeCall) -> BoxFuture<'_, Verdict> {
        Box::pin(async move {
            self.asked.lock().unwrap().push(call.clone());
            tokio::time::sleep(self.ask_wait).await;
            Verdict::Allow { input: call.input }
        })
    }
    fn report(&self, event: NativeEvent) -> BoxFuture<'_, ()> {
        Box::pin(async move { self.events.lock().unwrap().push(event) })
    }
}

fn recorder(quick: impl Fn(&NativeCall) -> Quick + Send + Sync + 'static) -> Arc<Recorder> {
    Arc::new(Recorder {
        quick: Box::new(quick),
        asked: Mutex::default(),
        events: Mutex::default(),
        ask_wait: Duration::ZERO,
    })
}

struct World {
    _dir: tempfile::TempDir,
    work: PathBuf,
    engine: CodexEngine,
    server: Responses,
}

async fn world(script: Vec<Vec<serde_json::Value>>) -> World {
    // Not under /tmp: Codex won't make its helpers there.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let server = Responses::start(script).await;
    let engine = codex_bin::codex_engine("codex-test", &server.url, &root.join("home"));
    World {
        _dir: dir,
        work,
        engine,
        server,
    }
}

fn turn(w: &World, prompt: &str) -> NativeTurn {
    NativeTurn {
        chat: "chat1".into(),
        work: w.work.clone(),
        system: "You are Conch's assistant.".into(),
        prompt: prompt.into(),
        mode: Mode::Ask,
        tight: false,
        hidden: Vec::new(),
        sealing: true,
        apps: Vec::new(),
        boxed: None,
    }
}

async fn run_turn(
    w: &World,
    gate: Arc<Recorder>,
    prompt: &str,
) -> Result<(), engines::EngineError> {
    let (_stop, rx) = tokio::sync::watch::channel(false);
    tokio::time::timeout(
        Duration::from_secs(60),
        w.engine.turn(turn(w, prompt), gate, rx),
    )
    .await
    .expect("the turn ends")
}

#[tokio::test]
async fn what_codex_says_and_runs_reaches_the_gate_in_order() {
    let w = world(vec![
        vec![say("Looking first."), run("c1", "echo héllo wörld")],
        vec![say("Done ✓ — it said héllo.")],
    ])
    .await;
    let gate = recorder(|_| Quick::Allow);
    run_turn(&w, gate.clone(), "Say hello").await.unwrap();
    let events = gate.events.lock().unwrap().clone();
    let called = events
        .iter()
        .position(|e| matches!(e, NativeEvent::ToolCalled(c) if c.id == "c1"))
        .expect("the call is reported");
    let finished = events
        .iter()
        .position(|e| matches!(e, NativeEvent::ToolFinished { id, ok: true, output } if id == "c1" && output.contains("héllo wörld")))
        .unwrap_or_else(|| panic!("the result is reported: {events:#?}"));
    let first_text = events
        .iter()
        .position(|e| matches!(e, NativeEvent::Text(t) if t.contains("Looking first.")))
        .expect("the first words");
    let last_text = events
        .iter()
        .position(|e| matches!(e, NativeEvent::Text(t) if t.contains("Done ✓")))
        .expect("the last words");
    assert!(
        first_text < called && called < finished && finished < last_text,
        "{events:#?}"
    );
    // Each of the two requests' tokens, as the model server said them
    // (10 in, 5 out), reported for the caps.
    let used: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            NativeEvent::Usage { input, output } => Some((*input, *output)),
            _ => None,
        })
        .collect();
    assert!(
        !used.is_empty() && used.iter().all(|u| *u == (10, 5)),
        "{used:?}"
    );
    let NativeEvent::ToolCalled(call) = &events[called] else {
        unreachable!()
    };
    assert_eq!(call.tool, "commandExecution");
    assert_eq!(call.input["command"], "echo héllo wörld");
    assert_eq!(
        call.input["sandboxed"], true,
        "sealing is on: Codex seals it"
    );
    // The model heard back what ran.
    assert!(w.server.output_of("c1").unwrap().contains("héllo wörld"));
}

#[tokio::test]
async fn a_denied_call_never_runs_and_its_refusal_is_the_result() {
    denied(false).await;
}

#[tokio::test]
async fn a_denied_call_never_runs_through_codexs_own_pipe_either() {
    denied(true).await;
}

async fn denied(codex_pipe: bool) {
    let mut w = world(vec![vec![run("c1", "touch made-it")], vec![say("ok")]]).await;
    if codex_pipe {
        w.engine = w.engine.with_codex_pipe();
    }
    let gate = recorder(|_| Quick::Deny("Conch said no.".into()));
    run_turn(&w, gate.clone(), "Make a file").await.unwrap();
    assert!(!w.work.join("made-it").exists());
    let events = gate.events.lock().unwrap().clone();
    assert!(
        events.iter().any(|e| matches!(e, NativeEvent::ToolFinished { id, ok: false, output } if id == "c1" && output == "Conch said no.")),
        "{events:#?}"
    );
    assert!(w.server.output_of("c1").unwrap().contains("Conch said no."));
}

#[tokio::test]
async fn a_chat_keeps_its_codex_thread() {
    let w = world(vec![vec![say("First.")], vec![say("Second.")]]).await;
    run_turn(&w, recorder(|_| Quick::Allow), "The first question ✓")
        .await
        .unwrap();
    run_turn(&w, recorder(|_| Quick::Allow), "The second question")
        .await
        .unwrap();
    let requests = w.server.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1]["input"].to_string();
    assert!(second.contains("The first question ✓"), "{second}");
    assert!(second.contains("First."), "{second}");
    assert_eq!(
        requests[0]["prompt_cache_key"],
        requests[1]["prompt_cache_key"]
    );
}

#[tokio::test]
async fn stop_ends_a_turn_that_waits_for_the_owner() {
    let w = world(vec![vec![run("c1", "touch late")], vec![say("ok")]]).await;
    let gate = Arc::new(Recorder {
        quick: Box::new(|_| Quick::Ask("May I?".into())),
        asked: Mutex::default(),
        events: Mutex::default(),
        ask_wait: Duration::from_secs(3600),
    });
    let (stop, rx) = tokio::sync::watch::channel(false);
    let g = gate.clone();
    let running = tokio::spawn(async move {
        let t = turn(&w, "Make it");
        let r = w.engine.turn(t, g, rx).await;
        (r, w)
    });
    for _ in 0..600 {
        if !gate.asked.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(gate.asked.lock().unwrap().len(), 1, "the hook asks");
    stop.send(true).unwrap();
    let (result, w) = tokio::time::timeout(Duration::from_secs(10), running)
        .await
        .expect("Stop ends it")
        .unwrap();
    assert_eq!(result, Err(engines::EngineError::Stopped));
    assert!(!w.work.join("late").exists());
}

#[tokio::test]
async fn what_is_typed_into_a_command_later_reaches_nothing_it_reads() {
    let w = world(vec![
        vec![serde_json::json!({ "type": "function_call", "id": "fc_c1", "call_id": "c1",
            "name": "exec_command",
            "arguments": serde_json::json!({"cmd": "bash", "tty": true, "yield_time_ms": 500}).to_string() })],
        vec![type_into("c2", "touch typed-in; echo typed\n")],
        vec![say("ok")],
    ])
    .await;
    let gate = recorder(|_| Quick::Allow);
    run_turn(&w, gate.clone(), "Open a shell").await.unwrap();
    assert!(
        !w.work.join("typed-in").exists(),
        "the shell the owner allowed read what was typed later"
    );
    // The shell itself ran: it ended at once, its input being /dev/null.
    let events = gate.events.lock().unwrap().clone();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, NativeEvent::ToolFinished { id, ok: true, .. } if id == "c1")),
        "{events:#?}"
    );
}

#[tokio::test]
async fn a_home_under_tmp_is_refused_with_a_sentence() {
    let server = Responses::start(vec![vec![say("never")]]).await;
    let tmp = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let work = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let engine = CodexEngine::new(
        Provider {
            settings: ProviderSettings {
                name: "codex-test".into(),
                kind: ProviderKind::Codex,
                base_url: server.url.clone(),
                model: String::new(),
                context_tokens: 100_000,
                max_tokens: 4096,
                bin: Some(codex_bin::codex_bin().to_string_lossy().into_owned()),
                prices: None,
                no_cap: false,
            },
            key: None,
        },
        tmp.path(),
    );
    let (_stop, rx) = tokio::sync::watch::channel(false);
    let t = NativeTurn {
        chat: "c".into(),
        work: work.path().to_path_buf(),
        system: String::new(),
        prompt: "hi".into(),
        mode: Mode::Ask,
        tight: false,
        hidden: Vec::new(),
        sealing: true,
        apps: Vec::new(),
        boxed: None,
    };
    let err = engine
        .turn(t, recorder(|_| Quick::Allow), rx)
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("Codex won't run with its folder under"),
        "{err}"
    );
    assert!(server.requests().is_empty());
}

/// A hunk header indented by a space was read by Codex and not by Conch:
/// the gate saw one harmless path while the patch wrote outside the work
/// folder. Every spelling is read as Codex reads it, and what Codex asks
/// to change outside the sandbox is judged by Codex's own list.
#[tokio::test]
async fn a_patch_is_judged_by_the_paths_codex_reads_in_it() {
    for (n, head) in [" *** Add File: ", "\t*** Add File: "]
        .into_iter()
        .enumerate()
    {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let outside = dir.path().canonicalize().unwrap().join("authorized_keys");
        let text = format!(
            "*** Begin Patch\n*** Add File: notizen-für-zoë.md\n+ok\n{head}{}\n+ssh-ed25519 AAAA evil\n*** End Patch",
            outside.display()
        );
        let w = world(vec![vec![patch("p1", &text)], vec![say("Done.")]]).await;
        let gate = recorder(|c| {
            if c.input.to_string().contains("authorized_keys") {
                Quick::Deny("Not there.".into())
            } else {
                Quick::Allow
            }
        });
        run_turn(&w, gate.clone(), "Note it").await.unwrap();
        assert!(
            !outside.exists(),
            "spelling {n}: nothing is written outside"
        );
        assert!(
            !w.work.join("notizen-für-zoë.md").exists(),
            "spelling {n}: the refused patch changes nothing"
        );
        let events = gate.events.lock().unwrap().clone();
        let called = events
            .iter()
            .find_map(|e| match e {
                NativeEvent::ToolCalled(c) if c.id == "p1" => Some(c.clone()),
                _ => None,
            })
            .expect("the patch reached the gate");
        assert_eq!(called.tool, "fileChange");
        assert!(
            called.input.to_string().contains("authorized_keys"),
            "spelling {n}: {}",
            called.input
        );
    }
}

/// The control: a change outside the work folder that the gate allows is
/// applied, checked against Codex's own list of what it changes.
#[tokio::test]
async fn an_allowed_patch_outside_the_work_folder_is_applied() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let outside = dir.path().canonicalize().unwrap().join("Bericht.md");
    let text = format!(
        "*** Begin Patch\n*** Add File: {}\n+Grüße\n*** End Patch",
        outside.display()
    );
    let w = world(vec![vec![patch("p1", &text)], vec![say("Done.")]]).await;
    let gate = recorder(|_| Quick::Allow);
    run_turn(&w, gate.clone(), "Write it").await.unwrap();
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "Grüße\n");
}

/// `$CODEX_HOME` pointed inside Conch's folder, so `$CODEX_HOME/../../..`
/// reached the device key by a spelling no rule reads. Commands aren't
/// given it.
#[tokio::test]
async fn a_codex_home_relative_read_finds_nothing_of_conchs() {
    let cmd = r#"echo "home=[$CODEX_HOME]"; cat "$CODEX_HOME/../../../keystore/device.key""#;
    let w = world(vec![vec![run("c1", cmd)], vec![say("Done.")]]).await;
    let keystore = w.work.parent().unwrap().join("home/keystore");
    std::fs::create_dir_all(&keystore).unwrap();
    std::fs::write(keystore.join("device.key"), "geheimer-schlüssel-42").unwrap();
    let gate = recorder(|_| Quick::Allow);
    run_turn(&w, gate.clone(), "Look around").await.unwrap();
    let out = w.server.output_of("c1").expect("the command ran");
    assert!(out.contains("home=[]"), "{out}");
    assert!(!out.contains("geheimer-schlüssel-42"), "{out}");
}
