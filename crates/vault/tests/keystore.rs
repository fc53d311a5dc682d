//! The keystores against the real thing: the file keystore, and the Secret
//! Service as gnome-keyring-daemon serves it.
//!
//! Each Secret Service test runs in a keyring of its own: the test starts
//! itself again inside `dbus-run-session`, with a fresh gnome-keyring-daemon
//! unlocked with a throwaway password and its files in a temporary folder.
//! So nothing touches the keyring of whoever runs the tests, and a test
//! that locks its keyring can't disturb another. Without dbus-run-session
//! and gnome-keyring-daemon these tests skip, unless
//! `CONCH_TEST_SECRET_SERVICE=1` (as `./run-tests` sets): then they fail.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::path::Path;
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};
use vault::keystore::{self, device_key, FileKeystore, Keystore, KeystoreKind, KeystoreMode};
use vault::{Stored, Vault};

const INSIDE: &str = "CONCH_TEST_INSIDE_KEYRING";

fn fingerprint(key: &[u8; 32]) -> String {
    Sha256::digest(key)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// True inside the private keyring (run the test's body). Outside, runs
/// `test` again inside a private keyring, checks it passed, and returns
/// false.
fn inside_private_keyring(test: &str) -> bool {
    if std::env::var_os(INSIDE).is_some() {
        return true;
    }
    let required = std::env::var_os("CONCH_TEST_SECRET_SERVICE").is_some_and(|v| v == "1");
    if !have("dbus-run-session") || !have("gnome-keyring-daemon") {
        assert!(
            !required,
            "CONCH_TEST_SECRET_SERVICE=1, but dbus-run-session or gnome-keyring-daemon is missing"
        );
        eprintln!("skipped: no dbus-run-session or gnome-keyring-daemon here");
        return false;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = "echo -n throwaway | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec \"$@\"";
    let out = Command::new("dbus-run-session")
        .args(["--", "sh", "-c", script, "sh"])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--include-ignored"])
        .env(INSIDE, "1")
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("XDG_RUNTIME_DIR", dir.path())
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{test} in a private keyring: {said}");
    assert!(
        said.contains("1 passed"),
        "{test} didn't run in the private keyring: {said}"
    );
    false
}

/// The Secret Service keystore for `home` (inside a private keyring).
fn secret_service(home: &Path) -> Box<dyn Keystore> {
    let store = keystore::os_keystore(home).unwrap();
    assert_eq!(store.kind(), KeystoreKind::SecretService);
    store
}

/// Run as a child process: makes (or finds) the device key of the home in
/// CONCH_TEST_CHILD_HOME with the mode in CONCH_TEST_CHILD_MODE, and prints
/// its fingerprint.
#[test]
#[ignore = "a child process of the two-processes tests"]
fn child_makes_the_device_key() {
    let Some(home) = std::env::var_os("CONCH_TEST_CHILD_HOME") else {
        return;
    };
    let mode = match std::env::var("CONCH_TEST_CHILD_MODE").as_deref() {
        Ok("os") => KeystoreMode::Os,
        Ok("auto") => KeystoreMode::Auto,
        _ => KeystoreMode::File,
    };
    let store = keystore::choose(Path::new(&home), mode).unwrap();
    let key = device_key(store.as_ref()).unwrap();
    println!("KEY {}", fingerprint(&key));
}

fn race(home: &Path, mode: &str, n: usize) -> Vec<String> {
    let children: Vec<_> = (0..n)
        .map(|_| {
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "child_makes_the_device_key",
                    "--ignored",
                    "--nocapture",
                ])
                .env("CONCH_TEST_CHILD_HOME", home)
                .env("CONCH_TEST_CHILD_MODE", mode)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(
                out.status.success(),
                "{text}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            text.lines()
                .find_map(|l| l.strip_prefix("KEY ").map(str::to_owned))
                .unwrap_or_else(|| panic!("no key printed: {text}"))
        })
        .collect()
}

#[test]
fn two_processes_make_one_key_in_the_file_keystore() {
    use std::os::unix::fs::PermissionsExt;
    for _ in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let keys = race(dir.path(), "file", 6);
        assert!(keys.windows(2).all(|w| w[0] == w[1]), "{keys:?}");
        let kept = FileKeystore::new(dir.path()).read().unwrap().unwrap();
        assert_eq!(keys[0], fingerprint(&kept));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.path().join("keystore/device.key")), 0o600);
        assert_eq!(mode(&dir.path().join("keystore")), 0o700);
        // Nothing else is left in the keystore folder.
        assert_eq!(
            std::fs::read_dir(dir.path().join("keystore"))
                .unwrap()
                .count(),
            1
        );
    }
}

#[test]
fn a_damaged_file_keystore_is_said_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("keystore")).unwrap();
    std::fs::write(dir.path().join("keystore/device.key"), b"short").unwrap();
    let err = device_key(&FileKeystore::new(dir.path())).err().unwrap();
    assert!(err.to_string().contains("damaged"), "{err}");
    assert_eq!(
        std::fs::read(dir.path().join("keystore/device.key")).unwrap(),
        b"short"
    );
}

#[test]
fn no_session_bus_means_the_file_keystore() {
    if std::env::var_os(INSIDE).is_some() {
        return;
    }
    // With no bus at all, auto picks the file; os says there is none.
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_makes_the_device_key",
            "--ignored",
            "--nocapture",
        ])
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env("XDG_RUNTIME_DIR", dir.path().join("nothing"))
        .env("CONCH_TEST_CHILD_HOME", dir.path())
        .env("CONCH_TEST_CHILD_MODE", "auto")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(dir.path().join("keystore/device.key").exists());
}

#[test]
fn the_secret_service_keeps_one_key_per_home() {
    if !inside_private_keyring("the_secret_service_keeps_one_key_per_home") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = secret_service(dir.path());
    assert!(store.read().unwrap().is_none());
    let key = device_key(store.as_ref()).unwrap();
    // Another connection, as another process would have, reads the same.
    let again = secret_service(dir.path());
    assert_eq!(again.read().unwrap().unwrap(), key);
    // Storing again never replaces it.
    again.store(&zeroize::Zeroizing::new([1u8; 32])).unwrap();
    assert_eq!(again.read().unwrap().unwrap(), key);
    // Another home has another key.
    let other = tempfile::tempdir().unwrap();
    assert_ne!(
        device_key(secret_service(other.path()).as_ref()).unwrap(),
        key
    );
    // Nothing of the key is in the home folder.
    assert!(!dir.path().join("keystore").exists());
}

#[test]
fn two_processes_make_one_key_in_the_secret_service() {
    if !inside_private_keyring("two_processes_make_one_key_in_the_secret_service") {
        return;
    }
    for _ in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let keys = race(dir.path(), "os", 6);
        assert!(keys.windows(2).all(|w| w[0] == w[1]), "{keys:?}");
        let kept = secret_service(dir.path()).read().unwrap().unwrap();
        assert_eq!(keys[0], fingerprint(&kept));
    }
}

#[test]
fn sealed_files_through_the_secret_service() {
    if !inside_private_keyring("sealed_files_through_the_secret_service") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let v = Vault::new(dir.path(), KeystoreMode::Auto);
    v.write("secrets.json", b"{\"providers\":{}}").unwrap();
    let raw = std::fs::read(dir.path().join("secrets.json")).unwrap();
    assert!(String::from_utf8_lossy(&raw).contains("\"keystore\":\"secret-service\""));
    assert!(
        !dir.path().join("keystore").exists(),
        "no file keystore made"
    );
    match Vault::new(dir.path(), KeystoreMode::Os)
        .read("secrets.json")
        .unwrap()
    {
        Stored::Sealed(p) => assert_eq!(p.as_slice(), b"{\"providers\":{}}"),
        _ => panic!("not sealed"),
    }
}

#[test]
fn a_locked_keyring_says_unlock_it() {
    if !inside_private_keyring("a_locked_keyring_says_unlock_it") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    Vault::new(dir.path(), KeystoreMode::Os)
        .write("skills.signing.json", b"{}")
        .unwrap();
    // Lock the keyring; no one is there to answer its unlock prompt.
    let ss =
        dbus_secret_service::SecretService::connect(dbus_secret_service::EncryptionType::Plain)
            .unwrap();
    ss.get_any_collection().unwrap().lock().unwrap();
    let err = Vault::new(dir.path(), KeystoreMode::Os)
        .read("skills.signing.json")
        .err()
        .expect("a locked keyring must not open");
    assert!(
        err.to_string()
            .contains("Unlock it and run the command again"),
        "{err}"
    );
}
