//! Whether this computer can seal commands: a real probe run, not just a
//! look for the programs, and what to do when it can't.

use std::path::Path;
use std::process::{Command, Stdio};

use serde::Serialize;

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

/// Looks for the programs, then runs bubblewrap for real.
pub fn sandbox_support() -> Support {
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
    if !missing.is_empty() {
        return Support::Unavailable {
            problem: SupportProblem::Missing { programs: missing },
        };
    }
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
    if unsafe { libc::geteuid() } == 0 {
        probe.args(["--unshare-user", "--cap-drop", "ALL"]);
    }
    probe.args(["--", "/bin/sh", "-c", "true"]);
    match probe
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
    {
        Ok(out) if out.status.success() => Support::Ready,
        Ok(out) => Support::Unavailable {
            problem: classify_probe_error(
                &String::from_utf8_lossy(&out.stderr),
                apparmor_restricts(),
            ),
        },
        Err(e) => Support::Unavailable {
            problem: SupportProblem::Other {
                said: e.to_string(),
            },
        },
    }
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
