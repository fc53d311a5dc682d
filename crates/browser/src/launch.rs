//! Starting Chromium: which program, with which arguments, its pipe on fds
//! 3 and 4, in its own process group so that stopping it stops every
//! process it made.

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::error::BrowserError;

/// Where Chromium usually is, after `CONCH_CHROMIUM`.
const USUAL: &[&str] = &[
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/snap/bin/chromium",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
];

/// The Chromium to run: `CONCH_CHROMIUM`, else the first usual place that
/// exists.
pub fn find(explicit: Option<&Path>) -> Result<PathBuf, BrowserError> {
    let mut looked = Vec::new();
    let wanted = explicit.map(Path::to_path_buf).or_else(|| {
        std::env::var_os("CONCH_CHROMIUM")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    if let Some(p) = wanted {
        if p.is_file() {
            return Ok(p);
        }
        looked.push(p);
        return Err(BrowserError::NotFound(looked));
    }
    for p in USUAL {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        looked.push(p);
    }
    Err(BrowserError::NotFound(looked))
}

/// The arguments: Conch's own profile, nothing fetched in the background,
/// and the pipe.
pub fn arguments(profile: &Path, headless: bool, extra: &[String]) -> Vec<String> {
    let mut args = vec![
        format!("--user-data-dir={}", profile.display()),
        "--remote-debugging-pipe".to_owned(),
        "--no-first-run".to_owned(),
        "--no-default-browser-check".to_owned(),
        "--disable-background-networking".to_owned(),
        "--disable-component-update".to_owned(),
        "--disable-sync".to_owned(),
        "--disable-default-apps".to_owned(),
        "--disable-extensions".to_owned(),
        "--disable-breakpad".to_owned(),
        "--disable-domain-reliability".to_owned(),
        "--metrics-recording-only".to_owned(),
        "--password-store=basic".to_owned(),
        "--mute-audio".to_owned(),
        "--window-size=1280,800".to_owned(),
    ];
    if headless {
        args.push("--headless".to_owned());
        args.push("--hide-scrollbars".to_owned());
    }
    // Chromium refuses to run as root with its own sandbox.
    // SAFETY: geteuid has no preconditions and can't fail.
    if unsafe { libc::geteuid() } == 0 {
        args.push("--no-sandbox".to_owned());
    }
    args.extend(extra.iter().cloned());
    args.push("about:blank".to_owned());
    args
}

/// A pipe whose ends close on exec.
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid array of two ints for pipe2 to fill.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both are open descriptors we now own.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// A running Chromium: its process and the two ends of its pipe.
pub struct Started {
    pub child: tokio::process::Child,
    pub to: File,
    pub from: File,
}

pub fn start(program: &Path, args: &[String]) -> Result<Started, BrowserError> {
    let start = |e: std::io::Error| BrowserError::Start(e.to_string());
    let (their_in, our_out) = pipe().map_err(start)?;
    let (our_in, their_out) = pipe().map_err(start)?;
    let (a, b) = (their_in.as_raw_fd(), their_out.as_raw_fd());
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .kill_on_drop(true);
    // SAFETY: the closure only calls prctl, fcntl and dup2, which are
    // async-signal-safe, on descriptors that are open in the child. Each is
    // first copied above 10 so that moving one onto 3 or 4 can't close the
    // other; dup2 clears close-on-exec on the copies Chromium keeps.
    unsafe {
        command.pre_exec(move || {
            // Chromium is in its own process group, so a signal to Conch's
            // group doesn't reach it: it is killed when the thread that
            // started it ends (a runtime worker, which lives as long as
            // Conch), however Conch ends, so it never outlives Conch with
            // its profile open.
            #[cfg(target_os = "linux")]
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            let high_a = libc::fcntl(a, libc::F_DUPFD_CLOEXEC, 10);
            let high_b = libc::fcntl(b, libc::F_DUPFD_CLOEXEC, 10);
            if high_a < 0 || high_b < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::dup2(high_a, 3) < 0 || libc::dup2(high_b, 4) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = command.spawn().map_err(start)?;
    drop(their_in);
    drop(their_out);
    Ok(Started {
        child,
        to: File::from(our_out),
        from: File::from(our_in),
    })
}
