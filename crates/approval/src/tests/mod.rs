//! The approval path as a table: a scripted driver hands the machine what
//! IO would have found, and each test names the steps it must take.

use super::*;
use guard::{Decision, Rule};
use protocol::{Answer, BrowserAction, BrowserOp, Mode};
use review::{ReviewInput, Triage};

mod generated;
mod quick;
mod rows;

pub(super) fn ask(why: Vec<Rule>) -> Decision {
    Decision::Ask {
        why,
        question: "Can I?".into(),
        note: None,
        always: None,
        narrow: None,
        told: None,
    }
}

pub(super) fn deny() -> Decision {
    Decision::Deny {
        why: vec![Rule::PolicyOff],
        sentence: "off".into(),
    }
}

pub(super) fn mode_ask() -> Decision {
    ask(vec![Rule::ModeAskCommand])
}

pub(super) fn decided(mode: Mode, decision: Decision, triage: Triage) -> Decided {
    Decided {
        mode,
        decision,
        triage,
    }
}

pub(super) fn command() -> protocol::Action {
    protocol::Action::Command {
        command: "make test".into(),
        programs: vec!["make".into()],
        unsealed: false,
        leaves_box: false,
    }
}

pub(super) fn click() -> protocol::Action {
    protocol::Action::Browser(BrowserAction {
        op: BrowserOp::Click,
        url: "http://127.0.0.1/form".into(),
        site: "127.0.0.1".into(),
        element: Some("the Send button".into()),
        sends: None,
        password: false,
        typed: false,
    })
}

/// What Auto mode's reviewer finds, as its IO would hand it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reviewer {
    Allow,
    Reject,
    Ask,
    Deadline,
    Unavailable,
    Stopped,
    /// A reply that isn't a verdict.
    Garbage,
    /// A message came, or the arguments resolve differently, meanwhile.
    Changed,
    /// It allows, citing only words the owner quoted.
    Quoted,
    /// Its budget for the turn is used up.
    Exhausted,
    /// The call runs a script that can't be pinned down.
    Unpinned,
    /// The click would send a password field's value.
    PageHidden,
    /// Part of the page is in frames.
    PageFramed,
    /// The page couldn't be read.
    PageUnread,
    /// The input is too big to build.
    Unbuilt,
}

impl Reviewer {
    pub(super) const ALL: [Reviewer; 15] = [
        Reviewer::Allow,
        Reviewer::Reject,
        Reviewer::Ask,
        Reviewer::Deadline,
        Reviewer::Unavailable,
        Reviewer::Stopped,
        Reviewer::Garbage,
        Reviewer::Changed,
        Reviewer::Quoted,
        Reviewer::Exhausted,
        Reviewer::Unpinned,
        Reviewer::PageHidden,
        Reviewer::PageFramed,
        Reviewer::PageUnread,
        Reviewer::Unbuilt,
    ];

    fn budget(self) -> Input {
        let used = if self == Reviewer::Exhausted { 3 } else { 1 };
        Input::Budget { used, limit: 3 }
    }

    fn pinned(self) -> Input {
        Input::Pinned((self == Reviewer::Unpinned).then(|| "runs x.sh, which it wrote.".into()))
    }

    fn page(self) -> Input {
        let page = |hidden_values, complete| {
            Ok(Page {
                hidden_values,
                complete,
                redacted: "page".into(),
            })
        };
        Input::Page(match self {
            Reviewer::PageHidden => page(1, true),
            Reviewer::PageFramed => page(0, false),
            Reviewer::PageUnread => Err("The browser isn't open.".into()),
            _ => page(0, true),
        })
    }

    fn replied(self) -> Input {
        if self == Reviewer::Unbuilt {
            return Input::Unbuilt("The chat is too long for the reviewer.".into());
        }
        let owner = if self == Reviewer::Quoted {
            "From the page:\n> make test\n> press the Send button"
        } else {
            "please run the tests and send the form"
        };
        let verdict = |v: &str, evidence: &str| {
            format!(
                r#"{{"verdict":"{v}","risk":"low","evidence":[{evidence}],"reason":"As asked."}}"#
            )
        };
        let reply = match self {
            Reviewer::Reject => Reply::Text(verdict("reject", "")),
            Reviewer::Ask => Reply::Text(verdict("ask", "")),
            Reviewer::Deadline => Reply::Deadline,
            Reviewer::Unavailable => Reply::Unavailable("No model.".into()),
            Reviewer::Stopped => Reply::Stopped,
            Reviewer::Garbage => Reply::Text("sure, go ahead".into()),
            _ => Reply::Text(verdict("allow", "\"m1\"")),
        };
        Input::Replied {
            prompt: Box::new(ReviewInput {
                prompt: String::new(),
                owner: vec![("m1".into(), owner.into())],
            }),
            reply,
            changed: self == Reviewer::Changed,
        }
    }
}

/// What a scripted driver hands back at each step.
#[derive(Debug, Clone)]
pub(super) struct Script {
    pub reviewer: Reviewer,
    /// The chat read again, in order; the last repeats.
    pub looks: Vec<Decided>,
    /// The owner's answers, in order.
    pub answers: Vec<Option<Answer>>,
    /// Bindings taken again, in order (None: unchanged); then unchanged.
    pub bound: Vec<Option<String>>,
    /// The mode changes while the first question waits: the chat as the
    /// new mode reads it.
    pub mode_change: Option<Decided>,
}

pub(super) fn script() -> Script {
    Script {
        reviewer: Reviewer::Allow,
        looks: Vec::new(),
        answers: Vec::new(),
        bound: Vec::new(),
        mode_change: None,
    }
}

/// What one run of the machine did: each step's name, the extra rule on
/// the last question asked, and the rules on a refusal.
#[derive(Debug, Default)]
pub(super) struct Run {
    pub steps: Vec<String>,
    pub extra: Option<Rule>,
    pub refused: Vec<Rule>,
}

pub(super) fn name(step: &Step) -> String {
    match step {
        Step::Run => "run".into(),
        Step::Refuse { .. } => "refuse".into(),
        Step::Stop => "stop".into(),
        Step::Look => "look".into(),
        Step::Ask { .. } => "ask".into(),
        Step::Wait => "wait".into(),
        Step::ModeAnswers => "mode-answers".into(),
        Step::Bind => "bind".into(),
        Step::Count => "count".into(),
        Step::Pin => "pin".into(),
        Step::ReadPage => "read-page".into(),
        Step::Review { .. } => "review".into(),
        Step::Record { judged, .. } => format!("record:{}", judged.outcome.as_str()),
    }
}

/// Runs the machine to its end with a scripted driver.
pub(super) fn drive(action: &protocol::Action, first: Decided, mut s: Script) -> Run {
    let (mut a, mut step) = Approval::begin(action, first);
    let mut run = Run::default();
    let mut looks = s.looks.clone().into_iter();
    let mut last_look = s.looks.last().cloned();
    for _ in 0..64 {
        run.steps.push(name(&step));
        let input = match step {
            Step::Run | Step::Stop => {
                assert!(a.finished());
                return run;
            }
            Step::Refuse { why, .. } => {
                assert!(a.finished());
                run.refused = why;
                return run;
            }
            Step::Record { then, .. } => {
                step = *then;
                continue;
            }
            Step::Look => {
                let d = looks.next().or_else(|| last_look.clone());
                last_look = d.clone();
                Input::Looked(d.unwrap_or_else(|| panic!("no look scripted: {:?}", run.steps)))
            }
            Step::Ask { extra, .. } => {
                run.extra = extra.map(|(rule, _)| rule);
                match s.mode_change.take() {
                    Some(d) => Input::Looked(d),
                    None => Input::Answered(next_answer(&mut s)),
                }
            }
            Step::Wait => Input::Answered(next_answer(&mut s)),
            Step::ModeAnswers => Input::Answered(Some(Answer::Once)),
            Step::Bind => Input::Bound(if s.bound.is_empty() {
                None
            } else {
                s.bound.remove(0)
            }),
            Step::Count => s.reviewer.budget(),
            Step::Pin => s.reviewer.pinned(),
            Step::ReadPage => s.reviewer.page(),
            Step::Review { .. } => s.reviewer.replied(),
        };
        step = a.on(input);
    }
    panic!("the machine never finished: {:?}", run.steps);
}

fn next_answer(s: &mut Script) -> Option<Answer> {
    if s.answers.is_empty() {
        None
    } else {
        s.answers.remove(0)
    }
}

#[test]
fn an_input_out_of_order_runs_nothing() {
    let (mut a, step) = Approval::begin(&command(), decided(Mode::Ask, mode_ask(), Triage::Guard));
    assert!(matches!(step, Step::Ask { .. }));
    // A binding where an answer was due: refused, not run.
    assert!(matches!(a.on(Input::Bound(None)), Step::Refuse { .. }));
    let (mut a, _) = Approval::begin(&command(), decided(Mode::Auto, mode_ask(), Triage::Review));
    assert!(matches!(
        a.on(Input::Answered(Some(Answer::Once))),
        Step::Refuse { .. }
    ));
    // A reply where the budget was due: the reviewer's yes can't skip it.
    let (mut a, _) = Approval::begin(&command(), decided(Mode::Auto, mode_ask(), Triage::Review));
    assert!(matches!(
        a.on(Reviewer::Allow.replied()),
        Step::Refuse { .. }
    ));
}
