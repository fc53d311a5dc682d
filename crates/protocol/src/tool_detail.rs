//! A tool result's `detail`: the facts people and folds read (an exit code,
//! the address a fetch ended at, the rules that refused it, a diff), as one
//! JSON object whose keys have one spelling, snake_case. Every way in
//! normalises the keys, so a reader never looks for two spellings: a log an
//! older version wrote with `exitCode` or `finalUrl` reads as `exit_code`
//! and `final_url`. Only the top level is normalised: what a tool passes
//! through from elsewhere (an app's own result, inside `content`) keeps the
//! shape its source gave it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolDetail(Map<String, Value>);

/// `exitCode` → `exit_code`; a key already snake_case is unchanged.
fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            if !out.is_empty() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

impl ToolDetail {
    /// From any JSON: an object's keys are normalised; anything else is
    /// kept under `value`.
    pub fn from_value(value: Value) -> ToolDetail {
        match value {
            Value::Object(map) => {
                let mut out = Map::new();
                for (k, v) in map {
                    let key = snake(&k);
                    // Written both ways: the snake_case one stands.
                    if key != k && out.contains_key(&key) {
                        continue;
                    }
                    out.insert(key, v);
                }
                ToolDetail(out)
            }
            other => {
                let mut out = Map::new();
                out.insert("value".to_owned(), other);
                ToolDetail(out)
            }
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    pub fn insert(&mut self, key: &str, value: Value) {
        self.0.insert(snake(key), value);
    }

    /// A command's exit code.
    pub fn exit_code(&self) -> Option<i64> {
        self.get("exit_code").and_then(Value::as_i64)
    }

    /// Where a fetch ended, after redirects.
    pub fn final_url(&self) -> Option<&str> {
        self.get("final_url").and_then(Value::as_str)
    }

    /// The rule ids that refused the call.
    pub fn denied(&self) -> Vec<&str> {
        self.get("denied")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    /// A flag set to true (`invalid`, `changed`, `truncated`, `stopped`).
    pub fn flag(&self, key: &str) -> bool {
        self.get(key).and_then(Value::as_bool).unwrap_or(false)
    }

    pub fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }

    pub fn into_value(self) -> Value {
        Value::Object(self.0)
    }
}

impl From<Value> for ToolDetail {
    fn from(value: Value) -> ToolDetail {
        ToolDetail::from_value(value)
    }
}

impl std::ops::Index<&str> for ToolDetail {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        &self.0[key]
    }
}

impl Serialize for ToolDetail {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for ToolDetail {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ToolDetail, D::Error> {
        Value::deserialize(d).map(ToolDetail::from_value)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn an_older_logs_camel_case_reads_as_one_spelling() {
        let d: ToolDetail =
            serde_json::from_value(json!({"exitCode": 2, "finalUrl": "http://a/", "addHolds": []}))
                .unwrap();
        assert_eq!(d.exit_code(), Some(2));
        assert_eq!(d.final_url(), Some("http://a/"));
        assert!(d.get("add_holds").is_some());
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            json!({"exit_code": 2, "final_url": "http://a/", "add_holds": []})
        );
    }

    #[test]
    fn written_both_ways_the_snake_case_stands_and_nested_keys_are_kept() {
        let d = ToolDetail::from(json!({
            "exit_code": 0, "exitCode": 9,
            "content": [{"mimeType": "image/png"}]
        }));
        assert_eq!(d.exit_code(), Some(0));
        assert_eq!(d["content"][0]["mimeType"], "image/png");
    }

    /// Every key that comes out is snake_case, whatever went in.
    #[test]
    fn property_every_key_out_is_snake_case() {
        let parts = ["exit", "Code", "final", "URL", "url", "x", "Y2", "_a"];
        let mut seed = 7_u64;
        for _ in 0..2_000 {
            let mut map = Map::new();
            for _ in 0..4 {
                let mut key = String::new();
                for _ in 0..3 {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    key.push_str(parts[(seed >> 33) as usize % parts.len()]);
                }
                map.insert(key, json!(1));
            }
            let d = ToolDetail::from(Value::Object(map));
            for k in d.as_map().keys() {
                assert!(!k.chars().any(|c| c.is_ascii_uppercase()), "{k}");
            }
        }
    }
}
