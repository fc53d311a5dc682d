//! Kill -9 under load: 20 chats post messages and answer questions while
//! `conch serve` is killed and started again 50 times at random moments.
//! Afterwards every message that got a 202 is in its chat's log, every log
//! reads back whole (a torn tail set aside, never an acknowledged line),
//! every turn has exactly one end, and the turns a kill cut off end with
//! `interrupted`.
//!
//! The moments are random; the seed is printed, and `CONCH_KILL_SEED=N`
//! runs the same ones again.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use protocol::{Body, EndReason, Event};
use serde_json::{json, Value};

const EXE: &str = env!("CARGO_BIN_EXE_conch");
const CHATS: usize = 20;
const KILLS: usize = 50;

/// xorshift64*: enough randomness for when to kill, and repeatable.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low)
    }
}

/// Starts `conch serve` on `port`. Right after a kill the kernel may still
/// hold the port for a moment (as a service manager finds): try again.
fn start(home: &Path, work: &Path, port: u16) -> Child {
    let mut last = String::new();
    for _ in 0..100 {
        let mut child = Command::new(EXE)
            .arg("--home")
            .arg(home)
            .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .current_dir(work)
            .env("CONCH_MOCK_PACE_MS", "4")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let stderr = child.stderr.take().unwrap();
        let Some(Ok(first)) = lines.next() else {
            let _ = child.wait();
            last = std::io::read_to_string(stderr).unwrap_or_default();
            if last.contains("Address already in use") {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            panic!("conch serve didn't start: {last}");
        };
        assert!(first.starts_with("Conch is running at"), "{first}");
        std::thread::spawn(move || for _ in lines {});
        std::thread::spawn(move || for _ in BufReader::new(stderr).lines() {});
        return child;
    }
    panic!("conch serve didn't start: {last}");
}

/// A port to come back to after every kill: below the range the kernel
/// hands out to outgoing connections, so none of the test's own thousands
/// of connections takes it while the gateway is down.
fn steady_port(dice: &mut Dice) -> u16 {
    let low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    for _ in 0..100 {
        let port = dice.between(10_000, u64::from(low.max(10_100))) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port below {low}");
}

/// A message the gateway acknowledged with 202.
#[derive(Debug, Clone)]
struct Acked {
    chat: String,
    seq: u64,
    id: String,
    text: String,
}

async fn client(
    http: reqwest::Client,
    url: String,
    key: String,
    chat: String,
    n: usize,
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<Vec<Acked>>>,
) {
    let mut dice = Dice(0x9e37_79b9_7f4a_7c15 ^ (n as u64 + 1));
    let mut sent = 0u64;
    while !stop.load(Ordering::Relaxed) {
        sent += 1;
        let text = if sent.is_multiple_of(2) {
            format!("run `echo chat{n}-{sent}`")
        } else {
            format!("Message {sent} of chat {n}: grüße, 你好, ✓")
        };
        let posted = http
            .post(format!("{url}/api/chats/{chat}/messages"))
            .bearer_auth(&key)
            .json(&json!({ "text": text }))
            .send()
            .await;
        if let Ok(res) = posted {
            if res.status() == 202 {
                if let Ok(body) = res.json::<Value>().await {
                    acked.lock().unwrap().push(Acked {
                        chat: chat.clone(),
                        seq: body["seq"].as_u64().unwrap(),
                        id: body["id"].as_str().unwrap().to_owned(),
                        text: text.clone(),
                    });
                }
            }
        }
        // Answer whatever the chat is asking.
        let shown = http
            .get(format!("{url}/api/chats/{chat}"))
            .bearer_auth(&key)
            .send()
            .await;
        if let Ok(Ok(view)) = match shown {
            Ok(res) => Ok(res.json::<Value>().await),
            Err(e) => Err(e),
        } {
            for waiting in view["waiting"].as_array().into_iter().flatten() {
                let ask = waiting["ask"].as_str().unwrap_or_default();
                let answer = if dice.next().is_multiple_of(2) {
                    "once"
                } else {
                    "deny"
                };
                let _ = http
                    .post(format!("{url}/api/chats/{chat}/permissions/{ask}"))
                    .bearer_auth(&key)
                    .json(&json!({ "answer": answer }))
                    .send()
                    .await;
            }
        }
        tokio::time::sleep(Duration::from_millis(dice.between(5, 60))).await;
    }
}

/// Reads a log file whole: every line an event, `seq` dense from 1.
fn read_log(path: &Path) -> Vec<Event> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "{}: the log ends mid-line",
        path.display()
    );
    let events: Vec<Event> = text
        .lines()
        .map(|line| {
            Event::from_line(line.as_bytes())
                .unwrap_or_else(|e| panic!("{}: {e}: {line}", path.display()))
        })
        .collect();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, i as u64 + 1, "{}: seq isn't dense", path.display());
    }
    events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_under_load_loses_no_acknowledged_message() {
    let seed = std::env::var("CONCH_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    println!("CONCH_KILL_SEED={seed}");
    let mut dice = Dice(seed);
    let dir = tempfile::tempdir().unwrap();
    let home: PathBuf = dir.path().join("home");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let (_, key) = gateway::auth::keys::create(&home, "kill test").unwrap();
    let port = steady_port(&mut dice);
    let url = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let child = Arc::new(Mutex::new(start(&home, &work, port)));
    let health = |http: reqwest::Client, url: String| async move {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(res) = http.get(format!("{url}/api/health")).send().await {
                if res.status() == 200 {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("conch serve didn't come back");
    };
    health(http.clone(), url.clone()).await;

    let mut chats = Vec::new();
    for _ in 0..CHATS {
        let made: Value = http
            .post(format!("{url}/api/chats"))
            .bearer_auth(&key)
            .json(&json!({}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        chats.push(made["id"].as_str().unwrap().to_owned());
    }
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(Mutex::new(Vec::new()));
    let clients: Vec<_> = chats
        .iter()
        .enumerate()
        .map(|(n, chat)| {
            tokio::spawn(client(
                http.clone(),
                url.clone(),
                key.clone(),
                chat.clone(),
                n,
                stop.clone(),
                acked.clone(),
            ))
        })
        .collect();

    for _ in 0..KILLS {
        tokio::time::sleep(Duration::from_millis(dice.between(50, 400))).await;
        let (home, work, child) = (home.clone(), work.clone(), child.clone());
        tokio::task::spawn_blocking(move || {
            let mut child = child.lock().unwrap();
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            *child = start(&home, &work, port);
        })
        .await
        .unwrap();
        health(http.clone(), url.clone()).await;
    }
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.await.unwrap();
    }
    // The last kill, then one more start with nobody posting and everything
    // stopped (`conch stop`): opening each chat ends what the kills cut
    // off, and starts nothing new (a question cut off isn't asked again
    // while stopped).
    {
        let (home, work, child) = (home.clone(), work.clone(), child.clone());
        tokio::task::spawn_blocking(move || {
            let mut child = child.lock().unwrap();
            child.kill().unwrap();
            child.wait().unwrap();
            let stopped = Command::new(EXE)
                .arg("--home")
                .arg(&home)
                .arg("stop")
                .output()
                .unwrap();
            assert!(stopped.status.success());
            *child = start(&home, &work, port);
        })
        .await
        .unwrap();
    }
    health(http.clone(), url.clone()).await;
    for chat in &chats {
        let res = http
            .get(format!("{url}/api/chats/{chat}"))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
    {
        let mut child = child.lock().unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
    }

    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() > 200,
        "only {} messages were acknowledged",
        acked.len()
    );
    let mut logs: HashMap<String, Vec<Event>> = HashMap::new();
    for chat in &chats {
        logs.insert(
            chat.clone(),
            read_log(&home.join("chats").join(chat).join("log.jsonl")),
        );
    }
    for a in &acked {
        let events = &logs[&a.chat];
        let event = events
            .get(a.seq as usize - 1)
            .unwrap_or_else(|| panic!("chat {}: acknowledged seq {} is missing", a.chat, a.seq));
        assert_eq!(event.id, a.id, "chat {} seq {}", a.chat, a.seq);
        match &event.body {
            Body::Message(m) => assert_eq!(m.text, a.text),
            other => panic!("chat {} seq {}: {other:?}", a.chat, a.seq),
        }
    }
    // What a crash cut off was set aside, and never an acknowledged line.
    let mut torn = 0;
    let acked_ids: HashSet<&str> = acked.iter().map(|a| a.id.as_str()).collect();
    for chat in &chats {
        let aside = home.join("chats").join(chat).join("log.jsonl.torn");
        if let Ok(text) = std::fs::read_to_string(&aside) {
            torn += text.lines().count();
            for id in &acked_ids {
                assert!(
                    !text.contains(id),
                    "chat {chat}: acknowledged {id} was set aside"
                );
            }
        }
    }
    let mut interrupted = 0;
    let mut turns = 0;
    for (chat, events) in &logs {
        let mut open: Option<u64> = None;
        let mut ended: HashSet<u64> = HashSet::new();
        let mut asks: HashSet<String> = HashSet::new();
        for e in events {
            match &e.body {
                Body::TurnStarted(_) => {
                    assert_eq!(open, None, "chat {chat}: a turn started inside another");
                    open = Some(e.seq);
                    turns += 1;
                }
                Body::TurnEnded(t) => {
                    assert_eq!(
                        open,
                        Some(t.turn),
                        "chat {chat}: seq {} ends no open turn",
                        e.seq
                    );
                    assert!(ended.insert(t.turn));
                    open = None;
                    if t.reason == EndReason::Interrupted {
                        interrupted += 1;
                        assert_eq!(
                            t.error.as_deref(),
                            Some("Conch stopped while this turn was running.")
                        );
                    }
                }
                Body::PermissionRequested(p) => {
                    asks.insert(p.ask.clone());
                }
                Body::PermissionAnswered(p) => {
                    asks.remove(&p.ask);
                }
                Body::PermissionEnded(p) => {
                    asks.remove(&p.ask);
                }
                _ => {}
            }
            // Nothing of a turn comes after its end.
            if let Some(turn) = turn_of(&e.body) {
                assert!(
                    open == Some(turn),
                    "chat {chat}: seq {} belongs to turn {turn}, which isn't the open one",
                    e.seq
                );
            }
        }
        assert_eq!(open, None, "chat {chat}: a turn was left open");
        assert!(
            asks.is_empty(),
            "chat {chat}: questions left waiting: {asks:?}"
        );
    }
    println!(
        "{} acknowledged messages, {turns} turns, {interrupted} interrupted by {KILLS} kills, {torn} torn tails set aside",
        acked.len()
    );
    assert!(interrupted > 0, "no kill landed inside a turn");
}

/// The turn an event belongs to, for the events a turn writes.
fn turn_of(body: &Body) -> Option<u64> {
    match body {
        Body::Reply(r) => Some(r.turn),
        Body::ToolCalled(c) => Some(c.turn),
        Body::ToolFinished(f) => Some(f.turn),
        _ => None,
    }
}
