//! Commands of an engine in the box, run sealed beside it.
//!
//! Claude Code runs every command of its own as `PREFIX SCRIPT`
//! (`CLAUDE_CODE_SHELL_PREFIX`). Conch makes the prefix `conch hook
//! shell`, which hands the script to the running Conch over the hook's
//! connection; Conch runs it in a box of its own, exactly as it runs its
//! own commands (the same masks, the environment allowlisted, its own
//! process namespace), and sends back what it prints and how it ended.
//! So a command can't read the engine's environment (the provider's key,
//! the hook's token) through `/proc`, as a child in the engine's own box
//! could. The command already passed the hook (and so the guard) as the
//! Bash call it belongs to.
//!
//! Claude Code takes the prefix as one program, so it is a link to
//! `conch` named [`ENGINE_SHELL`] in the chat's folder (which the box
//! sees at its neutral path), and `conch` knows itself by that name.
//!
//! The owner's apps go the same way: each MCP server is `conch-engine-shell
//! --engine-relay N`, which asks Conch to start the turn's Nth relay
//! (`conch apps relay …`, which needs Conch's folder) outside the box, and
//! pipes the MCP conversation both ways. Only the relays Conch offered
//! this turn start; anything else is refused.
//!
//! Frames, after the request line: a kind byte (1 stdout, 2 stderr, 3 the
//! exit code as 4 bytes, 4 why it couldn't run), a 4-byte length, then the
//! bytes, all big-endian. The hook's side closing its end stops the
//! command (Claude Code ended it: a timeout, Stop).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::boxing::Boxing;

pub(crate) type Shells = Arc<Mutex<HashMap<String, Arc<ShellPlace>>>>;

/// Where a turn's commands run.
#[derive(Debug)]
pub struct ShellPlace {
    pub boxing: Arc<dyn Boxing>,
    pub work: PathBuf,
    pub binds: Vec<(PathBuf, PathBuf)>,
    /// Conch's own binary, which the relays are.
    pub conch: PathBuf,
    /// The arguments of each relay offered this turn.
    pub relays: Vec<Vec<String>>,
}

/// The name `conch` answers to as Claude Code's shell prefix.
pub const ENGINE_SHELL: &str = "conch-engine-shell";

/// The flag of an app's relay in the box: `conch-engine-shell
/// --engine-relay N`.
pub const ENGINE_RELAY: &str = "--engine-relay";

/// The request line of `--engine-relay N`.
pub fn relay_request(token: &str, turn: &str, index: usize) -> String {
    let mut line = json!({
        "token": token,
        "turn": turn,
        "event": "relay",
        "index": index,
    })
    .to_string();
    line.push('\n');
    line
}

/// Conch's side of a relay: starts it outside the box if it is one that
/// was offered, and pipes both ways until either side ends.
pub(crate) async fn relay<R, W>(
    place: Arc<ShellPlace>,
    line: &[u8],
    mut read: R,
    mut write: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send,
{
    let request: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
    let Some(args) = request["index"]
        .as_u64()
        .and_then(|i| usize::try_from(i).ok())
        .and_then(|i| place.relays.get(i))
    else {
        return write.shutdown().await;
    };
    let mut child = match tokio::process::Command::new(&place.conch)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
    {
        Ok(c) => c,
        Err(_) => return write.shutdown().await,
    };
    let (Some(mut stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Ok(());
    };
    tokio::select! {
        _ = tokio::io::copy(&mut read, &mut stdin) => {}
        _ = tokio::io::copy(&mut stdout, &mut write) => {}
    }
    let _ = child.start_kill();
    let _ = write.shutdown().await;
    Ok(())
}

/// The relay's side in the box: sends the request, then copies stdin to
/// Conch and Conch to stdout until either ends.
pub fn relay_here(
    conn: super::hook::Conn,
    token: &str,
    turn: &str,
    index: usize,
) -> Result<(), String> {
    let mut conn = conn;
    conn.write_all(relay_request(token, turn, index).as_bytes())
        .map_err(|e| format!("Conch isn't answering ({e})."))?;
    let mut back = conn.try_clone().map_err(|e| e.to_string())?;
    let up = std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut conn);
        conn.close_write();
    });
    let mut out = std::io::stdout().lock();
    let _ = std::io::copy(&mut back, &mut out);
    drop(up);
    Ok(())
}

const OUT: u8 = 1;
const ERR: u8 = 2;
const EXIT: u8 = 3;
const FAILED: u8 = 4;

fn frame(kind: u8, bytes: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(5 + bytes.len());
    f.push(kind);
    f.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_be_bytes());
    f.extend_from_slice(bytes);
    f
}

/// The request line of `conch hook shell`.
pub fn request(token: &str, turn: &str, cwd: &Path, script: &str) -> String {
    let mut line = json!({
        "token": token,
        "turn": turn,
        "event": "shell",
        "cwd": cwd.to_string_lossy(),
        "script": script,
    })
    .to_string();
    line.push('\n');
    line
}

fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: kill has no memory preconditions; a negative pid names
        // the process group the command leads.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// Conch's side: runs the script sealed and streams it back.
pub(crate) async fn serve<R, W>(
    place: Arc<ShellPlace>,
    line: &[u8],
    mut read: R,
    mut write: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send,
{
    let request: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
    let script = request["script"].as_str().unwrap_or("");
    let cwd = PathBuf::from(request["cwd"].as_str().unwrap_or(""));
    let boxed = match place.boxing.shell(&place.work, &cwd, script, &place.binds) {
        Ok(b) => b,
        Err(why) => {
            write.write_all(&frame(FAILED, why.as_bytes())).await?;
            return write.shutdown().await;
        }
    };
    let mut command = tokio::process::Command::from(boxed.command);
    command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => {
            let why = format!("The sealed command couldn't start ({e}).");
            write.write_all(&frame(FAILED, why.as_bytes())).await?;
            return write.shutdown().await;
        }
    };
    let _keep = boxed.keep;
    let pid = child.id();
    let (Some(mut out), Some(mut err)) = (child.stdout.take(), child.stderr.take()) else {
        kill_group(pid);
        return Ok(());
    };
    let (mut out_open, mut err_open) = (true, true);
    let mut a = vec![0u8; 32 * 1024];
    let mut b = vec![0u8; 32 * 1024];
    let mut gone = [0u8; 1];
    while out_open || err_open {
        tokio::select! {
            n = out.read(&mut a), if out_open => match n {
                Ok(0) | Err(_) => out_open = false,
                Ok(n) => if write.write_all(&frame(OUT, &a[..n])).await.is_err() {
                    kill_group(pid);
                    return Ok(());
                },
            },
            n = err.read(&mut b), if err_open => match n {
                Ok(0) | Err(_) => err_open = false,
                Ok(n) => if write.write_all(&frame(ERR, &b[..n])).await.is_err() {
                    kill_group(pid);
                    return Ok(());
                },
            },
            // The hook's side went away: Claude Code ended the command.
            _ = read.read(&mut gone) => {
                kill_group(pid);
                return Ok(());
            }
        }
    }
    let code = tokio::select! {
        status = child.wait() => status.map_or(1, |s| {
            use std::os::unix::process::ExitStatusExt;
            s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(9))
        }),
        _ = read.read(&mut gone) => {
            kill_group(pid);
            return Ok(());
        }
    };
    // What it left running in the background ends with it: a turn owns
    // what it starts.
    kill_group(pid);
    write.write_all(&frame(EXIT, &code.to_be_bytes())).await?;
    write.shutdown().await
}

/// The hook's side: sends `script`, copies what comes back to stdout and
/// stderr, and returns the command's exit code.
pub fn run(
    mut stream: impl Read + Write,
    token: &str,
    turn: &str,
    cwd: &Path,
    script: &str,
) -> Result<i32, String> {
    stream
        .write_all(request(token, turn, cwd, script).as_bytes())
        .map_err(|e| format!("Conch isn't answering ({e}), so this command didn't run."))?;
    let mut stdout = std::io::stdout();
    let mut stderr = std::io::stderr();
    loop {
        let mut head = [0u8; 5];
        if stream.read_exact(&mut head).is_err() {
            return Err("Conch ended the command before it said how it ended.".into());
        }
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut body = vec![0u8; len.min(1 << 20)];
        stream
            .read_exact(&mut body)
            .map_err(|_| "Conch ended the command midway.".to_owned())?;
        match head[0] {
            OUT => {
                let _ = stdout.write_all(&body).and_then(|()| stdout.flush());
            }
            ERR => {
                let _ = stderr.write_all(&body).and_then(|()| stderr.flush());
            }
            EXIT => {
                let code = body
                    .get(..4)
                    .map_or(1, |b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]));
                return Ok(code);
            }
            FAILED => return Err(String::from_utf8_lossy(&body).into_owned()),
            _ => return Err("Conch's answer couldn't be read.".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_back_as_written() {
        let mut wire = Vec::new();
        wire.extend(frame(OUT, "bonjour, é\n".as_bytes()));
        wire.extend(frame(EXIT, &7i32.to_be_bytes()));
        struct Pipe(std::io::Cursor<Vec<u8>>, Vec<u8>);
        impl Read for Pipe {
            fn read(&mut self, b: &mut [u8]) -> std::io::Result<usize> {
                Read::read(&mut self.0, b)
            }
        }
        impl Write for Pipe {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                Write::write(&mut self.1, b)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut pipe = Pipe(std::io::Cursor::new(wire), Vec::new());
        let code = run(&mut pipe, "t", "k", Path::new("/w"), "echo hi").unwrap();
        assert_eq!(code, 7);
        let sent: Value = serde_json::from_slice(&pipe.1).unwrap();
        assert_eq!(sent["event"], "shell");
        assert_eq!(sent["script"], "echo hi");
        let torn = frame(OUT, b"x")[..3].to_vec();
        let mut pipe = Pipe(std::io::Cursor::new(torn), Vec::new());
        assert!(run(&mut pipe, "t", "k", Path::new("/w"), "true").is_err());
    }
}
