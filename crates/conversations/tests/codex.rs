//! The real Codex (installed from npm by ./run-tests) as a chat's engine,
//! against a scripted Responses API on 127.0.0.1, with the real guard and
//! the real chat log. For every approval policy Codex accepts:
//!
//! - a marked chat's command asks the owner, and runs in Codex's sandbox
//!   with no network (a connect to a listener on 127.0.0.1 never arrives,
//!   a write outside the work folder fails, a command that asks to leave
//!   the sandbox doesn't), and the chat is told so once;
//! - a protected path is denied;
//! - a tool turned off is denied;
//! - a skill hold's off-list command asks.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

#[path = "../../engines/tests/support/codex_bin.rs"]
mod codex_bin;
#[path = "../../engines/tests/support/responses.rs"]
mod responses;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use conversations::{Chat, Chats, ChatsConfig, Durability, GuardConfig, Home, NewChat, NoTools};
use engines::codex::{Policy, TIGHT_NOTE};
use protocol::{Answer, Body, Event, Mode, PermissionRequested};
use responses::{run, run_in, run_outside_sandbox, say, searched, Responses};
use serde_json::Value;

struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    work: PathBuf,
    home: Home,
    chats: Arc<Chats>,
}

fn write_skill(home: &Path, name: &str, front: &str) {
    let dir = home.join("skills").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: d\n{front}---\nDo the {name} steps.\n"),
    )
    .unwrap();
}

/// A Conch home whose chats run on the real Codex under `policy`, talking
/// to `server`.
fn world(policy: Policy, server: &Responses, policies: BTreeMap<String, guard::Policy>) -> World {
    world_with(Some(policy), server, policies, true)
}

fn world_with(
    policy: Option<Policy>,
    server: &Responses,
    policies: BTreeMap<String, guard::Policy>,
    sealing: bool,
) -> World {
    // Not under /tmp: Codex won't make its helpers there.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let home = Home::open(&root.join("home")).unwrap();
    write_skill(
        home.root(),
        "quick-setup",
        "permissions:\n  commands: [git]\n",
    );
    let engine = codex_bin::codex_engine("codex", &server.url, home.root());
    let engine = match policy {
        Some(p) => engine.with_policy(p),
        None => engine,
    };
    let catalog = Arc::new(skills::Catalog {
        conch_home: home.root().to_path_buf(),
        person_home: None,
        project: None,
    });
    let chats = Chats::new(
        home.clone(),
        Arc::new(engine),
        Arc::new(NoTools),
        ChatsConfig {
            durability: Durability::Group,
            default_work: work.clone(),
            default_mode: Mode::Ask,
            policies,
            guard: GuardConfig {
                protected: Arc::new(guard::Protected::usual(
                    None,
                    &home.root().to_string_lossy(),
                )),
                switches: Some(Arc::new(conversations::safety::Switches::new(
                    &conversations::Safety {
                        sealed_commands: sealing,
                        // Codex runs outside Conch's box: the owner allowed it.
                        engines_in_box: false,
                        ..conversations::Safety::default()
                    },
                ))),
                ..GuardConfig::default()
            },
            skills: Some(catalog),
            max_steps: None,
        },
    );
    World {
        _dir: dir,
        root,
        work,
        home,
        chats,
    }
}

async fn chat(w: &World, mode: Mode) -> Arc<Chat> {
    w.chats
        .create(NewChat {
            mode: Some(mode),
            ..NewChat::default()
        })
        .await
        .unwrap()
}

/// Waits until the chat has ended `n` turns, answering every question
/// with `answer`; the questions asked.
async fn turns(chat: &Chat, n: usize, answer: Answer) -> (Vec<Event>, Vec<PermissionRequested>) {
    let mut follow = chat.log.follow();
    let mut asked: Vec<PermissionRequested> = Vec::new();
    loop {
        let events = chat.log.events_after(0).unwrap();
        for e in &events {
            if let Body::PermissionRequested(p) = &e.body {
                if !asked.iter().any(|a| a.ask == p.ask) {
                    asked.push(p.clone());
                    // One asked in an earlier turn is answered already.
                    let _ = chat.answer(&p.ask, answer, "owner".into()).await;
                }
            }
        }
        let ended = events
            .iter()
            .filter(|e| matches!(e.body, Body::TurnEnded(_)))
            .count();
        if ended >= n {
            return (events, asked);
        }
        if tokio::time::timeout(Duration::from_secs(60), follow.recv())
            .await
            .is_err()
        {
            panic!(
                "stuck: {:#?}",
                events.iter().map(|e| e.to_line()).collect::<Vec<_>>()
            );
        }
    }
}

fn finished<'a>(events: &'a [Event], call: &str) -> &'a protocol::ToolFinished {
    events
        .iter()
        .find_map(|e| match &e.body {
            Body::ToolFinished(f) if f.call == call => Some(f),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{call} has a result: {:#?}", lines(events)))
}

fn lines(events: &[Event]) -> Vec<String> {
    events.iter().map(|e| e.to_line()).collect()
}

fn turn_ended_cleanly(events: &[Event]) {
    for e in events {
        if let Body::TurnEnded(t) = &e.body {
            assert_eq!(t.error, None, "{:#?}", lines(events));
        }
    }
}

/// The sandbox Codex said it ran the `n`th model request under.
fn sandbox_of(server: &Responses, n: usize) -> String {
    let r = &server.requests()[n];
    let meta: Value = serde_json::from_str(
        r["client_metadata"]["x-codex-turn-metadata"]
            .as_str()
            .unwrap_or("{}"),
    )
    .unwrap_or_default();
    meta["sandbox_mode"].as_str().unwrap_or("").to_owned()
}

/// A listener on 127.0.0.1 that counts who connects.
async fn listener() -> (u16, Arc<AtomicUsize>) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    tokio::spawn(async move {
        while let Ok((_s, _)) = l.accept().await {
            c.fetch_add(1, Ordering::SeqCst);
        }
    });
    (port, count)
}

async fn a_marked_chat_asks_and_stays_in_the_sandbox(policy: Policy) {
    let (port, connects) = listener().await;
    let server = Responses::start(vec![]).await;
    let w = world(policy, &server, BTreeMap::new());
    let outside = w.root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let (o, p) = (outside.display(), port);
    server.then(vec![
        // Turn 1: a web search marks the chat.
        vec![searched("ws1", "today's news"), say("Read the news.")],
        // Turn 2: commands.
        vec![run("c1", "echo asked-and-ran")],
        vec![run_outside_sandbox(
            "c2",
            &format!("touch {o}/escaped; bash -c 'echo x > /dev/tcp/127.0.0.1/{p}'"),
        )],
        vec![run(
            "c3",
            &format!("touch {o}/plain; bash -c 'echo x > /dev/tcp/127.0.0.1/{p}'; echo tried"),
        )],
        vec![say("Done.")],
        // Turn 3: the chat isn't told again.
        vec![say("Still here.")],
    ]);
    let chat = chat(&w, Mode::Ask).await;
    chat.post("What's in the news?").await.unwrap();
    let (events, asked) = turns(&chat, 1, Answer::Once).await;
    turn_ended_cleanly(&events);
    assert!(asked.is_empty(), "reading asks nothing");
    assert!(
        events.iter().any(|e| matches!(e.body, Body::Taint(_))),
        "the search marks the chat: {:#?}",
        lines(&events)
    );
    // Before it read anything, Codex was sealed as Conch seals commands.
    assert_eq!(sandbox_of(&server, 0), "workspace-write");

    chat.post("Now run these ✓").await.unwrap();
    let (events, asked) = turns(&chat, 2, Answer::Once).await;
    turn_ended_cleanly(&events);
    let q1 = asked
        .iter()
        .find(|a| a.call == "c1")
        .expect("c1 asks the owner");
    assert!(
        q1.why.contains(&"after-reading.command".to_owned()),
        "{:?}",
        q1.why
    );
    assert!(asked.iter().any(|a| a.call == "c3"), "c3 asks the owner");
    // The marked turn ran workspace-write.
    for n in 1..server.requests().len() {
        assert_eq!(sandbox_of(&server, n), "workspace-write", "request {n}");
    }
    let f1 = finished(&events, "c1");
    assert!(f1.ok && f1.output.contains("asked-and-ran"), "{f1:?}");
    // Asking to leave the sandbox didn't leave it.
    assert!(!finished(&events, "c2").ok);
    assert!(!outside.join("escaped").exists(), "{policy:?}");
    // The owner's yes ran c3 in the sandbox: no write outside, no network.
    assert!(finished(&events, "c3").output.contains("tried"));
    assert!(!outside.join("plain").exists(), "{policy:?}");
    assert_eq!(
        connects.load(Ordering::SeqCst),
        0,
        "{policy:?}: a connection arrived from the sandbox"
    );

    chat.post("Anything else?").await.unwrap();
    let (events, _) = turns(&chat, 3, Answer::Once).await;
    let notes = events
        .iter()
        .filter(|e| matches!(&e.body, Body::Reply(r) if r.text == TIGHT_NOTE))
        .count();
    assert_eq!(notes, 1, "told once: {:#?}", lines(&events));
}

async fn a_protected_path_is_denied(policy: Policy) {
    let server = Responses::start(vec![]).await;
    let w = world(policy, &server, BTreeMap::new());
    let secret = w.home.root().join("secret-probe.txt");
    std::fs::write(&secret, "TOP-SECRET-ünïcode").unwrap();
    server.then(vec![
        vec![run("p1", &format!("cat {}", secret.display()))],
        // The same file by a short name, from inside Conch's folder.
        vec![run_in(
            "p2",
            "cat secret-probe.txt",
            &w.home.root().to_string_lossy(),
        )],
        vec![say("Couldn't.")],
    ]);
    // Full trust, where nothing else asks.
    let chat = chat(&w, Mode::Full).await;
    chat.post("Read Conch's files").await.unwrap();
    let (events, asked) = turns(&chat, 1, Answer::Once).await;
    turn_ended_cleanly(&events);
    assert!(asked.is_empty());
    for call in ["p1", "p2"] {
        let f = finished(&events, call);
        assert!(!f.ok, "{call}: {f:?}");
        let told = server.output_of(call).expect("the model hears back");
        assert!(!told.contains("TOP-SECRET"), "{call}: {told}");
    }
    let log = std::fs::read_to_string(w.home.chat_dir(&chat.id).join("log.jsonl")).unwrap();
    assert!(!log.contains("TOP-SECRET"), "{policy:?}");
}

async fn a_tool_turned_off_is_denied(policy: Policy) {
    let server = Responses::start(vec![
        vec![run("o1", "touch off-but-ran")],
        vec![say("It's off.")],
    ])
    .await;
    let mut policies = BTreeMap::new();
    policies.insert("commandExecution".to_owned(), guard::Policy::Off);
    let w = world(policy, &server, policies);
    let chat = chat(&w, Mode::Full).await;
    chat.post("Make a file").await.unwrap();
    let (events, asked) = turns(&chat, 1, Answer::Once).await;
    turn_ended_cleanly(&events);
    assert!(asked.is_empty());
    assert!(!finished(&events, "o1").ok);
    assert!(!w.work.join("off-but-ran").exists(), "{policy:?}");
}

async fn a_holds_off_list_command_asks(policy: Policy) {
    let server = Responses::start(vec![vec![run("h1", "ls -la")], vec![say("Listed.")]]).await;
    let w = world(policy, &server, BTreeMap::new());
    let chat = chat(&w, Mode::Full).await;
    chat.post("/quick-setup and list the files").await.unwrap();
    let (events, asked) = turns(&chat, 1, Answer::Deny).await;
    turn_ended_cleanly(&events);
    let q = asked.iter().find(|a| a.call == "h1").expect("h1 asks");
    assert!(q.why.contains(&"hold.off-list".to_owned()), "{:?}", q.why);
    assert_eq!(q.always, None);
    assert!(!finished(&events, "h1").ok, "the owner said no");
    // Held to a skill that runs git, the chat isn't tight.
    assert!(!events
        .iter()
        .any(|e| matches!(&e.body, Body::Reply(r) if r.text == TIGHT_NOTE)));
}

/// Before anything marked the chat, a command that asks to leave Codex's
/// sandbox is asked as leaving the box, and the answer is what happens.
async fn leaving_the_sandbox_is_leaving_the_box(policy: Policy) {
    let server = Responses::start(vec![]).await;
    let w = world(policy, &server, BTreeMap::new());
    let outside = w.root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let o = outside.display();
    server.then(vec![
        vec![run_outside_sandbox("e1", &format!("touch {o}/refused"))],
        vec![say("ok")],
    ]);
    let chat = chat(&w, Mode::Edits).await;
    chat.post("Touch a file outside").await.unwrap();
    // Every question gets a no: the hook's (a command in Edits) ends it
    // before Codex would ask.
    let (events, asked) = turns(&chat, 1, Answer::Deny).await;
    turn_ended_cleanly(&events);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(!outside.join("refused").exists());

    server.then(vec![
        vec![run_outside_sandbox("e2", &format!("touch {o}/allowed"))],
        vec![say("ok")],
    ]);
    chat.post("Again, and I'll say yes").await.unwrap();
    let (events, asked) = turns(&chat, 2, Answer::Once).await;
    turn_ended_cleanly(&events);
    let mine: Vec<&PermissionRequested> = asked.iter().filter(|a| a.call == "e2").collect();
    if policy == Policy::Never {
        // Codex refuses to leave under `never`, whatever Conch said.
        assert_eq!(mine.len(), 1, "{mine:?}");
        assert!(!outside.join("allowed").exists());
        assert!(!finished(&events, "e2").ok);
    } else {
        assert_eq!(mine.len(), 2, "the step, then leaving the box: {mine:?}");
        assert!(
            mine[1].why.contains(&"box.leave".to_owned()),
            "{:?}",
            mine[1].why
        );
        assert!(
            outside.join("allowed").exists(),
            "the owner's yes let it out"
        );
    }
}

async fn every_rule(policy: Policy) {
    tokio::join!(
        a_marked_chat_asks_and_stays_in_the_sandbox(policy),
        a_protected_path_is_denied(policy),
        a_tool_turned_off_is_denied(policy),
        a_holds_off_list_command_asks(policy),
        leaving_the_sandbox_is_leaving_the_box(policy),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_untrusted() {
    every_rule(Policy::Untrusted).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_on_request() {
    every_rule(Policy::OnRequest).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_never() {
    every_rule(Policy::Never).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_granular() {
    every_rule(Policy::ALL[3]).await;
}

#[tokio::test]
async fn with_sealing_off_codex_runs_with_full_access_and_every_command_says_so() {
    let server = Responses::start(vec![vec![run("u1", "echo unsealed")], vec![say("ok")]]).await;
    let w = world_with(None, &server, BTreeMap::new(), false);
    let chat = chat(&w, Mode::Auto).await;
    chat.post("Run it").await.unwrap();
    let (events, asked) = turns(&chat, 1, Answer::Once).await;
    turn_ended_cleanly(&events);
    assert_eq!(sandbox_of(&server, 0), "danger-full-access");
    // Unsealed, a command isn't Auto mode's to wave through.
    let q = asked.iter().find(|a| a.call == "u1").expect("u1 asks");
    assert!(q.why.contains(&"box.unavailable".to_owned()), "{:?}", q.why);
    assert!(finished(&events, "u1").output.contains("unsealed"));
}

#[tokio::test]
async fn codex_artifact_blocks_are_taken_out_of_its_replies() {
    let server = Responses::start(vec![vec![say(
        "Here's the stock ✓.\n```artifact kind=\"table\" title=\"Stock\"\nitem,qty\npen,3\n```\nAnything else?",
    )]])
    .await;
    let w = world_with(None, &server, BTreeMap::new(), true);
    let chat = chat(&w, Mode::Ask).await;
    chat.post("Make a table").await.unwrap();
    let (events, _) = turns(&chat, 1, Answer::Once).await;
    turn_ended_cleanly(&events);
    let reply = events
        .iter()
        .find_map(|e| match &e.body {
            Body::Reply(r) => Some(r.text.clone()),
            _ => None,
        })
        .expect("a reply");
    assert!(!reply.contains("pen,3"), "{reply}");
    assert!(reply.contains("Anything else?"), "{reply}");
    assert!(
        events.iter().any(|e| e.body.kind() == "artifact"),
        "{:#?}",
        lines(&events)
    );
}

#[tokio::test]
async fn auto_modes_question_goes_to_the_reviewer_through_codexs_endpoint() {
    let server = Responses::start(vec![vec![run("r1", "git push origin main")]]).await;
    // The reviewer's answer, then the model's last words.
    server.then(vec![
        vec![say(
            r#"{"verdict":"reject","risk":"moderate","evidence":[],"reason":"Nobody asked to push."}"#,
        )],
        vec![say("Not pushed.")],
    ]);
    let w = world_with(None, &server, BTreeMap::new(), true);
    let chat = chat(&w, Mode::Auto).await;
    chat.post("Tidy up").await.unwrap();
    let (events, asked) = turns(&chat, 1, Answer::Once).await;
    turn_ended_cleanly(&events);
    assert!(asked.is_empty(), "the reviewer answered, not the owner");
    let f = finished(&events, "r1");
    assert!(!f.ok && f.output.contains("Nobody asked to push"), "{f:?}");
    // The review was one call to the same endpoint, with no tools.
    let review = &server.requests()[1];
    assert!(review.get("tools").is_none(), "{review}");
    assert!(review["instructions"]
        .as_str()
        .is_some_and(|i| !i.is_empty()));
}

/// "A Refresh chat only reads the web and updates its artifact" holds on
/// Codex too: its commands (how Codex reads a file as well) are refused
/// in Full trust, nothing is asked, and nothing private reaches the model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_chat_on_codex_reads_nothing_private_and_runs_nothing() {
    let server = Responses::start(vec![
        vec![run("r1", "cat private-notes.txt")],
        vec![run("r2", "echo ran > ran.txt")],
        vec![say("Updated.")],
    ])
    .await;
    let w = world(Policy::OnRequest, &server, BTreeMap::new());
    std::fs::write(w.work.join("private-notes.txt"), "sk-canary-refresh-ünï").unwrap();
    w.chats
        .artifacts()
        .create(
            "aprices1",
            artifacts::Kind::Markdown,
            "Prices",
            "# Prices\n",
            None,
            None,
        )
        .unwrap();
    let chat = w.chats.refresh_artifact("aprices1").await.unwrap();
    let (events, asked) = turns(&chat, 1, Answer::Once).await;
    assert!(asked.is_empty(), "nothing is asked: {asked:?}");
    for call in ["r1", "r2"] {
        assert!(
            !finished(&events, call).ok,
            "{call} ran: {:?}",
            lines(&events)
        );
    }
    assert!(!w.work.join("ran.txt").exists());
    let sent = serde_json::to_string(&server.requests()).unwrap();
    assert!(
        !sent.contains("sk-canary-refresh"),
        "the model saw the private file"
    );
}
