//! What the mock engine makes beside the chat: one of each kind ("make me
//! a chart / page / document / diagram / table / picture"), a page with a
//! link out ("with a link"), a table of many rows ("a table with 5000
//! rows"), exactly what the owner wrote ("make me this page:" and a fenced
//! block), a new version ("make it …"), and a Refresh: when the artifact
//! was made from an address it reads it, then asks it for what changed
//! since the version it has (a read that carries data, so the guard asks
//! the owner), then makes the new version.

use serde_json::json;

use crate::engine::{Item, StepRequest};
use crate::mock::MockStep;

/// The newest artifact this chat made, and its kind in words ("a chart"),
/// from the tool results it was given.
fn last_artifact(request: &StepRequest) -> Option<(String, String)> {
    request.items.iter().rev().find_map(|item| match item {
        Item::ToolResult {
            output, ok: true, ..
        } => {
            let start = output.find("(id ")? + 4;
            let end = output[start..].find(',')? + start;
            let words = output.split(" \"").next()?.split_once(' ')?.1.to_owned();
            Some((output[start..end].to_owned(), words))
        }
        _ => None,
    })
}

/// A changed version of what a kind shows.
fn changed(words: &str) -> String {
    match words {
        "a chart" => chart(10),
        "a page" => PAGE.replace("value=15", "value=20"),
        "a document" => format!("{DOCUMENT}\n## Day 3\n- Home\n"),
        "a diagram" => format!("{DIAGRAM}  D --> E[Run]\n"),
        "a table" => format!("{TABLE}erasers,5,0.80\n"),
        _ => PICTURE.replace("r=\"40\"", "r=\"45\""),
    }
}

fn chart(bump: u32) -> String {
    let values: Vec<u32> = [12, 19, 7, 15, 22].iter().map(|v| v + bump).collect();
    json!({
        "type": "bar",
        "title": "Weekly numbers",
        "labels": ["Mon", "Tue", "Wed", "Thu", "Fri"],
        "series": [{ "name": "Visitors", "values": values }],
        "xTitle": "Day",
        "yTitle": "Visitors"
    })
    .to_string()
}

const PAGE: &str = "<!doctype html><html><head><meta charset=utf-8><title>Tip calculator</title><style>body{font:15px system-ui;margin:1.5rem}input{width:6rem}</style></head><body><h1>Tip calculator</h1><label>Bill <input id=bill type=number value=40></label> <label>Tip % <input id=tip type=number value=15></label><p>Tip: <output id=out></output></p><script>const f=()=>{const b=Number(document.getElementById('bill').value),t=Number(document.getElementById('tip').value);document.getElementById('out').textContent=(b*t/100).toFixed(2);};document.querySelectorAll('input').forEach(i=>i.addEventListener('input',f));f();</script></body></html>";

const LINKED_PAGE: &str = "<!doctype html><html><body><h1>Reading list</h1><p>Start with <a href=\"https://example.com/guide\">the guide</a>.</p></body></html>";

const DOCUMENT: &str = "# Trip plan\n\n## Day 1\n- Arrive, check in\n- Walk the old town\n\n## Day 2\n- Museum in the morning\n- Train at 16:10\n";

const DIAGRAM: &str = "flowchart LR\n  A[Ask] --> B{Read something?}\n  B -- no --> C[Run]\n  B -- yes --> D[Ask the owner]\n";

const TABLE: &str = "item,qty,price\npens,12,1.20\nnotebooks,3,4.50\n\"tape, clear\",2,2.10\n";

const PICTURE: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 100 100\"><circle cx=\"50\" cy=\"50\" r=\"40\" fill=\"#2a9d8f\"/></svg>";

fn create(kind: &str, title: &str, content: &str) -> MockStep {
    MockStep::Call {
        name: "artifact_create".into(),
        input: json!({ "kind": kind, "title": title, "content": content }),
    }
}

fn read(url: String) -> MockStep {
    MockStep::Call {
        name: "web_fetch".into(),
        input: json!({ "url": url }),
    }
}

fn update(id: String, content: String) -> MockStep {
    MockStep::Call {
        name: "artifact_update".into(),
        input: json!({ "id": id, "content": content }),
    }
}

/// The address the owner's request named, from a Refresh task's "It was
/// made for: "…"".
fn made_from(text: &str) -> Option<String> {
    let start = text.find("It was made for: \"")? + 18;
    let end = text[start..].find("\".")? + start;
    crate::mock::url_in(&text[start..end])
}

/// A short fingerprint of what the artifact holds now (FNV-1a), the way a
/// client says which version it has.
fn fingerprint(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A Refresh task names its artifact. Made from an address, it reads the
/// address, then asks it for what changed since its version, then makes the
/// new version; otherwise it makes the new version at once.
fn refresh(request: &StepRequest, text: &str) -> Option<MockStep> {
    let fetched = request
        .items
        .iter()
        .filter(|i| matches!(i, Item::ToolUse { name, .. } if name == "web_fetch"))
        .count();
    let reads = request.tools.iter().any(|t| t.name == "web_fetch");
    if let (Some(url), true) = (made_from(text), reads) {
        if fetched == 0 {
            return Some(read(url));
        }
        if fetched == 1 {
            let sep = if url.contains('?') { '&' } else { '?' };
            let current = text.split("Its current content:").nth(1).unwrap_or("");
            return Some(read(format!("{url}{sep}have={}", fingerprint(current))));
        }
    }
    let start = text.find("with id \"")? + 9;
    let end = text[start..].find('"')? + start;
    let id = text[start..end].to_owned();
    let content = if text.starts_with("Refresh a chart") {
        chart(3)
    } else if text.starts_with("Refresh a table") {
        format!("{TABLE}erasers,5,0.80\n")
    } else if text.starts_with("Refresh a document") {
        format!("{DOCUMENT}\n(Refreshed.)\n")
    } else if text.starts_with("Refresh a diagram") {
        DIAGRAM.to_owned()
    } else if text.starts_with("Refresh a picture") {
        PICTURE.to_owned()
    } else {
        "<!doctype html><p>Refreshed.</p>".to_owned()
    };
    Some(update(id, content))
}

/// A Refresh chat's next step, whatever came back last: it goes on until
/// its artifact is updated (None then, and the mock says what it did).
pub fn refresh_step(request: &StepRequest) -> Option<MockStep> {
    let offered = |name: &str| request.tools.iter().any(|t| t.name == name);
    if !offered("artifact_update") || offered("artifact_create") {
        return None;
    }
    let task = request.items.iter().find_map(|item| match item {
        Item::Other { text, .. } | Item::Owner(text) if text.starts_with("Refresh ") => {
            Some(text.as_str())
        }
        _ => None,
    })?;
    let updated = request
        .items
        .iter()
        .any(|i| matches!(i, Item::ToolUse { name, .. } if name == "artifact_update"));
    if updated {
        return None;
    }
    refresh(request, task)
}

/// A table of `rows` rows: names from several scripts, whole numbers and
/// decimals, dates. Deterministic.
fn big_table(rows: usize) -> String {
    const NAMES: &[&str] = &[
        "Ærøskøbing",
        "Zürich",
        "São Paulo",
        "Kraków",
        "Reykjavík",
        "Ōsaka",
        "Śródmieście",
        "Malmö",
        "Θεσσαλονίκη",
        "Київ",
        "København",
        "Yerevan",
        "Québec",
        "İzmir",
        "Hà Nội",
    ];
    let mut out = String::from("place,visitors,share,day\n");
    let mut x: u64 = 7;
    for i in 0..rows {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let visitors = (x >> 33) % 100_000;
        let share = (x >> 17) % 10_000;
        out.push_str(&format!(
            "{} {},{visitors},{}.{:02},2026-{:02}-{:02}\n",
            NAMES[i % NAMES.len()],
            i / NAMES.len() + 1,
            share / 100,
            share % 100,
            (i % 12) + 1,
            (i % 28) + 1
        ));
    }
    out
}

/// "make me this page:" and a fenced block: the block, exactly.
fn this_one(text: &str, lower: &str) -> Option<MockStep> {
    let words = lower.split("make me this ").nth(1)?;
    let kind = [
        ("page", "html"),
        ("chart", "chart"),
        ("document", "markdown"),
        ("diagram", "mermaid"),
        ("table", "table"),
        ("picture", "svg"),
    ]
    .into_iter()
    .find(|(word, _)| words.starts_with(word))?
    .1;
    let start = text.find("```")?;
    let body = &text[start + 3..];
    let body = &body[body.find('\n')? + 1..];
    let end = body.rfind("```")?;
    let title = text
        .split('"')
        .nth(1)
        .filter(|t| text.contains(&format!("called \"{t}\"")))
        .unwrap_or("Yours");
    Some(create(kind, title, &body[..end]))
}

/// The step, when the owner asked for something to see.
pub fn artifact_step(request: &StepRequest, text: &str, lower: &str) -> Option<MockStep> {
    let offered = |name: &str| request.tools.iter().any(|t| t.name == name);
    if offered("artifact_update") && text.starts_with("Refresh ") {
        return refresh(request, text);
    }
    if !offered("artifact_create") {
        return None;
    }
    if lower.starts_with("make it") {
        let (id, words) = last_artifact(request)?;
        return Some(update(id, changed(&words)));
    }
    if !(lower.contains("make me") || lower.contains("make a")) {
        return None;
    }
    if let Some(step) = this_one(text, lower) {
        return Some(step);
    }
    let rows = lower
        .split("with ")
        .nth(1)
        .and_then(|w| w.split_whitespace().next())
        .and_then(|n| n.replace(',', "").parse::<usize>().ok())
        .filter(|_| lower.contains("rows"));
    let step = if let (true, Some(rows)) = (lower.contains("table"), rows) {
        create("table", "Visitors", &big_table(rows.min(10_000)))
    } else if lower.contains("chart") {
        create("chart", "Weekly numbers", &chart(0))
    } else if lower.contains("page") && lower.contains("with a link") {
        create("html", "Reading list", LINKED_PAGE)
    } else if lower.contains("page") || lower.contains("app") {
        create("html", "Tip calculator", PAGE)
    } else if lower.contains("document") {
        create("markdown", "Trip plan", DOCUMENT)
    } else if lower.contains("diagram") {
        create("mermaid", "How Conch asks", DIAGRAM)
    } else if lower.contains("table") {
        create("table", "Supplies", TABLE)
    } else if lower.contains("picture") || lower.contains("svg") {
        create("svg", "A circle", PICTURE)
    } else {
        return None;
    };
    Some(step)
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::ToolSpec;

    fn tools(names: &[&str]) -> Vec<ToolSpec> {
        names
            .iter()
            .map(|n| ToolSpec {
                name: n.to_string(),
                description: String::new(),
                schema: json!({}),
            })
            .collect()
    }

    fn call(step: Option<MockStep>) -> (String, serde_json::Value) {
        match step {
            Some(MockStep::Call { name, input }) => (name, input),
            other => panic!("wanted a call, got {other:?}"),
        }
    }

    #[test]
    fn a_refresh_reads_then_asks_with_what_it_has_then_updates() {
        let task = "Refresh a chart \"Weekly numbers\" (artifact abc) with fresh data, then call artifact_update with id \"abc\" and its whole new content, of the same kind. It was made for: \"make me a chart of http://127.0.0.1:9/week\". Its current content:\n\n{\"a\":1} see https://other.example/x";
        let mut request = StepRequest {
            items: vec![Item::Other {
                label: "A task".into(),
                text: task.into(),
            }],
            tools: tools(&["web_fetch", "artifact_update"]),
            ..StepRequest::default()
        };
        let (name, input) = call(refresh_step(&request));
        assert_eq!(name, "web_fetch");
        assert_eq!(
            input["url"], "http://127.0.0.1:9/week",
            "the address it was made from"
        );
        request.items.push(Item::ToolUse {
            id: "1".into(),
            name,
            input,
        });
        request.items.push(Item::ToolResult {
            id: "1".into(),
            ok: true,
            output: "This week".into(),
        });
        let (name, input) = call(refresh_step(&request));
        assert_eq!(name, "web_fetch");
        let url = input["url"].as_str().unwrap();
        assert!(url.starts_with("http://127.0.0.1:9/week?have="), "{url}");
        assert_eq!(url.len(), "http://127.0.0.1:9/week?have=".len() + 16);
        request.items.push(Item::ToolUse {
            id: "2".into(),
            name,
            input,
        });
        request.items.push(Item::ToolResult {
            id: "2".into(),
            ok: false,
            output: "The owner said no.".into(),
        });
        let (name, input) = call(refresh_step(&request));
        assert_eq!(name, "artifact_update");
        assert_eq!(input["id"], "abc");
        request.items.push(Item::ToolUse {
            id: "3".into(),
            name,
            input,
        });
        assert_eq!(refresh_step(&request), None, "done: the mock says so");
        // Without web_fetch, or made from no address, it updates at once.
        request.items.truncate(1);
        request.tools = tools(&["artifact_update"]);
        assert_eq!(call(refresh_step(&request)).0, "artifact_update");
        // A chat that can make things isn't a Refresh chat.
        request.tools = tools(&["artifact_create", "artifact_update"]);
        assert_eq!(refresh_step(&request), None);
    }

    #[test]
    fn this_page_is_made_exactly_and_tables_have_their_rows() {
        let text = "make me this page, called \"Ærø\":\n```html\n<p>x</p>\n```";
        let request = StepRequest {
            tools: tools(&["artifact_create"]),
            ..StepRequest::default()
        };
        let (_, input) = call(artifact_step(&request, text, &text.to_lowercase()));
        assert_eq!(input["kind"], "html");
        assert_eq!(input["title"], "Ærø");
        assert_eq!(input["content"], "<p>x</p>\n");
        let text = "make me a table with 5,000 rows";
        let (_, input) = call(artifact_step(&request, text, text));
        let csv = input["content"].as_str().unwrap();
        assert_eq!(csv.lines().count(), 5001);
        assert!(csv.contains("Ærøskøbing 1,"));
        assert!(crate::mock::url_in("no address").is_none());
    }
}
