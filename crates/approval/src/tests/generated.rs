//! Every cell of mode × kind of call × the guard's decision × triage ×
//! what the reviewer finds × what changes while waiting × the owner's
//! answer: each ends, ends as a plain reading of the records says, and
//! never runs past a no, a Stop or a change.

use super::*;
use review::Hard;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Nothing,
    /// What was approved changed once before it ran.
    Binding,
    /// The owner turned the tool off: every later look refuses.
    ToolOff,
    /// A new mode allows it while the question waits.
    ModeAllows,
    /// A new mode still asks while the question waits.
    ModeStillAsks,
}

#[derive(Debug, Clone)]
struct Cell {
    mode: Mode,
    click: bool,
    decision: Decision,
    triage: Triage,
    reviewer: Reviewer,
    change: Change,
    answer: Option<Answer>,
}

/// What the guard may decide, in the cells.
fn decisions() -> [Decision; 4] {
    [
        Decision::Allow,
        deny(),
        mode_ask(),
        ask(vec![Rule::AfterReadingCommand]),
    ]
}

const TRIAGES: [Triage; 5] = [
    Triage::Guard,
    Triage::FastPath,
    Triage::Review,
    Triage::Owner(None),
    Triage::Owner(Some(Hard::RemoteCode)),
];

fn cells() -> Vec<Cell> {
    let mut out = Vec::new();
    let (decisions, triages) = (decisions(), TRIAGES);
    let changes = [
        Change::Nothing,
        Change::Binding,
        Change::ToolOff,
        Change::ModeAllows,
        Change::ModeStillAsks,
    ];
    let answers = [
        Some(Answer::Once),
        Some(Answer::Always),
        Some(Answer::Deny),
        None,
    ];
    for mode in [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full] {
        for click in [false, true] {
            for decision in &decisions {
                for triage in triages {
                    for reviewer in Reviewer::ALL {
                        for change in changes {
                            for answer in answers {
                                out.push(Cell {
                                    mode,
                                    click,
                                    decision: decision.clone(),
                                    triage,
                                    reviewer,
                                    change,
                                    answer,
                                });
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

fn script_for(c: &Cell) -> Script {
    let first = decided(c.mode, c.decision.clone(), c.triage);
    Script {
        reviewer: c.reviewer,
        looks: vec![match c.change {
            Change::ToolOff => decided(c.mode, deny(), Triage::Guard),
            _ => first,
        }],
        answers: vec![c.answer; 8],
        bound: match c.change {
            Change::Binding => vec![Some("x.sh changed.".into())],
            _ => Vec::new(),
        },
        mode_change: match c.change {
            Change::ModeAllows => Some(decided(Mode::Edits, Decision::Allow, Triage::Guard)),
            Change::ModeStillAsks => Some(decided(c.mode, mode_ask(), Triage::Guard)),
            _ => None,
        },
    }
}

/// How a cell ends, read from the records rather than from the machine.
fn expected(c: &Cell) -> &'static str {
    match c.decision {
        Decision::Allow => return "run",
        Decision::Deny { .. } => return "refuse",
        Decision::Ask { .. } => {}
    }
    if c.mode == Mode::Auto && c.triage == Triage::FastPath {
        return "run";
    }
    if c.mode == Mode::Auto && c.triage == Triage::Review {
        // Only a call that acts on a page has a page to be wrong about.
        let page = [
            Reviewer::PageHidden,
            Reviewer::PageFramed,
            Reviewer::PageUnread,
        ];
        let reviewer = if !c.click && page.contains(&c.reviewer) {
            Reviewer::Allow
        } else {
            c.reviewer
        };
        match reviewer {
            Reviewer::Exhausted | Reviewer::Reject => return "refuse",
            Reviewer::Stopped => return "stop",
            // A yes bound to what runs: a change sends it to the owner.
            Reviewer::Allow if c.change != Change::Binding => {
                return if c.change == Change::ToolOff {
                    "refuse"
                } else {
                    "run"
                };
            }
            // Left to the owner, after the chat is read again.
            _ if c.change == Change::ToolOff => return "refuse",
            _ => {}
        }
    }
    // The owner is asked.
    if c.change == Change::ModeAllows {
        return "run";
    }
    match c.answer {
        Some(Answer::Deny) => "refuse",
        None => "stop",
        Some(_) => "run",
    }
}

#[test]
fn every_cell_ends_as_the_records_say() {
    let mut failures = Vec::new();
    let all = cells();
    for c in &all {
        let action = if c.click { click() } else { command() };
        let run = drive(
            &action,
            decided(c.mode, c.decision.clone(), c.triage),
            script_for(c),
        );
        let last = run.steps.last().map(String::as_str).unwrap_or("");
        if last != expected(c) {
            failures.push(format!("{c:?}: {:?}", run.steps));
        }
        if let Err(why) = holds(c, &run.steps) {
            failures.push(format!("{c:?}: {why}: {:?}", run.steps));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cells failed, e.g.:\n{}",
        failures.len(),
        all.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}

/// What must hold in every cell, whatever it ends in.
fn holds(c: &Cell, steps: &[String]) -> Result<(), &'static str> {
    let has = |s: &str| steps.iter().any(|x| x == s);
    let last = steps.last().map(String::as_str).unwrap_or("");
    if c.mode != Mode::Auto
        && steps.iter().any(|s| {
            ["count", "pin", "read-page", "review"].contains(&s.as_str())
                || s.starts_with("record:")
        })
    {
        return Err("reviewed outside Auto mode");
    }
    if (has("record:rejected") || has("record:exhausted")) && last != "refuse" {
        return Err("ran on after the reviewer refused");
    }
    if has("read-page") && !c.click {
        return Err("read a page for a call that acts on none");
    }
    if let Some(at) = steps.iter().position(|s| s == "review") {
        if !steps[..at].iter().any(|s| s == "pin") || !steps[..at].iter().any(|s| s == "count") {
            return Err("asked the model before the budget and the binding");
        }
    }
    if last == "run" && steps.len() > 1 {
        let before = steps[steps.len() - 2].as_str();
        let looked_allow = before == "look" && c.change != Change::ToolOff;
        if before != "bind" && !looked_allow {
            return Err("ran without binding what was approved");
        }
    }
    let binds = steps.iter().filter(|s| *s == "bind").count();
    if c.change == Change::Binding && last == "run" && binds == 1 {
        return Err("ran what changed after it was approved");
    }
    if c.change == Change::ToolOff && has("look") && last == "run" {
        return Err("ran after the tool was turned off");
    }
    Ok(())
}

/// Whatever the driver hands back, in any order, the machine ends within a
/// bounded number of steps, and never runs after the owner said no, the
/// reviewer refused, or Stop was pressed.
#[test]
fn property_it_ends_and_never_runs_past_a_no() {
    let (decisions, triages) = (decisions(), TRIAGES);
    let mut seed = 0x1234_5678_u64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for _ in 0..20_000 {
        let mode = [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full][next(4)];
        let first = decided(mode, decisions[next(4)].clone(), triages[next(5)]);
        let action = if next(2) == 0 { command() } else { click() };
        let (mut a, mut step) = Approval::begin(&action, first);
        let mut said_no = false;
        for n in 0.. {
            assert!(n < 64, "never ended");
            match &step {
                Step::Run => {
                    assert!(!said_no, "ran after a no");
                    break;
                }
                Step::Refuse { .. } | Step::Stop => break,
                _ => {}
            }
            if let Step::Record { then, .. } = step {
                step = *then;
                continue;
            }
            let reviewer = Reviewer::ALL[next(Reviewer::ALL.len())];
            let input = match next(8) {
                0 => Input::Looked(decided(mode, decisions[next(4)].clone(), triages[next(5)])),
                1 => {
                    let answer = [
                        None,
                        Some(Answer::Once),
                        Some(Answer::Always),
                        Some(Answer::Deny),
                    ][next(4)];
                    said_no |= matches!(answer, None | Some(Answer::Deny));
                    Input::Answered(answer)
                }
                2 => Input::Bound((next(3) == 0).then(|| "changed".to_owned())),
                3 => reviewer.budget(),
                4 => reviewer.pinned(),
                5 => reviewer.page(),
                _ => {
                    said_no |= matches!(reviewer, Reviewer::Reject | Reviewer::Stopped);
                    reviewer.replied()
                }
            };
            step = a.on(input);
        }
    }
}
