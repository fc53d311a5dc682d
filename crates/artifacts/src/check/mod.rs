//! Does the content fit its kind? When it doesn't, the model gets one
//! sentence it can act on.

use crate::chart::check_chart;
use crate::kind::Kind;

/// The most characters an artifact may have.
pub const MAX_CHARS: usize = 400_000;
pub const MAX_TITLE_CHARS: usize = 200;

/// Diagram types Mermaid knows, as a diagram's first word.
const MERMAID_TYPES: &[&str] = &[
    "graph",
    "flowchart",
    "sequenceDiagram",
    "classDiagram",
    "classDiagram-v2",
    "stateDiagram",
    "stateDiagram-v2",
    "erDiagram",
    "journey",
    "gantt",
    "pie",
    "quadrantChart",
    "requirementDiagram",
    "gitGraph",
    "C4Context",
    "C4Container",
    "C4Component",
    "C4Dynamic",
    "C4Deployment",
    "mindmap",
    "timeline",
    "zenuml",
    "sankey-beta",
    "xychart-beta",
    "block-beta",
    "packet-beta",
    "kanban",
    "architecture-beta",
    "radar-beta",
];

fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn check_title(title: &str) -> Result<(), String> {
    if title.trim().is_empty() {
        return Err("Give the artifact a short title.".into());
    }
    let n = title.chars().count();
    if n > MAX_TITLE_CHARS {
        return Err(format!(
            "The title is {n} characters; keep it under {MAX_TITLE_CHARS}."
        ));
    }
    Ok(())
}

/// Checks `text` against `kind`.
pub fn check_content(kind: Kind, text: &str) -> Result<(), String> {
    // Counting characters stops early: a huge text isn't walked whole.
    let n = text.chars().take(MAX_CHARS + 1).count();
    if n > MAX_CHARS {
        return Err(format!(
            "The content is {} characters; the limit is {}. Make it smaller, or split it into several artifacts.",
            thousands(text.chars().count()),
            thousands(MAX_CHARS)
        ));
    }
    if text.trim().is_empty() {
        return Err(format!(
            "The content is empty: there's nothing to show as {}.",
            kind.words()
        ));
    }
    match kind {
        Kind::Markdown => Ok(()),
        Kind::Html => check_html(text),
        Kind::Svg => check_svg(text),
        Kind::Mermaid => check_mermaid(text),
        Kind::Chart => check_chart(text).map(|_| ()),
        Kind::Table => check_table(text).map(|_| ()),
    }
}

fn check_html(text: &str) -> Result<(), String> {
    // A document or a fragment: anything with at least one element.
    let mut elements = 0usize;
    let settings = lol_html::RewriteStrSettings {
        element_content_handlers: vec![lol_html::element!("*", |_el| {
            elements += 1;
            Ok(())
        })],
        ..lol_html::RewriteStrSettings::new()
    };
    lol_html::rewrite_str(text, settings)
        .map_err(|e| format!("The page couldn't be read as HTML: {e}."))?;
    if elements == 0 {
        return Err(
            "That's plain text, not HTML. Wrap it in HTML, or make it a markdown document.".into(),
        );
    }
    Ok(())
}

fn check_svg(text: &str) -> Result<(), String> {
    if !text.trim_start().starts_with("<svg") {
        return Err(
            "An SVG must start with <svg (no XML declaration, doctype or comment before it)."
                .into(),
        );
    }
    let doc = roxmltree::Document::parse(text).map_err(|e| {
        format!("The SVG isn't well-formed XML: {e}. Close every tag and quote every attribute.")
    })?;
    if doc.root_element().tag_name().name() != "svg" {
        return Err("An SVG's outer element must be <svg>.".into());
    }
    Ok(())
}

fn check_mermaid(text: &str) -> Result<(), String> {
    let mut lines = text.lines().map(str::trim);
    // Front matter (`---` … `---`) may come first.
    let mut first = None;
    let mut in_front = false;
    for line in lines.by_ref() {
        if line.is_empty() || line.starts_with("%%") {
            continue;
        }
        if line == "---" {
            in_front = !in_front;
            continue;
        }
        if in_front {
            continue;
        }
        first = Some(line);
        break;
    }
    let Some(first) = first else {
        return Err("The diagram has no content.".into());
    };
    let word = first.split_whitespace().next().unwrap_or("");
    let word = word.trim_end_matches(':');
    if MERMAID_TYPES.contains(&word) {
        Ok(())
    } else {
        Err(format!(
            "A Mermaid diagram starts with its type (flowchart, sequenceDiagram, classDiagram, stateDiagram-v2, erDiagram, gantt, pie, mindmap, timeline, …), not \"{}\".",
            first.chars().take(40).collect::<String>()
        ))
    }
}

/// Parses CSV (RFC 4180: quoted fields, `""` inside quotes, CRLF or LF).
pub fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut line = 1usize;
    let mut chars = text.chars().peekable();
    let mut at_start = true;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if at_start => {
                quoted = true;
                at_start = false;
            }
            ',' => {
                row.push(std::mem::take(&mut field));
                at_start = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
                line += 1;
                at_start = true;
            }
            _ => {
                field.push(c);
                at_start = false;
            }
        }
    }
    if quoted {
        return Err(format!(
            "The table has a quoted field that never closes (it starts before line {line}). Close it with \"."
        ));
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    // Blank lines (a trailing newline, spacing) aren't rows.
    rows.retain(|r| !(r.len() == 1 && r[0].trim().is_empty()));
    Ok(rows)
}

fn check_table(text: &str) -> Result<Vec<Vec<String>>, String> {
    let rows = parse_csv(text)?;
    let Some(header) = rows.first() else {
        return Err("The table is empty. Give a header row, then the rows.".into());
    };
    if header.iter().all(|h| h.trim().is_empty()) {
        return Err("The table's first row must be its header: the column names.".into());
    }
    for (i, row) in rows.iter().enumerate().skip(1) {
        if row.len() != header.len() {
            return Err(format!(
                "Row {} has {} columns but the header has {}.",
                i + 1,
                row.len(),
                header.len()
            ));
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests;
