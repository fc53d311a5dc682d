//! A tool call → what it does ([`Action`]), once, with paths resolved.

use std::path::Path;

use protocol::Action;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::paths::{is_inside, resolve, resolve_work};
use crate::toolbox::{no_such_tool, ToolCall};

#[derive(Deserialize)]
pub struct PathInput {
    pub path: String,
}

#[derive(Deserialize)]
pub struct SearchInput {
    pub pattern: String,
    #[serde(default)]
    pub path: Option<String>,
}

#[derive(Deserialize)]
pub struct WriteInput {
    pub path: String,
    pub content: String,
}

#[derive(Deserialize)]
pub struct EditInput {
    pub path: String,
    pub old: String,
    pub new: String,
}

#[derive(Deserialize)]
pub struct UrlInput {
    pub url: String,
}

#[derive(Deserialize)]
pub struct QueryInput {
    pub query: String,
}

#[derive(Deserialize)]
pub struct CommandInput {
    pub command: String,
    #[serde(default, rename = "dangerouslyDisableSandbox")]
    pub leave_box: bool,
}

/// The call's input as `T`, or a sentence saying what the tool takes.
pub fn input<T: DeserializeOwned>(call: &ToolCall, takes: &str) -> Result<T, String> {
    serde_json::from_value(call.input.clone()).map_err(|e| {
        format!(
            "The input for {} isn't right ({e}). It takes {takes}.",
            call.name
        )
    })
}

/// What the shapes of each tool's input are, for those sentences.
pub const TAKES_PATH: &str = "{\"path\": \"…\"}";
pub const TAKES_SEARCH: &str = "{\"pattern\": \"…\", \"path\"?: \"…\"}";
pub const TAKES_WRITE: &str = "{\"path\": \"…\", \"content\": \"…\"}";
pub const TAKES_EDIT: &str = "{\"path\": \"…\", \"old\": \"…\", \"new\": \"…\"}";
pub const TAKES_URL: &str = "{\"url\": \"https://…\"}";
pub const TAKES_QUERY: &str = "{\"query\": \"…\"}";
pub const TAKES_COMMAND: &str = "{\"command\": \"…\", \"dangerouslyDisableSandbox\"?: true}";

/// The page address a fetch may use: http or https, with a host.
pub fn page_url(text: &str) -> Result<reqwest::Url, String> {
    let url = reqwest::Url::parse(text.trim()).map_err(|e| {
        format!(
            "\"{text}\" isn't a web address ({e}). Give a full one, like https://example.com/page."
        )
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!(
            "web_fetch reads http and https addresses only, not \"{}\".",
            url.scheme()
        ));
    }
    Ok(url)
}

#[derive(Deserialize)]
pub struct SkillInput {
    pub name: String,
    #[serde(default)]
    pub file: Option<String>,
}

pub const TAKES_SKILL: &str = "{\"name\": \"…\", \"file\"?: \"…\"}";

pub struct Classifier {
    pub search: bool,
    pub skills: bool,
    /// Whether commands can run sealed here.
    pub sealing: bool,
    /// Safety → Seal commands, read at each call (absent: always on).
    pub sealing_on: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Classifier {
    /// Whether a command runs sealed now.
    fn seals(&self) -> bool {
        self.sealing
            && self
                .sealing_on
                .as_ref()
                .is_none_or(|on| on.load(std::sync::atomic::Ordering::SeqCst))
    }

    pub fn classify(&self, call: &ToolCall, work: &Path) -> Result<Action, String> {
        let work = resolve_work(work);
        let resolved = |p: &str| resolve(&work, p).map_err(|e| e.to_string());
        match call.name.as_str() {
            "read_file" | "list_files" => {
                let i: PathInput = input(call, TAKES_PATH)?;
                Ok(Action::LookAround {
                    paths: vec![resolved(&i.path)?.to_string_lossy().into_owned()],
                })
            }
            "search_files" => {
                let i: SearchInput = input(call, TAKES_SEARCH)?;
                let root = match i.path.as_deref() {
                    Some(p) if !p.trim().is_empty() => resolved(p)?,
                    _ => work.clone(),
                };
                Ok(Action::LookAround {
                    paths: vec![root.to_string_lossy().into_owned()],
                })
            }
            "write_file" | "edit_file" => {
                let (path, change) = if call.name == "write_file" {
                    let i = input::<WriteInput>(call, TAKES_WRITE)?;
                    (i.path, crate::runs_later::Change::Write(i.content))
                } else {
                    let i = input::<EditInput>(call, TAKES_EDIT)?;
                    (i.path, crate::runs_later::Change::Edit(i.old, i.new))
                };
                let path = resolved(&path)?;
                Ok(Action::FileChange {
                    inside: is_inside(&path, &work),
                    runs_later: crate::runs_later::runs_later(&path, &change),
                    path: path.to_string_lossy().into_owned(),
                })
            }
            "web_fetch" => {
                let i: UrlInput = input(call, TAKES_URL)?;
                let url = page_url(&i.url)?;
                Ok(Action::PageRead {
                    host: url.host_str().unwrap_or("").to_owned(),
                    url: url.to_string(),
                })
            }
            "web_search" if self.search => {
                let i: QueryInput = input(call, TAKES_QUERY)?;
                Ok(Action::Search { query: i.query })
            }
            "run_command" => {
                let i: CommandInput = input(call, TAKES_COMMAND)?;
                if i.command.trim().is_empty() {
                    return Err("The command is empty. Say what to run.".to_owned());
                }
                Ok(Action::command(
                    &i.command,
                    i.leave_box || !self.seals(),
                    i.leave_box,
                ))
            }
            "use_skill" if self.skills => {
                let i: SkillInput = input(call, TAKES_SKILL)?;
                Ok(Action::UseSkill { skill: i.name })
            }
            other => Err(no_such_tool(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, input: serde_json::Value) -> ToolCall {
        ToolCall {
            id: "c".into(),
            name: name.into(),
            input,
        }
    }

    #[test]
    fn each_tool_is_classified() {
        let dir = tempfile::tempdir().unwrap();
        let work = resolve_work(dir.path());
        let c = Classifier {
            search: false,
            skills: false,
            sealing: false,
            sealing_on: None,
        };
        let got = |name: &str, input| c.classify(&call(name, input), &work);
        assert_eq!(
            got("read_file", json!({"path": "a.txt"})).unwrap(),
            Action::LookAround {
                paths: vec![work.join("a.txt").to_string_lossy().into()]
            }
        );
        assert_eq!(
            got("write_file", json!({"path": "../x", "content": ""})).unwrap(),
            Action::FileChange {
                path: work.parent().unwrap().join("x").to_string_lossy().into(),
                inside: false,
                runs_later: None,
            }
        );
        assert!(matches!(
            got("edit_file", json!({"path": "b", "old": "1", "new": "2"})).unwrap(),
            Action::FileChange { inside: true, .. }
        ));
        assert_eq!(
            got("web_fetch", json!({"url": "https://News.Example/a?b=1"})).unwrap(),
            Action::PageRead {
                url: "https://news.example/a?b=1".into(),
                host: "news.example".into()
            }
        );
        assert_eq!(
            got("run_command", json!({"command": "git status | head"})).unwrap(),
            Action::Command {
                command: "git status | head".into(),
                programs: vec!["git".into(), "head".into()],
                unsealed: true,
                leaves_box: false
            }
        );
    }

    #[test]
    fn what_it_cant_understand_gets_a_sentence() {
        let dir = tempfile::tempdir().unwrap();
        let c = Classifier {
            search: false,
            skills: false,
            sealing: true,
            sealing_on: None,
        };
        let err = |name: &str, input| c.classify(&call(name, input), dir.path()).unwrap_err();
        assert!(err("read_file", json!({})).contains("It takes {\"path\""));
        assert!(err("web_fetch", json!({"url": "file:///etc/passwd"})).contains("http and https"));
        assert!(err("web_fetch", json!({"url": "not a url"})).contains("isn't a web address"));
        assert!(err("web_search", json!({"query": "x"})).contains("no tool named"));
        assert!(err("run_command", json!({"command": "  "})).contains("empty"));
        assert!(err("launch_missiles", json!({})).contains("no tool named"));
        let leave = c
            .classify(
                &call(
                    "run_command",
                    json!({"command": "ls", "dangerouslyDisableSandbox": true}),
                ),
                dir.path(),
            )
            .unwrap();
        assert!(matches!(
            leave,
            Action::Command {
                unsealed: true,
                leaves_box: true,
                ..
            }
        ));
    }
}
