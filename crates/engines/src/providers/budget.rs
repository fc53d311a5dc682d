//! What is sent fits the model: the oldest turns are left out of the request
//! when the chat is longer than the provider's context budget. The log keeps
//! everything; only what is sent changes.
//!
//! Cuts happen only where an owner's message starts a turn, so a tool call is
//! never separated from its result. Calls whose result never came (a turn cut
//! off by a restart) get one, because providers refuse a call left hanging.

use crate::engine::Item;

/// A rough count: about four characters a token, and a little per item.
pub fn estimate(item: &Item) -> usize {
    let chars = match item {
        Item::Owner(t) | Item::Assistant(t) => t.len(),
        Item::Other { label, text } => label.len() + text.len(),
        Item::ToolUse { name, input, .. } => name.len() + input.to_string().len(),
        Item::ToolResult { output, .. } => output.len(),
    };
    chars / 4 + 4
}

pub const LEFT_OUT: &str = "(Earlier parts of this chat were left out to fit the model's context.)";

/// `items`, cut from the front to fit `budget` tokens.
pub fn fit(items: &[Item], budget: usize) -> Vec<Item> {
    let items = close_hanging_calls(items);
    let total: usize = items.iter().map(estimate).sum();
    if total <= budget {
        return items;
    }
    let starts: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i, Item::Owner(_)))
        .map(|(n, _)| n)
        .collect();
    // The earliest turn start from which the rest fits; at least the last turn.
    let mut from = starts.last().copied().unwrap_or(0);
    let mut sum_from = vec![0usize; items.len() + 1];
    for n in (0..items.len()).rev() {
        sum_from[n] = sum_from[n + 1] + estimate(&items[n]);
    }
    for &start in &starts {
        if sum_from[start] <= budget {
            from = start;
            break;
        }
    }
    let mut kept = vec![Item::Other {
        label: "Conch".to_owned(),
        text: LEFT_OUT.to_owned(),
    }];
    kept.extend_from_slice(&items[from..]);
    kept
}

fn close_hanging_calls(items: &[Item]) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::with_capacity(items.len());
    let mut open: Vec<String> = Vec::new();
    let close = |out: &mut Vec<Item>, open: &mut Vec<String>| {
        for id in open.drain(..) {
            out.push(Item::ToolResult {
                id,
                ok: false,
                output: "This call didn't finish: its turn ended first.".to_owned(),
            });
        }
    };
    for item in items {
        match item {
            Item::ToolUse { id, .. } => open.push(id.clone()),
            Item::ToolResult { id, .. } => {
                if let Some(at) = open.iter().position(|o| o == id) {
                    open.remove(at);
                }
            }
            _ => close(&mut out, &mut open),
        }
        out.push(item.clone());
    }
    close(&mut out, &mut open);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn turn(n: usize, size: usize) -> Vec<Item> {
        vec![
            Item::Owner(format!("question {n}")),
            Item::ToolUse {
                id: format!("t{n}"),
                name: "read_file".into(),
                input: json!({}),
            },
            Item::ToolResult {
                id: format!("t{n}"),
                ok: true,
                output: "x".repeat(size),
            },
            Item::Assistant(format!("answer {n}")),
        ]
    }

    #[test]
    fn under_budget_nothing_changes() {
        let items = turn(1, 10);
        assert_eq!(fit(&items, 10_000), items);
    }

    #[test]
    fn the_oldest_whole_turns_go_first() {
        let items: Vec<Item> = (0..10).flat_map(|n| turn(n, 400)).collect();
        let kept = fit(&items, 400);
        assert_eq!(
            kept[0],
            Item::Other {
                label: "Conch".into(),
                text: LEFT_OUT.into()
            }
        );
        assert_eq!(kept[1], Item::Owner("question 7".into()));
        assert!(kept.len() < items.len());
        // Every kept call still has its result.
        let uses = kept
            .iter()
            .filter(|i| matches!(i, Item::ToolUse { .. }))
            .count();
        let results = kept
            .iter()
            .filter(|i| matches!(i, Item::ToolResult { .. }))
            .count();
        assert_eq!(uses, results);
    }

    #[test]
    fn the_last_turn_is_kept_even_when_it_alone_is_too_big() {
        let items: Vec<Item> = (0..3).flat_map(|n| turn(n, 100_000)).collect();
        let kept = fit(&items, 1000);
        assert_eq!(kept[1], Item::Owner("question 2".into()));
    }

    #[test]
    fn a_hanging_call_gets_a_result() {
        let items = vec![
            Item::Owner("go".into()),
            Item::ToolUse {
                id: "a".into(),
                name: "x".into(),
                input: json!({}),
            },
            Item::Owner("hello?".into()),
        ];
        let fixed = fit(&items, 10_000);
        assert!(matches!(&fixed[2], Item::ToolResult { id, ok: false, .. } if id == "a"));
        assert_eq!(fixed[3], Item::Owner("hello?".into()));
    }
}
