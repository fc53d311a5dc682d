//! Saying things through a chat app: each request made again after the
//! waits the app asks for, and a long text in as many messages as the
//! app's limit needs, each waited out on its own, so a wait never sends a
//! piece twice.

use std::time::Duration;

use crate::app::{AppError, ChatApp};
use crate::relay::Waits;

/// Says all of `text`, in as many messages as the app's limit needs, each
/// one waited out on its own (so a wait never sends a piece twice).
pub async fn say_all(
    app: &dyn ChatApp,
    waits: Waits,
    chat: &str,
    text: &str,
) -> Result<(), AppError> {
    for piece in pieces(text, app.max_chars()) {
        patiently(waits, || app.say(chat, &piece, &[])).await?;
    }
    Ok(())
}

/// `text` in pieces of at most `max` characters, cut after a line where
/// one ends late enough in the piece, else after a space, else anywhere.
pub fn pieces(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut out = Vec::new();
    let mut rest: Vec<char> = text.chars().collect();
    while rest.len() > max {
        let window = &rest[..max];
        let cut = ['\n', ' ']
            .iter()
            .find_map(|c| {
                window
                    .iter()
                    .rposition(|x| x == c)
                    .filter(|&at| at >= max / 2)
            })
            .map_or(max, |at| at + 1);
        out.push(rest[..cut].iter().collect());
        rest.drain(..cut);
    }
    if !rest.is_empty() || out.is_empty() {
        out.push(rest.into_iter().collect());
    }
    out
}

/// Makes one request, again after each wait the app asks for and after
/// the app couldn't be reached (a few times): "wait" means it wasn't done.
pub async fn patiently<'a, T, F>(waits: Waits, mut request: F) -> Result<T, AppError>
where
    F: FnMut() -> crate::app::BoxFuture<'a, Result<T, AppError>>,
{
    let mut unreachable = 0;
    loop {
        match request().await {
            Err(AppError::Limited { retry_after }) => {
                tokio::time::sleep(Duration::from_secs(retry_after).min(waits.most)).await;
            }
            Err(AppError::Unreachable(_)) if unreachable < 3 => {
                unreachable += 1;
                tokio::time::sleep(waits.unreachable).await;
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::pieces;

    /// Whatever the text and the limit, the pieces are within the limit
    /// and put back together are the text, character for character.
    #[test]
    fn a_long_reply_is_sent_whole_in_pieces() {
        let words = [
            "word ",
            "слово ",
            "語",
            "\n",
            "👋🏽",
            "a-very-long-unbroken-token-",
            " ",
        ];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..500 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 3000) as usize;
            let max = 1 + (x >> 20) as usize % 300;
            let text: String = (0..n)
                .map(|i| words[(x as usize + i * 7) % words.len()])
                .collect();
            let got = pieces(&text, max);
            assert!(got.iter().all(|p| p.chars().count() <= max), "{max}");
            assert_eq!(got.concat(), text);
            assert!(got.iter().all(|p| !p.is_empty()) || text.is_empty());
        }
        assert_eq!(pieces("", 10), [""]);
    }
}
