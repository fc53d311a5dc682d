//! Sealing and opening a 4 KB file (median), and the cost of the first
//! keystore access: a fresh `Vault` opening a sealed file, with the file
//! keystore and with the Secret Service (gnome-keyring-daemon in a private
//! D-Bus session, when installed).
//!
//! cargo bench -p vault --bench vault
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::process::Command;
use std::time::Instant;

use vault::keystore::{KeystoreKind, KeystoreMode};
use vault::{open, seal, Stored, Vault};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn first_access(mode: KeystoreMode, label: &str) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("a temporary folder: {e}"));
    let plain = vec![b'x'; 4096];
    Vault::new(dir.path(), mode)
        .write("secrets.json", &plain)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut firsts = Vec::new();
    let mut thens = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        let v = Vault::new(dir.path(), mode);
        let Ok(Stored::Sealed(_)) = v.read("secrets.json") else {
            panic!("didn't open")
        };
        firsts.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now();
        let Ok(Stored::Sealed(_)) = v.read("secrets.json") else {
            panic!("didn't open")
        };
        thens.push(t.elapsed().as_secs_f64() * 1e6);
    }
    println!(
        "{label}: first open of a sealed 4 KB file {:.0} µs (median of 50 fresh vaults); later opens {:.0} µs",
        median(firsts),
        median(thens)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list" || a == "--test") {
        return;
    }
    if args.iter().any(|a| a == "--secret-service") {
        first_access(KeystoreMode::Os, "Secret Service (gnome-keyring-daemon)");
        return;
    }

    let key = [7u8; 32];
    let plain = vec![b'x'; 4096];
    let mut seals = Vec::new();
    let mut opens = Vec::new();
    for _ in 0..2_000 {
        let t = Instant::now();
        let sealed = std::hint::black_box(
            seal(&key, KeystoreKind::File, "secrets.json", &plain).unwrap_or_default(),
        );
        seals.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now();
        let opened = open(&key, "secrets.json", &sealed);
        opens.push(t.elapsed().as_secs_f64() * 1e6);
        assert!(opened.is_ok());
    }
    println!(
        "seal 4 KB: {:.1} µs; open 4 KB: {:.1} µs (medians of 2,000)",
        median(seals),
        median(opens)
    );

    first_access(KeystoreMode::File, "file keystore");

    // The Secret Service, in a private session and keyring of its own.
    let script = "echo -n throwaway | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec \"$@\"";
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("a temporary folder: {e}"));
    let out = Command::new("dbus-run-session")
        .args(["--", "sh", "-c", script, "sh"])
        .arg(&args[0])
        .arg("--secret-service")
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("XDG_RUNTIME_DIR", dir.path())
        .output();
    match out {
        Ok(out) if out.status.success() => print!("{}", String::from_utf8_lossy(&out.stdout)),
        _ => println!("Secret Service: not measured (no dbus-run-session or gnome-keyring-daemon)"),
    }
}
