//! The artifact store on disk: versions kept, healing, and crashes.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::process::{Command, Stdio};

use artifacts::store::{By, META_FILE};
use artifacts::{Kind, Store};
use sha2::{Digest, Sha256};

const ID: &str = "abcdefgh2345";

fn chart(n: u32) -> String {
    format!(
        r#"{{"type":"bar","labels":["a","b"],"series":[{{"name":"Sales","values":[{n},{}]}}]}}"#,
        n + 1
    )
}

#[test]
fn thirty_five_updates_keep_the_first_and_the_last_twenty_nine() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(&dir.path().join("artifacts"));
    store
        .create(
            ID,
            Kind::Chart,
            "Sales",
            &chart(1),
            Some("chat1"),
            Some("chart my sales"),
        )
        .unwrap();
    for n in 2..=36 {
        store.update(ID, &chart(n), By::Updated).unwrap();
    }
    let a = store.get(ID).unwrap();
    let kept: Vec<u32> = a.versions.iter().map(|v| v.n).collect();
    let mut want = vec![1];
    want.extend(8..=36);
    assert_eq!(kept, want);
    assert_eq!(a.latest, 36);
    assert_eq!(store.text(ID, 1).unwrap(), chart(1));
    assert_eq!(store.text(ID, 36).unwrap(), chart(36));
    assert!(store.text(ID, 5).is_err(), "pruned");
    // Only the kept versions' files are on disk.
    let files = std::fs::read_dir(dir.path().join("artifacts").join(ID))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".json")
                && e.as_ref().unwrap().file_name() != META_FILE
        })
        .count();
    assert_eq!(files, 30);
    // Each version is exactly as it was.
    let v = a.version(20).unwrap();
    let sha: String = Sha256::digest(chart(20).as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(v.sha256, sha);
}

#[test]
fn a_damaged_description_heals_from_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(&dir.path().join("artifacts"));
    store
        .create(ID, Kind::Html, "Tip calculator", "<p>v1</p>", None, None)
        .unwrap();
    store
        .update(
            ID,
            "<p>v2 <a href=\"https://evil.example\">x</a></p>",
            By::Updated,
        )
        .unwrap();
    let meta = dir.path().join("artifacts").join(ID).join(META_FILE);
    std::fs::write(&meta, b"{\"id\": \"abcdefgh2345\", \"kind\": ").unwrap();
    let healed = store.get(ID).unwrap();
    let note = healed.healed.clone().unwrap();
    assert!(
        note.starts_with("artifact.json was damaged, so it was rebuilt from the 2 version files"),
        "{note}"
    );
    assert!(note.contains("The old one is kept as artifact.json.damaged-"));
    assert_eq!(healed.kind, Kind::Html);
    assert_eq!(healed.latest, 2);
    assert!(healed.version(2).unwrap().navigates, "checked again");
    assert!(!healed.version(1).unwrap().navigates);
    assert_eq!(
        store.text(ID, 2).unwrap(),
        "<p>v2 <a href=\"https://evil.example\">x</a></p>"
    );
    // The damaged text is kept, not lost.
    let aside = std::fs::read_dir(dir.path().join("artifacts").join(ID))
        .unwrap()
        .flatten()
        .find(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("artifact.json.damaged-")
        })
        .unwrap();
    assert_eq!(
        std::fs::read(aside.path()).unwrap(),
        b"{\"id\": \"abcdefgh2345\", \"kind\": "
    );
    // It goes on from there.
    store.update(ID, "<p>v3</p>", By::Updated).unwrap();
    assert_eq!(store.get(ID).unwrap().latest, 3);
    assert_eq!(store.counts(), (1, 1));
}

#[test]
fn a_deleted_description_heals_from_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(&dir.path().join("artifacts"));
    store
        .create(ID, Kind::Table, "Stock", "item,qty\npen,3\n", None, None)
        .unwrap();
    std::fs::remove_file(dir.path().join("artifacts").join(ID).join(META_FILE)).unwrap();
    let healed = store.get(ID).unwrap();
    assert!(healed
        .healed
        .unwrap()
        .starts_with("artifact.json was missing, so it was rebuilt from the 1 version file:"));
    assert_eq!(healed.kind, Kind::Table);
    assert_eq!(store.list().len(), 1);
    // A folder with nothing in it isn't an artifact.
    std::fs::create_dir_all(dir.path().join("artifacts").join("emptyfolder1")).unwrap();
    assert_eq!(store.list().len(), 1);
    assert!(store.get("emptyfolder1").is_err());
}

#[test]
fn ids_are_checked_before_any_path_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(&dir.path().join("artifacts"));
    for bad in ["../../etc", "ABCDEFGH1", "short", "a/b/c/d/e/f"] {
        assert!(store.get(bad).is_err());
        assert!(store
            .create(bad, Kind::Markdown, "t", "# x", None, None)
            .is_err());
    }
}

/// Run as a child: updates the artifact in CONCH_TEST_STORE over and over.
#[test]
#[ignore = "a child process of the crash test"]
fn child_keeps_updating() {
    let Some(root) = std::env::var_os("CONCH_TEST_STORE") else {
        return;
    };
    let store = Store::new(std::path::Path::new(&root));
    for n in 2.. {
        store.update(ID, &chart(n), By::Updated).unwrap();
    }
}

#[test]
fn killed_mid_write_leaves_a_readable_artifact() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("artifacts");
    let store = Store::new(&root);
    store
        .create(ID, Kind::Chart, "Sales", &chart(1), None, None)
        .unwrap();
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..30 {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_keeps_updating",
                "--ignored",
                "--nocapture",
            ])
            .env("CONCH_TEST_STORE", &root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        std::thread::sleep(std::time::Duration::from_millis(20 + rng % 60));
        child.kill().unwrap();
        child.wait().unwrap();
        let a = store.get(ID).unwrap();
        assert!(a.healed.is_none(), "the description was never half-written");
        for v in &a.versions {
            let text = store.text(ID, v.n).unwrap();
            let sha: String = Sha256::digest(text.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(sha, v.sha256, "version {} is whole", v.n);
        }
    }
    let last = store.get(ID).unwrap().latest;
    assert!(last > 2, "the child made progress ({last})");
}
