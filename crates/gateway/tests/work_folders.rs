//! A script's access key asks for chats in every folder a chat must never
//! work in, spelled every way: each is refused with a sentence, and the
//! person's home still works.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use common::{start_options, Options};
use conversations::GuardConfig;
use reqwest::StatusCode;
use serde_json::{json, Value};

#[tokio::test]
async fn an_access_key_is_refused_each_forbidden_work_folder() {
    let s = start_options(Options {
        guard: Some(Box::new(|temp: &std::path::Path| {
            let person = temp.join("person").canonicalize().unwrap_or_else(|_| {
                std::fs::create_dir_all(temp.join("person")).unwrap();
                temp.join("person").canonicalize().unwrap()
            });
            let conch = temp.join("conch").canonicalize().unwrap();
            GuardConfig {
                protected: std::sync::Arc::new(guard::Protected::usual(
                    Some(&person.to_string_lossy()),
                    &conch.to_string_lossy(),
                )),
                owner_home: Some(person),
                ..GuardConfig::default()
            }
        })),
        ..Options::default()
    })
    .await;
    let temp = s.home.path().canonicalize().unwrap();
    let person = temp.join("person");
    let conch = s.root().canonicalize().unwrap();
    let (_, key) = gateway::auth::keys::create(&conch, "a script").unwrap();
    let script = reqwest::Client::new();
    let create = |work: String| {
        script
            .post(format!("{}/api/chats", s.url))
            .bearer_auth(&key)
            .json(&json!({ "work": work, "mode": "full" }))
            .send()
    };

    // Every key folder of the shared list that lives in a folder, made
    // real in the person's home.
    let mut forbidden: Vec<(String, String)> = Vec::new();
    for place in guard::KEY_PLACES {
        let base = match place.root {
            guard::Root::Home => person.join(place.path),
            guard::Root::Config => person.join(".config").join(place.path),
            guard::Root::Data => person.join(".local/share").join(place.path),
            guard::Root::Runtime | guard::Root::Var(_) => continue,
        };
        if place.path.contains('*') {
            continue;
        }
        std::fs::create_dir_all(base.join("inner")).unwrap();
        let base = base.to_string_lossy().into_owned();
        forbidden.push((base.clone(), place.what.to_owned()));
        forbidden.push((format!("{base}/inner"), place.what.to_owned()));
        forbidden.push((format!("{base}/inner/.."), place.what.to_owned()));
    }
    // A link to a key folder is the key folder.
    let link = temp.join("looks-harmless");
    std::os::unix::fs::symlink(person.join(".ssh"), &link).unwrap();
    forbidden.push((link.to_string_lossy().into_owned(), "SSH".to_owned()));
    // Conch's own folder, inside it, through `..` and through a link.
    let conch_text = conch.to_string_lossy().into_owned();
    for folder in [
        conch_text.clone(),
        format!("{conch_text}/"),
        format!("{conch_text}/chats"),
        format!("{conch_text}/chats/../chats"),
        format!("{}/person/../conch", temp.display()),
    ] {
        forbidden.push((folder, "Conch's own folder".to_owned()));
    }
    let conch_link = temp.join("notes");
    std::os::unix::fs::symlink(&conch, &conch_link).unwrap();
    forbidden.push((
        conch_link.to_string_lossy().into_owned(),
        "Conch's own folder".to_owned(),
    ));
    // The whole computer, however it is spelled, and above the home.
    for folder in [
        "/",
        "//",
        "/tmp/..",
        "/proc/self/root",
        "/proc/self/cwd/../../../../../..",
    ] {
        forbidden.push((folder.to_owned(), "whole computer".to_owned()));
    }
    forbidden.push((
        temp.to_string_lossy().into_owned(),
        "whole home folder".to_owned(),
    ));

    let before = std::fs::read_dir(conch.join("chats")).unwrap().count();
    for (folder, why) in &forbidden {
        let res = create(folder.clone()).await.unwrap();
        let status = res.status();
        let body: Value = res.json().await.unwrap();
        assert_eq!(status, StatusCode::FORBIDDEN, "{folder}: {body}");
        let sentence = body["error"].as_str().unwrap();
        assert!(
            sentence.starts_with("The work folder ")
                && sentence.ends_with("Pick a project folder."),
            "{folder}: {sentence}"
        );
        assert!(sentence.contains(why.as_str()), "{folder}: {sentence}");
    }
    assert!(forbidden.len() > 100, "{} folders tried", forbidden.len());
    assert_eq!(
        std::fs::read_dir(conch.join("chats")).unwrap().count(),
        before,
        "nothing was made for a refused folder"
    );

    // The person's home itself, and a project in it, stay allowed.
    let project = person.join("projects/ünïcode ✓");
    std::fs::create_dir_all(&project).unwrap();
    for folder in [person.clone(), project] {
        let res = create(folder.to_string_lossy().into_owned()).await.unwrap();
        assert_eq!(res.status(), StatusCode::CREATED, "{}", folder.display());
    }
}
