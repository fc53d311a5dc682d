//! The property behind "read instructions, not lines": re-spelling a
//! must-flag example with markdown emphasis, backticks, line continuations
//! or blank lines never turns it into a miss (nor makes it milder). Every
//! danger and caution row of every rule's table is re-spelled many times by
//! a small seeded generator; a failure prints the spelling that got through.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use skills::scan::{rules::RULES, units::UNITS};
use skills::{scan_text, Severity};

/// xorshift64*, seeded per example so a failure is reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const MARKERS: &[(&str, &str)] = &[
    ("**", "**"),
    ("*", "*"),
    ("__", "__"),
    ("_", "_"),
    ("`", "`"),
    ("``", "``"),
    ("***", "***"),
    ("**`", "`**"),
    ("_`", "`_"),
];

/// Lines whose shape is markdown structure, left as they are.
fn structural(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~") || t.starts_with('|')
}

/// How many leading tokens are structure (a heading's #s, a list bullet).
fn protected_tokens(tokens: &[String]) -> usize {
    match tokens.first().map(String::as_str) {
        Some(t) if t.chars().all(|c| c == '#') && !t.is_empty() => 1,
        Some("-" | "*" | "+" | ">") => 1,
        Some(t) if t.ends_with('.') && t[..t.len() - 1].chars().all(|c| c.is_ascii_digit()) => 1,
        _ => 0,
    }
}

/// One re-spelling of `example`.
fn respell(example: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<Vec<String>> = example
        .lines()
        .map(|l| l.split(' ').map(str::to_owned).collect())
        .collect();
    let structure: Vec<bool> = example.lines().map(structural).collect();
    // Emphasis and backticks around a run of whole words.
    for _ in 0..1 + rng.below(4) {
        let l = rng.below(lines.len());
        if structure[l] {
            continue;
        }
        let skip = protected_tokens(&lines[l]);
        let n = lines[l].len();
        if n <= skip {
            continue;
        }
        let a = skip + rng.below(n - skip);
        let b = (a + rng.below(3)).min(n - 1);
        let edge_ok = |t: &str| !t.is_empty() && !t.ends_with('\\');
        if !edge_ok(&lines[l][a]) || !edge_ok(&lines[l][b]) {
            continue;
        }
        let (open, close) = MARKERS[rng.below(MARKERS.len())];
        lines[l][a] = format!("{open}{}", lines[l][a]);
        lines[l][b] = format!("{}{close}", lines[l][b]);
    }
    // Line continuations between words (and blank lines after some).
    let mut out = String::new();
    for _ in 0..rng.below(3) {
        out.push('\n');
    }
    for (l, tokens) in lines.iter().enumerate() {
        let skip = protected_tokens(tokens);
        let heading = skip > 0 && tokens[0].starts_with('#');
        for (k, t) in tokens.iter().enumerate() {
            if k > 0 {
                let can_break = !structure[l] && !heading && k > skip && !tokens[k - 1].is_empty();
                if can_break && rng.below(4) == 0 {
                    out.push_str(" \\\n");
                    for _ in 0..rng.below(2) {
                        out.push('\n');
                    }
                    out.push_str(&" ".repeat(rng.below(4)));
                } else {
                    out.push(' ');
                }
            }
            out.push_str(t);
        }
        out.push('\n');
        // Blank lines between lines, outside tables.
        if !example
            .lines()
            .nth(l)
            .is_some_and(|x| x.trim_start().starts_with('|'))
        {
            for _ in 0..rng.below(3) {
                out.push('\n');
            }
        }
    }
    out
}

fn worst(text: &str, rule: &str) -> Option<Severity> {
    scan_text("SKILL.md", text)
        .into_iter()
        .filter(|f| f.rule == rule)
        .map(|f| f.severity)
        .max()
}

#[test]
fn markup_continuations_and_blank_lines_never_hide_a_flagged_example() {
    let rows = RULES
        .iter()
        .flat_map(|r| r.danger.iter().chain(r.caution).map(move |e| (r.id, *e)))
        .chain(
            UNITS
                .iter()
                .flat_map(|u| u.danger.iter().chain(u.caution).map(move |e| (u.id, *e))),
        );
    // More rounds for a deeper search: SCAN_PROPERTY_ROUNDS=5000.
    let rounds: usize = std::env::var("SCAN_PROPERTY_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let mut failures = Vec::new();
    let mut tried = 0;
    for (n, (id, example)) in rows.enumerate() {
        let want =
            worst(example, id).unwrap_or_else(|| panic!("{id} misses its own row {example:?}"));
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (n as u64 + 1).wrapping_mul(0x1000_0000_01B3));
        for _ in 0..rounds {
            let spelled = respell(example, &mut rng);
            tried += 1;
            let got = worst(&spelled, id);
            if got.is_none_or(|g| g < want) {
                failures.push(format!("{id} ({want:?} → {got:?}):\n{spelled}"));
                break;
            }
        }
    }
    assert!(tried > 3000, "{tried}");
    assert!(
        failures.is_empty(),
        "{} of the examples got through:\n\n{}",
        failures.len(),
        failures.join("\n---\n")
    );
}
