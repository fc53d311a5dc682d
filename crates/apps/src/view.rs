//! An app as the Apps page and `conch apps list --json` show it (camelCase,
//! as the HTTP API composes): how it's reached (never a secret's value),
//! how it's doing, and each tool with its annotations, its choice, where
//! it stands, and when it was last used. A changed tool carries what it
//! said when the owner turned it on beside what it says now.

use serde_json::{json, Value};

use crate::file::{Reach, Server};
use crate::name;
use crate::registry::Status;
use crate::standing::{self, Standing};

/// One app.
pub fn server(app: &str, s: &Server, status: Option<&Status>) -> Value {
    let reach = match &s.reach {
        Reach::Stdio { command, args, env } => json!({
            "transport": "stdio",
            "command": command,
            "args": args,
            "env": env,
        }),
        Reach::Http { url, headers } => json!({
            "transport": "http",
            "url": url,
            "headers": headers,
        }),
    };
    let spellings = name::engine_names(
        app,
        s.tools
            .iter()
            .filter(|(_, t)| t.seen.is_some())
            .map(|(n, _)| n.as_str()),
    );
    let tools: Vec<Value> = s
        .tools
        .iter()
        .map(|(tool, t)| {
            let st = standing::standing(t.seen.as_ref(), t.choice, t.pinned.as_ref());
            let shown = t.seen.as_ref().or(t.pinned.as_ref().map(|p| &p.seen));
            json!({
                "name": tool,
                "qualified": name::qualified(app, tool),
                "engineName": spellings.get(tool).map(|sp| name::engine(app, sp)),
                "title": shown.and_then(|l| l.shown_title()),
                "description": shown.and_then(|l| l.description.clone()),
                "inputSchema": shown.map(|l| l.input_schema.clone()),
                "annotations": shown.map(|l| serde_json::to_value(&l.annotations).unwrap_or(Value::Null)),
                "readOnly": t.seen.as_ref().is_some_and(|l| standing::read_only(l, t.treat_as_write)),
                "treatAsWrite": t.treat_as_write,
                "choice": t.choice.name(),
                "standing": st.name(),
                "lastUsed": t.last_used,
                "turnedOnAt": t.pinned.as_ref().map(|p| p.at.clone()),
                "before": (st == Standing::Changed).then(|| t.pinned.as_ref().map(|p| json!({
                    "description": p.seen.description,
                    "inputSchema": p.seen.input_schema,
                    "annotations": serde_json::to_value(&p.seen.annotations).unwrap_or(Value::Null),
                }))).flatten(),
            })
        })
        .collect();
    json!({
        "name": app,
        "reach": reach,
        "added": s.added,
        "listed": s.listed,
        "status": status.map(|st| serde_json::to_value(st).unwrap_or(Value::Null)),
        "on": !s.off,
        "runs": crate::catalog::runs(&s.reach),
        "tools": tools,
    })
}

/// Every app, each with how it's doing now.
pub fn all(apps: &crate::registry::Apps) -> Value {
    let f = apps.file();
    let statuses = apps.statuses();
    let list: Vec<Value> = f
        .servers
        .iter()
        .map(|(name, s)| server(name, s, statuses.get(name)))
        .collect();
    Value::Array(list)
}
