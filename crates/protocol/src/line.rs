//! One event, one line of JSON: reading and writing it.
//!
//! Reading takes two passes over the line, both without buffering: the
//! envelope first (`seq`, `id`, `at`, `type`; other fields skipped), then the
//! one struct the `type` names (envelope fields skipped). That is faster than
//! serde's internally tagged enums, which copy every field into a buffer
//! before choosing a variant, and it lets an unknown or unreadable kind keep
//! its envelope instead of failing the whole line.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::body::Body;
use crate::event::Event;

/// Why a line isn't an event at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    /// Not a JSON object with `seq`, `id`, `at` and `type`.
    NotAnEvent(String),
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineError::NotAnEvent(why) => write!(f, "This line isn't an event: {why}."),
        }
    }
}

impl std::error::Error for LineError {}

#[derive(Deserialize)]
struct Envelope<'a> {
    seq: u64,
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    at: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
}

fn body_of<T: DeserializeOwned>(line: &[u8], wrap: fn(T) -> Body, kind: &str) -> Body {
    match serde_json::from_slice::<T>(line) {
        Ok(inner) => wrap(inner),
        Err(_) => Body::Unknown {
            kind: kind.to_owned(),
        },
    }
}

impl Event {
    /// Reads one line (without its newline).
    pub fn from_line(line: &[u8]) -> Result<Event, LineError> {
        if let Ok(fast) = serde_json::from_slice::<crate::line_fast::FastEvent>(line) {
            return Ok(fast.0);
        }
        Event::from_line_carefully(line)
    }

    /// The two-pass reader: any field order, and an unreadable body becomes
    /// [`Body::Unknown`] instead of failing the line.
    fn from_line_carefully(line: &[u8]) -> Result<Event, LineError> {
        let env: Envelope =
            serde_json::from_slice(line).map_err(|e| LineError::NotAnEvent(e.to_string()))?;
        let kind = env.kind.as_ref();
        let body = match kind {
            "chat.created" => body_of(line, Body::ChatCreated, kind),
            "message" => body_of(line, Body::Message, kind),
            "turn.started" => body_of(line, Body::TurnStarted, kind),
            "reply" => body_of(line, Body::Reply, kind),
            "tool.called" => body_of(line, Body::ToolCalled, kind),
            "tool.finished" => body_of(line, Body::ToolFinished, kind),
            "turn.ended" => body_of(line, Body::TurnEnded, kind),
            "mode.changed" => body_of(line, Body::ModeChanged, kind),
            "permission.requested" => body_of(line, Body::PermissionRequested, kind),
            "permission.answered" => body_of(line, Body::PermissionAnswered, kind),
            "permission.ended" => body_of(line, Body::PermissionEnded, kind),
            "taint" => body_of(line, Body::Taint, kind),
            "skill.used" => body_of(line, Body::SkillUsed, kind),
            "skill.hold.ended" => body_of(line, Body::SkillHoldEnded, kind),
            "compacted" => body_of(line, Body::Compacted, kind),
            "artifact" => body_of(line, Body::Artifact, kind),
            "review.judged" => body_of(line, Body::ReviewJudged, kind),
            "memory" => body_of(line, Body::Memory, kind),
            "memories.used" => body_of(line, Body::MemoriesUsed, kind),
            "chat.renamed" => body_of(line, Body::ChatRenamed, kind),
            "file.kept" => body_of(line, Body::FileKept, kind),
            "cost" => body_of(line, Body::Cost, kind),
            "files.left" => body_of(line, Body::FilesLeft, kind),
            "files.restored" => body_of(line, Body::FilesRestored, kind),
            "chat.archived" => body_of(line, Body::ChatArchived, kind),
            "model.changed" => body_of(line, Body::ModelChanged, kind),
            "grant.revoked" => body_of(line, Body::GrantRevoked, kind),
            other => Body::Unknown {
                kind: other.to_owned(),
            },
        };
        Ok(Event {
            seq: env.seq,
            id: env.id.into_owned(),
            at: env.at.into_owned(),
            body,
        })
    }

    /// Writes the event as one line, without a newline: the envelope first, in
    /// the order `seq`, `id`, `at`, `type`, then the body's fields.
    pub fn to_line(&self) -> String {
        let fields = match &self.body {
            Body::ChatCreated(b) => object_fields(b),
            Body::Message(b) => object_fields(b),
            Body::TurnStarted(b) => object_fields(b),
            Body::Reply(b) => object_fields(b),
            Body::ToolCalled(b) => object_fields(b),
            Body::ToolFinished(b) => object_fields(b),
            Body::TurnEnded(b) => object_fields(b),
            Body::ModeChanged(b) => object_fields(b),
            Body::PermissionRequested(b) => object_fields(b),
            Body::PermissionAnswered(b) => object_fields(b),
            Body::PermissionEnded(b) => object_fields(b),
            Body::Taint(b) => object_fields(b),
            Body::SkillUsed(b) => object_fields(b),
            Body::SkillHoldEnded(b) => object_fields(b),
            Body::Compacted(b) => object_fields(b),
            Body::Artifact(b) => object_fields(b),
            Body::ReviewJudged(b) => object_fields(b),
            Body::Memory(b) => object_fields(b),
            Body::MemoriesUsed(b) => object_fields(b),
            Body::ChatRenamed(b) => object_fields(b),
            Body::FileKept(b) => object_fields(b),
            Body::Cost(b) => object_fields(b),
            Body::FilesLeft(b) => object_fields(b),
            Body::FilesRestored(b) => object_fields(b),
            Body::ChatArchived(b) => object_fields(b),
            Body::ModelChanged(b) => object_fields(b),
            Body::GrantRevoked(b) => object_fields(b),
            Body::Unknown { .. } => String::new(),
        };
        let mut line = String::with_capacity(64 + fields.len());
        line.push_str("{\"seq\":");
        line.push_str(&self.seq.to_string());
        line.push_str(",\"id\":");
        line.push_str(&json_string(&self.id));
        line.push_str(",\"at\":");
        line.push_str(&json_string(&self.at));
        line.push_str(",\"type\":");
        line.push_str(&json_string(self.body.kind()));
        if !fields.is_empty() {
            line.push(',');
            line.push_str(&fields);
        }
        line.push('}');
        line
    }
}

fn json_string(text: &str) -> String {
    // Serialising a str cannot fail.
    serde_json::to_string(text).unwrap_or_else(|_| String::from("\"\""))
}

/// The inside of a struct's JSON object, without its braces.
fn object_fields<T: Serialize>(body: &T) -> String {
    match serde_json::to_string(body) {
        Ok(text) if text.len() >= 2 => text[1..text.len() - 1].to_owned(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::*;
    use serde_json::json;

    fn event(body: Body) -> Event {
        Event {
            seq: 7,
            id: "e1".into(),
            at: "2026-11-29T15:30:23.123Z".into(),
            body,
        }
    }

    #[test]
    fn every_kind_round_trips() {
        let bodies = vec![
            Body::ChatCreated(ChatCreated {
                work: "/w".into(),
                mode: Mode::Edits,
                origin: Origin::Owner,
                parent: None,
                artifact: None,
                routine: None,
            }),
            Body::Message(Message {
                from: Speaker::Person,
                text: "hi \"there\"\n".into(),
                name: Some("Eve".into()),
                app: Some("telegram".into()),
                replaces: None,
            }),
            Body::TurnStarted(TurnStarted {
                engine: "mock".into(),
                model: None,
                not_ready: Vec::new(),
            }),
            Body::Reply(Reply {
                turn: 3,
                text: "ok".into(),
            }),
            Body::ToolCalled(ToolCalled {
                turn: 3,
                call: "c1".into(),
                tool: "read_file".into(),
                input: json!({"path": "a.txt"}),
            }),
            Body::ToolFinished(ToolFinished {
                turn: 3,
                call: "c1".into(),
                ok: true,
                output: "x".into(),
                detail: Some(json!({"exit": 0}).into()),
            }),
            Body::TurnEnded(TurnEnded {
                turn: 3,
                reason: EndReason::Done,
                error: None,
            }),
            Body::ModeChanged(ModeChanged { mode: Mode::Full }),
        ];
        for body in bodies {
            let e = event(body);
            let line = e.to_line();
            assert!(
                line.starts_with("{\"seq\":7,\"id\":\"e1\",\"at\":"),
                "{line}"
            );
            assert!(!line.contains('\n'));
            assert_eq!(Event::from_line(line.as_bytes()), Ok(e));
        }
    }

    #[test]
    fn unknown_kind_keeps_its_envelope() {
        let line =
            br#"{"seq":4,"id":"x","at":"2030-01-01T00:00:00Z","type":"hologram","beam":[1,2]}"#;
        let e = Event::from_line(line).unwrap();
        assert_eq!(e.seq, 4);
        assert_eq!(
            e.body,
            Body::Unknown {
                kind: "hologram".into()
            }
        );
    }

    #[test]
    fn known_kind_with_unreadable_fields_is_unknown_not_an_error() {
        let line = br#"{"seq":4,"id":"x","at":"t","type":"message","from":"martian","text":1}"#;
        let e = Event::from_line(line).unwrap();
        assert_eq!(e.body.kind(), "message");
        assert!(matches!(e.body, Body::Unknown { .. }));
    }

    #[test]
    fn fields_in_any_order_and_newer_fields_are_read() {
        let line = br#"{"text":"yo","type":"message","future":true,"from":"owner","at":"t","id":"i","seq":2}"#;
        let e = Event::from_line(line).unwrap();
        assert_eq!(
            e.body,
            Body::Message(Message {
                from: Speaker::Owner,
                text: "yo".into(),
                name: None,
                app: None,
                replaces: None,
            })
        );
    }

    #[test]
    fn not_an_event() {
        for line in [
            &b"{\"seq\":1"[..],
            b"",
            b"[1,2]",
            b"{\"id\":\"x\",\"at\":\"t\",\"type\":\"message\"}",
            b"\0\0\0\0",
        ] {
            assert!(Event::from_line(line).is_err(), "{:?}", line);
        }
    }
}
