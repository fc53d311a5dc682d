//! The line a match shows: the one holding the most of the query's words,
//! cut to a width around the first of them, with each match marked.

use crate::index::MAX_TEXT_BYTES;
use crate::words::words;

/// A line of a matching event, and where the query's words are in it
/// (byte ranges of `line`, on character boundaries, in order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    pub line: String,
    pub marks: Vec<(usize, usize)>,
}

/// The line of `text` to show for `query`, at most `width` characters
/// (an ellipsis marks what was cut). None when no line holds any word of
/// the query.
pub fn snippet(text: &str, query: &str, width: usize) -> Option<Snippet> {
    let mut terms: Vec<String> = Vec::new();
    words(query, |w| terms.push(w.folded.to_owned()));
    terms.sort_unstable();
    terms.dedup();
    if terms.is_empty() {
        return None;
    }
    let mut cut = text.len().min(MAX_TEXT_BYTES);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut best: Option<Best<'_>> = None;
    for line in text[..cut].lines() {
        let mut found = vec![false; terms.len()];
        let mut marks = Vec::new();
        words(line, |w| {
            let mut hit = false;
            for (i, t) in terms.iter().enumerate() {
                if w.folded.starts_with(t.as_str()) {
                    found[i] = true;
                    hit = true;
                }
            }
            if hit {
                marks.push((w.start, w.end));
            }
        });
        let score = found.iter().filter(|f| **f).count();
        if score > best.as_ref().map_or(0, |b| b.0) {
            let all = score == terms.len();
            best = Some((score, line, marks));
            if all {
                break;
            }
        }
    }
    let (_, line, marks) = best?;
    Some(cut_around(line, merge(marks), width))
}

/// The best line so far: how many of the query's words it holds, the line,
/// its marks.
type Best<'a> = (usize, &'a str, Vec<(usize, usize)>);

/// Marks that overlap or touch become one (a pair of characters overlaps
/// the next pair).
fn merge(mut marks: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    marks.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(marks.len());
    for (s, e) in marks {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

const ELLIPSIS: &str = "…";

/// `line` cut to `width` characters, starting a little before the first
/// mark, with `…` where it was cut; marks moved with it and clipped.
fn cut_around(line: &str, marks: Vec<(usize, usize)>, width: usize) -> Snippet {
    let line = line.trim_end();
    let chars: Vec<usize> = line.char_indices().map(|(i, _)| i).collect();
    if chars.len() <= width {
        let marks = marks
            .into_iter()
            .filter_map(|(s, e)| (s < line.len()).then_some((s, e.min(line.len()))))
            .collect();
        return Snippet {
            line: line.to_owned(),
            marks,
        };
    }
    let first = marks.first().map_or(0, |m| m.0);
    let first_char = chars.partition_point(|&i| i < first);
    let from_char = first_char
        .saturating_sub(width / 4)
        .min(chars.len().saturating_sub(width));
    let to_char = (from_char + width).min(chars.len());
    let from = chars.get(from_char).copied().unwrap_or(0);
    let to = chars.get(to_char).copied().unwrap_or(line.len());
    let mut out = String::with_capacity(to - from + 2 * ELLIPSIS.len());
    let shift = if from > 0 {
        out.push_str(ELLIPSIS);
        ELLIPSIS.len()
    } else {
        0
    };
    out.push_str(&line[from..to]);
    if to < line.len() {
        out.push_str(ELLIPSIS);
    }
    let marks = marks
        .into_iter()
        .filter(|&(s, e)| e > from && s < to)
        .map(|(s, e)| (s.max(from) - from + shift, e.min(to) - from + shift))
        .collect();
    Snippet { line: out, marks }
}
