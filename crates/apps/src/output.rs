//! What a tool call returned, as the model and the chat's log get it: the
//! text of each content block, a line for each image, audio clip or
//! resource (never their bytes), the structured content when there is no
//! text; at most [`MAX_OUTPUT`] bytes, cut on a character and said so.
//! Pure, over the result's JSON as it came on the wire.

use serde_json::{json, Value};

/// The most of a result the model and the log get, in bytes.
pub const MAX_OUTPUT: usize = 64 * 1024;

/// A call's result: what the model is told, whether the server called it
/// an error, and the facts the tool card shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Returned {
    pub text: String,
    pub is_error: bool,
    /// For the log (snake_case): `server`, `tool`, `is_error`, `bytes` (of
    /// the whole text before any cut), `truncated`, `kinds` (each block's
    /// type), `duration_ms`.
    pub detail: Value,
}

fn size(n: usize) -> String {
    if n < 1024 {
        format!("{n} bytes")
    } else if n < 1024 * 1024 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    }
}

/// How many bytes base64 `data` decodes to (its padding counted out).
fn decoded_len(data: &str) -> usize {
    let data = data.trim_end();
    let pad = data.bytes().rev().take_while(|b| *b == b'=').count().min(2);
    (data.len() / 4 * 3).saturating_sub(pad)
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// One block's words.
fn block(b: &Value) -> (String, String) {
    let kind = str_of(b, "type").to_owned();
    let text = match kind.as_str() {
        "text" => str_of(b, "text").to_owned(),
        "image" | "audio" => {
            let bytes = decoded_len(str_of(b, "data"));
            let mime = str_of(b, "mimeType");
            let what = if kind == "image" { "an image" } else { "audio" };
            format!(
                "[{what}, {}, {}]",
                if mime.is_empty() {
                    "of no stated type"
                } else {
                    mime
                },
                size(bytes)
            )
        }
        "resource" => {
            let r = b.get("resource").unwrap_or(&Value::Null);
            let uri = str_of(r, "uri");
            match r.get("text").and_then(Value::as_str) {
                Some(text) => format!("[{uri}]\n{text}"),
                None => format!(
                    "[a resource, {uri}, {}, {}]",
                    str_of(r, "mimeType"),
                    size(decoded_len(str_of(r, "blob")))
                ),
            }
        }
        "resource_link" => format!("[a link to {} ({})]", str_of(b, "uri"), str_of(b, "name")),
        other => format!("[a block of a kind Conch doesn't show: {other}]"),
    };
    (kind, text)
}

/// Cuts `text` to at most `max` bytes on a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The result of `server`'s `tool`, from its JSON.
pub fn returned(server: &str, tool: &str, result: &Value, duration_ms: u128) -> Returned {
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let mut kinds = Vec::new();
    let mut parts = Vec::new();
    for b in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (kind, text) = block(b);
        kinds.push(kind);
        parts.push(text);
    }
    if let Some(structured) = result.get("structuredContent").filter(|s| !s.is_null()) {
        // Older clients read the text; the structured content is the same
        // data. Shown only when there is no text.
        if parts.iter().all(|p| p.trim().is_empty()) {
            kinds.push("structured".into());
            parts.push(structured.to_string());
        }
    }
    let whole = parts.join("\n");
    let whole = if whole.trim().is_empty() {
        if is_error {
            "The app said it failed, and gave no reason.".to_owned()
        } else {
            "(The app returned nothing.)".to_owned()
        }
    } else {
        whole
    };
    let bytes = whole.len();
    let truncated = bytes > MAX_OUTPUT;
    let text = if truncated {
        format!(
            "{}\n[Cut: the app returned {}; this is the first {}.]",
            cut(&whole, MAX_OUTPUT),
            size(bytes),
            size(MAX_OUTPUT)
        )
    } else {
        whole
    };
    Returned {
        text,
        is_error,
        detail: json!({
            "server": server,
            "tool": tool,
            "is_error": is_error,
            "bytes": bytes,
            "truncated": truncated,
            "kinds": kinds,
            "duration_ms": duration_ms as u64,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_become_words_and_never_bytes() {
        let r = returned(
            "everything",
            "get-tiny-image",
            &json!({"content": [
                {"type": "text", "text": "Here's a picture:"},
                {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUg==", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "demo://a", "text": "hello"}},
                {"type": "resource", "resource": {"uri": "demo://b", "blob": "AAAA", "mimeType": "application/gzip"}},
                {"type": "resource_link", "uri": "demo://c", "name": "c"},
                {"type": "mystery"}
            ]}),
            3,
        );
        assert!(r.text.contains("Here's a picture:"));
        assert!(
            r.text.contains("[an image, image/png, 16 bytes]"),
            "{}",
            r.text
        );
        assert!(!r.text.contains("iVBOR"));
        assert!(r.text.contains("[demo://a]\nhello"));
        assert!(r.text.contains("application/gzip"));
        assert!(r.text.contains("[a link to demo://c (c)]"));
        assert_eq!(r.detail["kinds"][1], "image");
        assert!(!r.is_error);
    }

    #[test]
    fn a_long_result_is_cut_on_a_character_and_says_so() {
        let long = "é".repeat(MAX_OUTPUT);
        let r = returned(
            "s",
            "t",
            &json!({"content": [{"type":"text","text": long}]}),
            0,
        );
        assert!(r.text.len() < MAX_OUTPUT + 200);
        assert!(
            r.text.ends_with("this is the first 64.0 KB.]"),
            "{}",
            &r.text[r.text.len() - 80..]
        );
        assert_eq!(r.detail["truncated"], true);
        assert_eq!(r.detail["bytes"], 2 * MAX_OUTPUT);
    }

    #[test]
    fn structured_only_errors_and_empties() {
        let r = returned(
            "s",
            "t",
            &json!({"content": [], "structuredContent": {"t": 21}}),
            0,
        );
        assert_eq!(r.text, "{\"t\":21}");
        let r = returned("s", "t", &json!({"content": [], "isError": true}), 0);
        assert!(r.is_error);
        assert!(r.text.contains("failed"));
        let r = returned("s", "t", &json!({}), 0);
        assert_eq!(r.text, "(The app returned nothing.)");
    }
}
