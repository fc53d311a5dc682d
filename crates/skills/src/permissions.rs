//! A skill's permission list, from its `permissions` front matter or, failing
//! that, Claude Code's `allowed-tools`; the usual list when it says neither.

use protocol::{FileAccess, SkillPermissions, WebAccess};
use serde_json::{Map, Value};

fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => s
            .split(',')
            .map(|x| x.trim().to_owned())
            .filter(|x| !x.is_empty())
            .collect(),
        Value::Array(a) => a
            .iter()
            .filter_map(|x| x.as_str().map(|s| s.trim().to_owned()))
            .collect(),
        _ => Vec::new(),
    }
}

fn from_permissions(map: &Map<String, Value>) -> SkillPermissions {
    let mut p = SkillPermissions::usual();
    if let Some(c) = map.get("commands") {
        p.commands = strings(c);
    }
    if let Some(f) = map.get("files").and_then(Value::as_str) {
        p.files = match f.trim() {
            "write" => FileAccess::Write,
            "none" => FileAccess::None,
            _ => FileAccess::Read,
        };
    }
    if let Some(w) = map.get("web").and_then(Value::as_str) {
        p.web = match w.trim() {
            "send" => WebAccess::Send,
            "none" => WebAccess::None,
            _ => WebAccess::Read,
        };
    }
    if let Some(i) = map.get("integrations") {
        p.integrations = strings(i);
    }
    p
}

/// Claude Code's tool names, as a permission list: `Bash(git:*)` → the
/// command git; Read/Grep/Glob → files read; Write/Edit → files write;
/// WebFetch/WebSearch → web read; `mcp__server__tool` → that integration.
fn from_allowed_tools(tools: &[String]) -> SkillPermissions {
    let mut p = SkillPermissions {
        commands: Vec::new(),
        files: FileAccess::None,
        web: WebAccess::None,
        integrations: Vec::new(),
    };
    for tool in tools {
        let tool = tool.trim();
        if let Some(inner) = tool.strip_prefix("Bash(").and_then(|t| t.strip_suffix(')')) {
            let program = inner.split([':', ' ']).next().unwrap_or("").trim();
            let program = if program.is_empty() || program == "*" {
                "*"
            } else {
                program
            };
            if !p.commands.iter().any(|c| c == program) {
                p.commands.push(program.to_owned());
            }
            continue;
        }
        match tool {
            "Bash" => p.commands = vec!["*".into()],
            "Read" | "Grep" | "Glob" | "LS" | "NotebookRead" => {
                if p.files == FileAccess::None {
                    p.files = FileAccess::Read;
                }
            }
            "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => p.files = FileAccess::Write,
            "WebFetch" | "WebSearch" => p.web = WebAccess::Read,
            other => {
                if let Some(rest) = other.strip_prefix("mcp__") {
                    let mut parts = rest.splitn(2, "__");
                    let server = parts.next().unwrap_or("");
                    let name = parts.next().unwrap_or("*");
                    p.integrations.push(format!("{server}.{name}"));
                }
            }
        }
    }
    p
}

/// The list, and whether the skill declared one.
pub fn from_front(keys: &Map<String, Value>) -> (SkillPermissions, bool) {
    if let Some(Value::Object(map)) = keys.get("permissions") {
        return (from_permissions(map), true);
    }
    if let Some(tools) = keys.get("allowed-tools") {
        return (from_allowed_tools(&strings(tools)), true);
    }
    (SkillPermissions::usual(), false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn nothing_declared_is_the_usual() {
        let (p, declared) = from_front(&keys(json!({"name": "x"})));
        assert_eq!(p, SkillPermissions::usual());
        assert!(!declared);
    }

    #[test]
    fn claude_codes_allowed_tools() {
        let (p, _) = from_front(&keys(
            json!({"allowed-tools": "Bash(git:*), Bash(npm run:*), Read, Grep, Edit, WebFetch, mcp__mail__search"}),
        ));
        assert_eq!(p.commands, ["git", "npm"]);
        assert_eq!(p.files, FileAccess::Write);
        assert_eq!(p.web, WebAccess::Read);
        assert_eq!(p.integrations, ["mail.search"]);
        let (p, _) = from_front(&keys(json!({"allowed-tools": ["Read"]})));
        assert_eq!(
            (p.files, p.web, p.commands.len()),
            (FileAccess::Read, WebAccess::None, 0)
        );
        let (p, _) = from_front(&keys(json!({"allowed-tools": "Bash"})));
        assert_eq!(p.commands, ["*"]);
    }

    #[test]
    fn permissions_win_over_allowed_tools() {
        let (p, _) = from_front(&keys(
            json!({"permissions": {"commands": ["git"], "web": "send", "integrations": "mail.*"}, "allowed-tools": "Bash"}),
        ));
        assert_eq!(p.commands, ["git"]);
        assert_eq!(p.web, WebAccess::Send);
        assert_eq!(p.integrations, ["mail.*"]);
    }
}
