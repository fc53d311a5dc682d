//! The built-in engine for when no provider is configured: keyword-driven and
//! deterministic, so a demo and a test see the same thing every time. It
//! needs no network and no key.

use std::time::Duration;

use tokio::sync::mpsc;

use crate::engine::{BoxFuture, Chunk, Engine, EngineError, Item, StepRequest};

pub struct MockEngine {
    /// Pause between streamed words, so a page shows a reply arriving.
    pace: Duration,
}

impl MockEngine {
    pub fn new(pace: Duration) -> MockEngine {
        MockEngine { pace }
    }
}

impl Default for MockEngine {
    fn default() -> Self {
        MockEngine::new(Duration::from_millis(15))
    }
}

/// What the mock engine does next.
#[derive(Debug, Clone, PartialEq)]
pub enum MockStep {
    Say(String),
    Call {
        name: String,
        input: serde_json::Value,
    },
}

/// The reply to the owner's latest words (for steps that only talk).
pub fn mock_reply(request: &StepRequest) -> String {
    match mock_step(request) {
        MockStep::Say(text) => text,
        MockStep::Call { name, .. } => format!("(calls {name})"),
    }
}

fn backticked(text: &str) -> Option<&str> {
    let start = text.find('`')? + 1;
    let end = text[start..].find('`')? + start;
    Some(&text[start..end]).filter(|c| !c.trim().is_empty())
}

pub(crate) fn url_in(text: &str) -> Option<String> {
    let start = text.find("http://").or_else(|| text.find("https://"))?;
    let url: String = text[start..]
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, '"' | '\'' | '>' | ')' | ','))
        .collect();
    Some(url.trim_end_matches(['.', '!', '?']).to_owned())
}

/// Keyword-driven and deterministic: the same chat gives the same step.
pub fn mock_step(request: &StepRequest) -> MockStep {
    // A Refresh goes on past its reads until its artifact is updated.
    if let Some(step) = crate::mock_artifacts::refresh_step(request) {
        return step;
    }
    // After a tool ran, say what came back.
    if let Some(Item::ToolResult { ok, output, .. }) = request.items.last() {
        if *ok
            && (output.starts_with("Made ")
                || output.starts_with("Updated ")
                || output.starts_with("Refreshed "))
        {
            let first = output.split(" (id ").next().unwrap_or(output);
            return MockStep::Say(format!("{first}: it's beside the chat."));
        }
        let shown: String = output.chars().take(1500).collect();
        let more = if output.chars().count() > 1500 {
            "\n…"
        } else {
            ""
        };
        return MockStep::Say(if *ok {
            format!("Here's what came back:\n\n```\n{shown}{more}\n```")
        } else if output.starts_with("The owner said no") {
            "Okay, I won't do that.".to_owned()
        } else {
            format!("That didn't work: {shown}")
        });
    }
    // What to answer: the newest words of a person, a routine or a task;
    // a skill's instructions are background, not the request.
    let last = request.items.iter().rev().find_map(|item| match item {
        Item::Owner(text) => Some(text.as_str()),
        Item::Other { label, text } if !label.ends_with("skill's instructions") => {
            Some(text.as_str())
        }
        _ => None,
    });
    let Some(text) = last else {
        return MockStep::Say("Hello! There's nothing to answer yet.".to_owned());
    };
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).collect();
    let has = |wanted: &[&str]| words.iter().any(|w| wanted.contains(w));
    let offered = |name: &str| request.tools.iter().any(|t| t.name == name);

    if let Some(step) = crate::mock_artifacts::artifact_step(request, text, &lower) {
        return step;
    }
    if has(&["run"]) && offered("run_command") {
        if let Some(command) = backticked(text) {
            return MockStep::Call {
                name: "run_command".into(),
                input: serde_json::json!({ "command": command }),
            };
        }
    }
    // "open <url> in the browser", "take a screenshot": Conch's browser,
    // where it is offered.
    if has(&["browser"]) && offered("browser_open") {
        if let Some(url) = url_in(text) {
            return MockStep::Call {
                name: "browser_open".into(),
                input: serde_json::json!({ "url": url }),
            };
        }
    }
    if has(&["screenshot"]) && offered("browser_screenshot") {
        return MockStep::Call {
            name: "browser_screenshot".into(),
            input: serde_json::json!({}),
        };
    }
    if has(&["read", "fetch", "open", "visit"]) && offered("web_fetch") {
        if let Some(url) = url_in(text) {
            return MockStep::Call {
                name: "web_fetch".into(),
                input: serde_json::json!({ "url": url }),
            };
        }
    }
    // "remember what it said": the last line of what a tool brought back,
    // the way a model steered by a page would.
    if lower.starts_with("remember what") && offered("remember") {
        let read = request.items.iter().rev().find_map(|item| match item {
            Item::ToolResult {
                ok: true, output, ..
            } => output
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(str::to_owned),
            _ => None,
        });
        if let Some(line) = read {
            return MockStep::Call {
                name: "remember".into(),
                input: serde_json::json!({ "text": line.trim() }),
            };
        }
    }
    // "remember that …": the words after it, or in backticks.
    if lower.starts_with("remember") && offered("remember") {
        let said = backticked(text).map(str::to_owned).unwrap_or_else(|| {
            let rest = text["remember".len()..].trim_start_matches([':', ' ']);
            rest.strip_prefix("that ").unwrap_or(rest).to_owned()
        });
        if !said.trim().is_empty() {
            return MockStep::Call {
                name: "remember".into(),
                input: serde_json::json!({ "text": said }),
            };
        }
    }
    if lower.contains("list files") && offered("list_files") {
        return MockStep::Call {
            name: "list_files".into(),
            input: serde_json::json!({ "path": "." }),
        };
    }
    if has(&["hello", "hi", "hey"]) {
        return MockStep::Say(
            "Hello! I'm Conch, running on the built-in mock engine. \
             I answer from a short list of keywords, so you can try the app without a provider. \
             Say \"help\" to see what I understand."
                .to_owned(),
        );
    }
    if has(&["help"]) {
        return MockStep::Say(
            "I'm the mock engine: no model, no network. I understand:\n\n\
             - **hello**: a greeting\n\
             - **run `a command`**: I run it (and ask you first)\n\
             - **read https://…**: I read the page\n\
             - **list files**: I list the work folder\n\
             - **make me a chart / page / document / diagram / table / picture** (\"a page with a link\" and \"a table with 5000 rows\" too; \"make me this page:\" with a fenced block makes exactly that): I make it beside the chat, and **make it …** changes it\n\
             - anything else: I repeat it back\n\n\
             To talk to a real model, add a provider with `conch providers add`."
                .to_owned(),
        );
    }
    let quoted: String = text.chars().take(200).collect();
    let more = if text.chars().count() > 200 {
        "…"
    } else {
        ""
    };
    MockStep::Say(format!(
        "You said: \"{quoted}{more}\". I'm the mock engine, so I can only echo and demo. \
         Add a provider with `conch providers add` to talk to a real model."
    ))
}

impl Engine for MockEngine {
    fn name(&self) -> &str {
        "mock"
    }

    /// The mock model can't judge anything: it keeps every question for
    /// the owner, in the reviewer's exact format.
    fn review<'a>(&'a self, _: String, _: String) -> BoxFuture<'a, Result<String, EngineError>> {
        Box::pin(async {
            Ok(r#"{"verdict":"ask","risk":"moderate","evidence":[],"reason":"The mock engine doesn't judge actions; the owner decides."}"#.to_owned())
        })
    }

    fn step<'a>(
        &'a self,
        request: StepRequest,
        out: mpsc::Sender<Chunk>,
    ) -> BoxFuture<'a, Result<(), EngineError>> {
        Box::pin(async move {
            let reply = match mock_step(&request) {
                MockStep::Say(text) => text,
                MockStep::Call { name, input } => {
                    let n = request
                        .items
                        .iter()
                        .filter(|i| matches!(i, Item::ToolUse { .. }))
                        .count();
                    let call = Chunk::ToolCall {
                        id: format!("mock-{}", n + 1),
                        name,
                        input,
                    };
                    return out.send(call).await.map_err(|_| EngineError::Stopped);
                }
            };
            for word in reply.split_inclusive(' ') {
                if !self.pace.is_zero() {
                    tokio::time::sleep(self.pace).await;
                }
                if out.send(Chunk::Text(word.to_owned())).await.is_err() {
                    return Err(EngineError::Stopped);
                }
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(text: &str) -> String {
        mock_reply(&StepRequest {
            items: vec![Item::Owner(text.into())],
            ..StepRequest::default()
        })
    }

    #[test]
    fn answers_by_keyword() {
        assert!(ask("Hi there").starts_with("Hello! I'm Conch"));
        assert!(ask("can you help?").contains("I understand"));
        assert!(ask("what is 2+2").contains("You said: \"what is 2+2\""));
        // "this" contains "hi" but isn't the word.
        assert!(ask("this").starts_with("You said"));
    }

    #[test]
    fn calls_tools_when_asked_and_offered() {
        let tools: Vec<protocol::ToolSpec> = [
            "run_command",
            "web_fetch",
            "list_files",
            "browser_open",
            "browser_screenshot",
        ]
        .iter()
        .map(|n| protocol::ToolSpec {
            name: n.to_string(),
            description: String::new(),
            schema: serde_json::json!({}),
        })
        .collect();
        let step = |text: &str| {
            mock_step(&StepRequest {
                items: vec![Item::Owner(text.into())],
                tools: tools.clone(),
                ..StepRequest::default()
            })
        };
        assert_eq!(
            step("please run `ls -la` for me"),
            MockStep::Call {
                name: "run_command".into(),
                input: serde_json::json!({"command": "ls -la"})
            }
        );
        assert_eq!(
            step("Read https://news.example/a, then tell me."),
            MockStep::Call {
                name: "web_fetch".into(),
                input: serde_json::json!({"url": "https://news.example/a"})
            }
        );
        assert!(matches!(step("list files"), MockStep::Call { name, .. } if name == "list_files"));
        assert_eq!(
            step("Open https://news.example/a in the browser"),
            MockStep::Call {
                name: "browser_open".into(),
                input: serde_json::json!({"url": "https://news.example/a"})
            }
        );
        assert!(
            matches!(step("Take a screenshot"), MockStep::Call { name, .. } if name == "browser_screenshot")
        );
        // Without the tool on offer it only talks.
        assert!(matches!(
            mock_step(&StepRequest {
                items: vec![Item::Owner("run `ls`".into())],
                ..StepRequest::default()
            }),
            MockStep::Say(_)
        ));
        let after = mock_step(&StepRequest {
            items: vec![Item::ToolResult {
                id: "1".into(),
                ok: true,
                output: "a.txt".into(),
            }],
            ..StepRequest::default()
        });
        assert_eq!(
            after,
            MockStep::Say("Here's what came back:\n\n```\na.txt\n```".into())
        );
    }

    #[test]
    fn is_deterministic_and_streams_the_whole_reply() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let engine = MockEngine::new(Duration::ZERO);
        let (tx, mut rx) = mpsc::channel(8);
        let request = StepRequest {
            items: vec![Item::Owner("hello".into())],
            ..StepRequest::default()
        };
        let text = rt.block_on(async {
            let run = engine.step(request.clone(), tx);
            let collect = async {
                let mut text = String::new();
                while let Some(Chunk::Text(t)) = rx.recv().await {
                    text.push_str(&t);
                }
                text
            };
            let (done, text) = tokio::join!(run, collect);
            done.unwrap();
            text
        });
        assert_eq!(text, mock_reply(&request));
    }
}
