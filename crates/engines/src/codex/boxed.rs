//! Codex in Conch's box: where its folder is seen from inside, and how its
//! hook reaches Conch from there.
//!
//! The chat's Codex folder lives in Conch's folder, which the box hides,
//! so it is bound in at a neutral path of its own, outside the temp
//! folder (Codex won't make its helpers, its sandbox among them, under
//! temp): `/var/tmp/conch-codex-KEY`, an empty mount point on the host,
//! removed when the turn ends. No `..` from it leads anywhere protected.
//!
//! The box refuses Unix sockets, so the hook comes back over
//! `127.0.0.1:PORT`, its first line the turn's token: nothing else on the
//! computer can answer for Conch or pose as the hook.

use std::path::{Path, PathBuf};

use tokio::io::{AsyncRead, AsyncReadExt};

use super::home::{sh_quote, HOOK_TIMEOUT_SECS};

/// Where the neutral folders go on the host.
const NEUTRAL_PARENT: &str = "/var/tmp";

/// The longest a token line may be.
const TOKEN_MOST: usize = 256;

/// The chat's Codex folder as the box shows it. Dropped when the turn has
/// ended: the mount point is removed.
pub struct Place {
    /// The path Codex sees its folder at.
    pub seen: PathBuf,
}

impl Place {
    pub fn new() -> std::io::Result<Place> {
        let seen = Path::new(NEUTRAL_PARENT).join(format!("conch-codex-{}", random_hex(8)?));
        std::fs::create_dir(&seen)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&seen, std::fs::Permissions::from_mode(0o700))?;
        }
        Ok(Place { seen })
    }

    /// A path Codex gave (inside the box) as the host sees it.
    pub fn on_host(&self, dir: &Path, inside: &Path) -> PathBuf {
        match inside.strip_prefix(&self.seen) {
            Ok(rest) => dir.join(rest),
            Err(_) => inside.to_path_buf(),
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        // Only ever an empty mount point; a folder with anything in it
        // stays rather than be emptied.
        let _ = std::fs::remove_dir(&self.seen);
    }
}

pub fn random_hex(bytes: usize) -> std::io::Result<String> {
    let mut n = vec![0u8; bytes];
    getrandom::fill(&mut n).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(n.iter().map(|b| format!("{b:02x}")).collect())
}

/// The hook's command line in the box: the token, then Codex's call,
/// through socat to Conch's port; an exit of 2 (blocked) when no answer
/// comes.
pub fn hook_command(socat: &Path, port: u16, token: &str) -> String {
    let pipe = format!(
        "{{ printf '%s\\n' {}; cat; }} | {} -t {HOOK_TIMEOUT_SECS} - TCP:127.0.0.1:{port}",
        sh_quote(token),
        sh_quote(&socat.to_string_lossy()),
    );
    super::home::answered_or_blocked(&pipe)
}

/// Reads the first line and says whether it is `token`.
pub async fn token_matches<S: AsyncRead + Unpin>(stream: &mut S, token: &str) -> bool {
    let mut line = Vec::with_capacity(token.len() + 1);
    let mut byte = [0u8; 1];
    loop {
        match stream.read(&mut byte).await {
            Ok(1) if byte[0] == b'\n' => break,
            Ok(1) if line.len() < TOKEN_MOST => line.push(byte[0]),
            _ => return false,
        }
    }
    // The same time whatever prefix matches.
    line.len() == token.len()
        && line
            .iter()
            .zip(token.as_bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_boxed_hook_sends_the_token_first_and_blocks_without_an_answer() {
        let c = hook_command(Path::new("/usr/bin/socat"), 4242, "abc123");
        assert!(
            c.contains("{ printf '%s\\n' 'abc123'; cat; } | '/usr/bin/socat' -t 604800 - TCP:127.0.0.1:4242"),
            "{c}"
        );
        assert!(c.ends_with("exit 2; }"), "{c}");
    }

    #[tokio::test]
    async fn only_the_turns_token_opens_the_hook() {
        for (sent, ok) in [
            (&b"tok-1\n{}"[..], true),
            (b"tok-2\n{}", false),
            (b"tok-1", false),
            (b"tok-1x\n", false),
            (b"\n", false),
            (b"", false),
        ] {
            let mut s = sent;
            assert_eq!(token_matches(&mut s, "tok-1").await, ok, "{sent:?}");
        }
        let mut long = vec![b'a'; 10_000];
        long.push(b'\n');
        assert!(!token_matches(&mut &long[..], "a").await);
    }

    #[test]
    fn a_path_codex_gives_from_inside_is_found_on_the_host() {
        let place = Place {
            seen: PathBuf::from("/var/tmp/conch-codex-x"),
        };
        assert_eq!(
            place.on_host(
                Path::new("/h/codex/c1"),
                Path::new("/var/tmp/conch-codex-x/sessions/r.jsonl")
            ),
            Path::new("/h/codex/c1/sessions/r.jsonl")
        );
        assert_eq!(
            place.on_host(Path::new("/h"), Path::new("/elsewhere")),
            Path::new("/elsewhere")
        );
        // The test's Place owns no folder; forget it so Drop removes none.
        std::mem::forget(place);
    }
}
