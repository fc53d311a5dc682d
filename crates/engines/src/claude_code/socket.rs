//! Where the hooks reach the running Conch: a Unix socket in a private
//! folder of Conch's (0700), one per Conch process, and a port on
//! 127.0.0.1 for an engine in the box (which can't open a Unix socket,
//! and where Conch's folder isn't there). A request is one JSON line (see
//! [`super::hook::request`]) and gets one line back; a `shell` request
//! gets its command's output as it comes (see [`super::shell`]).
//!
//! On the socket only this user's processes can connect (the folder's
//! mode, and the peer's uid is checked); on the port anyone on this
//! computer can, so the token is what counts. Each request carries the
//! process's token and the turn it belongs to, both given to Claude Code
//! in its environment (which its commands, sealed beside it, don't get). What the socket offers can only make a chat stricter:
//! decisions (which change nothing), and results (which record and mark).
//! Answers to the owner's questions never come this way.

use std::collections::HashMap;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, UnixListener};

use super::calls::TurnState;
use super::hook::{Event, MAX_INPUT};
use super::shell::{ShellPlace, Shells};

/// A Unix socket's path is at most this long (108 on Linux, 104 on macOS).
const MAX_SOCKET_PATH: usize = 100;

type Turns = Arc<Mutex<HashMap<String, Arc<TurnState>>>>;

pub(crate) struct Server {
    pub socket: PathBuf,
    /// `127.0.0.1:PORT`, for an engine in the box.
    pub port: String,
    pub token: String,
    turns: Turns,
    shells: Shells,
    accept: tokio::task::AbortHandle,
    accept_port: tokio::task::AbortHandle,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.accept.abort();
        self.accept_port.abort();
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// Hex of `n` random bytes.
pub(crate) fn random_hex(n: usize) -> Result<String, String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes)
        .map_err(|e| format!("This computer gave Conch no randomness ({e})."))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn uid() -> u32 {
    // SAFETY: geteuid has no preconditions and can't fail.
    unsafe { libc::geteuid() }
}

/// Makes `dir` a folder only this user can enter: created 0700, and an
/// existing one must be a real folder of this user's (its mode is put
/// back to 0700).
pub(crate) fn private_dir(dir: &Path) -> Result<(), String> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("Conch couldn't make {}: {e}.", dir.display()))?;
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|e| format!("Conch couldn't look at {}: {e}.", dir.display()))?;
    if !meta.is_dir() || meta.uid() != uid() {
        return Err(format!(
            "{} isn't a folder of this user's, so Conch won't use it.",
            dir.display()
        ));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("Conch couldn't make {} private: {e}.", dir.display()))?;
    }
    Ok(())
}

/// Equal without saying where it differs.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

impl Server {
    /// Listens in `run` (made private).
    pub async fn start(run: &Path) -> Result<Server, String> {
        private_dir(run)?;
        let socket = run.join(format!("claude-code-{}.sock", std::process::id()));
        if socket.as_os_str().len() > MAX_SOCKET_PATH {
            return Err(format!(
                "Conch's folder is too deep for the hook's socket ({}). Use a shorter --home.",
                socket.display()
            ));
        }
        // One left by an earlier process with this id.
        let _ = std::fs::remove_file(&socket);
        let listener = UnixListener::bind(&socket)
            .map_err(|e| format!("Conch couldn't listen for Claude Code's hooks: {e}."))?;
        let _ = std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600));
        let port = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("Conch couldn't listen for Claude Code's hooks: {e}."))?;
        let port_addr = port
            .local_addr()
            .map_err(|e| format!("Conch couldn't listen for Claude Code's hooks: {e}."))?
            .to_string();
        let token = random_hex(32)?;
        let turns: Turns = Arc::default();
        let shells: Shells = Arc::default();
        let accept = tokio::spawn(accept(
            listener,
            token.clone(),
            turns.clone(),
            shells.clone(),
        ))
        .abort_handle();
        let accept_port = tokio::spawn(accept_tcp(
            port,
            token.clone(),
            turns.clone(),
            shells.clone(),
        ))
        .abort_handle();
        Ok(Server {
            socket,
            port: port_addr,
            token,
            turns,
            shells,
            accept,
            accept_port,
        })
    }

    /// A `shell` request with `key` runs its command as `place` says,
    /// until the registration is dropped.
    pub fn register_shell(&self, key: String, place: ShellPlace) -> ShellRegistration {
        self.shells
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.clone(), Arc::new(place));
        ShellRegistration {
            key,
            shells: self.shells.clone(),
        }
    }

    /// Hooks with `key` reach `state` until the registration is dropped.
    pub fn register(&self, key: String, state: Arc<TurnState>) -> Registration {
        self.turns
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.clone(), state);
        Registration {
            key,
            turns: self.turns.clone(),
        }
    }
}

pub(crate) struct ShellRegistration {
    key: String,
    shells: Shells,
}

impl Drop for ShellRegistration {
    fn drop(&mut self) {
        self.shells
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.key);
    }
}

pub(crate) struct Registration {
    key: String,
    turns: Turns,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.turns
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.key);
    }
}

async fn accept(listener: UnixListener, token: String, turns: Turns, shells: Shells) {
    let token = Arc::new(token);
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let (token, turns, shells) = (token.clone(), turns.clone(), shells.clone());
        tokio::spawn(async move {
            let own = stream
                .peer_cred()
                .map(|c| c.uid() == uid())
                .unwrap_or(false);
            let (read, write) = stream.into_split();
            let _ = serve(read, write, own, &token, &turns, &shells).await;
        });
    }
}

async fn accept_tcp(listener: TcpListener, token: String, turns: Turns, shells: Shells) {
    let token = Arc::new(token);
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let (token, turns, shells) = (token.clone(), turns.clone(), shells.clone());
        tokio::spawn(async move {
            let _ = stream.set_nodelay(true);
            let (read, write) = stream.into_split();
            let _ = serve(read, write, true, &token, &turns, &shells).await;
        });
    }
}

async fn serve<R, W>(
    read: R,
    mut write: W,
    own: bool,
    token: &str,
    turns: &Turns,
    shells: &Shells,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send,
{
    let mut read = BufReader::new(read);
    let mut line = Vec::new();
    (&mut read)
        .take(MAX_INPUT + 4096)
        .read_until(b'\n', &mut line)
        .await?;
    if own {
        if let Some((place, relay)) = shell_request(&line, token, shells) {
            return if relay {
                super::shell::relay(place, &line, read, write).await
            } else {
                super::shell::serve(place, &line, read, write).await
            };
        }
    }
    let answer = if own {
        answer(&line, token, turns).await
    } else {
        Err("Only Conch's own user can ask it.".to_owned())
    };
    let mut out = match answer {
        Ok(print) => json!({ "print": print }),
        Err(why) => json!({ "error": why }),
    }
    .to_string();
    out.push('\n');
    write.write_all(out.as_bytes()).await?;
    write.shutdown().await
}

/// The place a `shell` (or `relay`: true) request runs in, when it is
/// one with this Conch's token and a turn's key that has one.
fn shell_request(line: &[u8], token: &str, shells: &Shells) -> Option<(Arc<ShellPlace>, bool)> {
    let request: Value = serde_json::from_slice(line).ok()?;
    let relay = match request.get("event").and_then(Value::as_str) {
        Some("shell") => false,
        Some("relay") => true,
        _ => return None,
    };
    let given = request.get("token").and_then(Value::as_str).unwrap_or("");
    if !same(given, token) {
        return None;
    }
    let turn = request.get("turn").and_then(Value::as_str)?;
    shells
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(turn)
        .cloned()
        .map(|p| (p, relay))
}

async fn answer(line: &[u8], token: &str, turns: &Turns) -> Result<Value, String> {
    let request: Value = serde_json::from_slice(line)
        .map_err(|_| "Conch couldn't read the hook's request.".to_owned())?;
    let given = request.get("token").and_then(Value::as_str).unwrap_or("");
    if !same(given, token) {
        return Err("The hook's token isn't this Conch's.".into());
    }
    let turn = request.get("turn").and_then(Value::as_str).unwrap_or("");
    let state = turns
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(turn)
        .cloned()
        .ok_or_else(|| "This hook isn't for a turn Conch is running.".to_owned())?;
    let event = request
        .get("event")
        .and_then(Value::as_str)
        .and_then(Event::parse)
        .ok_or_else(|| "The hook named no event Conch answers.".to_owned())?;
    let input = request.get("input").cloned().unwrap_or(Value::Null);
    let hook_event = input
        .get("hook_event_name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if !event.answers(hook_event) {
        return Err(format!(
            "conch hook {} doesn't answer {hook_event:?}.",
            event.name()
        ));
    }
    match event {
        Event::PreToolUse => state.before(&input).await,
        Event::PostToolUse => state.after(&input).await,
        Event::PostCompact => state.compacted(&input).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "ab"));
        assert!(!same("", "a"));
    }

    #[test]
    fn the_run_folder_is_made_private() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        std::fs::create_dir(&run).unwrap();
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&run).unwrap();
        let mode = std::fs::metadata(&run).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&run, &link).unwrap();
        assert!(private_dir(&link).is_err(), "a link isn't the folder");
    }
}
