//! One running turn's calls, as Conch sees them from the three places
//! Claude Code tells it about them:
//!
//! - the hooks (over the socket): PreToolUse before every call, answered
//!   from [`Gate::quick`]; PostToolUse (or PostToolUseFailure) after it,
//!   which records the result, and its mark, before Claude Code goes on,
//!   so the next decision sees it;
//! - the permission channel (`can_use_tool` on stdio), answered from
//!   [`Gate::ask`] with exactly the input that was approved;
//! - the stream (stdout): the reply's text, and results no hook reported
//!   (a call refused before it ran).
//!
//! Claude Code's stream shows the model's original input, not the one a
//! permission answer rewrote; the input Conch judged last is what ran, and
//! that is what is recorded.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};

use super::wire::{Block, ToolResult};
use crate::native::{Gate, NativeCall, NativeEvent, Quick, Verdict};

#[derive(Default)]
struct Calls {
    /// Calls Conch judged, with the input it judged last: what runs.
    judged: HashMap<String, Value>,
    /// Calls whose result is recorded.
    finished: HashSet<String>,
    /// Calls as the stream shows them: (tool, the model's input).
    shown: HashMap<String, (String, Value)>,
    /// Calls Conch never judged that were recorded anyway.
    recorded: HashSet<String>,
    /// Messages whose text came as it was written (then their whole text
    /// isn't said again), and the one streaming now.
    streamed: HashSet<String>,
    streaming: Option<String>,
    /// Control requests Conch sent.
    sent: u64,
}

pub(crate) struct TurnState {
    gate: Arc<dyn Gate>,
    calls: Mutex<Calls>,
    /// Lines for Claude Code's stdin.
    input: mpsc::UnboundedSender<String>,
    /// Set when a tool ran that Conch never checked.
    unchecked: watch::Sender<Option<String>>,
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_owned()
}

impl TurnState {
    pub fn new(gate: Arc<dyn Gate>, input: mpsc::UnboundedSender<String>) -> TurnState {
        TurnState {
            gate,
            calls: Mutex::new(Calls::default()),
            input,
            unchecked: watch::channel(None).0,
        }
    }

    fn calls(&self) -> std::sync::MutexGuard<'_, Calls> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes a line to Claude Code (a turn that has ended drops it).
    pub fn send(&self, line: String) {
        let _ = self.input.send(line);
    }

    /// A fresh id for a control request of Conch's.
    pub fn request_id(&self, what: &str) -> String {
        let mut calls = self.calls();
        calls.sent += 1;
        format!("conch-{what}-{}", calls.sent)
    }

    pub fn watch_unchecked(&self) -> watch::Receiver<Option<String>> {
        self.unchecked.subscribe()
    }

    fn breach(&self, line: String) {
        self.unchecked.send_replace(Some(line));
    }

    /// PreToolUse (and a skill's own shell line): Conch's answer now.
    pub async fn before(&self, input: &Value) -> Result<Value, String> {
        let event = text(input, "hook_event_name");
        let call = NativeCall {
            id: text(input, "tool_use_id"),
            tool: text(input, "tool_name"),
            input: input.get("tool_input").cloned().unwrap_or(Value::Null),
        };
        if call.id.is_empty() || call.tool.is_empty() {
            return Err("The hook named no tool call, so it didn't run.".into());
        }
        self.calls()
            .judged
            .insert(call.id.clone(), call.input.clone());
        let (decision, reason) = match self.gate.quick(call).await {
            Quick::Allow => ("allow", None),
            Quick::Deny(why) => ("deny", Some(why)),
            // A skill's own shell line can't be put to anyone: "ask" keeps
            // it from running, and the model is told why.
            Quick::Ask(_) if event == "PreSkillShellCommand" => (
                "deny",
                Some("A skill's own command line can't be asked about. Run it as a command instead, and Conch will ask.".to_owned()),
            ),
            Quick::Ask(question) => ("ask", Some(question)),
        };
        let mut out = json!({
            "hookEventName": event,
            "permissionDecision": decision,
        });
        if let Some(reason) = reason {
            out["permissionDecisionReason"] = Value::String(reason);
        }
        Ok(json!({ "hookSpecificOutput": out }))
    }

    /// PostToolUse or PostToolUseFailure: the result is recorded (and marks
    /// the chat) before Claude Code goes on.
    pub async fn after(&self, input: &Value) -> Result<Value, String> {
        let id = text(input, "tool_use_id");
        let tool = text(input, "tool_name");
        let ran = input.get("tool_input").cloned().unwrap_or(Value::Null);
        let ok = text(input, "hook_event_name") == "PostToolUse";
        let output = if ok {
            super::output::text(input.get("tool_response").unwrap_or(&Value::Null))
        } else {
            super::output::cut(text(input, "error"))
        };
        let (first, judged, record) = {
            let mut calls = self.calls();
            let judged = calls.judged.contains_key(&id);
            (
                calls.finished.insert(id.clone()),
                judged,
                !judged && calls.recorded.insert(id.clone()),
            )
        };
        if record {
            self.gate
                .report(NativeEvent::ToolCalled(NativeCall {
                    id: id.clone(),
                    tool: tool.clone(),
                    input: ran.clone(),
                }))
                .await;
        }
        if !judged {
            // It ran without passing Conch's PreToolUse hook.
            self.breach(format!(
                "Claude Code ran {tool} without asking Conch first, so the turn was stopped."
            ));
        }
        if first {
            self.gate
                .report(NativeEvent::ToolFinished {
                    id: id.clone(),
                    ok,
                    output,
                })
                .await;
        }
        if ok && tool == "Skill" {
            let name = ["skill", "name", "command"]
                .iter()
                .find_map(|k| ran.get(*k).and_then(Value::as_str))
                .unwrap_or("")
                .trim_start_matches('/')
                .to_owned();
            if !name.is_empty() {
                self.gate.report(NativeEvent::SkillUsed { name }).await;
            }
        }
        Ok(Value::Null)
    }

    /// PostCompact: older turns were summarised; holds and marks stay in
    /// Conch's log.
    pub async fn compacted(&self, input: &Value) -> Result<Value, String> {
        self.gate
            .report(NativeEvent::Compacted {
                summary: text(input, "compact_summary"),
            })
            .await;
        Ok(Value::Null)
    }

    /// `can_use_tool`: the whole approval path. What comes back is what
    /// runs, and the log records that input.
    pub async fn ask(&self, id: String, tool: String, input: Value) -> Verdict {
        let call = NativeCall {
            id: id.clone(),
            tool: tool.clone(),
            input: input.clone(),
        };
        let verdict = self.gate.ask(call).await;
        if let Verdict::Allow { input: approved } = &verdict {
            self.calls().judged.insert(id.clone(), approved.clone());
            if *approved != input {
                self.gate
                    .report(NativeEvent::ToolCalled(NativeCall {
                        id,
                        tool,
                        input: approved.clone(),
                    }))
                    .await;
            }
        }
        verdict
    }

    /// A message of the reply starts streaming.
    pub fn streaming(&self, parent: Option<&str>, message: String) {
        if parent.is_none() {
            self.calls().streaming = Some(message);
        }
    }

    /// More of the reply's text, as it is written. A sub-agent's words are
    /// its report to the model, not the reply.
    pub async fn delta(&self, parent: Option<&str>, text: String) {
        if parent.is_some() || text.is_empty() {
            return;
        }
        {
            let mut calls = self.calls();
            if let Some(m) = calls.streaming.clone() {
                calls.streamed.insert(m);
            }
        }
        self.gate.report(NativeEvent::Text(text)).await;
    }

    /// What the turn cost, as Claude Code reported it.
    pub(crate) async fn cost(&self, usd: f64) {
        self.gate.report(NativeEvent::Cost { usd }).await;
    }

    /// What the model said, from the stream: its calls, and its text when
    /// that didn't come as it was written.
    pub async fn assistant(&self, parent: Option<&str>, message: &str, blocks: Vec<Block>) {
        let said = self.calls().streamed.contains(message);
        for block in blocks {
            match block {
                Block::Text(t) if parent.is_none() && !said && !t.is_empty() => {
                    self.gate.report(NativeEvent::Text(t)).await;
                }
                Block::Text(_) => {}
                Block::ToolUse { id, tool, input } => {
                    self.calls().shown.insert(id, (tool, input));
                }
            }
        }
    }

    /// Results from the stream that no hook reported: calls refused before
    /// they ran, mostly.
    pub async fn results(&self, results: Vec<ToolResult>) {
        for r in results {
            let (first, judged, shown) = {
                let mut calls = self.calls();
                let first = calls.finished.insert(r.id.clone());
                let judged = calls.judged.contains_key(&r.id);
                if first && !judged {
                    calls.recorded.insert(r.id.clone());
                }
                (first, judged, calls.shown.get(&r.id).cloned())
            };
            if !first {
                continue;
            }
            if !judged {
                let (tool, input) = shown.unwrap_or_default();
                if !r.error {
                    self.breach(format!(
                        "Claude Code ran {tool} without asking Conch first, so the turn was stopped."
                    ));
                }
                self.gate
                    .report(NativeEvent::ToolCalled(NativeCall {
                        id: r.id.clone(),
                        tool,
                        input,
                    }))
                    .await;
            }
            self.gate
                .report(NativeEvent::ToolFinished {
                    id: r.id,
                    ok: !r.error,
                    output: super::output::cut(r.text),
                })
                .await;
        }
    }

    /// A hook gave Claude Code no verdict (it failed some way other than
    /// refusing, or timed out): the call may run unchecked.
    pub fn unchecked_hook(&self, hook: &str) {
        if hook == "PreToolUse" || hook == "PreSkillShellCommand" {
            self.breach(
                "Conch's check gave Claude Code no answer for a call, so the turn was stopped."
                    .to_owned(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::BoxFuture;

    /// Keeps what it's asked and told; asks about Bash, refuses Read.
    #[derive(Default)]
    struct Seen {
        log: Mutex<Vec<String>>,
    }

    impl Gate for Seen {
        fn quick(&self, call: NativeCall) -> BoxFuture<'_, Quick> {
            Box::pin(async move {
                self.log.lock().unwrap().push(format!("judged {}", call.id));
                match call.tool.as_str() {
                    "Bash" => Quick::Ask("Can I?".into()),
                    "Read" => Quick::Deny("No.".into()),
                    _ => Quick::Allow,
                }
            })
        }
        fn ask(&self, call: NativeCall) -> BoxFuture<'_, Verdict> {
            Box::pin(async move {
                self.log.lock().unwrap().push(format!("judged {}", call.id));
                Verdict::Allow { input: call.input }
            })
        }
        fn report(&self, event: NativeEvent) -> BoxFuture<'_, ()> {
            Box::pin(async move {
                let line = match event {
                    NativeEvent::ToolCalled(c) => format!("called {}", c.id),
                    NativeEvent::ToolFinished { id, .. } => format!("finished {id}"),
                    other => format!("{other:?}"),
                };
                self.log.lock().unwrap().push(line);
            })
        }
    }

    fn state() -> (Arc<Seen>, TurnState) {
        let gate = Arc::new(Seen::default());
        let (tx, _rx) = mpsc::unbounded_channel();
        (gate.clone(), TurnState::new(gate, tx))
    }

    fn hook(event: &str, id: &str, tool: &str) -> Value {
        json!({
            "hook_event_name": event,
            "tool_use_id": id,
            "tool_name": tool,
            "tool_input": {"command": "ls"},
            "tool_response": {"stdout": "a", "stderr": ""},
            "error": "failed",
        })
    }

    #[tokio::test]
    async fn the_hook_answers_with_the_gates_decision() {
        let (_, s) = state();
        let out = s.before(&hook("PreToolUse", "t1", "Bash")).await.unwrap();
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "ask");
        assert_eq!(
            out["hookSpecificOutput"]["permissionDecisionReason"],
            "Can I?"
        );
        let out = s.before(&hook("PreToolUse", "t2", "Read")).await.unwrap();
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
        let out = s.before(&hook("PreToolUse", "t3", "Glob")).await.unwrap();
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "allow");
        // A skill's own shell line can't be asked about: refused.
        let out = s
            .before(&hook("PreSkillShellCommand", "t4", "Bash"))
            .await
            .unwrap();
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(
            out["hookSpecificOutput"]["hookEventName"],
            "PreSkillShellCommand"
        );
        assert!(s
            .before(&json!({"hook_event_name": "PreToolUse"}))
            .await
            .is_err());
    }

    /// Any order of hooks, asks and stream results: each call's result is
    /// recorded once, never before the call is; a call that ran without
    /// being judged stops the turn, and only such a call does.
    #[tokio::test]
    async fn each_result_is_recorded_once_after_its_call_whatever_the_order() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..300 {
            let (gate, s) = state();
            let unchecked = s.watch_unchecked();
            let mut ran_unjudged = false;
            let mut judged = HashSet::new();
            for _ in 0..12 {
                let id = format!("t{}", next(4));
                let tool = ["Bash", "Glob", "Read"][next(3) as usize];
                match next(5) {
                    0 => {
                        judged.insert(id.clone());
                        let _ = s.before(&hook("PreToolUse", &id, tool)).await;
                    }
                    1 => {
                        judged.insert(id.clone());
                        s.ask(id, tool.into(), json!({})).await;
                    }
                    2 | 3 => {
                        let ok = next(2) == 0;
                        let event = if ok {
                            "PostToolUse"
                        } else {
                            "PostToolUseFailure"
                        };
                        // A hook's "after" means it ran.
                        ran_unjudged |= !judged.contains(&id);
                        let _ = s.after(&hook(event, &id, tool)).await;
                    }
                    _ => {
                        let error = next(2) == 0;
                        let fresh = !gate.log.lock().unwrap().contains(&format!("finished {id}"));
                        ran_unjudged |= fresh && !error && !judged.contains(&id);
                        s.results(vec![ToolResult {
                            id,
                            error,
                            text: "x".into(),
                        }])
                        .await;
                    }
                }
            }
            let log = gate.log.lock().unwrap().clone();
            for id in ["t0", "t1", "t2", "t3"] {
                let finished: Vec<usize> = log
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| **l == format!("finished {id}"))
                    .map(|(i, _)| i)
                    .collect();
                assert!(finished.len() <= 1, "{log:?}");
                let called = log.iter().filter(|l| **l == format!("called {id}")).count();
                assert!(called <= 1, "{log:?}");
                if let Some(at) = finished.first() {
                    assert!(
                        log[..*at]
                            .iter()
                            .any(|l| *l == format!("judged {id}") || *l == format!("called {id}")),
                        "{log:?}"
                    );
                }
            }
            assert_eq!(unchecked.borrow().is_some(), ran_unjudged, "{log:?}");
        }
    }
}
