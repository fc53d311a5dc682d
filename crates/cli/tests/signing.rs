//! The skill-signing key, through the `conch` binary: sealed at rest, no
//! plain copy anywhere in the home, fail-closed with its reason, and
//! crash-safe locking (ADR 0047 §2).
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod support;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use support::{run as conch, said as text, EXE};

use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine;
use ed25519_dalek::pkcs8::EncodePrivateKey;

fn skill(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: A skill to sign.\n---\nDo the steps.\n"),
    )
    .unwrap();
    dir
}

/// The home's vault as the binary opens it (settings say nothing, so auto).
fn vault(home: &Path) -> vault::Vault {
    vault::Vault::new(home, vault::KeystoreMode::Auto)
}

/// The signing key's PKCS#8 DER and its seed, read through the vault.
fn private_key(home: &Path) -> (Vec<u8>, Vec<u8>) {
    let plain = match vault(home).read("skills.signing.json").unwrap() {
        vault::Stored::Sealed(p) | vault::Stored::Clear(p) => p.to_vec(),
        vault::Stored::Missing => panic!("no key file"),
    };
    let file: serde_json::Value = serde_json::from_slice(&plain).unwrap();
    let der = STANDARD
        .decode(file["privateKey"].as_str().unwrap())
        .unwrap();
    let seed = seed_of(&der);
    (der, seed)
}

/// Ed25519 PKCS#8 (v1 or v2): a fixed 16-byte header, then the 32-byte
/// seed (v2 adds the public key after it).
fn seed_of(der: &[u8]) -> Vec<u8> {
    assert_eq!(&der[14..16], &[0x04, 0x20], "an OCTET STRING of 32 bytes");
    der[16..48].to_vec()
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            files_under(&path, out);
        } else if meta.is_file() {
            out.push(path);
        }
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// No file under `home` holds the private key in any of five spellings:
/// base64url, base64, hex, raw bytes, and the bare 32-byte seed.
fn assert_no_plain_key(home: &Path, der: &[u8], seed: &[u8]) {
    let spellings: Vec<(&str, Vec<u8>)> = vec![
        ("base64url", URL_SAFE_NO_PAD.encode(der).into_bytes()),
        ("base64url padded", URL_SAFE.encode(der).into_bytes()),
        ("base64", STANDARD.encode(der).into_bytes()),
        (
            "hex",
            der.iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
                .into_bytes(),
        ),
        ("raw bytes", der.to_vec()),
        ("bare seed", seed.to_vec()),
        ("seed in base64", STANDARD.encode(seed).into_bytes()),
        (
            "seed in hex",
            seed.iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
                .into_bytes(),
        ),
    ];
    let mut files = Vec::new();
    files_under(home, &mut files);
    assert!(!files.is_empty());
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        for (name, spelled) in &spellings {
            assert!(
                !contains(&bytes, spelled),
                "{} holds the private key ({name})",
                file.display()
            );
        }
    }
}

fn clear_key(seed: [u8; 32]) -> (Vec<u8>, Vec<u8>) {
    let key = ed25519_dalek::SigningKey::from_bytes(&seed);
    let der = key.to_pkcs8_der().unwrap().as_bytes().to_vec();
    let file = serde_json::json!({
        "privateKey": STANDARD.encode(&der),
        "publicKey": STANDARD.encode(key.verifying_key().as_bytes()),
    });
    (serde_json::to_vec_pretty(&file).unwrap(), der)
}

#[test]
fn the_private_key_is_nowhere_in_the_clear() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let s = skill(tmp.path(), "share-me");

    // Signing makes the key, sealed.
    let out = conch(&home, &["skills", "sign", s.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let (der, seed) = private_key(&home);
    assert_no_plain_key(&home, &der, &seed);
    let out = conch(&home, &["skills", "verify", s.to_str().unwrap()]);
    assert!(
        text(&out).contains("Verified: signed by you"),
        "{}",
        text(&out)
    );

    // A key in the clear (older Conch, a restored backup) is locked by
    // doctor --repair, and nothing plain is left.
    let home2 = tmp.path().join("home2");
    std::fs::create_dir_all(&home2).unwrap();
    let (clear, der2) = clear_key([9; 32]);
    std::fs::write(home2.join("skills.signing.json"), &clear).unwrap();
    let out = conch(&home2, &["doctor"]);
    assert!(text(&out).contains("in the clear"), "{}", text(&out));
    let out = conch(&home2, &["doctor", "--repair"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Locked with this computer's own key"));
    assert_no_plain_key(&home2, &der2, &seed_of(&der2));
    assert_eq!(private_key(&home2).0, der2, "the same key, now sealed");

    // A start locks it too.
    let home3 = tmp.path().join("home3");
    std::fs::create_dir_all(&home3).unwrap();
    let (clear, der3) = clear_key([11; 32]);
    std::fs::write(home3.join("skills.signing.json"), &clear).unwrap();
    let out = conch(&home3, &["skills", "key"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_no_plain_key(&home3, &der3, &seed_of(&der3));

    // --new after the old key stopped opening: the new one is sealed, the
    // old sealed file is set aside still sealed, nothing plain anywhere.
    let sealed = std::fs::read(home.join("skills.signing.json")).unwrap();
    let mut broken = sealed.clone();
    let at = broken.len() - 10;
    broken[at] = if broken[at] == b'A' { b'B' } else { b'A' };
    std::fs::write(home.join("skills.signing.json"), &broken).unwrap();
    let out = conch(&home, &["skills", "key", "--new"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("still sealed"), "{}", text(&out));
    let (der_new, seed_new) = private_key(&home);
    assert_ne!(der_new, der);
    assert_no_plain_key(&home, &der, &seed);
    assert_no_plain_key(&home, &der_new, &seed_new);
    // The old key stays trusted as yours: what you signed still verifies.
    let out = conch(&home, &["skills", "verify", s.to_str().unwrap()]);
    assert!(
        text(&out).contains("Verified: signed by you"),
        "{}",
        text(&out)
    );
}

/// Signs `skill` expecting a refusal that says `reason`; nothing is signed.
fn refuses(home: &Path, skill: &Path, reason: &str) {
    let before = std::fs::read(skill.join("SIGNATURE.conch.json")).ok();
    let key_before = std::fs::read(home.join("skills.signing.json")).ok();
    let out = conch(home, &["skills", "sign", skill.to_str().unwrap()]);
    assert!(!out.status.success(), "signed anyway: {}", text(&out));
    let said = text(&out);
    assert!(said.contains("Nothing was signed."), "{said}");
    assert!(said.contains(reason), "wanted {reason:?}: {said}");
    assert_eq!(
        std::fs::read(skill.join("SIGNATURE.conch.json")).ok(),
        before,
        "the signature file changed"
    );
    assert_eq!(
        std::fs::read(home.join("skills.signing.json")).ok(),
        key_before,
        "the key file is never replaced by itself"
    );
}

#[test]
fn a_key_that_cant_be_used_fails_closed_with_its_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let s = skill(tmp.path(), "share-me");
    assert!(conch(&home, &["skills", "sign", s.to_str().unwrap()])
        .status
        .success());
    let good = std::fs::read(home.join("skills.signing.json")).unwrap();
    let changed = "the file was changed, or it was locked on another computer";

    // One byte of the sealed text.
    let file: serde_json::Value = serde_json::from_slice(&good).unwrap();
    let mut data = STANDARD.decode(file["data"].as_str().unwrap()).unwrap();
    data[5] ^= 0x01;
    let mut tampered = file.clone();
    tampered["data"] = STANDARD.encode(&data).into();
    std::fs::write(
        home.join("skills.signing.json"),
        serde_json::to_vec(&tampered).unwrap(),
    )
    .unwrap();
    refuses(&home, &s, changed);

    // A file sealed on another home (another device key).
    let other = tmp.path().join("other");
    let s2 = skill(tmp.path(), "theirs");
    assert!(conch(&other, &["skills", "sign", s2.to_str().unwrap()])
        .status
        .success());
    std::fs::copy(
        other.join("skills.signing.json"),
        home.join("skills.signing.json"),
    )
    .unwrap();
    refuses(&home, &s, changed);

    // Truncated.
    std::fs::write(home.join("skills.signing.json"), &good[..good.len() / 2]).unwrap();
    refuses(&home, &s, changed);

    // Damaged in the clear.
    std::fs::write(home.join("skills.signing.json"), b"{\"privateKey\": 1}").unwrap();
    refuses(&home, &s, "is damaged");

    // The keystore can't be read (here the file keystore, made unreadable
    // in a way that holds for root too).
    std::fs::write(home.join("skills.signing.json"), &good).unwrap();
    let keystore = good_keystore(&good);
    if keystore == "file" {
        let key = home.join("keystore/device.key");
        let saved = std::fs::read(&key).unwrap();
        std::fs::remove_file(&key).unwrap();
        std::fs::create_dir(&key).unwrap();
        refuses(&home, &s, "Unlock the keychain and run the command again.");
        std::fs::remove_dir(&key).unwrap();
        // Gone altogether: still the keychain's reason, and no new key made.
        refuses(&home, &s, "Unlock the keychain and run the command again.");
        assert!(!key.exists(), "reading must not make a new device key");
        std::fs::write(&key, saved).unwrap();
    }
    // Whole again: it signs.
    let out = conch(&home, &["skills", "sign", s.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
}

fn good_keystore(sealed: &[u8]) -> String {
    let v: serde_json::Value = serde_json::from_slice(sealed).unwrap();
    v["keystore"].as_str().unwrap_or("").to_owned()
}

/// Kill `conch doctor --repair` at random points while it locks a key in
/// the clear, 100 times: the file is always the old clear one or the new
/// sealed one (never half), and no plain copy is left anywhere.
#[test]
fn locking_survives_being_killed_at_any_point() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let (clear, der) = clear_key([5; 32]);
    let seed = seed_of(&der);
    let key_file = home.join("skills.signing.json");

    // How long a whole repair takes, to spread the kills over it.
    std::fs::write(&key_file, &clear).unwrap();
    let t = std::time::Instant::now();
    assert!(conch(&home, &["doctor", "--repair"]).status.success());
    let whole = t.elapsed().as_micros() as u64;
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let (mut old, mut new) = (0, 0);
    for _ in 0..100 {
        std::fs::write(&key_file, &clear).unwrap();
        let mut child = Command::new(EXE)
            .arg("--home")
            .arg(&home)
            .args(["doctor", "--repair"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        std::thread::sleep(std::time::Duration::from_micros(rng % (whole + 1)));
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read(&key_file).unwrap();
        if now == clear {
            old += 1;
        } else {
            assert!(
                vault::is_sealed(&now),
                "half a file: {:?}",
                String::from_utf8_lossy(&now)
            );
            assert_eq!(private_key(&home).0, der, "sealed, and the same key");
            new += 1;
            // Nothing plain beside it.
            assert_no_plain_key(&home, &der, &seed);
        }
        // Apart from the file itself while it is still the old clear one,
        // no file holds the key.
        let mut files = Vec::new();
        files_under(&home, &mut files);
        for f in files.iter().filter(|f| **f != key_file) {
            let bytes = std::fs::read(f).unwrap();
            assert!(
                !contains(&bytes, &seed) && !contains(&bytes, STANDARD.encode(&der).as_bytes()),
                "{} holds a plain copy",
                f.display()
            );
        }
    }
    eprintln!("killed 100 times: {old} left the old file, {new} the new one");
    assert_eq!(old + new, 100);
}

#[test]
fn two_first_signs_at_once_agree_on_one_key() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let skills: Vec<PathBuf> = (0..6)
        .map(|i| skill(tmp.path(), &format!("s{i}")))
        .collect();
    let children: Vec<_> = skills
        .iter()
        .map(|s| {
            Command::new(EXE)
                .arg("--home")
                .arg(&home)
                .args(["skills", "sign", s.to_str().unwrap()])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    // Every skill verifies with the one key that was kept.
    for s in &skills {
        let out = conch(&home, &["skills", "verify", s.to_str().unwrap()]);
        assert!(
            text(&out).contains("Verified: signed by you"),
            "{}: {}",
            s.display(),
            text(&out)
        );
    }
}
