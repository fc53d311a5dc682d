//! Backups through the `conch` binary: a passphrase backup moved to
//! another computer (another device key) with every chat and key, a backup
//! without a passphrase that holds no key in any spelling, and restores
//! that are all or nothing (wrong passphrase, cut short, changed, crafted).
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod support;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use support::{run_typed as conch, said, EXE};

use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine;

const PROVIDER_KEY: &str = "sk-proj-backup-7f3a9c21e4b8d6057a1c";
const PASSPHRASE: &str = "correct horse battery ✓ 日本";

fn ok(out: Output) -> String {
    assert!(out.status.success(), "{}", said(&out));
    said(&out)
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Every file under `home/sub`, by its path inside `home`, with its bytes
/// (an artifact's empty lock file isn't content, and isn't carried).
fn tree(home: &Path, sub: &str) -> BTreeMap<String, Vec<u8>> {
    let mut files = Vec::new();
    files_under(&home.join(sub), &mut files);
    files
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != ".lock"))
        .map(|p| {
            let rel = p.strip_prefix(home).unwrap().display().to_string();
            (rel, std::fs::read(&p).unwrap())
        })
        .collect()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A secret in every spelling a file could hold it: as it is, base64
/// (both alphabets, padded or not), hex (both cases).
fn spellings(secret: &[u8]) -> Vec<(String, Vec<u8>)> {
    vec![
        ("raw bytes".into(), secret.to_vec()),
        ("base64".into(), STANDARD.encode(secret).into_bytes()),
        (
            "base64url".into(),
            URL_SAFE_NO_PAD.encode(secret).into_bytes(),
        ),
        (
            "base64url padded".into(),
            URL_SAFE.encode(secret).into_bytes(),
        ),
        ("hex".into(), hex(secret).into_bytes()),
        ("HEX".into(), hex(secret).to_uppercase().into_bytes()),
    ]
}

/// The signing key's PKCS#8 DER and its bare seed, read through the vault.
fn signing_key(home: &Path) -> (Vec<u8>, Vec<u8>) {
    let vault = vault::Vault::new(home, vault::KeystoreMode::Auto);
    let plain = match vault.read("skills.signing.json").unwrap() {
        vault::Stored::Sealed(p) | vault::Stored::Clear(p) => p.to_vec(),
        vault::Stored::Missing => panic!("no signing key in {}", home.display()),
    };
    let file: serde_json::Value = serde_json::from_slice(&plain).unwrap();
    let der = STANDARD
        .decode(file["privateKey"].as_str().unwrap())
        .unwrap();
    assert_eq!(&der[14..16], &[0x04, 0x20], "an Ed25519 PKCS#8 key");
    let seed = der[16..48].to_vec();
    (der, seed)
}

/// Every spelling of every key `home` keeps: the signing key (its DER and
/// its bare seed) and the provider key.
fn key_spellings(der: &[u8], seed: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut all = Vec::new();
    for (what, secret) in [
        ("signing key", der),
        ("signing seed", seed),
        ("provider key", PROVIDER_KEY.as_bytes()),
    ] {
        for (how, bytes) in spellings(secret) {
            all.push((format!("{what} as {how}"), bytes));
        }
    }
    all
}

fn assert_holds_none(file: &Path, keys: &[(String, Vec<u8>)]) {
    let bytes = std::fs::read(file).unwrap();
    for (name, spelled) in keys {
        assert!(
            !contains(&bytes, spelled),
            "{} holds the {name}",
            file.display()
        );
    }
}

fn skill(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!(
            "---\nname: {name}\ndescription: Étapes pour {name}, 日本語も.\n---\nDo the steps.\n"
        ),
    )
    .unwrap();
    dir
}

/// A chat's log, in the log's own format, with words from several scripts.
fn chat(home: &Path, id: &str, events: usize) {
    let dir = home.join("chats").join(id);
    std::fs::create_dir_all(&dir).unwrap();
    let mut log = String::new();
    for seq in 1..=events {
        let text = format!(
            "Réunion n°{seq} — 会議のメモ, Ελληνικά 🐚 {}",
            "x".repeat(seq % 50)
        );
        log.push_str(
            &serde_json::json!({
                "seq": seq, "id": format!("e{seq}"), "at": "2026-11-28T09:00:00.000Z",
                "type": "message", "from": "owner", "text": text,
            })
            .to_string(),
        );
        log.push('\n');
    }
    std::fs::write(dir.join("log.jsonl"), log).unwrap();
}

/// A home with two chats, two artifacts (one with two versions), a skill
/// of its own, a provider key and a key for signing skills.
fn a_full_home(tmp: &Path) -> PathBuf {
    let home = tmp.join("old-computer");
    std::fs::create_dir_all(&home).unwrap();
    ok(conch(
        &home,
        &[
            "providers",
            "add",
            "local",
            "--kind",
            "openai",
            "--model",
            "m",
            "--base-url",
            "http://127.0.0.1:9",
            "--key-stdin",
        ],
        Some(&format!("{PROVIDER_KEY}\n")),
    ));
    chat(&home, "k3v9aaaaaaaaaaaa", 40);
    chat(&home, "p7q2bbbbbbbbbbbb", 3);
    let store = artifacts::Store::new(&home.join("artifacts"));
    store
        .create(
            "tablexyz2345",
            artifacts::Kind::Table,
            "Stock — 在庫",
            "name,n\nœuf,2\n",
            None,
            None,
        )
        .unwrap();
    store
        .create(
            "pagexyza2345",
            artifacts::Kind::Html,
            "Tips",
            "<p>hi</p>",
            None,
            None,
        )
        .unwrap();
    store
        .update(
            "pagexyza2345",
            "<p>hé 日本</p>",
            artifacts::store::By::Updated,
        )
        .unwrap();
    let own = skill(&home.join("skills"), "quick-setup");
    std::fs::write(own.join("run.sh"), "#!/bin/sh\necho ready\n").unwrap();
    let to_share = skill(tmp, "share-me");
    ok(conch(
        &home,
        &["skills", "sign", to_share.to_str().unwrap()],
        None,
    ));
    home
}

#[test]
fn a_passphrase_backup_moves_every_chat_and_key_to_another_computer() {
    let tmp = tempfile::tempdir().unwrap();
    let old = a_full_home(tmp.path());
    let (der, seed) = signing_key(&old);
    let file = tmp.path().join("moving.backup");
    let out = ok(conch(
        &old,
        &[
            "backup",
            "create",
            file.to_str().unwrap(),
            "--passphrase-stdin",
        ],
        Some(&format!("{PASSPHRASE}\n")),
    ));
    assert!(out.contains("Backed up 2 chats, 2 artifacts"), "{out}");
    assert!(out.contains("carries your keys"), "{out}");
    // Locked: none of the keys can be read off the file without it.
    assert_holds_none(&file, &key_spellings(&der, &seed));

    // Another computer: a home of its own, so another device key.
    let new = tmp.path().join("new-computer");
    let out = ok(conch(
        &new,
        &[
            "backup",
            "restore",
            file.to_str().unwrap(),
            "--passphrase-stdin",
        ],
        Some(&format!("{PASSPHRASE}\n")),
    ));
    assert!(out.contains("Restored 2 chats"), "{out}");
    for sub in ["chats", "artifacts", "skills"] {
        assert_eq!(tree(&old, sub), tree(&new, sub), "{sub} differ");
    }
    assert_eq!(
        std::fs::read(old.join("skills.trust.json")).unwrap(),
        std::fs::read(new.join("skills.trust.json")).unwrap()
    );
    let old_device = std::fs::read(old.join("keystore/device.key")).unwrap();
    let new_device = std::fs::read(new.join("keystore/device.key")).unwrap();
    assert_ne!(old_device, new_device, "each computer keeps its own key");

    // The first start on the new computer.
    let out = ok(conch(&new, &["doctor"], None));
    assert!(
        out.contains("Key for signing skills: Locked with this computer's own key."),
        "{out}"
    );
    assert!(!out.contains("in the clear"), "{out}");
    // No file in the new home holds a key in the clear, in any spelling.
    let keys = key_spellings(&der, &seed);
    let mut files = Vec::new();
    files_under(&new, &mut files);
    for f in &files {
        assert_holds_none(f, &keys);
    }
    for sealed in ["secrets.json", "skills.signing.json"] {
        let bytes = std::fs::read(new.join(sealed)).unwrap();
        assert!(vault::is_sealed(&bytes), "{sealed} is locked");
    }

    // The signing key is the same key: it signs on the new computer, and
    // the signature verifies on the old one against the old public key.
    assert_eq!(signing_key(&new).0, der);
    let signed_here = skill(tmp.path(), "signed-after-moving");
    ok(conch(
        &new,
        &["skills", "sign", signed_here.to_str().unwrap()],
        None,
    ));
    let out = ok(conch(
        &old,
        &["skills", "verify", signed_here.to_str().unwrap()],
        None,
    ));
    assert!(out.contains("Verified: signed by you"), "{out}");

    // The provider key opens under the new computer's key.
    let vault = vault::Vault::new(&new, vault::KeystoreMode::Auto);
    let vault::Stored::Sealed(plain) = vault.read("secrets.json").unwrap() else {
        panic!("secrets.json isn't sealed");
    };
    let secrets: serde_json::Value = serde_json::from_slice(&plain).unwrap();
    assert_eq!(secrets["providers"]["local"]["key"], PROVIDER_KEY);
    let out = ok(conch(&new, &["providers", "list"], None));
    assert!(out.contains("key: set"), "{out}");
    // And the old computer's own sealed files don't open here: a copied
    // home wouldn't have carried them.
    let copied = tmp.path().join("copied");
    std::fs::create_dir_all(&copied).unwrap();
    std::fs::copy(old.join("secrets.json"), copied.join("secrets.json")).unwrap();
    std::fs::copy(new.join("keystore/device.key"), {
        std::fs::create_dir_all(copied.join("keystore")).unwrap();
        copied.join("keystore/device.key")
    })
    .unwrap();
    assert!(vault::Vault::new(&copied, vault::KeystoreMode::Auto)
        .read("secrets.json")
        .is_err());
}

#[test]
fn without_a_passphrase_no_key_is_in_the_backup_in_any_spelling() {
    let tmp = tempfile::tempdir().unwrap();
    let old = a_full_home(tmp.path());
    let (der, seed) = signing_key(&old);
    let file = tmp.path().join("plain.backup");
    let out = ok(conch(
        &old,
        &["backup", "create", file.to_str().unwrap()],
        None,
    ));
    assert!(out.contains("holds no keys"), "{out}");
    assert_holds_none(&file, &key_spellings(&der, &seed));
    let bytes = std::fs::read(&file).unwrap();
    assert!(!contains(&bytes, b"\"sealed\""), "no sealed file either");
    assert!(!contains(&bytes, b"argon2"), "no password hash");

    let new = tmp.path().join("new");
    let out = ok(conch(
        &new,
        &["backup", "restore", file.to_str().unwrap()],
        None,
    ));
    assert!(out.contains("holds no keys"), "{out}");
    assert_eq!(tree(&old, "chats"), tree(&new, "chats"));
    assert!(!new.join("secrets.json").exists());
    assert!(!new.join("skills.signing.json").exists());
}

/// Whether anything but what `conch` makes for any folder (an empty
/// `chats/`) is in `home`.
fn untouched(home: &Path) -> bool {
    let mut files = Vec::new();
    files_under(home, &mut files);
    files.is_empty()
}

#[test]
fn a_wrong_passphrase_is_a_sentence_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let old = a_full_home(tmp.path());
    let file = tmp.path().join("locked.backup");
    ok(conch(
        &old,
        &[
            "backup",
            "create",
            file.to_str().unwrap(),
            "--passphrase-stdin",
        ],
        Some(&format!("{PASSPHRASE}\n")),
    ));
    let new = tmp.path().join("new");
    let out = conch(
        &new,
        &[
            "backup",
            "restore",
            file.to_str().unwrap(),
            "--passphrase-stdin",
        ],
        Some("correct horse battery\n"),
    );
    assert!(!out.status.success());
    let words = said(&out);
    assert!(
        words.contains("That passphrase doesn't open this backup. Nothing was restored"),
        "{words}"
    );
    assert!(untouched(&new), "nothing was written");
    // No passphrase at all, from a script: a sentence too.
    let out = conch(&new, &["backup", "restore", file.to_str().unwrap()], None);
    assert!(
        said(&out).contains("locked with a passphrase"),
        "{}",
        said(&out)
    );
    assert!(untouched(&new));
    // A file that is already there is never written over.
    let there = tmp.path().join("there.txt");
    std::fs::write(&there, "mine").unwrap();
    let out = conch(&old, &["backup", "create", there.to_str().unwrap()], None);
    assert!(
        said(&out).contains("never writes over a file"),
        "{}",
        said(&out)
    );
    assert_eq!(std::fs::read_to_string(&there).unwrap(), "mine");
    // Too short to protect keys: refused before anything is written.
    let short = tmp.path().join("short.backup");
    let out = conch(
        &old,
        &[
            "backup",
            "create",
            short.to_str().unwrap(),
            "--passphrase-stdin",
        ],
        Some("abc\n"),
    );
    assert!(
        said(&out).contains("at least 8 characters"),
        "{}",
        said(&out)
    );
    assert!(!short.exists());
}

/// Restores `file` into a fresh home; the home must stay untouched.
fn refused(tmp: &Path, file: &Path, passphrase: Option<&str>, why: &str) {
    let home = tempfile::tempdir_in(tmp).unwrap();
    let mut args = vec!["backup", "restore", file.to_str().unwrap()];
    if passphrase.is_some() {
        args.push("--passphrase-stdin");
    }
    let out = conch(
        home.path(),
        &args,
        passphrase.map(|p| format!("{p}\n")).as_deref(),
    );
    assert!(!out.status.success(), "{why}: restored anyway");
    assert!(
        said(&out).contains("Nothing was restored"),
        "{why}: {}",
        said(&out)
    );
    assert!(untouched(home.path()), "{why}: something was written");
}

#[test]
fn a_truncated_or_tampered_backup_is_refused_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let old = a_full_home(tmp.path());
    for passphrase in [None, Some(PASSPHRASE)] {
        let file = tmp
            .path()
            .join(format!("whole-{}.backup", passphrase.is_some()));
        let mut args = vec!["backup", "create", file.to_str().unwrap()];
        if passphrase.is_some() {
            args.push("--passphrase-stdin");
        }
        ok(conch(
            &old,
            &args,
            passphrase.map(|p| format!("{p}\n")).as_deref(),
        ));
        let good = std::fs::read(&file).unwrap();
        let bad = tmp.path().join("bad.backup");
        // Cut at spread-out lengths and just before the end.
        let len = good.len();
        let mut cuts: Vec<usize> = (1..12).map(|i| len * i / 12).collect();
        cuts.extend([len - 1, len - 2, len - 40]);
        for cut in cuts {
            std::fs::write(&bad, &good[..cut]).unwrap();
            refused(
                tmp.path(),
                &bad,
                passphrase,
                &format!("cut at {cut} of {len}"),
            );
        }
        // One byte changed, spread through the file (past the kind line,
        // which decides what kind of file it is at all).
        for i in 1..12 {
            let at = (len * i / 12).max(40);
            let mut changed = good.clone();
            changed[at] ^= 0x01;
            std::fs::write(&bad, &changed).unwrap();
            refused(tmp.path(), &bad, passphrase, &format!("changed at {at}"));
        }
        let mut longer = good.clone();
        longer.extend_from_slice(b"{\"file\":\"x\"}\n");
        std::fs::write(&bad, &longer).unwrap();
        refused(tmp.path(), &bad, passphrase, "more after its end");
    }
}

/// A backup made by hand, whole and with a right checksum, that holds
/// `path`: no backup Conch makes holds it, so the restore refuses it whole.
fn crafted(path: &str) -> Vec<u8> {
    let header = backup::format::Header {
        format: backup::format::FORMAT.into(),
        created: "2026-11-29T09:00:00.000Z".into(),
        keys: backup::Keys::LeftOut,
        says: "crafted".into(),
    };
    let mut w = backup::format::ArchiveWriter::begin(Vec::new(), &header).unwrap();
    w.file("chats/a/log.jsonl", 0o600, 0, &b""[..]).unwrap();
    w.file(path, 0o600, 4, &b"evil"[..]).unwrap();
    w.finish().unwrap().0
}

#[test]
fn a_backup_holding_what_no_backup_holds_is_refused_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("crafted.backup");
    for path in [
        "keystore/device.key",
        "../outside",
        "chats/../../outside",
        "/etc/cron.d/x",
        "run/serve.lock",
        "secrets.json.broken-1",
        "chats/a/log.jsonl",
    ] {
        std::fs::write(&file, crafted(path)).unwrap();
        refused(tmp.path(), &file, None, path);
        assert!(!tmp.path().join("outside").exists());
    }
    // A file, then a folder by the same name: refused whole, the
    // half-unpacked copy gone.
    let header = backup::format::Header {
        format: backup::format::FORMAT.into(),
        created: "2026-11-29T09:00:00.000Z".into(),
        keys: backup::Keys::LeftOut,
        says: "crafted".into(),
    };
    let mut w = backup::format::ArchiveWriter::begin(Vec::new(), &header).unwrap();
    w.file("chats/a", 0o600, 1, &b"x"[..]).unwrap();
    w.file("chats/a/log.jsonl", 0o600, 3, &b"{}\n"[..]).unwrap();
    std::fs::write(&file, w.finish().unwrap().0).unwrap();
    refused(tmp.path(), &file, None, "a file and a folder by one name");
    assert!(
        std::fs::read_dir(tmp.path())
            .unwrap()
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().contains(".restoring-")),
        "nothing half-unpacked is left"
    );
    // Keys in a backup without a passphrase: no backup Conch makes holds
    // them, so none are taken from one.
    std::fs::write(&file, crafted("secrets.json")).unwrap();
    refused(tmp.path(), &file, None, "keys without a passphrase");
}

/// A plain file whose header claims it carries keys: the header is the
/// crafter's word, so no key file is taken from it, whichever one; the
/// same archive's ordinary files alone restore (the control).
#[test]
fn a_plain_backup_claiming_to_carry_keys_restores_none() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("claims.backup");
    let claims = |key: Option<&str>| {
        let header = backup::format::Header {
            format: backup::format::FORMAT.into(),
            created: "2026-11-29T09:00:00.000Z".into(),
            keys: backup::Keys::Carried,
            says: "Made with a passphrase: it carries your keys.".into(),
        };
        let mut w = backup::format::ArchiveWriter::begin(Vec::new(), &header).unwrap();
        w.file("chats/a/log.jsonl", 0o600, 0, &b""[..]).unwrap();
        if let Some(key) = key {
            w.file(key, 0o600, 4, &b"evil"[..]).unwrap();
        }
        w.finish().unwrap().0
    };
    let keys: Vec<&str> = backup::classify::KEY_FILES
        .iter()
        .chain(vault::SEALED_FILES.iter())
        .copied()
        .collect();
    assert!(keys.contains(&"owner.json") && keys.contains(&"access-keys.json"));
    for key in keys {
        std::fs::write(&file, claims(Some(key))).unwrap();
        refused(tmp.path(), &file, None, key);
    }
    std::fs::write(&file, claims(None)).unwrap();
    let into = tmp.path().join("restored");
    ok(conch(
        &into,
        &["backup", "restore", file.to_str().unwrap()],
        None,
    ));
    assert!(into.join("chats/a/log.jsonl").exists());
    assert!(!into.join("owner.json").exists());
}

#[test]
fn a_restore_into_a_home_with_chats_mixes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let old = a_full_home(tmp.path());
    let file = tmp.path().join("b.backup");
    ok(conch(
        &old,
        &["backup", "create", file.to_str().unwrap()],
        None,
    ));
    let busy = tmp.path().join("busy");
    chat(&busy, "mine1111mine1111", 2);
    let before = tree(&busy, "chats");
    let out = conch(&busy, &["backup", "restore", file.to_str().unwrap()], None);
    assert!(!out.status.success());
    let words = said(&out);
    assert!(words.contains("already has 1 chat"), "{words}");
    assert!(words.contains("--beside"), "{words}");
    assert_eq!(tree(&busy, "chats"), before);
    // Beside: a folder of its own next to it, the home as it was.
    let out = ok(conch(
        &busy,
        &["backup", "restore", file.to_str().unwrap(), "--beside"],
        None,
    ));
    assert!(out.contains("It is beside your Conch"), "{out}");
    assert_eq!(tree(&busy, "chats"), before);
    let beside: Vec<PathBuf> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("busy-restored-")
        })
        .collect();
    assert_eq!(beside.len(), 1, "{beside:?}");
    assert_eq!(tree(&old, "chats"), tree(&beside[0], "chats"));
}

#[test]
fn a_log_being_written_is_taken_up_to_its_last_whole_line() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    chat(&home, "k3v9aaaaaaaaaaaa", 5);
    let log = home.join("chats/k3v9aaaaaaaaaaaa/log.jsonl");
    let whole = std::fs::read(&log).unwrap();
    let mut writing = whole.clone();
    writing
        .extend_from_slice(br#"{"seq":6,"id":"e6","at":"2026-11-28T09:00:00.000Z","type":"mess"#);
    std::fs::write(&log, &writing).unwrap();
    // Half-written files of writers and broken copies stay out.
    std::fs::write(home.join(".settings.json.tmp-999999-0"), "{").unwrap();
    std::fs::write(home.join("skills.signing.json.broken-1795000000"), "x").unwrap();
    let file = tmp.path().join("b.backup");
    ok(conch(
        &home,
        &["backup", "create", file.to_str().unwrap()],
        None,
    ));
    let new = tmp.path().join("new");
    ok(conch(
        &new,
        &["backup", "restore", file.to_str().unwrap()],
        None,
    ));
    assert_eq!(
        std::fs::read(new.join("chats/k3v9aaaaaaaaaaaa/log.jsonl")).unwrap(),
        whole
    );
    assert!(!new.join(".settings.json.tmp-999999-0").exists());
    assert!(!new.join("skills.signing.json.broken-1795000000").exists());
}

#[test]
fn a_restore_into_a_running_conch_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let old = tmp.path().join("old");
    chat(&old, "k3v9aaaaaaaaaaaa", 2);
    let file = tmp.path().join("b.backup");
    ok(conch(
        &old,
        &["backup", "create", file.to_str().unwrap()],
        None,
    ));
    let running = tmp.path().join("running");
    std::fs::create_dir_all(&running).unwrap();
    let held = conversations::running::take(&running, "127.0.0.1:7777").unwrap();
    let out = conch(
        &running,
        &["backup", "restore", file.to_str().unwrap()],
        None,
    );
    assert!(!out.status.success());
    assert!(said(&out).contains("Conch is running on"), "{}", said(&out));
    assert!(!running.join("chats/k3v9aaaaaaaaaaaa").exists());
    drop(held);
    // Stopped (the lock let go): it restores.
    ok(conch(
        &running,
        &["backup", "restore", file.to_str().unwrap()],
        None,
    ));
    assert!(running.join("chats/k3v9aaaaaaaaaaaa/log.jsonl").exists());
}

/// A model server on 127.0.0.1 that answers every chat completion with a
/// short streamed reply and keeps the `authorization` header it got.
fn fake_model() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Read};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut length, mut auth) = (0usize, String::new());
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if lower.starts_with("authorization:") {
                    auth = line["authorization:".len()..].trim().to_owned();
                }
            }
            let mut body = vec![0u8; length];
            let _ = reader.read_exact(&mut body);
            keep.lock().unwrap().push(auth);
            let chunk = |v: serde_json::Value| format!("data: {v}\n\n");
            let reply = format!(
                "{}{}data: [DONE]\n\n",
                chunk(
                    serde_json::json!({"choices":[{"index":0,"delta":{"content":"Bonjour 🐚"}}]})
                ),
                chunk(
                    serde_json::json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})
                ),
            );
            let mut out = stream;
            let _ = write!(
                out,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    (url, seen)
}

#[test]
fn a_provider_key_carried_by_a_backup_works_on_the_new_computer() {
    use std::io::{BufRead, BufReader};
    let tmp = tempfile::tempdir().unwrap();
    let (model_url, seen) = fake_model();
    let old = tmp.path().join("old");
    std::fs::create_dir_all(&old).unwrap();
    ok(conch(
        &old,
        &[
            "providers",
            "add",
            "local",
            "--kind",
            "openai",
            "--model",
            "m",
            "--base-url",
            &model_url,
            "--key-stdin",
        ],
        Some(&format!("{PROVIDER_KEY}\n")),
    ));
    let file = tmp.path().join("moving.backup");
    ok(conch(
        &old,
        &[
            "backup",
            "create",
            file.to_str().unwrap(),
            "--passphrase-stdin",
        ],
        Some(&format!("{PASSPHRASE}\n")),
    ));
    let new = tmp.path().join("new");
    ok(conch(
        &new,
        &[
            "backup",
            "restore",
            file.to_str().unwrap(),
            "--passphrase-stdin",
        ],
        Some(&format!("{PASSPHRASE}\n")),
    ));
    let work = tmp.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let mut server = Command::new(EXE)
        .arg("--home")
        .arg(&new)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .current_dir(&work)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let url = first
        .strip_prefix("Conch is running at ")
        .unwrap()
        .to_owned();
    std::thread::spawn(move || for _ in lines {});
    let out = Command::new(EXE)
        .arg("--home")
        .arg(&new)
        .args(["chat", "Dis bonjour", "--url", &url])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert!(out.status.success(), "{}", said(&out));
    assert!(said(&out).contains("Bonjour 🐚"), "{}", said(&out));
    let auth = seen.lock().unwrap().clone();
    assert!(!auth.is_empty(), "the model server was never asked");
    assert!(
        auth.iter().all(|a| a == &format!("Bearer {PROVIDER_KEY}")),
        "{auth:?}"
    );
}
