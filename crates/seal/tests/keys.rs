//! Real bubblewrap, the attacker's view: a person's home full of keys, one
//! at every place of the guard's one list (prefix entries and places moved
//! by XDG and other variables included), secrets in the environment, and a
//! command that looks everywhere. None of it is readable or visible in the
//! box, and none of those places can be made while it runs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::path::{Path, PathBuf};

mod common;
use common::{text, World};

/// Every variable that moves a key place, pointed under the test's folder
/// (never under temp, which the box can write).
fn moved() -> Vec<(&'static str, &'static str)> {
    let mut v = vec![
        ("XDG_CONFIG_HOME", "$ROOT/xdg/config"),
        ("XDG_DATA_HOME", "$ROOT/xdg/data"),
        ("XDG_RUNTIME_DIR", "$ROOT/xdg/run"),
        (
            "KUBECONFIG",
            "$ROOT/vars/kube-a.yaml:$ROOT/vars/kube-b.yaml",
        ),
    ];
    for place in guard::KEY_PLACES {
        if let guard::Root::Var(name) = place.root {
            if !v.iter().any(|(n, _)| *n == name) {
                let at: &'static str =
                    Box::leak(format!("$ROOT/vars/{}", name.to_ascii_lowercase()).into_boxed_str());
                v.push((name, at));
            }
        }
    }
    v
}

/// The places for this world, as the guard lists them.
fn places(w: &World) -> Vec<guard::Place> {
    w.sealed.protected.keys.clone()
}

/// Plants a key at each place: a folder with a key file in it, or a key
/// file (where no other place lies inside), and for a prefix place two
/// names that begin so and one that doesn't. Returns each key's marker and
/// the names that must stay out of sight.
fn plant(w: &World) -> (Vec<String>, Vec<String>) {
    let places = places(w);
    let mut markers = Vec::new();
    let mut names = Vec::new();
    for (i, place) in places.iter().enumerate() {
        let path = PathBuf::from(&place.path);
        let marker = format!("KEYMARK-{i}-\u{e9}");
        match &place.prefix {
            Some(prefix) => {
                std::fs::create_dir_all(&path).unwrap();
                for (n, name) in [prefix.to_string(), format!("{prefix}.toml")]
                    .iter()
                    .enumerate()
                {
                    std::fs::write(path.join(name), format!("{marker}-{n}\n")).unwrap();
                    markers.push(format!("{marker}-{n}"));
                }
                // A neighbour that isn't a key stays readable.
                std::fs::write(path.join("not-a-key.txt"), "NEIGHBOUR\n").unwrap();
            }
            None => {
                let holds_another = places
                    .iter()
                    .any(|o| o.path != place.path && Path::new(&o.path).starts_with(&path));
                if i % 2 == 0 && !holds_another {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    if !path.exists() {
                        std::fs::write(&path, format!("{marker}\n")).unwrap();
                        markers.push(marker);
                    }
                } else {
                    std::fs::create_dir_all(&path).unwrap();
                    let inner = format!("keyfile-{i}");
                    std::fs::write(path.join(&inner), format!("{marker}\n")).unwrap();
                    markers.push(marker);
                    names.push(inner);
                }
            }
        }
    }
    (markers, names)
}

#[test]
fn no_key_is_readable_or_visible_at_any_place_of_the_list() {
    let w = World::with(&moved());
    let (markers, names) = plant(&w);
    assert!(markers.len() > 80, "only {} keys planted", markers.len());
    // Unsealed, they are all there: the test can tell.
    let plain = std::process::Command::new("grep")
        .args(["-r", "-a", "-h", "KEYMARK"])
        .arg(&w.root)
        .output()
        .unwrap();
    let found = text(&plain.stdout);
    for m in &markers {
        assert!(found.contains(m.as_str()), "{m} wasn't planted");
    }
    // Sealed, a command looks everywhere it can think of.
    let mut paths = String::new();
    for p in places(&w) {
        paths.push_str(&format!(" '{}'", p.path));
    }
    let command = format!(
        "grep -r -a KEYMARK '{root}' ~ 2>&1; \
         for p in {paths}; do cat \"$p\" \"$p\"/* \"$p\"* 2>&1; ls -la \"$p\" \"$p\"/ 2>&1; done; \
         find '{root}' ~ 2>&1; \
         cat ~/.cargo/not-a-key.txt",
        root = w.root.display(),
    );
    for work in [&w.work, &w.home] {
        let out = w.run_in(work, &command);
        let seen = format!("{}{}", text(&out.stdout), text(&out.stderr));
        for m in &markers {
            assert!(
                !seen.contains(m.as_str()),
                "{m} was read from {}",
                work.display()
            );
        }
        for n in &names {
            assert!(
                !seen.contains(n.as_str()),
                "{n} was listed from {}",
                work.display()
            );
        }
        assert!(
            seen.contains("NEIGHBOUR"),
            "a file beside a key place was hidden too"
        );
    }
}

#[test]
fn no_key_place_can_be_made_where_the_box_could_write() {
    // The work folder is the whole home, and the key places don't exist.
    let w = World::with(&moved());
    std::fs::remove_dir_all(w.home.join(".ssh")).unwrap();
    std::fs::create_dir_all(w.home.join(".cargo/registry")).unwrap();
    let places = places(&w);
    let mut command = String::new();
    for p in &places {
        let target = match &p.prefix {
            Some(prefix) => format!("{}/{prefix}-planted", p.path),
            None => p.path.clone(),
        };
        command.push_str(&format!(
            "mkdir -p \"$(dirname '{target}')\" 2>/dev/null; echo PLANTED > '{target}' 2>/dev/null; "
        ));
    }
    command.push_str("echo done");
    let out = w.run_in(&w.home, &command);
    assert!(text(&out.stdout).contains("done"), "{}", text(&out.stderr));
    for p in &places {
        let target = match &p.prefix {
            Some(prefix) => PathBuf::from(format!("{}/{prefix}-planted", p.path)),
            None => PathBuf::from(&p.path),
        };
        if target.starts_with(&w.home) {
            assert!(!target.exists(), "{} was made in the box", target.display());
        }
    }
    // And what the box had to put in their way is gone again.
    let left: Vec<_> = std::fs::read_dir(&w.home)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut left = left;
    left.sort();
    assert_eq!(left, [".cargo", "project"], "left behind in the home");
    // Other files in the home are the command's to write.
    let out = w.run_in(&w.home, "echo ok > notes.txt && cat notes.txt");
    assert_eq!(text(&out.stdout), "ok\n");
}

/// Secret-shaped variables: the issue's, and generated ones.
fn secrets() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = [
        ("BW_SESSION", "eTNsb1ZQbU9xWnJzS3BtM1d2cXh5ZUxBN2w5dHQ4Zz09"),
        (
            "OP_SESSION_my",
            "q0YZLSGv4eZi1mz2bGvQ3J8n3Zw2dA7kC9fQYp1xHQ4",
        ),
        (
            "DATABASE_URL",
            "postgres://app:hunter2-PLANTED@db.internal:5432/app",
        ),
        (
            "GITHUB_PAT",
            "github_pat_11ABCDEFG0PLANTED_abcdefghijklmnop",
        ),
        ("GH_TOKEN", "ghp_PLANTED0123456789abcdefABCDEF01234"),
        (
            "AWS_SECRET_ACCESS_KEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYPLANTEDKEY",
        ),
        (
            "npm_config__authToken",
            "npm_PLANTEDabcdefghijklmnopqrstuvwxyzAB",
        ),
        ("SENTRY_DSN", "https://PLANTEDabc@o1.ingest.example/1"),
        ("MYSQL_PWD", "PLANTED-hunter2"),
        ("HTTPS_PROXY", "http://ada:PLANTED-pw@proxy.example:3128"),
        ("LANG", "Zx81PLANTEDqR7vT2mN9kL4wY6sB3cD5f"),
    ]
    .iter()
    .map(|(n, v)| (n.to_string(), v.to_string()))
    .collect();
    let words = [
        "token",
        "secret",
        "password",
        "session",
        "key",
        "auth",
        "cookie",
        "pat",
        "dsn",
        "credential",
    ];
    let around = ["my", "app", "corp", "stripe", "deploy", "bot"];
    for (i, w) in words.iter().enumerate() {
        let name = match i % 3 {
            0 => format!("{}_{}", around[i % around.len()], w).to_ascii_uppercase(),
            1 => format!(
                "{}{}{}",
                around[i % around.len()],
                &w[..1].to_ascii_uppercase(),
                &w[1..]
            ),
            _ => format!("{}_{}_{}", around[(i + 1) % around.len()], w, i),
        };
        v.push((name, format!("PLANTED-value-{i}")));
    }
    v
}

#[test]
fn secret_variables_stay_out_even_when_a_setting_names_them() {
    let mut w = World::new();
    let planted = secrets();
    let refs: Vec<(&str, &str)> = planted
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    w.set_vars(&refs);
    // The owner's sealEnv names every one of them, and everything.
    w.sealed.env_names = planted.iter().map(|(n, _)| n.clone()).collect();
    w.sealed.env_names.push("*".into());
    w.sealed.env_names.push("B*".into());
    let out = w.run("env; tr '\\0' '\\n' < /proc/self/environ; tr '\\0' '\\n' < /proc/1/environ; echo LANG=$LANG");
    let seen = text(&out.stdout);
    assert!(seen.contains("PATH="), "{seen}");
    for (name, value) in &planted {
        assert!(!seen.contains("PLANTED"), "{name} reached the box: {seen}");
        assert!(
            !seen.contains(value.as_str()),
            "{name}'s value reached the box"
        );
    }
}
