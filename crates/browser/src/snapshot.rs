//! A page as text (like other agents' snapshots): its accessibility tree,
//! one line per thing a person would notice, each control with a stable
//! ref (`e` and Chromium's own id for the element, which stays the same
//! while the element is on the page), what a link leads to and where a
//! button sends.
//!
//! Two renderings from one walk: the model's (a password field's value
//! never shown) and the reviewer's (every secret field's value hidden, and
//! tokens and long opaque strings redacted, see `redact.rs`). Pure: it
//! reads what `Accessibility.getFullAXTree` and `DOM.getDocument` returned.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::element::{judge, Element, Facts};
use crate::redact::redact;

/// A page, as a snapshot read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub url: String,
    pub title: String,
    /// What the model reads.
    pub text: String,
    /// What Auto mode's reviewer reads: secret values hidden, opaque
    /// strings redacted.
    pub redacted: String,
    /// Every control with a ref.
    pub elements: BTreeMap<String, Element>,
    /// The whole page is in it: no frame whose content it can't show.
    pub complete: bool,
    /// Fields with a value the reviewer's rendering hides (a password, a
    /// token): a click would send what the reviewer can't see.
    pub hidden_values: usize,
}

const INTERACTIVE: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "switch",
    "slider",
    "spinbutton",
    "treeitem",
    "MenuListOption",
    "MenuListPopup",
    "PopUpButton",
    "ToggleButton",
];

/// Roles shown even without a name: they give the page its shape.
const SHAPE: &[&str] = &[
    "heading",
    "list",
    "listitem",
    "table",
    "row",
    "cell",
    "columnheader",
    "rowheader",
    "form",
    "navigation",
    "main",
    "banner",
    "contentinfo",
    "dialog",
    "alert",
    "img",
    "article",
    "search",
    "tablist",
    "tabpanel",
    "menu",
    "menubar",
    "tree",
    "grid",
];

/// What the DOM says of one element.
#[derive(Debug, Default)]
struct Dom {
    tag: String,
    attrs: Vec<(String, String)>,
    parent: Option<i64>,
}

impl Dom {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

struct DomIndex {
    nodes: HashMap<i64, Dom>,
    ids: HashMap<String, i64>,
    base: String,
    frames: usize,
}

fn index_dom(document: &Value) -> DomIndex {
    let mut index = DomIndex {
        nodes: HashMap::new(),
        ids: HashMap::new(),
        base: String::new(),
        frames: 0,
    };
    let root = document.get("root").unwrap_or(document);
    index.base = root
        .get("baseURL")
        .or_else(|| root.get("documentURL"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let mut stack: Vec<(&Value, Option<i64>)> = vec![(root, None)];
    while let Some((node, parent)) = stack.pop() {
        let id = node.get("backendNodeId").and_then(Value::as_i64);
        let tag = node
            .get("localName")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_ascii_lowercase();
        if matches!(tag.as_str(), "iframe" | "frame" | "object" | "embed") {
            index.frames += 1;
        }
        let attrs: Vec<(String, String)> = node
            .get("attributes")
            .and_then(Value::as_array)
            .map(|a| {
                a.chunks(2)
                    .filter_map(|kv| {
                        Some((
                            kv.first()?.as_str()?.to_owned(),
                            kv.get(1)?.as_str()?.to_owned(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        if let Some(id) = id {
            if let Some((_, v)) = attrs.iter().find(|(k, _)| k == "id") {
                index.ids.entry(v.clone()).or_insert(id);
            }
            index.nodes.insert(id, Dom { tag, attrs, parent });
        }
        for key in ["children", "shadowRoots"] {
            for child in node
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                stack.push((child, id.or(parent)));
            }
        }
        if let Some(t) = node.get("templateContent") {
            stack.push((t, id.or(parent)));
        }
    }
    index
}

/// `href` resolved against the page's base, as Chromium would.
fn resolve(base: &str, href: &str) -> String {
    match url::Url::parse(base).and_then(|b| b.join(href.trim())) {
        Ok(u) => u.to_string(),
        Err(_) => href.to_owned(),
    }
}

impl DomIndex {
    fn facts(&self, id: i64) -> Facts<'_> {
        let Some(dom) = self.nodes.get(&id) else {
            return Facts::default();
        };
        let form_of = || -> Option<&Dom> {
            if let Some(owner) = dom.attr("form") {
                return self.ids.get(owner).and_then(|f| self.nodes.get(f));
            }
            let mut at = dom.parent;
            while let Some(p) = at {
                let node = self.nodes.get(&p)?;
                if node.tag == "form" {
                    return Some(node);
                }
                at = node.parent;
            }
            None
        };
        let form = form_of().map(|f| {
            let action = f.attr("action").unwrap_or("");
            (
                resolve(&self.base, action),
                f.attr("method").unwrap_or("get").to_owned(),
            )
        });
        let words: Vec<&str> = ["name", "id", "autocomplete", "aria-label", "placeholder"]
            .iter()
            .filter_map(|k| dom.attr(k))
            .collect();
        Facts {
            tag: &dom.tag,
            input_type: dom.attr("type").unwrap_or(""),
            field_words: words.join(" "),
            form,
            form_override: (
                dom.attr("formaction").map(|a| resolve(&self.base, a)),
                dom.attr("formmethod").map(str::to_owned),
            ),
            href: (dom.tag == "a" || dom.tag == "area")
                .then(|| dom.attr("href").map(|h| resolve(&self.base, h)))
                .flatten(),
        }
    }
}

fn text_of(v: Option<&Value>) -> String {
    let raw = match v.and_then(|v| v.get("value")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    };
    raw.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

struct Walk<'a> {
    nodes: HashMap<&'a str, &'a Value>,
    dom: DomIndex,
    text: String,
    redacted: String,
    elements: BTreeMap<String, Element>,
    hidden_values: usize,
}

impl Walk<'_> {
    fn line(&mut self, depth: usize, plain: &str, secret: &str) {
        let indent = "  ".repeat(depth);
        self.text.push_str(&format!("{indent}{plain}\n"));
        self.redacted
            .push_str(&format!("{indent}{}\n", redact(secret)));
    }

    fn visit(&mut self, id: &str, depth: usize, parent_name: &str) {
        let Some(node) = self.nodes.get(id).copied() else {
            return;
        };
        let children: Vec<String> = node
            .get("childIds")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        let role = text_of(node.get("role"));
        let name = text_of(node.get("name"));
        let ignored = node.get("ignored").and_then(Value::as_bool) == Some(true);
        let walk_children = |w: &mut Self, depth: usize, name: &str| {
            for c in &children {
                w.visit(c, depth, name);
            }
        };
        if role == "InlineTextBox" || role == "LineBreak" {
            return;
        }
        if ignored || role == "RootWebArea" {
            return walk_children(self, depth, parent_name);
        }
        if role == "StaticText" {
            if !name.is_empty() && name != parent_name && !parent_name.contains(&name) {
                let line = format!("- text {}", quoted(&name));
                self.line(depth, &line, &line);
            }
            return;
        }
        let props: HashMap<String, Value> = node
            .get("properties")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| {
                Some((
                    p.get("name")?.as_str()?.to_owned(),
                    p.get("value")?.get("value").cloned().unwrap_or(Value::Null),
                ))
            })
            .collect();
        let focusable = props.get("focusable") == Some(&Value::Bool(true));
        let backend = node.get("backendDOMNodeId").and_then(Value::as_i64);
        let interactive = INTERACTIVE.contains(&role.as_str()) || focusable;
        if !interactive && name.is_empty() && !SHAPE.contains(&role.as_str()) {
            return walk_children(self, depth, parent_name);
        }
        let mut plain = format!("- {role}");
        if !name.is_empty() {
            plain.push(' ');
            plain.push_str(&quoted(&name));
        }
        let mut element = None;
        if let (true, Some(backend)) = (interactive, backend) {
            let r = format!("e{backend}");
            let el = judge(&r, &role, &name, &self.dom.facts(backend));
            plain.push_str(&format!(" [ref={r}]"));
            element = Some(el);
        }
        if let Some(level) = props.get("level").and_then(Value::as_i64) {
            plain.push_str(&format!(" [level={level}]"));
        }
        for flag in ["checked", "pressed", "selected", "expanded"] {
            match props.get(flag) {
                Some(Value::String(s)) if s == "true" => plain.push_str(&format!(" [{flag}]")),
                Some(Value::String(s)) if s == "mixed" => {
                    plain.push_str(&format!(" [{flag}=mixed]"))
                }
                Some(Value::Bool(true)) => plain.push_str(&format!(" [{flag}]")),
                _ => {}
            }
        }
        if props.get("disabled") == Some(&Value::Bool(true)) {
            plain.push_str(" [disabled]");
        }
        if let Some(el) = &element {
            if el.password {
                plain.push_str(" [password]");
            }
            if let Some(to) = &el.link {
                plain.push_str(&format!(" [to {to}]"));
            }
            if let Some(s) = &el.sends {
                if s.to.is_empty() {
                    plain.push_str(" [sends, by the page's script]");
                } else {
                    plain.push_str(&format!(" [sends to {} {}]", s.to, s.method));
                }
            }
        }
        let value = text_of(node.get("value"));
        let mut secret_line = plain.clone();
        if !value.is_empty() && role != "link" {
            let (password, secret) = element
                .as_ref()
                .map_or((false, false), |e| (e.password, e.secret));
            plain.push_str(&format!(
                ": {}",
                if password {
                    "[hidden]".to_owned()
                } else {
                    quoted(&value)
                }
            ));
            secret_line.push_str(&format!(
                ": {}",
                if secret || password {
                    "[hidden]".to_owned()
                } else {
                    quoted(&value)
                }
            ));
            if secret || password {
                self.hidden_values += 1;
            }
        }
        self.line(depth, &plain, &secret_line);
        if let Some(el) = element {
            self.elements.insert(el.r#ref.clone(), el);
        }
        // A field's text is its value, shown (or hidden) above: its
        // children don't say it again, so a hidden value stays hidden.
        walk_children(self, depth + 1, &format!("{name}\n{value}"));
    }
}

/// The snapshot of a page at `url` titled `title`, from what
/// `Accessibility.getFullAXTree` (`ax`) and `DOM.getDocument` (`dom`)
/// returned.
pub fn build(ax: &Value, dom: &Value, url: &str, title: &str) -> Snapshot {
    let list: Vec<&Value> = ax
        .get("nodes")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let nodes: HashMap<&str, &Value> = list
        .iter()
        .filter_map(|n| Some((n.get("nodeId")?.as_str()?, *n)))
        .collect();
    let mut walk = Walk {
        nodes,
        dom: index_dom(dom),
        text: String::new(),
        redacted: String::new(),
        elements: BTreeMap::new(),
        hidden_values: 0,
    };
    let header = format!("Page: {} — {url}\n", quoted(title));
    walk.text.push_str(&header);
    walk.redacted.push_str(&redact(&header));
    let roots: Vec<String> = list
        .iter()
        .filter(|n| n.get("parentId").is_none())
        .filter_map(|n| n.get("nodeId")?.as_str().map(str::to_owned))
        .collect();
    for root in roots {
        walk.visit(&root, 0, "");
    }
    let complete = walk.dom.frames == 0;
    Snapshot {
        url: url.to_owned(),
        title: title.to_owned(),
        text: walk.text,
        redacted: walk.redacted,
        elements: walk.elements,
        complete,
        hidden_values: walk.hidden_values,
    }
}
