//! Providers without tools write an artifact as a fenced block:
//!
//! ````text
//! ```artifact kind="chart" title="Weekly numbers"
//! {"type": "bar", …}
//! ```
//! ````
//!
//! (or `id="…"` instead of kind and title, for a new version). When the
//! reply is final the blocks are taken out of it and made into artifacts;
//! the reply keeps a short line where each was.

use std::sync::Arc;

use artifacts::store::By;
use artifacts::{Artifact, Kind};
use protocol::ArtifactAction;

use crate::state::Core;

/// One fenced block, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub kind: Option<String>,
    pub title: Option<String>,
    pub id: Option<String>,
    pub content: String,
}

/// `key="value"` pairs of a fence's info line.
fn attribute(info: &str, key: &str) -> Option<String> {
    let start = info.find(&format!("{key}=\""))? + key.len() + 2;
    let end = info[start..].find('"')? + start;
    Some(info[start..end].to_owned())
}

/// The reply's text split into plain text and blocks, in order.
pub fn split(text: &str) -> Vec<Result<String, Block>> {
    let mut out: Vec<Result<String, Block>> = Vec::new();
    let mut plain = String::new();
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_end();
        let Some(info) = trimmed.strip_prefix("```artifact") else {
            plain.push_str(line);
            continue;
        };
        if !(info.is_empty() || info.starts_with(' ')) {
            plain.push_str(line);
            continue;
        }
        let mut content = String::new();
        let mut closed = false;
        for body in lines.by_ref() {
            if body.trim_end() == "```" {
                closed = true;
                break;
            }
            content.push_str(body);
        }
        if !closed {
            // An unclosed fence isn't a block: keep the text as it was.
            plain.push_str(line);
            plain.push_str(&content);
            continue;
        }
        if !plain.is_empty() {
            out.push(Ok(std::mem::take(&mut plain)));
        }
        if content.ends_with('\n') {
            content.pop();
        }
        out.push(Err(Block {
            kind: attribute(info, "kind"),
            title: attribute(info, "title"),
            id: attribute(info, "id"),
            content,
        }));
    }
    if !plain.is_empty() {
        out.push(Ok(plain));
    }
    out
}

async fn make(chat: &Arc<Core>, block: Block) -> Result<(Artifact, ArtifactAction), String> {
    let store = chat.shared.artifacts.clone();
    let chat_id = chat.id.clone();
    let secrets = chat.shared.secrets.clone();
    tokio::task::spawn_blocking(move || {
        let block = Block {
            content: secrets.mask(&block.content),
            title: block.title.as_deref().map(|t| secrets.mask(t)),
            ..block
        };
        make_now(&store, &chat_id, &block)
    })
    .await
    .map_err(|e| e.to_string())?
}

fn make_now(
    store: &artifacts::Store,
    chat_id: &str,
    block: &Block,
) -> Result<(Artifact, ArtifactAction), String> {
    match (&block.id, &block.kind) {
        (Some(id), _) => store
            .update(id, &block.content, By::Updated)
            .map(|a| (a, ArtifactAction::Updated))
            .map_err(|e| e.to_string()),
        (None, Some(kind)) => {
            let kind = Kind::parse(kind).ok_or_else(|| {
                format!("\"{kind}\" isn't a kind of artifact (html, markdown, svg, mermaid, chart or table)")
            })?;
            let title = block.title.clone().unwrap_or_else(|| "Untitled".to_owned());
            store
                .create(
                    &crate::ids::random_id(16),
                    kind,
                    &title,
                    &block.content,
                    Some(chat_id),
                    None,
                )
                .map(|a| (a, ArtifactAction::Made))
                .map_err(|e| e.to_string())
        }
        (None, None) => Err("the block says neither its kind nor the id it updates".to_owned()),
    }
}

/// Takes the blocks out of `text`, makes each an artifact, and returns
/// the reply as it is kept.
pub async fn take_blocks(chat: &Arc<Core>, text: &str) -> String {
    if !text.contains("```artifact") {
        return text.to_owned();
    }
    let mut kept = String::new();
    for part in split(text) {
        match part {
            Ok(plain) => kept.push_str(&plain),
            Err(block) => {
                let line = match make(chat, block).await {
                    Ok((artifact, action)) => {
                        let _ = super::tool::record(chat, &artifact, action, None).await;
                        let verb = if action == ArtifactAction::Made {
                            "Made"
                        } else {
                            "Updated"
                        };
                        format!(
                            "({verb} {} \"{}\" beside the chat.)\n",
                            artifact.kind.words(),
                            artifact.title
                        )
                    }
                    Err(why) => format!("(Conch couldn't show this artifact: {why})\n"),
                };
                kept.push_str(&line);
            }
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_come_out_of_the_text() {
        let text = "Here you go.\n```artifact kind=\"table\" title=\"Stock\"\nitem,qty\npen,3\n```\nAnything else?";
        let parts = split(text);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0], Ok("Here you go.\n".to_owned()));
        assert_eq!(
            parts[1],
            Err(Block {
                kind: Some("table".into()),
                title: Some("Stock".into()),
                id: None,
                content: "item,qty\npen,3".into(),
            })
        );
        assert_eq!(parts[2], Ok("Anything else?".to_owned()));
    }

    #[test]
    fn other_fences_and_unclosed_blocks_stay_text() {
        let text = "```rust\nfn main() {}\n```\n```artifacts\nx\n```\n```artifact kind=\"html\"\n<p>never closed";
        let parts = split(text);
        assert_eq!(parts, vec![Ok(text.to_owned())]);
    }
}
