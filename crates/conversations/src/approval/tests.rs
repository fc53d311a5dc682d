//! The approval path as a table: mode × triage × the reviewer's verdict ×
//! what changed meanwhile × the owner's answer, for every kind of call.
//! Each row drives the machine with scripted inputs and names the steps it
//! must take.

use super::*;
use guard::Rule;
use review::Hard;

fn ask(why: Vec<Rule>) -> Decision {
    Decision::Ask {
        why,
        question: "Can I?".into(),
        note: None,
        always: None,
        narrow: None,
        told: None,
    }
}

fn deny() -> Decision {
    Decision::Deny {
        why: vec![Rule::PolicyOff],
        sentence: "off".into(),
    }
}

fn mode_ask() -> Decision {
    ask(vec![Rule::ModeAskCommand])
}

/// What a scripted driver hands back at each step it is asked to take.
#[derive(Clone)]
struct Script {
    reviewed: Reviewed,
    /// Decisions read again, in order.
    decided: Vec<(Mode, Decision, Triage)>,
    answers: Vec<Option<Answer>>,
    /// Bindings taken again, in order (None: unchanged).
    bound: Vec<Option<String>>,
}

fn script() -> Script {
    Script {
        reviewed: Reviewed::Allowed,
        decided: Vec::new(),
        answers: Vec::new(),
        bound: Vec::new(),
    }
}

/// Runs the machine to the end: the steps taken, and the extra rule id on
/// the last question asked.
fn drive(
    mode: Mode,
    decision: Decision,
    triage: Triage,
    mut s: Script,
) -> (Vec<&'static str>, Option<String>) {
    let (mut a, mut step) = Approval::start(mode, decision, triage);
    let mut seen = Vec::new();
    let mut extra_seen = None;
    for _ in 0..64 {
        seen.push(match &step {
            Step::Run => "run",
            Step::Refuse { .. } => "refuse",
            Step::Review => "review",
            Step::Decide => "decide",
            Step::Ask { .. } => "ask",
            Step::Bind => "bind",
            Step::Stop => "stop",
        });
        let input = match &step {
            Step::Run | Step::Refuse { .. } | Step::Stop => {
                assert!(a.finished());
                return (seen, extra_seen);
            }
            Step::Review => Input::Reviewed(s.reviewed.clone()),
            Step::Decide => {
                let (mode, decision, triage) = s.decided.remove(0);
                Input::Decided {
                    mode,
                    decision,
                    triage,
                }
            }
            Step::Ask { extra, .. } => {
                extra_seen = extra.as_ref().map(|(id, _)| id.clone());
                Input::Answered(s.answers.remove(0))
            }
            Step::Bind => Input::Bound(s.bound.remove(0)),
        };
        step = a.on(input);
    }
    panic!("the machine never finished: {seen:?}");
}

struct Row {
    name: &'static str,
    mode: Mode,
    decision: Decision,
    triage: Triage,
    script: Script,
    want: &'static [&'static str],
    /// The extra rule id on the last question asked, if any.
    extra: Option<&'static str>,
}

fn rows() -> Vec<Row> {
    let hard = Triage::Owner(Some(Hard::Credentials));
    let changed = || Some("The file x.sh changed after it was approved.".to_owned());
    vec![
        Row {
            name: "the guard allows: it runs",
            mode: Mode::Ask,
            decision: Decision::Allow,
            triage: Triage::Guard,
            script: script(),
            want: &["run"],
            extra: None,
        },
        Row {
            name: "the guard denies: refused",
            mode: Mode::Full,
            decision: deny(),
            triage: Triage::Guard,
            script: script(),
            want: &["refuse"],
            extra: None,
        },
        Row {
            name: "ask mode: once, the binding holds: it runs",
            mode: Mode::Ask,
            decision: mode_ask(),
            triage: Triage::Review,
            script: Script {
                answers: vec![Some(Answer::Once)],
                bound: vec![None],
                ..script()
            },
            want: &["ask", "bind", "run"],
            extra: None,
        },
        Row {
            name: "edits mode: triage is only Auto's",
            mode: Mode::Edits,
            decision: mode_ask(),
            triage: Triage::FastPath,
            script: Script {
                answers: vec![Some(Answer::Always)],
                bound: vec![None],
                ..script()
            },
            want: &["ask", "bind", "run"],
            extra: None,
        },
        Row {
            name: "the owner says no: refused",
            mode: Mode::Ask,
            decision: mode_ask(),
            triage: Triage::Guard,
            script: Script {
                answers: vec![Some(Answer::Deny)],
                ..script()
            },
            want: &["ask", "refuse"],
            extra: None,
        },
        Row {
            name: "stop while the question waits: nothing runs",
            mode: Mode::Ask,
            decision: mode_ask(),
            triage: Triage::Guard,
            script: Script {
                answers: vec![None],
                ..script()
            },
            want: &["ask", "stop"],
            extra: None,
        },
        Row {
            name: "bind.changed: asked again, as it is now",
            mode: Mode::Ask,
            decision: mode_ask(),
            triage: Triage::Guard,
            script: Script {
                answers: vec![Some(Answer::Once), Some(Answer::Once)],
                bound: vec![changed(), None],
                decided: vec![(Mode::Ask, mode_ask(), Triage::Guard)],
                ..script()
            },
            want: &["ask", "bind", "decide", "ask", "bind", "run"],
            extra: Some("bind.changed"),
        },
        Row {
            name: "bind.changed after the tool was turned off: refused, not asked",
            mode: Mode::Ask,
            decision: mode_ask(),
            triage: Triage::Guard,
            script: Script {
                answers: vec![Some(Answer::Once)],
                bound: vec![changed()],
                decided: vec![(Mode::Ask, deny(), Triage::Guard)],
                ..script()
            },
            want: &["ask", "bind", "decide", "refuse"],
            extra: None,
        },
        Row {
            name: "bind.changed, and the guard now allows it: it runs",
            mode: Mode::Ask,
            decision: mode_ask(),
            triage: Triage::Guard,
            script: Script {
                answers: vec![Some(Answer::Once)],
                bound: vec![changed()],
                decided: vec![(Mode::Full, Decision::Allow, Triage::Guard)],
                ..script()
            },
            want: &["ask", "bind", "decide", "run"],
            extra: None,
        },
        Row {
            name: "what was approved keeps changing: refused after three",
            mode: Mode::Ask,
            decision: mode_ask(),
            triage: Triage::Guard,
            script: Script {
                answers: vec![Some(Answer::Once); 4],
                bound: vec![changed(); 4],
                decided: vec![(Mode::Ask, mode_ask(), Triage::Guard); 3],
                ..script()
            },
            want: &[
                "ask", "bind", "decide", "ask", "bind", "decide", "ask", "bind", "decide", "ask",
                "bind", "refuse",
            ],
            extra: Some("bind.changed"),
        },
        Row {
            name: "auto, fast path: it runs, no model",
            mode: Mode::Auto,
            decision: mode_ask(),
            triage: Triage::FastPath,
            script: script(),
            want: &["run"],
            extra: None,
        },
        Row {
            name: "auto, never waivable: the owner, with the category",
            mode: Mode::Auto,
            decision: mode_ask(),
            triage: hard,
            script: Script {
                answers: vec![Some(Answer::Once)],
                bound: vec![None],
                ..script()
            },
            want: &["ask", "bind", "run"],
            extra: Some("review.never-waivable.credentials"),
        },
        Row {
            name: "auto, the guard's own reasons: the owner, no review",
            mode: Mode::Auto,
            decision: ask(vec![Rule::AfterReadingCommand]),
            triage: Triage::Owner(None),
            script: Script {
                answers: vec![Some(Answer::Once)],
                bound: vec![None],
                ..script()
            },
            want: &["ask", "bind", "run"],
            extra: None,
        },
        Row {
            name: "auto, the reviewer allows, nothing changed: bound, it runs",
            mode: Mode::Auto,
            decision: mode_ask(),
            triage: Triage::Review,
            script: Script {
                decided: vec![(Mode::Auto, mode_ask(), Triage::Review)],
                bound: vec![None],
                ..script()
            },
            want: &["review", "decide", "bind", "run"],
            extra: None,
        },
        Row {
            name: "auto, the reviewer allows, the tool turned off meanwhile: refused",
            mode: Mode::Auto,
            decision: mode_ask(),
            triage: Triage::Review,
            script: Script {
                decided: vec![(Mode::Auto, deny(), Triage::Guard)],
                ..script()
            },
            want: &["review", "decide", "refuse"],
            extra: None,
        },
        Row {
            name: "auto, the reviewer allows, the mode became ask meanwhile: the owner",
            mode: Mode::Auto,
            decision: mode_ask(),
            triage: Triage::Review,
            script: Script {
                decided: vec![(Mode::Ask, mode_ask(), Triage::Review)],
                answers: vec![Some(Answer::Once)],
                bound: vec![None],
                ..script()
            },
            want: &["review", "decide", "ask", "bind", "run"],
            extra: Some("review.ask"),
        },
        Row {
            name: "auto, the reviewer allows, now never waivable: the owner",
            mode: Mode::Auto,
            decision: mode_ask(),
            triage: Triage::Review,
            script: Script {
                decided: vec![(Mode::Auto, mode_ask(), hard)],
                answers: vec![Some(Answer::Deny)],
                ..script()
            },
            want: &["review", "decide", "ask", "refuse"],
            extra: Some("review.ask"),
        },
        Row {
            name: "auto, the reviewer allows, the script changed before it ran: the owner",
            mode: Mode::Auto,
            decision: mode_ask(),
            triage: Triage::Review,
            script: Script {
                reviewed: Reviewed::Allowed,
                decided: vec![
                    (Mode::Auto, mode_ask(), Triage::Review),
                    (Mode::Auto, mode_ask(), Triage::Review),
                ],
                bound: vec![changed(), None],
                answers: vec![Some(Answer::Once)],
            },
            want: &["review", "decide", "bind", "decide", "ask", "bind", "run"],
            extra: Some("bind.changed"),
        },
        Row {
            name: "auto, the reviewer rejects: refused, the owner isn't asked",
            mode: Mode::Auto,
            decision: mode_ask(),
            triage: Triage::Review,
            script: Script {
                reviewed: Reviewed::Refused {
                    id: "review.rejected".into(),
                    sentence: "no".into(),
                },
                ..script()
            },
            want: &["review", "refuse"],
            extra: None,
        },
        Row {
            name: "auto, the reviewer leaves it to the owner",
            mode: Mode::Auto,
            decision: mode_ask(),
            triage: Triage::Review,
            script: Script {
                reviewed: Reviewed::Owner("left to you".into()),
                decided: vec![(Mode::Auto, mode_ask(), Triage::Review)],
                answers: vec![Some(Answer::Once)],
                bound: vec![None],
            },
            want: &["review", "decide", "ask", "bind", "run"],
            extra: Some("review.ask"),
        },
        Row {
            name: "auto, left to the owner, but the guard now allows: it runs",
            mode: Mode::Auto,
            decision: mode_ask(),
            triage: Triage::Review,
            script: Script {
                reviewed: Reviewed::Owner("left to you".into()),
                decided: vec![(Mode::Full, Decision::Allow, Triage::Guard)],
                ..script()
            },
            want: &["review", "decide", "run"],
            extra: None,
        },
        Row {
            name: "auto, Stop while the reviewer looks",
            mode: Mode::Auto,
            decision: mode_ask(),
            triage: Triage::Review,
            script: Script {
                reviewed: Reviewed::Stopped,
                ..script()
            },
            want: &["review", "stop"],
            extra: None,
        },
    ]
}

#[test]
fn the_table() {
    let mut failures = Vec::new();
    let mut count = 0;
    for row in rows() {
        count += 1;
        let (steps, extra) = drive(
            row.mode,
            row.decision.clone(),
            row.triage,
            row.script.clone(),
        );
        if steps != row.want || extra.as_deref() != row.extra {
            failures.push(format!("{}: {steps:?} with {extra:?}", row.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn an_input_out_of_order_runs_nothing() {
    let (mut a, step) = Approval::start(Mode::Ask, mode_ask(), Triage::Guard);
    assert!(matches!(step, Step::Ask { .. }));
    // A binding where an answer was due: refused, not run.
    assert!(matches!(a.on(Input::Bound(None)), Step::Refuse { .. }));
    let (mut a, _) = Approval::start(Mode::Auto, mode_ask(), Triage::Review);
    assert!(matches!(
        a.on(Input::Answered(Some(Answer::Once))),
        Step::Refuse { .. }
    ));
}

/// Whatever the inputs, the machine ends within a bounded number of steps,
/// and never runs after the owner said no, the reviewer refused, or Stop
/// was pressed.
#[test]
fn property_it_ends_and_never_runs_past_a_no() {
    let decisions = [
        Decision::Allow,
        deny(),
        mode_ask(),
        ask(vec![Rule::AfterReadingCommand]),
    ];
    let triages = [
        Triage::Guard,
        Triage::FastPath,
        Triage::Review,
        Triage::Owner(None),
        Triage::Owner(Some(Hard::RemoteCode)),
    ];
    let reviews = [
        Reviewed::Allowed,
        Reviewed::Owner("x".into()),
        Reviewed::Stopped,
        Reviewed::Refused {
            id: "review.rejected".into(),
            sentence: "no".into(),
        },
    ];
    let answers = [
        None,
        Some(Answer::Once),
        Some(Answer::Always),
        Some(Answer::Deny),
    ];
    let mut seed = 0x1234_5678_u64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for _ in 0..20_000 {
        let mode = [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full][next(4)];
        let (mut a, mut step) = Approval::start(mode, decisions[next(4)].clone(), triages[next(5)]);
        let mut said_no = false;
        let mut steps = 0;
        loop {
            steps += 1;
            assert!(steps < 64, "never ended");
            let input = match &step {
                Step::Run => {
                    assert!(!said_no, "ran after a no");
                    break;
                }
                Step::Refuse { .. } | Step::Stop => break,
                Step::Review => {
                    let r = reviews[next(4)].clone();
                    said_no |= matches!(r, Reviewed::Stopped | Reviewed::Refused { .. });
                    Input::Reviewed(r)
                }
                Step::Decide => Input::Decided {
                    mode,
                    decision: decisions[next(4)].clone(),
                    triage: triages[next(5)],
                },
                Step::Ask { .. } => {
                    let ans = answers[next(4)];
                    said_no |= matches!(ans, None | Some(Answer::Deny));
                    Input::Answered(ans)
                }
                Step::Bind => Input::Bound((next(3) == 0).then(|| "changed".to_owned())),
            };
            step = a.on(input);
        }
    }
}

/// An engine's hook gets the machine's own first step: over every mode,
/// decision and triage, `quick` runs exactly what the machine would run
/// at once, refuses exactly what it refuses, and leaves the rest to the
/// whole path.
#[test]
fn the_hooks_quick_answer_is_the_machines_first_step() {
    let decisions = [
        Decision::Allow,
        deny(),
        mode_ask(),
        ask(vec![Rule::RunsLater]),
    ];
    let triages = [
        Triage::Guard,
        Triage::FastPath,
        Triage::Review,
        Triage::Owner(None),
        Triage::Owner(Some(Hard::Spending)),
    ];
    for mode in [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full] {
        for decision in &decisions {
            for triage in triages {
                let (_, step) = Approval::start(mode, decision.clone(), triage);
                let quick = Approval::quick(mode, decision.clone(), triage);
                let question = match decision {
                    Decision::Ask { question, .. } => question.clone(),
                    _ => String::new(),
                };
                let want = match step {
                    Step::Run => Quick::Run,
                    Step::Refuse { sentence, .. } => Quick::Refuse(sentence),
                    _ => Quick::Ask(question),
                };
                assert_eq!(quick, want, "{mode} {decision:?} {triage:?}");
            }
        }
    }
}

/// The native path has no decision logic of its own: it reads no guard
/// decision or triage itself, and answers the hook through `quick`.
#[test]
fn the_native_path_decides_nothing_itself() {
    let source = include_str!("../native_turn.rs");
    for shape in [
        "Decision::Allow",
        "Decision::Deny",
        "Decision::Ask",
        "Triage::",
        "guard::decide(",
    ] {
        assert!(
            !source.contains(shape),
            "native_turn.rs reads {shape} itself"
        );
    }
    assert!(source.contains("Approval::quick("));
}
