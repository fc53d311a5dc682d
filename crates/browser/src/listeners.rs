//! Which fields a page's own script reads as they are typed into: a
//! listener for typing or keys on the field, on any node above it (shadow
//! roots and frames included), or on the window. Typing into such a field
//! can send what is typed without any click, so it is a send.
//!
//! Read from Chromium's own list of listeners (`DOMDebugger`), not from
//! anything the page says about itself. A script that polls a field's
//! value with no listener at all isn't seen here; what it then sends is,
//! by the requests the page makes after the typing (`network`).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

/// Events that tell a script what is being typed. Typing as Conch does it
/// (`Input.insertText`) fires `beforeinput`, `input` and `textInput`;
/// leaving the field fires `change`; the key and composition events are
/// how a person's typing is heard.
pub(crate) const READS_TYPING: &[&str] = &[
    "input",
    "beforeinput",
    "textinput",
    "change",
    "keydown",
    "keyup",
    "keypress",
    "compositionstart",
    "compositionupdate",
    "compositionend",
];

fn reads_typing(listener: &Value) -> bool {
    listener
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| READS_TYPING.iter().any(|r| r.eq_ignore_ascii_case(t)))
}

/// What the page's listeners hear.
#[derive(Debug, Default)]
pub(crate) struct Listening {
    /// The window (or what couldn't be read) hears every field.
    everything: bool,
    /// Nodes with a listener that reads typing, by backend node id.
    nodes: HashSet<i64>,
    /// Each node's parent: the host of a shadow root, the frame element of
    /// a frame's document.
    parent: HashMap<i64, i64>,
}

impl Listening {
    /// When the listeners couldn't be read: every field is taken as heard,
    /// so typing asks rather than being called free.
    pub(crate) fn everything() -> Listening {
        Listening {
            everything: true,
            ..Listening::default()
        }
    }

    /// From `DOM.getDocument` (depth -1, pierce), the document's
    /// `DOMDebugger.getEventListeners` (depth -1, pierce) and the window's.
    pub(crate) fn read(dom: &Value, on_nodes: &Value, on_window: &Value) -> Listening {
        let listeners = |v: &Value| -> Vec<Value> {
            v.get("listeners")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let everything = listeners(on_window).iter().any(reads_typing);
        let nodes = listeners(on_nodes)
            .iter()
            .filter(|l| reads_typing(l))
            .filter_map(|l| l.get("backendNodeId").and_then(Value::as_i64))
            .collect();
        Listening {
            everything,
            nodes,
            parent: parents(dom),
        }
    }

    /// Whether typing into node `id` is heard by a script.
    pub(crate) fn hears(&self, id: i64) -> bool {
        if self.everything {
            return true;
        }
        let mut at = id;
        // A parent map from the page can't loop, but a bound costs nothing.
        for _ in 0..=self.parent.len() {
            if self.nodes.contains(&at) {
                return true;
            }
            match self.parent.get(&at) {
                Some(p) => at = *p,
                None => return false,
            }
        }
        false
    }
}

fn parents(dom: &Value) -> HashMap<i64, i64> {
    let mut parent = HashMap::new();
    let root = dom.get("root").unwrap_or(dom);
    let mut stack: Vec<(&Value, Option<i64>)> = vec![(root, None)];
    while let Some((node, up)) = stack.pop() {
        let id = node.get("backendNodeId").and_then(Value::as_i64);
        if let (Some(id), Some(up)) = (id, up) {
            parent.insert(id, up);
        }
        let here = id.or(up);
        for key in ["children", "shadowRoots", "pseudoElements"] {
            for child in node
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                stack.push((child, here));
            }
        }
        for key in ["contentDocument", "templateContent"] {
            if let Some(child) = node.get(key) {
                stack.push((child, here));
            }
        }
    }
    parent
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// html > body > form > div(shadow host) > #shadow > input 7, and an
    /// iframe whose document holds input 12.
    fn page() -> Value {
        json!({ "root": { "backendNodeId": 1, "children": [
            { "backendNodeId": 2, "localName": "html", "children": [
                { "backendNodeId": 3, "localName": "body", "children": [
                    { "backendNodeId": 4, "localName": "form", "children": [
                        { "backendNodeId": 5, "localName": "div", "shadowRoots": [
                            { "backendNodeId": 6, "children": [
                                { "backendNodeId": 7, "localName": "input" }
                            ]}
                        ]},
                        { "backendNodeId": 8, "localName": "input" }
                    ]},
                    { "backendNodeId": 10, "localName": "iframe", "contentDocument":
                        { "backendNodeId": 11, "children": [
                            { "backendNodeId": 12, "localName": "input" }
                        ]}
                    }
                ]}
            ]}
        ]}})
    }

    fn on(node: i64, kind: &str) -> Value {
        json!({ "type": kind, "backendNodeId": node })
    }

    #[test]
    fn a_listener_on_the_field_or_anywhere_above_it_hears_it() {
        let fields = [7, 8, 12];
        // Every node above each field, and the field itself.
        let above: &[(i64, &[i64])] = &[
            (7, &[7, 6, 5, 4, 3, 2, 1]),
            (8, &[8, 4, 3, 2, 1]),
            (12, &[12, 11, 10, 3, 2, 1]),
        ];
        for kind in READS_TYPING.iter().chain(&["keyDown", "Input"]) {
            for node in 1..=12 {
                let l = Listening::read(
                    &page(),
                    &json!({ "listeners": [on(node, kind)] }),
                    &json!({ "listeners": [] }),
                );
                for field in fields {
                    let want = above
                        .iter()
                        .find(|(f, _)| *f == field)
                        .is_some_and(|(_, up)| up.contains(&node));
                    assert_eq!(l.hears(field), want, "{kind} on {node}, field {field}");
                }
            }
        }
    }

    #[test]
    fn other_events_and_no_listeners_hear_nothing() {
        for kind in ["click", "scroll", "load", "mousemove", "submit"] {
            let l = Listening::read(
                &page(),
                &json!({ "listeners": [on(1, kind), on(7, kind)] }),
                &json!({ "listeners": [{ "type": kind }] }),
            );
            assert!(!l.hears(7) && !l.hears(8) && !l.hears(12), "{kind}");
        }
    }

    #[test]
    fn the_window_or_listeners_that_cant_be_read_hear_every_field() {
        let l = Listening::read(
            &page(),
            &json!({ "listeners": [] }),
            &json!({ "listeners": [{ "type": "keyup" }] }),
        );
        assert!(l.hears(8) && l.hears(12));
        assert!(Listening::everything().hears(99));
    }
}
