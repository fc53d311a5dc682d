//! `artifact_create {kind, title, content}` and `artifact_update {id,
//! content}`: stored in Conch's own folder, recorded in the chat as an
//! `artifact` event, shown sealed.

use std::sync::Arc;

use artifacts::store::By;
use artifacts::{Artifact, Kind, StoreError};
use protocol::{Action, ArtifactAction, ArtifactEvent, Body, ToolSpec};
use serde_json::{json, Value};
use tools::Outcome;

use crate::state::Core;

pub const CREATE: &str = "artifact_create";
pub const UPDATE: &str = "artifact_update";

pub fn is_artifact_tool(name: &str) -> bool {
    name == CREATE || name == UPDATE
}

const KINDS_HELP: &str = "html (a self-contained page or small app: inline scripts and styles, no network), markdown (a document), svg (a picture), mermaid (a diagram), chart (JSON: {\"type\": \"bar\"|\"line\"|\"area\"|\"pie\"|\"scatter\", \"title\"?, \"labels\": [...], \"series\": [{\"name\", \"values\": [one number per label]}], \"xTitle\"?, \"yTitle\"?}) or table (CSV with a header row)";

fn create_spec() -> ToolSpec {
    ToolSpec {
        name: CREATE.to_owned(),
        description: format!(
            "Make something the owner can see and keep beside the chat: {KINDS_HELP}. It is shown sealed off: no network, no access to Conch. At most 400,000 characters."
        ),
        schema: json!({
            "type": "object",
            "properties": {
                "kind": { "type": "string", "enum": ["html", "markdown", "svg", "mermaid", "chart", "table"] },
                "title": { "type": "string", "description": "A short title." },
                "content": { "type": "string", "description": "The whole content." }
            },
            "required": ["kind", "title", "content"]
        }),
    }
}

pub fn update_spec() -> ToolSpec {
    ToolSpec {
        name: UPDATE.to_owned(),
        description: "Make a new version of an artifact made earlier (its id came back from artifact_create). Give the whole new content, of the same kind.".to_owned(),
        schema: json!({
            "type": "object",
            "properties": {
                "id": { "type": "string" },
                "content": { "type": "string", "description": "The whole new content." }
            },
            "required": ["id", "content"]
        }),
    }
}

pub fn specs() -> Vec<ToolSpec> {
    vec![create_spec(), update_spec()]
}

fn field<'a>(input: &'a Value, name: &str) -> Option<&'a str> {
    input.get(name).and_then(Value::as_str)
}

/// What the call does, for the guard.
pub fn classify(name: &str, input: &Value) -> Result<Action, String> {
    let content_ok = field(input, "content").is_some();
    if name == CREATE {
        let kind = field(input, "kind").and_then(Kind::parse);
        match (kind, field(input, "title"), content_ok) {
            (Some(kind), Some(_), true) => Ok(Action::Artifact {
                artifact: None,
                what: kind.name().to_owned(),
            }),
            (None, _, _) => Err(format!(
                "The input for artifact_create needs a kind: one of html, markdown, svg, mermaid, chart or table (it was {}).",
                input.get("kind").map(|k| k.to_string()).unwrap_or_else(|| "missing".into())
            )),
            _ => Err("The input for artifact_create isn't right. It takes {\"kind\": …, \"title\": \"…\", \"content\": \"…\"}.".to_owned()),
        }
    } else {
        match (field(input, "id"), content_ok) {
            (Some(id), true) => Ok(Action::Artifact {
                artifact: Some(id.to_owned()),
                what: "artifact".to_owned(),
            }),
            _ => Err("The input for artifact_update isn't right. It takes {\"id\": \"…\", \"content\": \"…\"}.".to_owned()),
        }
    }
}

/// The owner's latest words: what the artifact is made for.
fn request(chat: &Core) -> Option<String> {
    let events = chat.log.events_after(0).ok()?;
    events.iter().rev().find_map(|e| match &e.body {
        Body::Message(m) if m.from == protocol::Speaker::Owner => Some(m.text.clone()),
        _ => None,
    })
}

/// What the model is told about a version it made.
pub(crate) fn told(verb: &str, artifact: &Artifact) -> String {
    let version = artifact.latest;
    let mut out = format!(
        "{verb} {} \"{}\" beside the chat (id {}, version {version}). To change it, call artifact_update with this id.",
        artifact.kind.words(),
        artifact.title,
        artifact.id
    );
    if let Some(v) = artifact.newest().filter(|v| v.navigates) {
        out.push_str(&format!(
            " It has a way out of its frame ({}), so it shows with its scripts off until the owner chooses to run it.",
            v.why.join("; ")
        ));
    }
    out
}

/// Records `artifact` in the chat.
pub(crate) async fn record(
    chat: &Core,
    artifact: &Artifact,
    action: ArtifactAction,
    call: Option<String>,
) -> Result<(), crate::ChatError> {
    chat.log
        .append(Body::Artifact(ArtifactEvent {
            artifact: artifact.id.clone(),
            version: artifact.latest,
            action,
            kind: artifact.kind.name().to_owned(),
            title: artifact.title.clone(),
            navigates: artifact.newest().is_some_and(|v| v.navigates),
            call,
        }))
        .await?;
    // What this chat had read goes with what it made.
    let (mut marks, others) = chat.log.with_view(crate::carried::in_words);
    marks.extend(others.into_iter().map(|o| format!("had {o}'s words in it")));
    if !marks.is_empty() {
        let store = chat.shared.artifacts.clone();
        let id = artifact.id.clone();
        tokio::task::spawn_blocking(move || store.add_marks(&id, &marks))
            .await
            .map_err(|e| crate::ChatError::Artifact(e.to_string()))?
            .map_err(|e| crate::ChatError::Artifact(e.to_string()))?;
    }
    Ok(())
}

/// Makes or updates an artifact for a tool call.
pub async fn run(chat: &Arc<Core>, call_id: &str, name: &str, input: &Value) -> Outcome {
    let store = chat.shared.artifacts.clone();
    let refresh = chat.refreshes.clone();
    let secrets = chat.shared.secrets.clone();
    let content = secrets.mask(field(input, "content").unwrap_or(""));
    let made: Result<(Artifact, ArtifactAction), StoreError> = if name == CREATE {
        let kind = field(input, "kind")
            .and_then(Kind::parse)
            .unwrap_or(Kind::Markdown);
        let title = secrets.mask(field(input, "title").unwrap_or(""));
        let id = crate::ids::random_id(16);
        let chat_id = chat.id.clone();
        let request = request(chat);
        tokio::task::spawn_blocking(move || {
            store
                .create(
                    &id,
                    kind,
                    &title,
                    &content,
                    Some(&chat_id),
                    request.as_deref(),
                )
                .map(|a| (a, ArtifactAction::Made))
        })
        .await
        .unwrap_or_else(|e| {
            Err(StoreError::Content(format!(
                "The artifact couldn't be saved: {e}."
            )))
        })
    } else {
        let id = field(input, "id").unwrap_or("").to_owned();
        if let Some(only) = &refresh {
            if &id != only {
                return Outcome::failed(format!(
                    "This chat refreshes one artifact ({only}) and can't change \"{id}\"."
                ));
            }
        }
        let (by, action) = if refresh.is_some() {
            (By::Refreshed, ArtifactAction::Refreshed)
        } else {
            (By::Updated, ArtifactAction::Updated)
        };
        tokio::task::spawn_blocking(move || store.update(&id, &content, by).map(|a| (a, action)))
            .await
            .unwrap_or_else(|e| {
                Err(StoreError::Content(format!(
                    "The artifact couldn't be saved: {e}."
                )))
            })
    };
    let (artifact, action) = match made {
        Ok(m) => m,
        Err(e) => return Outcome::failed(e.to_string()),
    };
    if let Err(e) = record(chat, &artifact, action, Some(call_id.to_owned())).await {
        return Outcome::failed(format!(
            "The artifact was saved, but the chat couldn't record it: {e}"
        ));
    }
    let verb = match action {
        ArtifactAction::Made => "Made",
        ArtifactAction::Updated => "Updated",
        ArtifactAction::Refreshed => "Refreshed",
    };
    Outcome::ok(
        told(verb, &artifact),
        Some(json!({
            "artifact": artifact.id,
            "version": artifact.latest,
            "kind": artifact.kind,
            "navigates": artifact.newest().is_some_and(|v| v.navigates),
        })),
    )
}
