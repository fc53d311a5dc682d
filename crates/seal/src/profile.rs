//! One sealed command's profile, and its bubblewrap argument vector.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::masks::{self, Hidden, Masks, Mount};
use crate::places;

#[derive(Debug)]
pub enum SealError {
    /// A writable path is, or is inside, a hidden one.
    WritableIsHidden { writable: PathBuf, hidden: PathBuf },
    /// The work folder isn't there.
    NoWorkFolder(PathBuf),
    /// Setting the box up failed before the command started.
    Setup(String),
}

impl std::fmt::Display for SealError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SealError::WritableIsHidden { writable, hidden } => write!(
                f,
                "{} is inside {}, where keys or Conch's own files are kept, so commands can't run sealed there. Pick another work folder.",
                writable.display(),
                hidden.display()
            ),
            SealError::NoWorkFolder(p) => write!(f, "The work folder {} isn't there.", p.display()),
            SealError::Setup(why) => write!(f, "The box couldn't be set up: {why}"),
        }
    }
}

impl std::error::Error for SealError {}

/// What Conch's own folder is called in the list of hidden places.
pub const CONCH_FOLDER: &str =
    "Conch's own folder: its vault, keys, logs, settings and browser profile";

/// What a sealed command may write and must not see.
#[derive(Debug, Clone)]
pub struct Profile {
    pub work: PathBuf,
    /// The person's home folder (for caches, start-up files, and `HOME`).
    pub person_home: Option<PathBuf>,
    /// Conch's own folder: hidden entirely.
    pub conch_home: PathBuf,
    /// Where keys live and Conch's folder, as the file tools refuse them.
    pub protected: guard::Protected,
    /// An empty folder and an empty file that masks are bound from.
    pub empty: PathBuf,
    pub empty_file: PathBuf,
    /// Temp folders (/tmp, $TMPDIR).
    pub temp: Vec<PathBuf>,
    pub extra_writable: Vec<PathBuf>,
    pub extra_hidden: Vec<PathBuf>,
    /// Host folders bound writable at another path inside the box (an
    /// engine's own folder, which lives inside Conch's hidden one, at a
    /// neutral path from which no `..` leads anywhere protected). Bound
    /// last, after the masks.
    pub bind_at: Vec<(PathBuf, PathBuf)>,
    /// The environment the places are read from (the box's own is made
    /// from it by [`crate::env`]).
    pub vars: Vec<(OsString, OsString)>,
    /// Running as root: the box also gets its own user namespace with every
    /// capability dropped, or a root parent would leave the command able to
    /// unmount the masks.
    pub as_root: bool,
    /// An engine's box: a sandbox of the engine's own (Codex's bubblewrap)
    /// must be able to start inside it. As root, that box's user is not
    /// root inside ([`NESTING_UID`]): a bubblewrap that sees uid 0 takes
    /// itself for privileged and fails to make its namespaces with every
    /// capability dropped.
    pub nests: bool,
}

/// The user an engine's box runs as inside when Conch runs as root. Any
/// uid but 0 works; outside it is still root, so files keep their owner.
pub const NESTING_UID: &str = "1000";

impl Profile {
    fn var(&self, name: &str) -> Option<String> {
        self.vars
            .iter()
            .find(|(n, _)| n == OsStr::new(name))
            .and_then(|(_, v)| v.to_str())
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    }

    /// The work folder, temp and extras.
    pub fn writable(&self) -> Vec<PathBuf> {
        let mut out = vec![self.work.clone()];
        out.extend(self.temp.iter().cloned());
        out.extend(self.extra_writable.iter().cloned());
        out
    }

    pub fn caches(&self) -> Vec<PathBuf> {
        places::caches(self.person_home.as_deref(), &|n| self.var(n))
    }

    pub fn read_only(&self) -> Vec<PathBuf> {
        places::runs_later(self.person_home.as_deref(), &|n| self.var(n))
    }

    /// What runs later in the work folder and its repositories (the
    /// guard's list): read-only where it exists.
    pub fn read_only_if_there(&self) -> Vec<PathBuf> {
        // Most places aren't there: only those that are go to the planner,
        // which resolves each one it is given.
        crate::later::places(&self.work)
            .into_iter()
            .map(|p| p.path)
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .collect()
    }

    /// Conch's folder and every place where keys live.
    pub fn hidden(&self) -> Vec<Hidden> {
        let mut out = vec![Hidden {
            path: self.conch_home.clone(),
            prefix: None,
            what: CONCH_FOLDER.to_owned(),
        }];
        for c in &self.protected.conch_home {
            out.push(Hidden {
                path: PathBuf::from(c),
                prefix: None,
                what: CONCH_FOLDER.to_owned(),
            });
        }
        for place in &self.protected.keys {
            out.push(Hidden {
                path: PathBuf::from(if place.path.is_empty() {
                    "/"
                } else {
                    &place.path
                }),
                prefix: place.prefix.clone(),
                what: place.what.to_owned(),
            });
        }
        for p in &self.extra_hidden {
            out.push(Hidden {
                path: p.clone(),
                prefix: None,
                what: "hidden by this computer's settings".to_owned(),
            });
        }
        out
    }

    pub fn masks(&self) -> Result<Masks, SealError> {
        if !self.work.is_dir() {
            return Err(SealError::NoWorkFolder(self.work.clone()));
        }
        masks::plan(masks::Request {
            writable: &self.writable(),
            caches: &self.caches(),
            read_only: &self.read_only(),
            read_only_if_there: &self.read_only_if_there(),
            hidden: &self.hidden(),
        })
    }

    /// The argument vector after `bwrap`: the box, then `/bin/bash -c
    /// command`. `seccomp_fd` is the descriptor bubblewrap reads the filter
    /// from.
    pub fn argv(&self, masks: &Masks, command: &str, seccomp_fd: Option<i32>) -> Vec<OsString> {
        let mut a: Vec<OsString> =
            Vec::with_capacity(32 + 3 * (masks.binds.len() + masks.masks.len()));
        let mut push = |s: &str| a.push(OsString::from(s));
        // TIOCSTI into the owner's terminal needs the same session.
        push("--new-session");
        push("--die-with-parent");
        push("--unshare-pid");
        push("--unshare-ipc");
        push("--unshare-uts");
        if self.as_root {
            push("--unshare-user");
            if self.nests {
                for s in ["--uid", NESTING_UID, "--gid", NESTING_UID] {
                    push(s);
                }
            }
            push("--cap-drop");
            push("ALL");
        }
        for s in ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"] {
            push(s);
        }
        let mut pair = |flag: &str, from: &Path, to: &Path| {
            a.push(OsString::from(flag));
            a.push(from.as_os_str().to_owned());
            a.push(to.as_os_str().to_owned());
        };
        // Parents first, then the masks last, so nothing bound later
        // uncovers them.
        for m in masks
            .binds
            .iter()
            .chain(masks.masks.iter().map(|m| &m.mount))
        {
            match m {
                Mount::Writable(p) => pair("--bind", p, p),
                Mount::ReadOnly(p) => pair("--ro-bind", p, p),
                Mount::EmptyFolder(p) => pair("--ro-bind", &self.empty, p),
                Mount::EmptyFile(p) => pair("--ro-bind", &self.empty_file, p),
            }
        }
        for (from, to) in &self.bind_at {
            pair("--bind", from, to);
        }
        if let Some(fd) = seccomp_fd {
            a.push("--seccomp".into());
            a.push(fd.to_string().into());
        }
        a.push("--chdir".into());
        a.push(self.work.as_os_str().to_owned());
        a.push("--".into());
        a.push(shell().into());
        a.push("-c".into());
        a.push(command.into());
        a
    }
}

pub fn shell() -> &'static str {
    if Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "/bin/sh"
    }
}
