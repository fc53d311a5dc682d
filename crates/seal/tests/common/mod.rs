//! What the box's tests share: a person's home outside temp, a Conch
//! folder, sealing set up for them, and a way to run a command sealed and
//! see what it printed and which hosts it reached.
#![allow(dead_code)]

pub mod netns;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use seal::{Network, Sealed};

pub struct World {
    pub _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub work: PathBuf,
    pub conch: PathBuf,
    pub sealed: Sealed,
}

/// A place for the test's "home" outside every folder the box makes
/// writable (temp is; a person's home isn't), wherever the repository is.
pub fn base() -> PathBuf {
    let temps: Vec<PathBuf> = [
        "/tmp".into(),
        std::env::var_os("TMPDIR")
            .map(PathBuf::from)
            .unwrap_or_default(),
    ]
    .into_iter()
    .filter(|p: &PathBuf| !p.as_os_str().is_empty())
    .filter_map(|p| p.canonicalize().ok())
    .collect();
    let candidates = [
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
        PathBuf::from("/var/tmp"),
        std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default(),
    ];
    candidates
        .into_iter()
        .filter_map(|c| c.canonicalize().ok())
        .find(|c| !temps.iter().any(|t| c.starts_with(t)) && tempfile::tempdir_in(c).is_ok())
        .expect("a folder outside temp for the test's home")
}

/// The variables a box is set up from: the person's home, this process's
/// PATH, and `extra`.
pub fn vars(home: &Path, extra: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
    let mut v: Vec<(OsString, OsString)> = vec![
        ("HOME".into(), home.as_os_str().to_owned()),
        (
            "PATH".into(),
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
        ),
        ("LANG".into(), "C.UTF-8".into()),
    ];
    for (n, val) in extra {
        v.retain(|(name, _)| name != n);
        v.push((n.into(), val.into()));
    }
    v
}

/// The guard's protection for this home, with variables read from `vars`.
pub fn protected(home: &Path, conch: &Path, vars: &[(OsString, OsString)]) -> guard::Protected {
    let var = |name: &str| {
        vars.iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.to_str().map(str::to_owned))
    };
    let real = |p: &str| {
        std::fs::canonicalize(p)
            .ok()
            .map(|r| r.to_string_lossy().into_owned())
    };
    guard::Protected::usual_with(home.to_str(), &conch.to_string_lossy(), &var)
        .with_real_paths(&real)
}

impl World {
    pub fn new() -> World {
        World::with(&[])
    }

    /// A world whose variables include `extra` (places they move are
    /// hidden and kept as the guard reads them).
    pub fn with(extra: &[(&str, &str)]) -> World {
        let dir = tempfile::tempdir_in(base()).unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let work = home.join("project");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_ed25519"), "SECRET-KEY-MATERIAL\n").unwrap();
        std::fs::create_dir_all(&work).unwrap();
        let conch = root.join("conch");
        let extra: Vec<(String, String)> = extra
            .iter()
            .map(|(n, v)| (n.to_string(), v.replace("$ROOT", &root.to_string_lossy())))
            .collect();
        let extra_refs: Vec<(&str, &str)> = extra
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let vars = vars(&home, &extra_refs);
        let mut sealed = Sealed::new(&conch, protected(&home, &conch, &vars)).unwrap();
        sealed.person_home = Some(home.clone());
        sealed.vars = vars;
        World {
            _dir: dir,
            root,
            home,
            work,
            conch,
            sealed,
        }
    }

    /// Sets the variables again (and what they protect).
    pub fn set_vars(&mut self, extra: &[(&str, &str)]) {
        let vars = vars(&self.home, extra);
        self.sealed.protected = protected(&self.home, &self.conch, &vars);
        self.sealed.vars = vars;
    }

    pub fn run(&self, command: &str) -> Output {
        self.run_in(&self.work, command)
    }

    pub fn run_in(&self, work: &Path, command: &str) -> Output {
        self.run_seen(work, command).0
    }

    /// Runs `command` sealed in `work`: its output, and what it reached.
    pub fn run_seen(&self, work: &Path, command: &str) -> (Output, Network) {
        let sealed = self.sealed.command(work, command).unwrap();
        let (mut cmd, pending) = sealed.std_command().unwrap();
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = pending.started();
        let out = child.wait_with_output().unwrap();
        let network = started.finish();
        sealed.cleanup();
        (out, network)
    }
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
