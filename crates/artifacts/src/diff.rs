//! A line diff between two versions, for the Changes tab.

use serde::Serialize;
use similar::{ChangeTag, TextDiff};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Line {
    /// `same`, `added` or `removed`.
    pub op: &'static str,
    pub text: String,
}

/// The lines of `new` against `old`, each with what happened to it.
pub fn lines(old: &str, new: &str) -> Vec<Line> {
    TextDiff::from_lines(old, new)
        .iter_all_changes()
        .map(|c| Line {
            op: match c.tag() {
                ChangeTag::Equal => "same",
                ChangeTag::Insert => "added",
                ChangeTag::Delete => "removed",
            },
            text: c.value().trim_end_matches(['\n', '\r']).to_owned(),
        })
        .collect()
}

/// A unified diff, as `diff -u` prints it.
pub fn unified(old: &str, new: &str, from: &str, to: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .header(from, to)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_lines() {
        let d = lines("a\nb\nc\n", "a\nB\nc\n");
        let ops: Vec<_> = d.iter().map(|l| (l.op, l.text.as_str())).collect();
        assert_eq!(
            ops,
            [
                ("same", "a"),
                ("removed", "b"),
                ("added", "B"),
                ("same", "c")
            ]
        );
        assert!(unified("a\n", "b\n", "v1", "v2").contains("-a\n+b"));
    }
}
