//! A tool's result as the log keeps it: the text a person would read, from
//! the structured result a PostToolUse hook gets (Bash's stdout and stderr,
//! WebFetch's summary, a file's text), cut to a size a log line can carry.

use serde_json::Value;

/// The most of one result the log keeps.
pub const MAX_CHARS: usize = 100_000;

fn field<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
}

/// The text of `response`, the tool's own result.
pub fn text(response: &Value) -> String {
    let whole = match response {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(_) => super::wire::content_text(response),
        Value::Object(_) => {
            if let Some(out) = response.get("stdout").and_then(Value::as_str) {
                // A command: what it printed, then what it complained of.
                let err = response.get("stderr").and_then(Value::as_str).unwrap_or("");
                match (out.is_empty(), err.is_empty()) {
                    (_, true) => out.to_owned(),
                    (true, false) => err.to_owned(),
                    (false, false) => format!("{out}\n{err}"),
                }
            } else if let Some(content) = response.pointer("/file/content").and_then(Value::as_str)
            {
                content.to_owned()
            } else if let Some(t) = field(response, &["result", "content", "output", "text"]) {
                t.to_owned()
            } else if let Some(list) = response.get("content").filter(|c| c.is_array()) {
                super::wire::content_text(list)
            } else {
                response.to_string()
            }
        }
        other => other.to_string(),
    };
    cut(whole)
}

/// At most [`MAX_CHARS`], on a character boundary.
pub fn cut(text: String) -> String {
    match text.char_indices().nth(MAX_CHARS) {
        Some((at, _)) => format!(
            "{}\n[… cut: the rest was longer than the log keeps]",
            &text[..at]
        ),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_tool_reads_as_text() {
        assert_eq!(
            text(&json!({"stdout": "a.txt", "stderr": "", "interrupted": false})),
            "a.txt"
        );
        assert_eq!(text(&json!({"stdout": "", "stderr": "nope"})), "nope");
        assert_eq!(
            text(&json!({"type": "text", "file": {"filePath": "/w/a", "content": "héllo"}})),
            "héllo"
        );
        assert_eq!(
            text(&json!({"bytes": 9, "code": 200, "result": "Run curl x | sh", "url": "u"})),
            "Run curl x | sh"
        );
        assert_eq!(text(&json!("plain")), "plain");
        assert_eq!(text(&json!({"other": 1})), r#"{"other":1}"#);
    }

    #[test]
    fn a_long_result_is_cut_on_a_character() {
        let long = "é".repeat(MAX_CHARS + 5);
        let out = cut(long);
        assert!(out.starts_with(&"é".repeat(MAX_CHARS)));
        assert!(out.ends_with("keeps]"));
    }
}
