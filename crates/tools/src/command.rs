//! run_command: a shell command in the work folder, in its own process
//! group, with its output captured up to a limit, a timeout, and Stop.
//!
//! When the command ends, is stopped or times out, the whole group is
//! killed: background jobs it started end with it. Unsealed, a process that
//! left the group with `setsid` is beyond reach (a documented limit); sealed,
//! the box has its own process namespace, which ends with bubblewrap, so
//! nothing it started survives. Output is kept from the start and from the
//! end, with what was left out counted.
//!
//! Sealed, the box watches the network the command used: the outcome's
//! detail says whether it did (`network_observed`) and which hosts the
//! command reached (`reached_hosts`, by name where a DNS answer gave one),
//! and the guard marks the chat from that (`guard::mark_for`).

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::toolbox::{Cancel, Outcome};

#[derive(Debug, Clone)]
pub struct CommandConfig {
    pub timeout: Duration,
    /// Bytes kept of each of stdout and stderr.
    pub max_output: usize,
}

impl Default for CommandConfig {
    fn default() -> Self {
        CommandConfig {
            timeout: Duration::from_secs(120),
            max_output: 64 * 1024,
        }
    }
}

/// Output kept from the start and the end of a stream, each with a margin
/// past what is shown, so the secrets are taken out before the cut (see
/// `mask::keep_start`).
struct Capture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    total: usize,
    head_max: usize,
    tail_max: usize,
}

impl Capture {
    fn new(max: usize) -> Capture {
        Capture {
            head: Vec::new(),
            tail: std::collections::VecDeque::new(),
            total: 0,
            head_max: max * 3 / 4,
            tail_max: max / 4,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len();
        let room = (self.head_max + mask::MARGIN).saturating_sub(self.head.len());
        let (head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(head);
        let keep = self.tail_max + mask::MARGIN;
        if rest.len() >= keep {
            self.tail.clear();
            self.tail.extend(&rest[rest.len() - keep..]);
            return;
        }
        let over = (self.tail.len() + rest.len()).saturating_sub(keep);
        self.tail.drain(..over);
        self.tail.extend(rest);
    }

    fn text(&self, masker: Option<&mask::Masker>) -> String {
        let masked = |text: String| match masker {
            Some(m) => m.mask(&text, mask::Syntax::Text).into_owned(),
            None => text,
        };
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let left_out = self.total - self.head.len() - self.tail.len();
        if left_out == 0 && self.head.len() + tail.len() <= self.head_max + self.tail_max {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            return masked(String::from_utf8_lossy(&all).into_owned());
        }
        let head = masked(String::from_utf8_lossy(&self.head).into_owned());
        let tail = masked(String::from_utf8_lossy(&tail).into_owned());
        let (head, tail) = (
            mask::keep_start(&head, self.head_max),
            mask::keep_end(&tail, self.tail_max),
        );
        let shown = self.head_max.min(self.head.len()) + self.tail_max.min(self.tail.len());
        format!(
            "{head}\n[… {} bytes left out …]\n{tail}",
            self.total.saturating_sub(shown)
        )
    }
}

async fn drain(mut stream: impl AsyncRead + Unpin, max: usize) -> Capture {
    let mut capture = Capture::new(max);
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = stream.read(&mut buf).await {
        if n == 0 {
            break;
        }
        capture.push(&buf[..n]);
    }
    capture
}

fn kill_group(pgid: u32) {
    // The group id is the child's pid (process_group(0)); killing the group
    // reaches everything it started that stayed in it.
    // SAFETY: killpg takes plain integers and touches no memory of ours; a
    // group that is already gone only makes it return an error.
    unsafe {
        libc::killpg(pgid as libc::pid_t, libc::SIGKILL);
    }
}

fn shell() -> &'static str {
    if Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "/bin/sh"
    }
}

enum End {
    Exited(std::process::ExitStatus),
    TimedOut,
    Stopped,
}

/// Runs `command`: in the box when `seal` is given, else with the person's
/// own access.
pub async fn run(
    command: &str,
    work: &Path,
    config: &CommandConfig,
    cancel: &Cancel,
    seal: Option<&seal::Sealed>,
    masker: Option<&mask::Masker>,
) -> Outcome {
    let started = Instant::now();
    let sealed = match seal.map(|s| s.command(work, command)).transpose() {
        Ok(s) => s,
        Err(e) => return Outcome::failed(format!("The command wasn't run: {e}")),
    };
    let (mut cmd, pending) = match &sealed {
        Some(s) => match s.std_command() {
            Ok((std_cmd, pending)) => (tokio::process::Command::from(std_cmd), Some(pending)),
            Err(e) => return Outcome::failed(format!("The command wasn't run: {e}")),
        },
        None => {
            let mut c = tokio::process::Command::new(shell());
            c.arg("-c").arg(command).current_dir(work);
            (c, None)
        }
    };
    let spawned = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            if let Some(s) = &sealed {
                s.cleanup();
            }
            return Outcome::failed(format!("The command couldn't start: {e}."));
        }
    };
    let watching = pending.map(seal::Pending::started);
    // What runs later in the work folder, as it was: the box keeps what is
    // there read-only, and this finds what it couldn't stop.
    let later = sealed.as_ref().map(|_| seal::later::Watch::before(work));
    let Some(pid) = child.id() else {
        return Outcome::failed("The command ended before it could be watched.");
    };
    let out = child
        .stdout
        .take()
        .map(|s| tokio::spawn(drain(s, config.max_output)));
    let err = child
        .stderr
        .take()
        .map(|s| tokio::spawn(drain(s, config.max_output)));

    let end = tokio::select! {
        status = child.wait() => match status {
            Ok(s) => End::Exited(s),
            Err(e) => return Outcome::failed(format!("The command couldn't be watched: {e}.")),
        },
        () = tokio::time::sleep(config.timeout) => End::TimedOut,
        () = cancel.cancelled() => End::Stopped,
    };
    kill_group(pid);
    let _ = child.wait().await;
    // Everything in the box has ended with it: what did it reach?
    let network = match watching {
        Some(w) => tokio::task::spawn_blocking(move || w.finish()).await.ok(),
        None => None,
    };
    // Pipes close once everything in the group is gone; a process that left
    // the group could hold them open, so don't wait forever.
    let collect = |task: Option<tokio::task::JoinHandle<Capture>>| async move {
        match task {
            Some(t) => tokio::time::timeout(Duration::from_secs(2), t)
                .await
                .ok()
                .and_then(Result::ok),
            None => None,
        }
    };
    let stdout = collect(out).await.unwrap_or_else(|| Capture::new(0));
    let stderr = collect(err).await.unwrap_or_else(|| Capture::new(0));
    if let Some(s) = &sealed {
        s.cleanup();
    }

    let mut text = stdout.text(masker);
    let errors = stderr.text(masker);
    if !errors.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("[stderr]\n");
        text.push_str(&errors);
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let (ok, exit_code, signal, ending) = match end {
        End::Exited(status) => {
            use std::os::unix::process::ExitStatusExt;
            let code = status.code();
            let signal = status.signal();
            let ending = match (code, signal) {
                (Some(c), _) => format!("[exit code {c}]"),
                (None, Some(s)) => format!("[ended by signal {s}]"),
                _ => "[ended]".to_owned(),
            };
            (code == Some(0), code, signal, ending)
        }
        End::TimedOut => (
            false,
            None,
            Some(libc::SIGKILL),
            format!(
                "[timed out after {} s; the command and everything it started were stopped]",
                config.timeout.as_secs()
            ),
        ),
        End::Stopped => (
            false,
            None,
            Some(libc::SIGKILL),
            "[stopped by the owner; the command and everything it started were stopped]".to_owned(),
        ),
    };
    text.push_str(&ending);
    let walled = sealed.is_some() && text.contains("Read-only file system");
    let held = later.map(|w| w.after(work)).unwrap_or_default();
    if !held.is_empty() {
        text.push('\n');
        text.push_str(&seal::later::said(&held, work));
    } else if walled {
        text.push('\n');
        text.push_str(seal::later::WALLED);
    }
    Outcome {
        ok,
        output: text,
        detail: Some(
            json!({
                "exit_code": exit_code,
                "signal": signal,
                "timed_out": matches!(end, End::TimedOut),
                "stopped": matches!(end, End::Stopped),
                "duration_ms": started.elapsed().as_millis() as u64,
                "stdout_bytes": stdout.total,
                "stderr_bytes": stderr.total,
                "sealed": sealed.is_some(),
                "network_observed": network.as_ref().is_some_and(|n| n.observed),
                "reached_hosts": network.map(|n| n.hosts).unwrap_or_default(),
                "held_runs_later": held
                    .iter()
                    .map(|h| json!({
                        "path": h.path.to_string_lossy(),
                        "moved_to": h.moved_to.as_ref().map(|m| m.to_string_lossy()),
                        "why": h.why,
                    }))
                    .collect::<Vec<_>>(),
            })
            .into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::Capture;

    /// A secret lying across where a long output is cut is taken out whole,
    /// wherever it lies and however the output arrives: no piece of it is
    /// left on either side of the cut.
    #[test]
    fn a_secret_across_the_cut_of_a_long_output_leaves_no_piece() {
        let key = "sk-live-4f9Qz7Lm2Xc8Vb1Nw6Tr3Ye5Ua0Io";
        let masker = mask::Masker::new(&[mask::Secret::new("stripe key", key)], Vec::new());
        let max = 4096;
        let mut seed = 7u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let head_max = max * 3 / 4;
        for total in [20_000usize, 200_000] {
            let tail_cut = total - max / 4;
            for cut in [head_max, tail_cut] {
                for at in cut - key.len() - 2..cut + 2 {
                    let mut out = "é".repeat(at / 2).into_bytes();
                    out.truncate(at);
                    out.extend_from_slice(key.as_bytes());
                    out.resize(total, b'.');
                    let mut capture = Capture::new(max);
                    let mut from = 0;
                    while from < out.len() {
                        let n = (1 + next() as usize % 9000).min(out.len() - from);
                        capture.push(&out[from..from + n]);
                        from += n;
                    }
                    let text = capture.text(Some(&masker));
                    assert!(text.contains("bytes left out"), "{total}");
                    for piece in key.as_bytes().windows(6) {
                        let piece = std::str::from_utf8(piece).unwrap_or_default();
                        assert!(!text.contains(piece), "{total} {at}: {piece} is left");
                    }
                    assert!(text.len() <= max + 100, "{}", text.len());
                }
            }
        }
    }

    #[test]
    fn a_short_output_is_kept_whole() {
        let mut capture = Capture::new(64);
        capture.push(b"hello\n");
        assert_eq!(capture.text(None), "hello\n");
    }
}
