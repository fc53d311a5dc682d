//! Whether Claude Code is installed, and which version (`conch doctor`).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The version `bin --version` says (`2.1.332`), or why there is none.
pub fn version(bin: &Path) -> Result<String, String> {
    let mut child = Command::new(bin)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("{} isn't installed", bin.display()),
            _ => format!("{} couldn't start: {e}", bin.display()),
        })?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{} --version didn't answer", bin.display()));
            }
        }
    }
    let mut out = String::new();
    if let Some(stdout) = child.stdout.take() {
        let _ = stdout.take(4096).read_to_string(&mut out);
    }
    parse(&out).ok_or_else(|| format!("{} doesn't look like Claude Code", bin.display()))
}

/// `2.1.332 (Claude Code)` → `2.1.332`.
pub fn parse(said: &str) -> Option<String> {
    let first = said.split_whitespace().next()?;
    let plausible = first.split('.').count() >= 2
        && first
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    (plausible && said.contains("Claude Code")).then(|| first.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_version_line() {
        assert_eq!(parse("2.1.332 (Claude Code)\n").as_deref(), Some("2.1.332"));
        assert_eq!(parse("codex-cli 0.171.0"), None);
        assert_eq!(parse(""), None);
        assert!(version(Path::new("/nonexistent/claude"))
            .unwrap_err()
            .contains("isn't installed"));
    }
}
