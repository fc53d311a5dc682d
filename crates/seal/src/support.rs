//! Whether this computer can seal commands: a real probe run, not just a
//! look for the programs, and what to do when it can't.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use serde::Serialize;

use crate::observe::{Channel, Watch};
use crate::BWRAP;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum Support {
    Ready,
    Unavailable { problem: SupportProblem },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SupportProblem {
    /// Programs sealing needs aren't installed.
    Missing { programs: Vec<String> },
    /// Ubuntu's AppArmor keeps bubblewrap from making its box.
    AppArmor { said: String },
    /// The kernel or a container refuses new namespaces: no command can fix
    /// that from here.
    NoNamespaces { said: String },
    /// Something else went wrong; what bubblewrap said.
    Other { said: String },
}

impl SupportProblem {
    /// One plain sentence.
    pub fn sentence(&self) -> String {
        match self {
            SupportProblem::Missing { programs } => format!(
                "Commands can't be sealed: {} {} not installed.",
                programs.join(", "),
                if programs.len() == 1 { "is" } else { "are" }
            ),
            SupportProblem::AppArmor { .. } => "Commands can't be sealed: this system's AppArmor keeps bubblewrap from making its box.".to_owned(),
            SupportProblem::NoNamespaces { .. } => "Commands can't be sealed here: this computer (or the container Conch runs in) doesn't allow the namespaces a box needs. No command can change that from inside.".to_owned(),
            SupportProblem::Other { said } => format!("Commands can't be sealed: bubblewrap said \"{said}\"."),
        }
    }

    /// Whether the one typed line can help.
    pub fn fixable(&self) -> bool {
        matches!(
            self,
            SupportProblem::Missing { .. } | SupportProblem::AppArmor { .. }
        )
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}

/// Ubuntu 23.10+: unprivileged user namespaces need an AppArmor profile.
pub fn apparmor_restricts() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
        .map(|v| v.trim() == "1")
        .unwrap_or(false)
}

/// What a failed probe's stderr means.
pub fn classify_probe_error(said: &str, apparmor: bool) -> SupportProblem {
    let said = said.trim().trim_start_matches("bwrap: ").to_owned();
    let lower = said.to_ascii_lowercase();
    let permission = lower.contains("permission denied");
    if apparmor && (permission || lower.contains("operation not permitted")) {
        return SupportProblem::AppArmor { said };
    }
    if (lower.contains("uid map") || lower.contains("setting up uid")) && permission {
        return SupportProblem::AppArmor { said };
    }
    if lower.contains("no permissions to create new namespace")
        || lower.contains("creating new namespace failed")
        || lower.contains("unshare")
        || lower.contains("operation not permitted")
    {
        return SupportProblem::NoNamespaces { said };
    }
    SupportProblem::Other { said }
}

/// What a probe found: whether commands can be sealed, and whether the box
/// can watch their network calls too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Probed {
    pub support: Support,
    pub observes: bool,
}

fn missing_programs() -> Vec<String> {
    let mut missing = Vec::new();
    if !Path::new(BWRAP).is_file() {
        missing.push("bubblewrap".to_owned());
    }
    if !on_path("socat") {
        missing.push("socat".to_owned());
    }
    if !on_path("rg") {
        missing.push("ripgrep".to_owned());
    }
    missing
}

/// One bubblewrap run making a box, with the observing filter installed
/// when `observe`. Ok with whether the filter's listener came back.
fn try_box(observe: bool) -> Result<bool, Support> {
    let mut probe = Command::new(BWRAP);
    probe.args([
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--unshare-pid",
        "--new-session",
        "--die-with-parent",
    ]);
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        probe.args(["--unshare-user", "--cap-drop", "ALL"]);
    }
    probe.args(["--", "/bin/sh", "-c", "true"]);
    probe
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let channel = if observe {
        Channel::new(Vec::new())
    } else {
        None
    };
    if let Some(c) = &channel {
        // SAFETY: the child side makes only async-signal-safe system calls.
        unsafe {
            probe.pre_exec(c.child_side());
        }
    }
    let child = probe.spawn().map_err(|e| Support::Unavailable {
        problem: SupportProblem::Other {
            said: e.to_string(),
        },
    })?;
    let watch = channel.map(Channel::started);
    let watching = watch.as_ref().is_some_and(Watch::is_watching);
    let out = child.wait_with_output();
    if let Some(w) = watch {
        w.finish();
    }
    match out {
        Ok(out) if out.status.success() => Ok(watching),
        Ok(out) => Err(Support::Unavailable {
            problem: classify_probe_error(
                &String::from_utf8_lossy(&out.stderr),
                apparmor_restricts(),
            ),
        }),
        Err(e) => Err(Support::Unavailable {
            problem: SupportProblem::Other {
                said: e.to_string(),
            },
        }),
    }
}

/// Looks for the programs, then runs bubblewrap for real, watched and, if
/// that fails, unwatched.
pub fn probe() -> Probed {
    let missing = missing_programs();
    if !missing.is_empty() {
        return Probed {
            support: Support::Unavailable {
                problem: SupportProblem::Missing { programs: missing },
            },
            observes: false,
        };
    }
    match try_box(true) {
        Ok(observes) => Probed {
            support: Support::Ready,
            observes,
        },
        Err(first) => match try_box(false) {
            Ok(_) => Probed {
                support: Support::Ready,
                observes: false,
            },
            Err(_) => Probed {
                support: first,
                observes: false,
            },
        },
    }
}

/// Looks for the programs, then runs bubblewrap for real.
pub fn sandbox_support() -> Support {
    probe().support
}

/// What the probe's answer depends on: bubblewrap's file, the kernel, the
/// switches that allow user namespaces, the AppArmor profile the one typed
/// line writes, and the programs sealing needs.
fn fingerprint() -> String {
    use std::os::unix::fs::MetadataExt;
    let file = |p: &str| {
        std::fs::metadata(p)
            .map(|m| {
                format!(
                    "{}:{}:{}:{}.{}",
                    m.dev(),
                    m.ino(),
                    m.len(),
                    m.mtime(),
                    m.mtime_nsec()
                )
            })
            .unwrap_or_else(|_| "-".to_owned())
    };
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .map(|s| s.trim().to_owned())
            .unwrap_or_else(|_| "-".to_owned())
    };
    // SAFETY: utsname is plain data; uname fills it.
    let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `uts` is a valid utsname.
    let kernel = if unsafe { libc::uname(&mut uts) } == 0 {
        let text = |f: &[libc::c_char]| {
            f.iter()
                .take_while(|c| **c != 0)
                .map(|c| *c as u8 as char)
                .collect::<String>()
        };
        format!("{} {}", text(&uts.release), text(&uts.version))
    } else {
        "-".to_owned()
    };
    format!(
        "bwrap {} | kernel {kernel} | userns {} {} {} | apparmor {} | programs {}",
        file(BWRAP),
        read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
        read("/proc/sys/kernel/unprivileged_userns_clone"),
        read("/proc/sys/user/max_user_namespaces"),
        file("/etc/apparmor.d/bwrap"),
        missing_programs().join(","),
    )
}

#[derive(Serialize, serde::Deserialize)]
struct Remembered {
    fingerprint: String,
    observes: bool,
}

/// This computer's support, probed once and remembered in Conch's folder
/// until bubblewrap, the kernel or what allows namespaces changes. Only a
/// box that worked is remembered: a problem is probed again each time, so
/// fixing it counts at once.
pub fn remembered(conch_home: &Path) -> Probed {
    let note = crate::seal_folder(conch_home).join("support.json");
    let now = fingerprint();
    if let Ok(text) = std::fs::read_to_string(&note) {
        if let Ok(r) = serde_json::from_str::<Remembered>(&text) {
            if r.fingerprint == now {
                return Probed {
                    support: Support::Ready,
                    observes: r.observes,
                };
            }
        }
    }
    let probed = probe();
    if probed.support == Support::Ready {
        let r = Remembered {
            fingerprint: now,
            observes: probed.observes,
        };
        if let (Some(parent), Ok(text)) = (note.parent(), serde_json::to_string(&r)) {
            let _ = std::fs::create_dir_all(parent);
            let tmp = note.with_extension("json.tmp");
            if std::fs::write(&tmp, text).is_ok() {
                let _ = std::fs::rename(&tmp, &note);
            }
        }
    }
    probed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_errors() {
        let rows = [
            ("bwrap: setting up uid map: Permission denied", false, "app-armor"),
            ("bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted", true, "app-armor"),
            ("bwrap: Failed to make / slave: Permission denied", true, "app-armor"),
            ("bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'.", false, "no-namespaces"),
            ("bwrap: Creating new namespace failed: Operation not permitted", false, "no-namespaces"),
            ("bwrap: unshare failed: Operation not permitted", false, "no-namespaces"),
            ("bwrap: Can't find source path /nope: No such file or directory", false, "other"),
        ];
        for (said, apparmor, kind) in rows {
            let got = classify_probe_error(said, apparmor);
            let name = match got {
                SupportProblem::AppArmor { .. } => "app-armor",
                SupportProblem::NoNamespaces { .. } => "no-namespaces",
                SupportProblem::Other { .. } => "other",
                SupportProblem::Missing { .. } => "missing",
            };
            assert_eq!(name, kind, "{said}");
        }
        assert!(!classify_probe_error(
            "Creating new namespace failed: Operation not permitted",
            false
        )
        .fixable());
        assert!(classify_probe_error("setting up uid map: Permission denied", true).fixable());
    }
}
