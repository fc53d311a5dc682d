//! One sealed command's profile, and its bubblewrap argument vector.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::masks::{self, Mask, Masks};

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

/// What a sealed command may write and must not see.
#[derive(Debug, Clone)]
pub struct Profile {
    pub work: PathBuf,
    /// The person's home folder (for caches and key places).
    pub person_home: Option<PathBuf>,
    /// Conch's own folder: hidden entirely.
    pub conch_home: PathBuf,
    /// An empty folder that masks are bound from.
    pub empty: PathBuf,
    /// Temp folders (/tmp, $TMPDIR).
    pub temp: Vec<PathBuf>,
    pub extra_writable: Vec<PathBuf>,
    pub extra_hidden: Vec<PathBuf>,
    /// Running as root: the box also gets its own user namespace with every
    /// capability dropped, or a root parent would leave the command able to
    /// unmount the masks.
    pub as_root: bool,
}

impl Profile {
    pub fn writable(&self) -> Vec<PathBuf> {
        let mut out = vec![self.work.clone()];
        out.extend(self.temp.iter().cloned());
        if let Some(home) = &self.person_home {
            out.extend(masks::CACHES_IN_HOME.iter().map(|c| home.join(c)));
        }
        for var in ["CARGO_HOME", "GOMODCACHE", "GRADLE_USER_HOME"] {
            if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
                let base = PathBuf::from(v);
                if var == "CARGO_HOME" {
                    out.push(base.join("registry"));
                    out.push(base.join("git"));
                } else {
                    out.push(base);
                }
            }
        }
        out.extend(self.extra_writable.iter().cloned());
        out
    }

    pub fn hidden(&self) -> Vec<PathBuf> {
        let mut out = vec![self.conch_home.clone()];
        if let Some(home) = &self.person_home {
            out.extend(masks::HIDDEN_IN_HOME.iter().map(|h| home.join(h)));
        }
        out.extend(self.extra_hidden.iter().cloned());
        out
    }

    pub fn masks(&self) -> Result<Masks, SealError> {
        if !self.work.is_dir() {
            return Err(SealError::NoWorkFolder(self.work.clone()));
        }
        masks::plan(&self.writable(), &self.hidden())
    }

    /// The argument vector after `bwrap`: the box, then `/bin/bash -c
    /// command`. `seccomp_fd` is the descriptor bubblewrap reads the filter
    /// from; `unset` the environment variables to remove.
    pub fn argv(
        &self,
        masks: &Masks,
        command: &str,
        seccomp_fd: Option<i32>,
        unset: &[String],
    ) -> Vec<OsString> {
        let mut a: Vec<OsString> = Vec::with_capacity(64);
        let mut push = |s: &str| a.push(OsString::from(s));
        // TIOCSTI into the owner's terminal needs the same session.
        push("--new-session");
        push("--die-with-parent");
        push("--unshare-pid");
        push("--unshare-ipc");
        push("--unshare-uts");
        if self.as_root {
            push("--unshare-user");
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
        for w in &masks.writable {
            pair("--bind", w, w);
        }
        // The masks go last, so nothing bound later uncovers them.
        for m in &masks.hidden {
            match m {
                Mask::Folder(p) => pair("--ro-bind", &self.empty, p),
                Mask::File(p) => pair("--ro-bind", Path::new("/dev/null"), p),
            }
        }
        if let Some(fd) = seccomp_fd {
            a.push("--seccomp".into());
            a.push(fd.to_string().into());
        }
        for name in unset {
            a.push("--unsetenv".into());
            a.push(name.into());
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
