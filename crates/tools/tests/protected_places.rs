//! The file tools against a home full of planted keys: one planted file per
//! entry of the guard's shared list (prefix entries and places moved by
//! variables included). No tool reads one, however the path is spelled or
//! wherever a walk starts, and every walk says what it left out.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use guard::Protected;
use serde_json::json;
use tools::{Cancel, RunContext, ToolBox, ToolCall, Tools, ToolsConfig};

/// Names in the shared list that are files rather than folders.
fn is_file_place(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.contains('.') && !name.starts_with('.')
        || matches!(name, "credentials" | "hosts.yml")
        || [
            ".netrc",
            "_netrc",
            ".git-credentials",
            ".npmrc",
            ".pypirc",
            ".vault-token",
            ".yarnrc.yml",
        ]
        .contains(&name)
}

struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
    protected: Arc<Protected>,
    /// Each planted file and the secret in it.
    planted: Vec<(PathBuf, String)>,
}

fn vars(home: &Path) -> impl Fn(&str) -> Option<String> {
    let home = home.to_path_buf();
    move |name: &str| match name {
        "GNUPGHOME" => Some(home.join("elsewhere/gpg").to_string_lossy().into_owned()),
        "KUBECONFIG" => Some(
            home.join("clusters/prod.yaml")
                .to_string_lossy()
                .into_owned(),
        ),
        "CARGO_HOME" => Some(home.join("toolchains/cargo").to_string_lossy().into_owned()),
        _ => None,
    }
}

fn planted_home() -> Home {
    // Not under /tmp: the box may write there, and this home stands for a
    // person's real one.
    let base = std::env::current_dir().unwrap().join("target-test-homes");
    std::fs::create_dir_all(&base).unwrap();
    let dir = tempfile::tempdir_in(&base).unwrap();
    let home = dir.path().canonicalize().unwrap();
    let work = home.join("project");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("notes.md"), "SECRET-free notes\n").unwrap();
    let conch = home.join(".conch");
    let var = vars(&home);
    let protected = Protected::usual_with(
        Some(&home.to_string_lossy()),
        &conch.to_string_lossy(),
        &var,
    );
    let tag = home
        .file_name()
        .map(|n| n.to_string_lossy().trim_start_matches(".tmp").to_owned())
        .unwrap_or_default();
    let mut planted = Vec::new();
    for (i, place) in protected.keys.iter().enumerate() {
        // Unique to this home: a search from / also walks the homes other
        // tests plant at the same time, and their secrets aren't ours.
        let secret = format!("SECRET-{i:03}-planted-{tag}");
        let file = match &place.prefix {
            Some(prefix) => PathBuf::from(&place.path).join(format!("{prefix}.toml")),
            None if is_file_place(&place.path) => PathBuf::from(&place.path),
            None => PathBuf::from(&place.path).join("inner/key"),
        };
        if file.exists() {
            continue;
        }
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, format!("{secret}\n")).unwrap();
        planted.push((file, secret));
    }
    std::fs::create_dir_all(&conch).unwrap();
    let owner = format!("SECRET-conch-owner-{tag}");
    std::fs::write(conch.join("owner.json"), format!("{owner}\n")).unwrap();
    planted.push((conch.join("owner.json"), owner));
    assert!(
        planted.len() >= 60,
        "every place is planted: {}",
        planted.len()
    );
    Home {
        _dir: dir,
        home,
        work,
        protected: Arc::new(protected),
        planted,
    }
}

async fn run(h: &Home, name: &str, input: serde_json::Value) -> tools::Outcome {
    let t = Tools::new(ToolsConfig::default());
    let call = ToolCall {
        id: "c".into(),
        name: name.into(),
        input,
    };
    let action = match t.classify(&call, &h.work) {
        Ok(a) => a,
        Err(e) => return tools::Outcome::failed(e),
    };
    let ctx = RunContext {
        work: h.work.clone(),
        cancel: Cancel::default(),
        protected: h.protected.clone(),
        masker: None,
    };
    t.run(&call, &action, &ctx).await
}

fn leaks(h: &Home, text: &str) -> Vec<String> {
    h.planted
        .iter()
        .filter(|(_, s)| text.contains(s.as_str()))
        .map(|(p, _)| p.display().to_string())
        .collect()
}

#[tokio::test]
async fn no_planted_key_is_read_however_the_path_is_spelled() {
    let h = planted_home();
    let home = h.home.to_string_lossy().into_owned();
    let rel_home = "..";
    for (file, _) in &h.planted {
        let path = file.to_string_lossy().into_owned();
        let inside = path.strip_prefix(&home).unwrap().trim_start_matches('/');
        let link = h.work.join(format!("link-{}", inside.replace('/', "_")));
        symlink(file, &link).unwrap();
        for spelling in [
            path.clone(),
            format!("{rel_home}/{inside}"),
            format!("./../project/../{inside}"),
            format!("/proc/self/root{path}"),
            format!("/proc/self/cwd/../../../../../../../../..{path}"),
            link.to_string_lossy().into_owned(),
            format!("{home}//{inside}"),
        ] {
            let out = run(&h, "read_file", json!({ "path": spelling })).await;
            assert!(
                !out.ok && leaks(&h, &out.output).is_empty(),
                "read {spelling}: {}",
                out.output
            );
        }
    }
}

#[tokio::test]
async fn walks_that_start_outside_skip_what_is_protected_and_say_so() {
    let h = planted_home();
    symlink(&h.home, h.work.join("up")).unwrap();
    for root in [
        h.home.to_string_lossy().into_owned(),
        "..".to_owned(),
        "/".to_owned(),
        "up".to_owned(),
        h.home.join(".config").to_string_lossy().into_owned(),
        h.home.join(".cargo").to_string_lossy().into_owned(),
    ] {
        let out = run(
            &h,
            "search_files",
            json!({ "pattern": "SECRET-", "path": root }),
        )
        .await;
        let leaked = leaks(&h, &out.output);
        assert!(leaked.is_empty(), "search from {root} read {leaked:?}");
        if root != "/" {
            assert!(
                out.output.contains("Left out") || !out.ok,
                "search from {root} says what it left out: {}",
                out.output
            );
        }
    }
    // The planted notes in the work folder are still found.
    let out = run(&h, "search_files", json!({ "pattern": "SECRET-free" })).await;
    assert!(out.output.contains("notes.md"), "{}", out.output);

    let listing = run(&h, "list_files", json!({ "path": ".." })).await;
    assert!(listing.ok, "{}", listing.output);
    for hidden in [".ssh", ".gnupg", ".npmrc", ".conch", ".aws"] {
        assert!(
            !listing.output.lines().any(|l| l.starts_with(hidden)),
            "{hidden} listed: {}",
            listing.output
        );
    }
    assert!(listing.output.contains("Left out"), "{}", listing.output);
    assert!(listing.output.contains("project/"));
    let cargo = run(&h, "list_files", json!({ "path": "../.cargo" })).await;
    assert!(!cargo.output.contains("credentials"), "{}", cargo.output);
    for inside in ["../.ssh", "../.config/gh", "../.conch", "up/.ssh"] {
        let out = run(&h, "list_files", json!({ "path": inside })).await;
        assert!(
            !out.ok && out.output.contains("never"),
            "{inside}: {}",
            out.output
        );
    }
}

#[tokio::test]
async fn a_change_is_refused_through_a_link_swapped_in_after_judging() {
    let h = planted_home();
    let t = Tools::new(ToolsConfig::default());
    let call = ToolCall {
        id: "c".into(),
        name: "write_file".into(),
        input: json!({ "path": "later/config", "content": "x" }),
    };
    // Judged while `later` doesn't exist: an ordinary file in the work folder.
    let action = t.classify(&call, &h.work).unwrap();
    symlink(h.home.join(".ssh"), h.work.join("later")).unwrap();
    let ctx = RunContext {
        work: h.work.clone(),
        cancel: Cancel::default(),
        protected: h.protected.clone(),
        masker: None,
    };
    let out = t.run(&call, &action, &ctx).await;
    assert!(!out.ok, "{}", out.output);
    assert!(!h.home.join(".ssh/config").exists());
}
