//! Reading a skill's folder: links not followed, loops harmless, limits
//! reported as unread, and a skill that couldn't be read whole never clean.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::os::unix::fs::symlink;
use std::path::Path;

use skills::{catalog, read_folder, Source, Verdict};

fn skill_dir(root: &Path, name: &str) -> std::path::PathBuf {
    let d = root.join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("SKILL.md"),
        "---\nname: x\ndescription: y\n---\nPlain words.\n",
    )
    .unwrap();
    d
}

#[test]
fn a_link_to_keys_is_reported_not_followed() {
    let root = tempfile::tempdir().unwrap();
    let secrets = root.path().join("ssh");
    std::fs::create_dir(&secrets).unwrap();
    std::fs::write(secrets.join("id_rsa"), "curl https://webhook.site/x").unwrap();
    let d = skill_dir(root.path(), "s");
    symlink(&secrets, d.join("keys")).unwrap();
    symlink("SKILL.md", d.join("inner-link")).unwrap();
    let folder = read_folder(&d).unwrap();
    assert_eq!(folder.files.len(), 1, "no file behind a link was read");
    let outside: Vec<_> = folder
        .links
        .iter()
        .filter(|l| l.outside)
        .map(|l| l.path.as_str())
        .collect();
    assert_eq!(outside, ["keys"]);
    let skill = catalog::load(&d, Source::Conch).unwrap();
    assert_eq!(skill.verdict, Verdict::Danger);
    assert!(
        skill.findings.iter().all(|f| f.rule == "link.outside"),
        "what the key file says wasn't read"
    );
}

#[test]
fn a_loop_of_links_ends() {
    let root = tempfile::tempdir().unwrap();
    let d = skill_dir(root.path(), "s");
    symlink("b", d.join("a")).unwrap();
    symlink("a", d.join("b")).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    symlink("..", d.join("sub/up")).unwrap();
    let folder = read_folder(&d).unwrap();
    assert_eq!(folder.links.len(), 3);
}

#[test]
fn limits_are_reported_and_never_clean() {
    let root = tempfile::tempdir().unwrap();
    // 61 files: one is left unread.
    let d = skill_dir(root.path(), "many");
    for i in 0..60 {
        std::fs::write(d.join(format!("f{i:02}.md")), "fine").unwrap();
    }
    let skill = catalog::load(&d, Source::Conch).unwrap();
    assert_eq!(skill.unread.len(), 1, "{:?}", skill.unread);
    assert!(skill.unread[0].why.contains("more than 60 files"));
    assert_eq!(skill.verdict, Verdict::Caution);

    // A 50 MB file.
    let d = skill_dir(root.path(), "big");
    let f = std::fs::File::create(d.join("data.txt")).unwrap();
    f.set_len(50 * 1024 * 1024).unwrap();
    let skill = catalog::load(&d, Source::Conch).unwrap();
    assert!(skill
        .unread
        .iter()
        .any(|u| u.path == "data.txt" && u.why.contains("too big")));
    assert_ne!(skill.verdict, Verdict::Clean);

    // A binary that isn't a known kind, and text that isn't UTF-8.
    let d = skill_dir(root.path(), "odd");
    std::fs::write(d.join("blob.bin"), [0u8, 159, 146, 150, 1, 2, 3]).unwrap();
    std::fs::write(d.join("notes.txt"), b"caf\xe9 au lait").unwrap();
    let skill = catalog::load(&d, Source::Conch).unwrap();
    let unread: Vec<&str> = skill.unread.iter().map(|u| u.path.as_str()).collect();
    assert_eq!(unread.len(), 2, "{unread:?}");
    assert_eq!(skill.verdict, Verdict::Caution);
}

#[test]
fn broken_front_matter_is_a_sentence_and_the_skill_stays_off() {
    let root = tempfile::tempdir().unwrap();
    let d = root.path().join("broken");
    std::fs::create_dir(&d).unwrap();
    std::fs::write(d.join("SKILL.md"), "---\nname: [oops\n---\n").unwrap();
    let skill = catalog::load(&d, Source::Conch).unwrap();
    match &skill.state {
        skills::State::Off {
            why: skills::OffWhy::Broken,
            says,
        } => assert!(says.contains("isn't valid YAML"), "{says}"),
        other => panic!("{other:?}"),
    }
}
