//! Starting a stdio server. A server is someone else's program, and a
//! reference one (`server-everything`) has a tool that prints its whole
//! environment. So it starts with the box's environment (the allowlist of
//! ordinary variables, never one that looks like a secret:
//! `seal::env`) plus only what the owner configured for it, never Conch's
//! own. Where sealing is on and this computer can, it runs in the box like
//! a command: it writes only in its work folder, temp and the caches
//! installs use; the places keys live and Conch's folder are hidden; the
//! network is open (an app's server usually talks to its service).
//!
//! Its process group (or the box) goes when the connection does.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};

/// How stdio servers are started.
#[derive(Clone)]
pub struct Launch {
    /// Sealing, where this computer can.
    pub seal: Option<Arc<seal::Sealed>>,
    /// Safety → Seal commands, read at each start (absent: on whenever
    /// `seal` is).
    pub sealing_on: Option<Arc<AtomicBool>>,
    /// The environment a server's is made from (this process's).
    pub vars: Vec<(OsString, OsString)>,
    /// Names the owner lets into the box besides the ordinary ones
    /// (`sealEnv`).
    pub env_names: Vec<String>,
    /// The person's home, for `HOME`.
    pub home: Option<std::path::PathBuf>,
}

impl Launch {
    /// Unsealed, with this process's environment to choose from.
    pub fn plain() -> Launch {
        Launch {
            seal: None,
            sealing_on: None,
            vars: std::env::vars_os().collect(),
            env_names: Vec::new(),
            home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(Into::into),
        }
    }

    fn sealed(&self) -> Option<&seal::Sealed> {
        let on = self
            .sealing_on
            .as_ref()
            .is_none_or(|s| s.load(Ordering::SeqCst));
        self.seal.as_deref().filter(|_| on)
    }
}

/// The last lines a server wrote on standard error, for the sentence when
/// it fails. The server's own words: shown to the owner, never to a model.
#[derive(Clone, Default)]
pub struct Tail(Arc<Mutex<VecDeque<String>>>);

impl Tail {
    const LINES: usize = 12;

    fn push(&self, line: String) {
        let mut t = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if t.len() == Self::LINES {
            t.pop_front();
        }
        t.push_back(line.chars().take(400).collect());
    }

    /// "It said: …" when it said anything.
    pub fn said(&self) -> String {
        let t = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let lines: Vec<&str> = t
            .iter()
            .map(String::as_str)
            .filter(|l| !l.trim().is_empty())
            .collect();
        match lines.split_last() {
            Some((last, _)) => format!(" It said: {last}"),
            None => String::new(),
        }
    }
}

/// A running server process; ended (its whole group, or its box) when
/// dropped.
pub struct Child {
    child: tokio::process::Child,
    pub tail: Tail,
    pub sealed: bool,
    cleanup: Option<seal::SealedCommand>,
}

impl Drop for Child {
    fn drop(&mut self) {
        if let Some(pid) = self.child.id() {
            // SAFETY: signals the process group this child leads (it was
            // started with process_group(0)); no memory is touched.
            unsafe {
                libc::killpg(pid as libc::pid_t, libc::SIGKILL);
            }
        }
        let _ = self.child.start_kill();
        if let Some(c) = &self.cleanup {
            c.cleanup();
        }
    }
}

/// `word` for bash, in single quotes.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Starts `command args` in `work` with the owner's `configured`
/// variables: its pipes to speak MCP on, and the process.
pub fn start(
    launch: &Launch,
    command: &str,
    args: &[String],
    configured: &[(String, String)],
    work: &Path,
) -> Result<(Child, ChildStdout, ChildStdin), String> {
    let (mut cmd, cleanup) = match launch.sealed() {
        Some(sealed) => {
            // The box watches commands' networks; a server runs for hours
            // and its network is its job, so it isn't watched.
            let mut sealed = sealed.clone();
            sealed.observe = false;
            let line = std::iter::once(command)
                .chain(args.iter().map(String::as_str))
                .map(quote)
                .collect::<Vec<_>>()
                .join(" ");
            let mut boxed = sealed
                .command(work, &format!("exec {line}"))
                .map_err(|e| format!("it can't be sealed ({e})"))?;
            boxed
                .env
                .extend(configured.iter().map(|(k, v)| (k.into(), v.into())));
            let (std_cmd, pending) = boxed
                .std_command()
                .map_err(|e| format!("it can't be sealed ({e})"))?;
            // The filter's pipe must stay open until the spawn below; the
            // pending half is dropped (closing it) right after.
            (
                tokio::process::Command::from(std_cmd),
                Some((boxed, pending)),
            )
        }
        None => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args)
                .env_clear()
                .envs(seal::env::environment(
                    &launch.vars,
                    &launch.env_names,
                    launch.home.as_deref(),
                ))
                .envs(configured.iter().map(|(k, v)| (k, v)))
                .current_dir(work);
            (cmd, None)
        }
    };
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let spawned = cmd.spawn();
    let (cleanup, sealed) = match cleanup {
        Some((boxed, pending)) => {
            let _started = pending.started();
            (Some(boxed), true)
        }
        None => (None, false),
    };
    let mut child = spawned.map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("there's no program called \"{command}\""),
        _ => format!("\"{command}\" couldn't be started ({e})"),
    })?;
    let stdout = child.stdout.take();
    let stdin = child.stdin.take();
    let tail = Tail::default();
    if let Some(err) = child.stderr.take() {
        let tail = tail.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(err).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tail.push(line);
            }
        });
    }
    let child = Child {
        child,
        tail,
        sealed,
        cleanup,
    };
    match (stdout, stdin) {
        (Some(out), Some(inp)) => Ok((child, out, inp)),
        _ => Err("its pipes couldn't be opened".to_owned()),
    }
}
