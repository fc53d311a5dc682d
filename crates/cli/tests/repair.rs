//! Repair everything (`conch doctor --repair`): each kind of damage it
//! covers, alone and all at once, is repaired and said in words; a second
//! run finds nothing; what a person must do is never done for them.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod support;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use support::{run as conch, said};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::pkcs8::EncodePrivateKey;

const CHAT: &str = "k3v9aaaaaaaaaaaa";

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

const WHOLE_LOG: &str = concat!(
    r#"{"seq":1,"id":"e1","at":"2026-11-28T09:00:00.000Z","type":"message","from":"owner","text":"Réunion — 会議"}"#,
    "\n",
    r#"{"seq":2,"id":"e2","at":"2026-11-28T09:00:01.000Z","type":"reply","turn":1,"text":"D'accord 🐚"}"#,
    "\n",
);

/// A healthy home: one chat (with its Claude Code session folder), one
/// artifact, a provider in the settings.
fn healthy(home: &Path) {
    let dir = home.join("chats").join(CHAT);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("log.jsonl"), WHOLE_LOG).unwrap();
    std::fs::create_dir_all(home.join("engines/claude-code/chats").join(CHAT)).unwrap();
    std::fs::write(
        home.join("settings.json"),
        r#"{"providers":[{"name":"local","kind":"openai","model":"m","baseUrl":"http://127.0.0.1:9"}]}"#,
    )
    .unwrap();
    artifacts::Store::new(&home.join("artifacts"))
        .create(
            "tablexyz2345",
            artifacts::Kind::Table,
            "Stock — 在庫",
            "a,b\n1,2\n",
            None,
            None,
        )
        .unwrap();
    // What Conch itself would have made it: the folder private, all in it.
    let out = conch(home, &["doctor", "--repair"]);
    assert!(out.status.success(), "{}", said(&out));
}

/// One kind of damage Repair everything covers: what does it, the id the
/// repair names it by, and how to tell it was repaired.
struct Damage {
    id: &'static str,
    make: fn(&Path),
    repaired: fn(&Path),
}

fn clear_signing_key(home: &Path) {
    let key = ed25519_dalek::SigningKey::from_bytes(&[7; 32]);
    let der = key.to_pkcs8_der().unwrap().as_bytes().to_vec();
    let file = serde_json::json!({
        "privateKey": STANDARD.encode(&der),
        "publicKey": STANDARD.encode(key.verifying_key().as_bytes()),
    });
    std::fs::write(
        home.join("skills.signing.json"),
        serde_json::to_vec(&file).unwrap(),
    )
    .unwrap();
}

fn sealed(home: &Path, name: &str) {
    let bytes = std::fs::read(home.join(name)).unwrap();
    assert!(vault::is_sealed(&bytes), "{name} is locked");
}

/// A process id that is certainly gone: one we started and waited for.
fn gone_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

fn damages() -> Vec<Damage> {
    vec![
        Damage {
            id: "permissions",
            make: |h| {
                std::fs::set_permissions(h, std::fs::Permissions::from_mode(0o755)).unwrap();
                let log = h.join("chats").join(CHAT).join("log.jsonl");
                std::fs::set_permissions(log, std::fs::Permissions::from_mode(0o644)).unwrap();
                let dir = h.join("artifacts/tablexyz2345");
                std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).unwrap();
            },
            repaired: |h| {
                assert_eq!(mode(h), 0o700);
                assert_eq!(mode(&h.join("chats").join(CHAT).join("log.jsonl")), 0o600);
                assert_eq!(mode(&h.join("artifacts/tablexyz2345")), 0o700);
            },
        },
        Damage {
            id: "provider-keys",
            make: |h| {
                std::fs::write(
                    h.join("secrets.json"),
                    r#"{"providers":{"local":{"key":"sk-older-install-ünï"}}}"#,
                )
                .unwrap();
            },
            repaired: |h| {
                sealed(h, "secrets.json");
                let text = std::fs::read(h.join("secrets.json")).unwrap();
                assert!(!String::from_utf8_lossy(&text).contains("sk-older"));
            },
        },
        Damage {
            id: "signing-key",
            make: clear_signing_key,
            repaired: |h| sealed(h, "skills.signing.json"),
        },
        Damage {
            id: "artifacts",
            make: |h| {
                std::fs::write(h.join("artifacts/tablexyz2345/artifact.json"), "{oops").unwrap();
            },
            repaired: |h| {
                let text = std::fs::read(h.join("artifacts/tablexyz2345/artifact.json")).unwrap();
                let a: artifacts::Artifact = serde_json::from_slice(&text).unwrap();
                assert_eq!(a.versions.len(), 1);
                assert!(a.healed.is_some(), "with a healing note");
            },
        },
        Damage {
            id: "torn-logs",
            make: |h| {
                let log = h.join("chats").join(CHAT).join("log.jsonl");
                let mut text = WHOLE_LOG.to_owned();
                text.push_str(r#"{"seq":3,"id":"e3","at":"2026-11-28T09:00:02.000Z","type":"rep"#);
                std::fs::write(log, text).unwrap();
            },
            repaired: |h| {
                let dir = h.join("chats").join(CHAT);
                assert_eq!(
                    std::fs::read_to_string(dir.join("log.jsonl")).unwrap(),
                    WHOLE_LOG
                );
                let aside = std::fs::read_to_string(dir.join("log.jsonl.torn")).unwrap();
                assert!(aside.contains(r#""type":"rep"#), "set aside, never dropped");
            },
        },
        Damage {
            id: "safety",
            make: |h| {
                std::fs::write(
                    h.join("settings.json"),
                    r#"{"providers":[{"name":"local","kind":"openai","model":"m","baseUrl":"http://127.0.0.1:9"}],"safety":{"checkAfterReading":false,"sealedCommands":false,"checkMemories":false}}"#,
                )
                .unwrap();
            },
            repaired: |h| {
                let s: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(h.join("settings.json")).unwrap())
                        .unwrap();
                for name in ["checkAfterReading", "sealedCommands", "checkMemories"] {
                    assert_ne!(s["safety"][name], false, "{name}");
                }
                assert_eq!(s["providers"][0]["name"], "local", "the rest kept");
            },
        },
        Damage {
            id: "stale-lock",
            make: |h| {
                std::fs::create_dir_all(h.join("run")).unwrap();
                std::fs::write(
                    h.join("run/serve.lock"),
                    format!("{} 127.0.0.1:7777\n", gone_pid()),
                )
                .unwrap();
            },
            repaired: |h| assert!(!h.join("run/serve.lock").exists()),
        },
        Damage {
            id: "orphaned-sessions",
            make: |h| {
                let gone = h.join("engines/claude-code/chats/gone0000gone0000");
                std::fs::create_dir_all(gone.join(".claude")).unwrap();
                std::fs::write(gone.join(".claude/s.jsonl"), "{}\n").unwrap();
                std::fs::create_dir_all(h.join("engines/codex/gone1111gone1111")).unwrap();
            },
            repaired: |h| {
                assert!(!h
                    .join("engines/claude-code/chats/gone0000gone0000")
                    .exists());
                assert!(!h.join("engines/codex/gone1111gone1111").exists());
                assert!(
                    h.join("engines/claude-code/chats").join(CHAT).exists(),
                    "a chat that exists keeps its session"
                );
            },
        },
        Damage {
            id: "leftovers",
            make: |h| {
                let pid = gone_pid();
                std::fs::write(h.join(format!(".settings.json.tmp-{pid}-0")), "{").unwrap();
                std::fs::write(
                    h.join("artifacts/tablexyz2345")
                        .join(format!(".v2.csv.tmp-{pid}")),
                    "a,",
                )
                .unwrap();
            },
            repaired: |h| {
                let mut left = Vec::new();
                for dir in [h.to_path_buf(), h.join("artifacts/tablexyz2345")] {
                    for e in std::fs::read_dir(dir).unwrap().flatten() {
                        if e.file_name().to_string_lossy().contains(".tmp") {
                            left.push(e.path());
                        }
                    }
                }
                assert!(left.is_empty(), "{left:?}");
            },
        },
    ]
}

/// Repairs `home`, expecting exactly the checks `ids` to have repaired
/// something; then a second run finds nothing.
fn repairs(home: &Path, ids: &[&str], all: &[Damage]) {
    let out = conch(home, &["doctor", "--repair"]);
    let words = said(&out);
    assert!(out.status.success(), "{ids:?}: {words}");
    let repaired = words
        .lines()
        .filter(|l| l.starts_with("repaired: "))
        .count();
    assert!(repaired >= ids.len(), "{ids:?}: {words}");
    assert!(!words.contains("Nothing needed repair"), "{ids:?}: {words}");
    for d in all.iter().filter(|d| ids.contains(&d.id)) {
        (d.repaired)(home);
    }
    let again = conch(home, &["doctor", "--repair"]);
    let words = said(&again);
    assert!(again.status.success(), "{ids:?}, again: {words}");
    assert!(
        words.contains("Nothing needed repair."),
        "{ids:?}, a second run: {words}"
    );
    assert!(
        !words.contains("repaired:"),
        "{ids:?}, a second run: {words}"
    );
    // And a plain look agrees: nothing for --repair to do.
    let look = said(&conch(home, &["doctor"]));
    assert!(
        !look.contains("conch doctor --repair)"),
        "{ids:?}, a look: {look}"
    );
}

#[test]
fn each_kind_of_damage_alone_is_repaired_and_a_second_run_finds_nothing() {
    let all = damages();
    for d in &all {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        healthy(&home);
        (d.make)(&home);
        // A look says what it found and points at the repair. (Reading
        // artifacts heals them, so a look at one already does.)
        if d.id != "artifacts" {
            let look = said(&conch(&home, &["doctor"]));
            assert!(
                look.contains("--repair"),
                "{}: a look found nothing: {look}",
                d.id
            );
        }
        repairs(&home, &[d.id], &all);
    }
}

#[test]
fn everything_damaged_at_once_is_repaired_in_one_press() {
    let all = damages();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    healthy(&home);
    for d in &all {
        (d.make)(&home);
    }
    let ids: Vec<&str> = all.iter().map(|d| d.id).collect();
    let out = conch(&home, &["doctor", "--repair"]);
    let words = said(&out);
    assert!(out.status.success(), "{words}");
    // Each check says in words what it found and what it did.
    for (id, words_for_it) in [
        ("permissions", "yours alone now"),
        ("provider-keys", "Provider keys were in the clear"),
        ("signing-key", "Locked with this computer's own key"),
        (
            "artifacts",
            "Artifact tablexyz2345: its description was damaged; rebuilt",
        ),
        ("torn-logs", "the end of its log was cut off"),
        (
            "safety",
            "Check before acting on what it read was off; it is on again.",
        ),
        ("stale-lock", "A lock file left by a Conch that stopped"),
        ("orphaned-sessions", "for chats that no longer exist"),
        ("leftovers", "left half-written"),
    ] {
        assert!(words.contains(words_for_it), "{id}: {words}");
    }
    for d in &all {
        (d.repaired)(&home);
    }
    repairs_nothing_left(&home, &ids);
}

fn repairs_nothing_left(home: &Path, ids: &[&str]) {
    let again = said(&conch(home, &["doctor", "--repair"]));
    assert!(again.contains("Nothing needed repair."), "{ids:?}: {again}");
}

#[test]
fn the_signing_check_is_silent_for_someone_who_never_signed() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    healthy(&home);
    let words = said(&conch(&home, &["doctor", "--repair"]));
    assert!(!words.contains("signing"), "{words}");
    clear_signing_key(&home);
    conch(&home, &["doctor", "--repair"]);
    let words = said(&conch(&home, &["doctor", "--repair"]));
    assert!(
        words.contains("ok: Key for signing skills: Locked with this computer's own key."),
        "{words}"
    );
}

#[test]
fn a_running_conchs_lock_is_not_stale() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    healthy(&home);
    let held = conversations::running::take(&home, "127.0.0.1:1").unwrap();
    let words = said(&conch(&home, &["doctor", "--repair"]));
    assert!(!words.contains("lock file"), "{words}");
    assert!(home.join(conversations::running::LOCK_FILE).exists());
    drop(held);
}
