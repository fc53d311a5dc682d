//! Native engines' own tools (Claude Code's, Codex's), classified into the
//! same [`Action`]s as Conch's tools, so the guard judges them the same way:
//! paths resolved, commands read as the shell will read them, and anything
//! it doesn't know treated as an app's tool that writes (it asks).

use std::path::Path;

use protocol::Action;
use serde_json::Value;

use crate::paths::{is_inside, resolve, resolve_work};
use crate::runs_later::{runs_later, Change};

fn text<'a>(input: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
}

fn missing(tool: &str, key: &str) -> String {
    format!("{tool} needs \"{key}\".")
}

/// Every path a patch touches, as written.
fn patch_paths(input: &Value) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    if let Some(changes) = input.get("changes") {
        match changes {
            Value::Array(list) => paths.extend(
                list.iter()
                    .filter_map(|c| c.get("path").and_then(Value::as_str))
                    .map(str::to_owned),
            ),
            Value::Object(map) => paths.extend(map.keys().cloned()),
            _ => {}
        }
    }
    if let Some(p) = text(input, &["path"]) {
        paths.push(p.to_owned());
    }
    paths
}

/// The files the native call `tool` would change, resolved: every file of
/// a patch, not only the one that decides how it is asked (for undo).
pub fn changed_paths(tool: &str, input: &Value, work: &Path) -> Vec<String> {
    let paths = match tool {
        "fileChange" | "applyPatch" | "apply_patch" => patch_paths(input),
        _ => text(input, &["file_path", "notebook_path"])
            .map(|p| vec![p.to_owned()])
            .unwrap_or_default(),
    };
    let work = resolve_work(work);
    paths
        .iter()
        .filter_map(|p| resolve(&work, p).ok())
        .map(|p| p.to_string_lossy().into_owned())
        .collect()
}

/// What the native call `tool` with `input`, in the work folder `work`,
/// does. `sealed` says whether its commands run in a sandbox.
pub fn classify(tool: &str, input: &Value, work: &Path, sealed: bool) -> Result<Action, String> {
    let work = resolve_work(work);
    let resolved = |p: &str| resolve(&work, p).map_err(|e| e.to_string());
    let look = |paths: Vec<String>| Action::LookAround { paths };
    let change = |path: &str, c: Change| -> Result<Action, String> {
        let path = resolved(path)?;
        Ok(Action::FileChange {
            inside: is_inside(&path, &work),
            runs_later: runs_later(&path, &c),
            path: path.to_string_lossy().into_owned(),
        })
    };
    match tool {
        // Claude Code.
        "Bash" | "BashOutput" if input.get("command").is_some() => {
            let command = text(input, &["command"]).ok_or_else(|| missing(tool, "command"))?;
            let leaves = input
                .get("dangerouslyDisableSandbox")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            Ok(Action::command(command, leaves || !sealed, leaves))
        }
        "Read" | "NotebookRead" => {
            let p = text(input, &["file_path", "notebook_path", "path"])
                .ok_or_else(|| missing(tool, "file_path"))?;
            Ok(look(vec![resolved(p)?.to_string_lossy().into_owned()]))
        }
        "Glob" | "Grep" | "LS" => {
            let root = match text(input, &["path"]) {
                Some(p) if !p.trim().is_empty() => resolved(p)?,
                _ => work.clone(),
            };
            Ok(look(vec![root.to_string_lossy().into_owned()]))
        }
        "Write" => {
            let p = text(input, &["file_path"]).ok_or_else(|| missing(tool, "file_path"))?;
            let content = text(input, &["content"]).unwrap_or_default().to_owned();
            change(p, Change::Write(content))
        }
        "Edit" => {
            let p = text(input, &["file_path"]).ok_or_else(|| missing(tool, "file_path"))?;
            let old = text(input, &["old_string"]).unwrap_or_default().to_owned();
            let new = text(input, &["new_string"]).unwrap_or_default().to_owned();
            change(p, Change::Edit(old, new))
        }
        "MultiEdit" | "NotebookEdit" => {
            let p = text(input, &["file_path", "notebook_path"])
                .ok_or_else(|| missing(tool, "file_path"))?;
            // The whole new text isn't known from the edits alone: compare
            // against a change that can't be told apart (the careful side
            // for package.json).
            change(p, Change::Write(String::new()))
        }
        "WebFetch" => {
            let url = text(input, &["url"]).ok_or_else(|| missing(tool, "url"))?;
            let u = crate::page_url(url)?;
            Ok(Action::PageRead {
                host: u.host_str().unwrap_or("").to_owned(),
                url: u.to_string(),
            })
        }
        "WebSearch" => Ok(Action::Search {
            query: text(input, &["query"]).unwrap_or_default().to_owned(),
        }),
        "Task" | "Agent" => Ok(Action::Delegate {
            task: text(input, &["prompt", "description"])
                .unwrap_or_default()
                .to_owned(),
        }),
        "Skill" => Ok(Action::UseSkill {
            skill: text(input, &["skill", "name", "command"])
                .unwrap_or_default()
                .to_owned(),
        }),
        // Bookkeeping that touches nothing outside the engine.
        "TodoWrite" | "TodoRead" | "ExitPlanMode" | "EnterPlanMode" | "KillShell" | "KillBash"
        | "TaskCreate" | "TaskGet" | "TaskList" | "TaskStop" | "ToolSearch" | "ListAgents"
        | "AskUserQuestion" => Ok(look(Vec::new())),
        // Codex's bookkeeping, and its code mode: JavaScript in an isolate
        // with no files or network, whose tool calls pass the hook one by
        // one.
        "update_plan"
        | "request_user_input"
        | "request_user_input_async"
        | "send_message_to_user_async"
        | "sleep"
        | "wait"
        | "get_goal"
        | "create_goal"
        | "update_goal"
        | "codeMode" => Ok(look(Vec::new())),
        // Codex.
        "commandExecution" | "exec" | "shell" => {
            let command = match input.get("command") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(argv)) => argv
                    .iter()
                    .filter_map(Value::as_str)
                    .map(crate::binding::quote_word)
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => return Err(missing(tool, "command")),
            };
            // Codex says whether its sandbox holds the command, and whether
            // the command asked to leave it.
            let escalated = input
                .get("escalated")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let sandboxed = input
                .get("sandboxed")
                .and_then(Value::as_bool)
                .unwrap_or(sealed);
            Ok(Action::command(
                &command,
                escalated || !sandboxed,
                escalated,
            ))
        }
        // Text typed into a command Codex already started.
        "write_stdin" => {
            let chars = text(input, &["chars"]).unwrap_or_default();
            Ok(Action::command(chars, true, false))
        }
        "fileChange" | "applyPatch" | "apply_patch" => {
            // Every path the change touches; the first that asks decides.
            let paths = patch_paths(input);
            let mut worst: Option<Action> = None;
            for p in &paths {
                let a = change(p, Change::Write(String::new()))?;
                let outside = matches!(a, Action::FileChange { inside: false, .. });
                let later = matches!(
                    a,
                    Action::FileChange {
                        runs_later: Some(_),
                        ..
                    }
                );
                let keep = match &worst {
                    None => true,
                    Some(Action::FileChange {
                        inside, runs_later, ..
                    }) => (outside && *inside) || (later && runs_later.is_none()),
                    Some(_) => false,
                };
                if keep {
                    worst = Some(a);
                }
            }
            worst.ok_or_else(|| missing(tool, "changes"))
        }
        "webSearch" => Ok(Action::Search {
            query: text(input, &["query"]).unwrap_or_default().to_owned(),
        }),
        // An app's tool: `mcp__server__tool` (Claude Code), `server.tool`.
        // Always a write here: whether it only reads is the owner's apps'
        // word (`ToolBox::app_tool`), never anything in the model's input.
        other => {
            let name = match other.strip_prefix("mcp__") {
                Some(rest) => rest.replacen("__", ".", 1),
                None => other.to_owned(),
            };
            Ok(Action::Integration {
                tool: name,
                read_only: false,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_native_tool_is_an_action() {
        let dir = tempfile::tempdir().expect("temp");
        let work = resolve_work(dir.path());
        let c = |tool: &str, input: Value| classify(tool, &input, &work, false).expect(tool);
        assert!(matches!(
            c("Bash", json!({"command": "c''url x | sh"})),
            Action::Command { ref programs, unsealed: true, .. } if programs.contains(&"curl".to_owned())
        ));
        assert!(matches!(
            c("Read", json!({"file_path": "../x"})),
            Action::LookAround { .. }
        ));
        assert!(matches!(
            c(
                "Write",
                json!({"file_path": ".git/hooks/pre-commit", "content": "x"})
            ),
            Action::FileChange {
                inside: true,
                runs_later: Some(_),
                ..
            }
        ));
        assert!(matches!(
            c(
                "Edit",
                json!({"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"})
            ),
            Action::FileChange { inside: false, .. }
        ));
        assert!(matches!(
            c("WebFetch", json!({"url": "https://News.example/a", "prompt": "p"})),
            Action::PageRead { ref host, .. } if host == "news.example"
        ));
        assert!(matches!(
            c("WebSearch", json!({"query": "q"})),
            Action::Search { .. }
        ));
        assert!(matches!(
            c("mcp__mail__send", json!({"to": "x"})),
            Action::Integration { ref tool, read_only: false } if tool == "mail.send"
        ));
        // The model can't say a tool only reads.
        assert!(matches!(
            c("mcp__mail__send", json!({"to": "x", "__read_only": true})),
            Action::Integration {
                read_only: false,
                ..
            }
        ));
        assert!(matches!(
            c("commandExecution", json!({"command": ["bash", "-lc", "wget x"]})),
            Action::Command { ref programs, .. } if programs.contains(&"wget".to_owned())
        ));
        assert!(matches!(
            c(
                "fileChange",
                json!({"changes": [{"path": "a.txt"}, {"path": "/etc/x"}]})
            ),
            Action::FileChange { inside: false, .. }
        ));
        assert!(classify("Read", &json!({}), &work, false).is_err());
        // Codex says where its command runs.
        assert!(matches!(
            c(
                "commandExecution",
                json!({"command": "ls", "sandboxed": true})
            ),
            Action::Command {
                unsealed: false,
                leaves_box: false,
                ..
            }
        ));
        assert!(matches!(
            classify(
                "commandExecution",
                &json!({"command": "ls", "sandboxed": false}),
                &work,
                true
            )
            .expect("cmd"),
            Action::Command { unsealed: true, .. }
        ));
        assert!(matches!(
            c(
                "commandExecution",
                json!({"command": "ls", "sandboxed": true, "escalated": true})
            ),
            Action::Command {
                unsealed: true,
                leaves_box: true,
                ..
            }
        ));
        assert!(matches!(
            c("codeMode", json!({"code": "x"})),
            Action::LookAround { .. }
        ));
    }
}
