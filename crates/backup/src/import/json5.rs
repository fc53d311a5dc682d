//! JSON5 (what OpenClaw's `openclaw.json` is written in) read as JSON:
//! comments, trailing commas, unquoted keys and single-quoted strings are
//! rewritten into their JSON spelling, then serde_json reads the result.
//! Pure: text in, value out. A pull of a whole JSON5 parser for one file
//! wasn't worth it; what JSON5 adds beyond these (hex numbers, `+1`,
//! `Infinity`) becomes an error a person reads.

/// `text` as a JSON value, or where it stopped making sense.
pub fn parse(text: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(&to_json(text)?).map_err(|e| e.to_string())
}

fn to_json(text: &str) -> Result<String, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' | '\'' => i = string(&chars, i, &mut out)?,
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                if i >= chars.len() {
                    return Err("a /* comment */ that never ends".into());
                }
                i += 2;
            }
            ',' => {
                // A comma with only space and comments before `}` or `]` is
                // a trailing one.
                let mut j = i + 1;
                loop {
                    while j < chars.len() && chars[j].is_whitespace() {
                        j += 1;
                    }
                    if chars.get(j) == Some(&'/') && chars.get(j + 1) == Some(&'/') {
                        while j < chars.len() && chars[j] != '\n' {
                            j += 1;
                        }
                        continue;
                    }
                    if chars.get(j) == Some(&'/') && chars.get(j + 1) == Some(&'*') {
                        j += 2;
                        while j < chars.len()
                            && !(chars[j] == '*' && chars.get(j + 1) == Some(&'/'))
                        {
                            j += 1;
                        }
                        j += 2;
                        continue;
                    }
                    break;
                }
                if !matches!(chars.get(j), Some('}') | Some(']')) {
                    out.push(',');
                }
                i += 1;
            }
            c if c.is_alphabetic() || c == '_' || c == '$' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
                {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                match word.as_str() {
                    "true" | "false" | "null" => out.push_str(&word),
                    _ => {
                        out.push('"');
                        out.push_str(&word);
                        out.push('"');
                    }
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Copies the string starting at `chars[at]` (quoted either way) as a JSON
/// string; returns where it ends.
fn string(chars: &[char], at: usize, out: &mut String) -> Result<usize, String> {
    let quote = chars[at];
    let mut i = at + 1;
    out.push('"');
    while i < chars.len() {
        let c = chars[i];
        if c == quote {
            out.push('"');
            return Ok(i + 1);
        }
        match c {
            '\\' => {
                let Some(&next) = chars.get(i + 1) else {
                    break;
                };
                match next {
                    '\'' => out.push('\''),
                    // A line continuation: the string goes on, no newline.
                    '\n' => {}
                    _ => {
                        out.push('\\');
                        out.push(next);
                    }
                }
                i += 2;
            }
            '"' => {
                out.push_str("\\\"");
                i += 1;
            }
            '\n' => return Err("a string that runs past the end of its line".into()),
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err("a string that never ends".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json5_as_openclaw_writes_it() {
        let text = r#"
        // OpenClaw's config
        {
          models: {
            providers: {
              'local-vllm': { baseUrl: "http://127.0.0.1:8000/v1", apiKey: 'it\'s "quoted"', },
            },
          },
          /* a block
             comment, */
          agents: { defaults: { model: { primary: "local-vllm/qwen3", }, }, },
          list: [1, 2.5, -3, true, null,],
          url: "https://example.com/a//b", // not a comment inside a string
        }
        "#;
        let v = parse(text).unwrap();
        assert_eq!(
            v["models"]["providers"]["local-vllm"]["apiKey"],
            "it's \"quoted\""
        );
        assert_eq!(
            v["agents"]["defaults"]["model"]["primary"],
            "local-vllm/qwen3"
        );
        assert_eq!(v["list"], serde_json::json!([1, 2.5, -3, true, null]));
        assert_eq!(v["url"], "https://example.com/a//b");
    }

    #[test]
    fn plain_json_is_json5_too() {
        let v = parse(r#"{"a":{"b":["c","d"]},"e":"ünï 日本"}"#).unwrap();
        assert_eq!(v["e"], "ünï 日本");
    }

    #[test]
    fn broken_text_is_an_error_not_a_panic() {
        for bad in ["{", "{a:'x", "{/* x", "{a: \"x\ny\"}", "'", "{,}", "\u{0}"] {
            let _ = parse(bad);
        }
        assert!(parse("{a:'x").is_err());
    }
}
