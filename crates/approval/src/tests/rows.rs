//! Rows written by hand, each named for what it shows or the attack it
//! closes.

use super::*;
use review::Hard;

struct Row {
    name: &'static str,
    action: protocol::Action,
    first: Decided,
    script: Script,
    want: &'static [&'static str],
    /// The extra rule on the last question asked, if any.
    extra: Option<Rule>,
}

fn changed() -> Option<String> {
    Some("The file x.sh changed after it was approved.".to_owned())
}

fn row(name: &'static str, first: Decided, script: Script, want: &'static [&'static str]) -> Row {
    Row {
        name,
        action: command(),
        first,
        script,
        want,
        extra: None,
    }
}

fn with(extra: Rule, mut r: Row) -> Row {
    r.extra = Some(extra);
    r
}

fn auto_review() -> Decided {
    decided(Mode::Auto, mode_ask(), Triage::Review)
}

fn reviewer(reviewer: Reviewer, looks: Vec<Decided>, answers: Vec<Option<Answer>>) -> Script {
    Script {
        reviewer,
        looks,
        answers,
        ..script()
    }
}

fn rows() -> Vec<Row> {
    let hard = Triage::Owner(Some(Hard::Credentials));
    let once = || vec![Some(Answer::Once)];
    let owner_asked: &[&str] = &[
        "count",
        "pin",
        "review",
        "record:asked",
        "look",
        "ask",
        "bind",
        "run",
    ];
    vec![
        row(
            "the guard allows: it runs",
            decided(Mode::Ask, Decision::Allow, Triage::Guard),
            script(),
            &["run"],
        ),
        row(
            "the guard denies: refused",
            decided(Mode::Full, deny(), Triage::Guard),
            script(),
            &["refuse"],
        ),
        row(
            "a triage can't run what the guard refuses",
            decided(Mode::Auto, deny(), Triage::FastPath),
            script(),
            &["refuse"],
        ),
        row(
            "ask mode: once, the binding holds: it runs",
            decided(Mode::Ask, mode_ask(), Triage::Review),
            Script {
                answers: once(),
                ..script()
            },
            &["ask", "bind", "run"],
        ),
        row(
            "edits mode: triage is only Auto's",
            decided(Mode::Edits, mode_ask(), Triage::FastPath),
            Script {
                answers: vec![Some(Answer::Always)],
                ..script()
            },
            &["ask", "bind", "run"],
        ),
        row(
            "the owner says no: refused",
            decided(Mode::Ask, mode_ask(), Triage::Guard),
            Script {
                answers: vec![Some(Answer::Deny)],
                ..script()
            },
            &["ask", "refuse"],
        ),
        row(
            "stop while the question waits: nothing runs",
            decided(Mode::Ask, mode_ask(), Triage::Guard),
            Script {
                answers: vec![None],
                ..script()
            },
            &["ask", "stop"],
        ),
        row(
            "a new mode that allows it answers the waiting question",
            decided(Mode::Ask, mode_ask(), Triage::Guard),
            Script {
                mode_change: Some(decided(Mode::Edits, Decision::Allow, Triage::Guard)),
                ..script()
            },
            &["ask", "mode-answers", "bind", "run"],
        ),
        row(
            "a new mode that still asks leaves the question waiting",
            decided(Mode::Ask, mode_ask(), Triage::Guard),
            Script {
                mode_change: Some(decided(Mode::Edits, mode_ask(), Triage::Guard)),
                answers: vec![Some(Answer::Deny)],
                ..script()
            },
            &["ask", "wait", "refuse"],
        ),
        with(
            Rule::BindChanged,
            row(
                "bind.changed: a script swapped after the yes is asked again, as it is now",
                decided(Mode::Ask, mode_ask(), Triage::Guard),
                Script {
                    answers: vec![Some(Answer::Once), Some(Answer::Once)],
                    bound: vec![changed()],
                    looks: vec![decided(Mode::Ask, mode_ask(), Triage::Guard)],
                    ..script()
                },
                &["ask", "bind", "look", "ask", "bind", "run"],
            ),
        ),
        row(
            "bind.changed after the tool was turned off: refused, not asked",
            decided(Mode::Ask, mode_ask(), Triage::Guard),
            Script {
                answers: once(),
                bound: vec![changed()],
                looks: vec![decided(Mode::Ask, deny(), Triage::Guard)],
                ..script()
            },
            &["ask", "bind", "look", "refuse"],
        ),
        with(
            Rule::BindChanged,
            row(
                "what was approved keeps changing: refused after three",
                decided(Mode::Ask, mode_ask(), Triage::Guard),
                Script {
                    answers: vec![Some(Answer::Once); 4],
                    bound: vec![changed(); 4],
                    looks: vec![decided(Mode::Ask, mode_ask(), Triage::Guard)],
                    ..script()
                },
                &[
                    "ask", "bind", "look", "ask", "bind", "look", "ask", "bind", "look", "ask",
                    "bind", "refuse",
                ],
            ),
        ),
        row(
            "auto, fast path: it runs, no model",
            decided(Mode::Auto, mode_ask(), Triage::FastPath),
            script(),
            &["run"],
        ),
        with(
            Rule::NeverWaivable(Hard::Credentials),
            row(
                "auto, never waivable: the owner, with the category",
                decided(Mode::Auto, mode_ask(), hard),
                Script {
                    answers: once(),
                    ..script()
                },
                &["ask", "bind", "run"],
            ),
        ),
        row(
            "auto, the guard's own reasons (a mark): the owner, no review",
            decided(
                Mode::Auto,
                ask(vec![Rule::AfterReadingCommand]),
                Triage::Owner(None),
            ),
            Script {
                answers: once(),
                ..script()
            },
            &["ask", "bind", "run"],
        ),
        row(
            "auto, the reviewer allows, nothing changed: bound, it runs",
            auto_review(),
            reviewer(Reviewer::Allow, vec![auto_review()], vec![]),
            &[
                "count",
                "pin",
                "review",
                "bind",
                "record:allowed",
                "look",
                "bind",
                "run",
            ],
        ),
        row(
            "auto, the reviewer allows, the tool turned off meanwhile: refused",
            auto_review(),
            reviewer(
                Reviewer::Allow,
                vec![decided(Mode::Auto, deny(), Triage::Guard)],
                vec![],
            ),
            &[
                "count",
                "pin",
                "review",
                "bind",
                "record:allowed",
                "look",
                "refuse",
            ],
        ),
        with(
            Rule::ReviewAsk,
            row(
                "auto, the reviewer allows, the mode became ask meanwhile: the owner",
                auto_review(),
                reviewer(
                    Reviewer::Allow,
                    vec![decided(Mode::Ask, mode_ask(), Triage::Review)],
                    once(),
                ),
                &[
                    "count",
                    "pin",
                    "review",
                    "bind",
                    "record:allowed",
                    "look",
                    "ask",
                    "bind",
                    "run",
                ],
            ),
        ),
        with(
            Rule::ReviewAsk,
            row(
                "auto, the reviewer allows, now never waivable: the owner",
                auto_review(),
                reviewer(
                    Reviewer::Allow,
                    vec![decided(Mode::Auto, mode_ask(), hard)],
                    vec![Some(Answer::Deny)],
                ),
                &[
                    "count",
                    "pin",
                    "review",
                    "bind",
                    "record:allowed",
                    "look",
                    "ask",
                    "refuse",
                ],
            ),
        ),
        with(
            Rule::ReviewAsk,
            row(
                "auto, the script changed while the reviewer looked: the owner",
                auto_review(),
                Script {
                    bound: vec![changed()],
                    ..reviewer(Reviewer::Allow, vec![auto_review()], once())
                },
                &[
                    "count",
                    "pin",
                    "review",
                    "bind",
                    "record:asked",
                    "look",
                    "ask",
                    "bind",
                    "run",
                ],
            ),
        ),
        with(
            Rule::BindChanged,
            row(
                "auto, the script changed after the reviewer's yes, before it ran: the owner",
                auto_review(),
                Script {
                    bound: vec![None, changed()],
                    ..reviewer(Reviewer::Allow, vec![auto_review()], once())
                },
                &[
                    "count",
                    "pin",
                    "review",
                    "bind",
                    "record:allowed",
                    "look",
                    "bind",
                    "look",
                    "ask",
                    "bind",
                    "run",
                ],
            ),
        ),
        row(
            "auto, the reviewer rejects: refused, the owner isn't asked",
            auto_review(),
            reviewer(Reviewer::Reject, vec![], vec![]),
            &["count", "pin", "review", "record:rejected", "refuse"],
        ),
        row(
            "auto, a model that keeps asking is out of budget: refused without a model call",
            auto_review(),
            reviewer(Reviewer::Exhausted, vec![], vec![]),
            &["count", "record:exhausted", "refuse"],
        ),
        with(
            Rule::ReviewAsk,
            row(
                "auto, the reviewer leaves it to the owner",
                auto_review(),
                reviewer(Reviewer::Ask, vec![auto_review()], once()),
                owner_asked,
            ),
        ),
        with(
            Rule::ReviewAsk,
            row(
                "auto, a reply that isn't a verdict goes to the owner",
                auto_review(),
                reviewer(Reviewer::Garbage, vec![auto_review()], once()),
                owner_asked,
            ),
        ),
        with(
            Rule::ReviewAsk,
            row(
                "auto, the reviewer past its deadline: the owner",
                auto_review(),
                reviewer(Reviewer::Deadline, vec![auto_review()], once()),
                owner_asked,
            ),
        ),
        with(
            Rule::ReviewAsk,
            row(
                "auto, no model to review: the owner",
                auto_review(),
                reviewer(Reviewer::Unavailable, vec![auto_review()], once()),
                owner_asked,
            ),
        ),
        with(
            Rule::ReviewAsk,
            row(
                "auto, an injected message arrives while the reviewer looks: its yes doesn't count",
                auto_review(),
                reviewer(Reviewer::Changed, vec![auto_review()], once()),
                owner_asked,
            ),
        ),
        with(
            Rule::ReviewAsk,
            row(
                "auto, a yes citing only words the owner quoted from a page: the owner",
                auto_review(),
                reviewer(Reviewer::Quoted, vec![auto_review()], once()),
                owner_asked,
            ),
        ),
        with(
            Rule::ReviewAsk,
            row(
                "auto, a script written a moment ago can't be reviewed: the owner",
                auto_review(),
                reviewer(Reviewer::Unpinned, vec![auto_review()], once()),
                &["count", "pin", "record:asked", "look", "ask", "bind", "run"],
            ),
        ),
        with(
            Rule::ReviewAsk,
            row(
                "auto, a chat too long to show the reviewer: the owner",
                auto_review(),
                reviewer(Reviewer::Unbuilt, vec![auto_review()], once()),
                owner_asked,
            ),
        ),
        row(
            "auto, left to the owner, but the guard now allows: it runs",
            auto_review(),
            reviewer(
                Reviewer::Ask,
                vec![decided(Mode::Full, Decision::Allow, Triage::Guard)],
                vec![],
            ),
            &["count", "pin", "review", "record:asked", "look", "run"],
        ),
        row(
            "auto, Stop while the reviewer looks",
            auto_review(),
            reviewer(Reviewer::Stopped, vec![], vec![]),
            &["count", "pin", "review", "stop"],
        ),
        Row {
            action: click(),
            ..row(
                "auto, a click is reviewed with the page it acts on",
                auto_review(),
                reviewer(Reviewer::Allow, vec![auto_review()], vec![]),
                &[
                    "count",
                    "pin",
                    "read-page",
                    "review",
                    "bind",
                    "record:allowed",
                    "look",
                    "bind",
                    "run",
                ],
            )
        },
        Row {
            action: click(),
            extra: Some(Rule::ReviewAsk),
            ..row(
                "auto, a click that would send a password field's value: the owner",
                auto_review(),
                reviewer(Reviewer::PageHidden, vec![auto_review()], once()),
                &[
                    "count",
                    "pin",
                    "read-page",
                    "record:asked",
                    "look",
                    "ask",
                    "bind",
                    "run",
                ],
            )
        },
        Row {
            action: click(),
            extra: Some(Rule::ReviewAsk),
            ..row(
                "auto, a page hiding part of itself in frames: the owner",
                auto_review(),
                reviewer(Reviewer::PageFramed, vec![auto_review()], once()),
                &[
                    "count",
                    "pin",
                    "read-page",
                    "record:asked",
                    "look",
                    "ask",
                    "bind",
                    "run",
                ],
            )
        },
    ]
}

#[test]
fn the_table() {
    let mut failures = Vec::new();
    let all = rows();
    for row in &all {
        let run = drive(&row.action, row.first.clone(), row.script.clone());
        if run.steps != row.want || run.extra != row.extra {
            failures.push(format!(
                "{}: {:?} with {:?}",
                row.name, run.steps, run.extra
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// A click the reviewer allowed is bound to the page it saw: the page goes
/// with the judgement, and with nothing else.
#[test]
fn the_page_a_click_was_allowed_on_goes_with_the_yes() {
    let (mut a, step) = Approval::begin(&click(), auto_review());
    assert_eq!(step, Step::Count);
    assert_eq!(a.on(Reviewer::Allow.budget()), Step::Pin);
    assert_eq!(a.on(Reviewer::Allow.pinned()), Step::ReadPage);
    assert_eq!(
        a.on(Reviewer::Allow.page()),
        Step::Review {
            page: Some("page".into())
        }
    );
    assert_eq!(a.on(Reviewer::Allow.replied()), Step::Bind);
    match a.on(Input::Bound(None)) {
        Step::Record { judged, then } => {
            assert_eq!(judged.page.as_deref(), Some("page"));
            assert_eq!(*then, Step::Look);
        }
        other => panic!("{other:?}"),
    }
}
