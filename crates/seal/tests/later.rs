//! Real bubblewrap: nothing a sealed command writes runs later by itself,
//! and the caches installs and builds use still take what they fetch: a
//! real `npm install` and a real `cargo fetch`, from registries this test
//! serves on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

mod common;
use common::{text, World};

/// The variables of a person whose PATH has bin folders in their home.
fn person(w: &World) -> Vec<(String, String)> {
    let path = format!(
        "{home}/tools/bin:{home}/.local/bin:{home}/not-yet/bin:{}",
        std::env::var("PATH").unwrap_or_default(),
        home = w.home.display()
    );
    let mut v = vec![
        ("PATH".to_owned(), path),
        (
            "CARGO_HOME".to_owned(),
            w.home.join(".cargo").display().to_string(),
        ),
    ];
    // The toolchain itself stays where it is (rustup's cargo needs it).
    if let Some(r) = rustup_home() {
        v.push(("RUSTUP_HOME".to_owned(), r));
    }
    v
}

fn rustup_home() -> Option<String> {
    std::env::var("RUSTUP_HOME").ok().or_else(|| {
        let h = std::env::var("HOME").ok()?;
        let r = PathBuf::from(h).join(".rustup");
        r.is_dir().then(|| r.display().to_string())
    })
}

fn set(w: &mut World, vars: &[(String, String)]) {
    let refs: Vec<(&str, &str)> = vars.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    w.set_vars(&refs);
}

fn var_of(vars: &[(String, String)]) -> impl Fn(&str) -> Option<String> + '_ {
    move |name| vars.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
}

#[test]
fn nothing_that_runs_later_can_be_written_and_every_cache_can() {
    let mut w = World::new();
    let vars = person(&w);
    set(&mut w, &vars);
    let var = var_of(&vars);
    let later = seal::places::runs_later(Some(&w.home), &var);
    let caches = seal::places::caches(Some(&w.home), &var);
    // Some of each exist, some don't yet.
    for (i, p) in later.iter().enumerate() {
        if !p.starts_with(&w.home) || i % 3 == 2 {
            continue;
        }
        let looks_like_file = p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
            n.contains(".")
                && !n.starts_with(".config")
                && !n.starts_with(".local")
                && n != ".oh-my-zsh"
                && n != ".npm-global"
                && n != ".node_modules"
                && n != ".node_libraries"
                && n != ".pip"
                && n != ".bash_completion.d"
                && n != ".m2"
        });
        if looks_like_file && !later.iter().any(|o| o != p && o.starts_with(p)) {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "original\n").unwrap();
        } else {
            std::fs::create_dir_all(p).unwrap();
        }
    }
    std::fs::create_dir_all(w.home.join("tools/bin")).unwrap();
    for c in &caches {
        if c.starts_with(&w.home) {
            std::fs::create_dir_all(c).unwrap();
        }
    }
    let before = snapshot(&w.home);
    for work in [w.home.clone(), w.work.clone()] {
        let mut command = String::new();
        for p in later.iter().filter(|p| p.starts_with(&w.home)) {
            let p = p.display();
            command.push_str(&format!(
                "echo PLANTED >> '{p}' 2>/dev/null; echo PLANTED > '{p}/planted' 2>/dev/null; \
                 mkdir -p '{p}' 2>/dev/null && echo PLANTED > '{p}/planted' 2>/dev/null; \
                 rm -rf '{p}' 2>/dev/null; ln -s /tmp/x '{p}' 2>/dev/null; "
            ));
        }
        for c in caches.iter().filter(|c| c.starts_with(&w.home)) {
            command.push_str(&format!(
                "echo cached > '{}/fetched' || echo CACHE-REFUSED {}; ",
                c.display(),
                c.display()
            ));
        }
        let out = w.run_in(&work, &command);
        let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(
            !said.contains("CACHE-REFUSED"),
            "from {}: {said}",
            work.display()
        );
        let after = snapshot(&w.home);
        for (path, was) in &before {
            assert_eq!(
                after.get(path),
                Some(was),
                "{} changed (work {})",
                path.display(),
                work.display()
            );
        }
        for (path, now) in &after {
            if before.contains_key(path) {
                continue;
            }
            let in_cache = caches.iter().any(|c| path.starts_with(c));
            let in_work = work != w.home && path.starts_with(&work);
            assert!(in_cache || in_work, "{} appeared: {now}", path.display());
            if in_cache {
                assert!(path.ends_with("fetched"));
            }
        }
        for c in caches.iter().filter(|c| c.starts_with(&w.home)) {
            assert_eq!(
                std::fs::read_to_string(c.join("fetched")).ok().as_deref(),
                Some("cached\n"),
                "{} from {}: {said}",
                c.display(),
                work.display()
            );
            std::fs::remove_file(c.join("fetched")).unwrap();
        }
    }
}

/// Every file and folder under `root`, with its content (or "dir"/"link").
fn snapshot(root: &Path) -> HashMap<PathBuf, String> {
    let mut out = HashMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            let t = e.file_type().unwrap();
            if t.is_symlink() {
                out.insert(p, format!("link {:?}", std::fs::read_link(e.path()).ok()));
            } else if t.is_dir() {
                out.insert(p.clone(), "dir".into());
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    out
}

/// A static file server on 127.0.0.1: path → bytes; anything else is a 404.
fn serve(listener: TcpListener, files: HashMap<String, Vec<u8>>) {
    let files = Arc::new(files);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let files = files.clone();
            std::thread::spawn(move || respond(stream, &files));
        }
    });
}

/// A gzipped tar of `dir`'s `top` folder.
fn tgz(dir: &Path, top: &str, out: &Path) -> Vec<u8> {
    let st = Command::new("tar")
        .arg("-czf")
        .arg(out)
        .arg("-C")
        .arg(dir)
        .arg(top)
        .status()
        .unwrap();
    assert!(st.success());
    std::fs::read(out).unwrap()
}

fn digest(tool: &str, file: &Path) -> String {
    let out = Command::new(tool).arg(file).output().unwrap();
    text(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

#[test]
fn a_real_npm_install_and_cargo_fetch_fill_the_caches() {
    let mut w = World::new();
    let vars = person(&w);
    set(&mut w, &vars);
    let pkgs = w.root.join("packages");

    // npm: a packument and its tarball.
    std::fs::create_dir_all(pkgs.join("npm/package")).unwrap();
    std::fs::write(
        pkgs.join("npm/package/package.json"),
        r#"{"name":"tiny-conch-pkg","version":"1.0.0","description":"größe"}"#,
    )
    .unwrap();
    std::fs::write(
        pkgs.join("npm/package/index.js"),
        "module.exports = 'tiny';\n",
    )
    .unwrap();
    let tarball = tgz(&pkgs.join("npm"), "package", &pkgs.join("tiny.tgz"));
    let sha1 = digest("sha1sum", &pkgs.join("tiny.tgz"));

    // cargo: a sparse registry with one crate.
    std::fs::create_dir_all(pkgs.join("crate/tinydep-0.1.0/src")).unwrap();
    std::fs::write(
        pkgs.join("crate/tinydep-0.1.0/Cargo.toml"),
        "[package]\nname = \"tinydep\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(
        pkgs.join("crate/tinydep-0.1.0/src/lib.rs"),
        "pub fn f() {}\n",
    )
    .unwrap();
    let krate = tgz(
        &pkgs.join("crate"),
        "tinydep-0.1.0",
        &pkgs.join("tinydep.crate"),
    );
    let sha256 = digest("sha256sum", &pkgs.join("tinydep.crate"));

    let mut files: HashMap<String, Vec<u8>> = HashMap::new();
    files.insert(
        "/npm/tiny-conch-pkg/-/tiny-conch-pkg-1.0.0.tgz".into(),
        tarball,
    );
    files.insert("/crates/dl/tinydep/0.1.0/download".into(), krate);
    files.insert(
        "/crates/ti/ny/tinydep".into(),
        format!(r#"{{"name":"tinydep","vers":"0.1.0","deps":[],"cksum":"{sha256}","features":{{}},"yanked":false}}"#).into_bytes(),
    );
    // The addresses inside name the server's port.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let base = format!("http://127.0.0.1:{port}");
    files.insert(
        "/npm/tiny-conch-pkg".into(),
        format!(
            r#"{{"name":"tiny-conch-pkg","dist-tags":{{"latest":"1.0.0"}},"versions":{{"1.0.0":{{"name":"tiny-conch-pkg","version":"1.0.0","dist":{{"tarball":"{base}/npm/tiny-conch-pkg/-/tiny-conch-pkg-1.0.0.tgz","shasum":"{sha1}"}}}}}}}}"#
        )
        .into_bytes(),
    );
    files.insert(
        "/crates/config.json".into(),
        format!(r#"{{"dl":"{base}/crates/dl"}}"#).into_bytes(),
    );
    serve(listener, files);

    // The caches a person who uses these tools has.
    std::fs::create_dir_all(w.home.join(".npm")).unwrap();
    std::fs::create_dir_all(w.home.join(".cargo/registry")).unwrap();
    std::fs::create_dir_all(w.work.join(".cargo")).unwrap();
    std::fs::write(
        w.work.join(".cargo/config.toml"),
        format!("[source.crates-io]\nreplace-with = \"here\"\n[source.here]\nregistry = \"sparse+{base}/crates/\"\n"),
    )
    .unwrap();
    std::fs::write(
        w.work.join("Cargo.toml"),
        "[package]\nname = \"uses-tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ntinydep = \"0.1\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::create_dir_all(w.work.join("src")).unwrap();
    std::fs::write(w.work.join("src/main.rs"), "fn main() { tinydep::f() }\n").unwrap();

    let out = w.run(&format!(
        "npm install --no-audit --no-fund --no-update-notifier --registry {base}/npm/ tiny-conch-pkg 2>&1 && cargo fetch 2>&1"
    ));
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{said}");
    assert!(
        w.work
            .join("node_modules/tiny-conch-pkg/index.js")
            .is_file(),
        "{said}"
    );
    let cacache = w.home.join(".npm/_cacache");
    assert!(cacache.is_dir(), "npm's cache took nothing: {said}");
    let crate_cache = w.home.join(".cargo/registry/cache");
    let cached: Vec<_> = walk(&crate_cache);
    assert!(
        cached.iter().any(|p| p.ends_with("tinydep-0.1.0.crate")),
        "cargo's cache took nothing: {cached:?} {said}"
    );
    assert!(w.work.join("Cargo.lock").is_file());
}

fn respond(mut s: std::net::TcpStream, files: &HashMap<String, Vec<u8>>) {
    let mut req = Vec::new();
    let mut buf = [0u8; 4096];
    while !req.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => req.extend_from_slice(&buf[..n]),
        }
    }
    let line = String::from_utf8_lossy(&req)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned();
    let path = line
        .split(' ')
        .nth(1)
        .unwrap_or("/")
        .split('?')
        .next()
        .unwrap_or("/")
        .to_owned();
    let (status, body) = match files.get(&path) {
        Some(b) => ("200 OK", b.clone()),
        None => ("404 Not Found", b"not here".to_vec()),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(&body);
}

fn walk(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out
}
