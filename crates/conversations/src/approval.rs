//! One approval path for every kind of tool call, as a state machine that
//! does no I/O: host calls (Conch's own tools), bridged calls (integration
//! tools offered to API engines) and native calls (Claude Code's and
//! Codex's own tools) all go through it.
//!
//! `Approval::start` takes the guard's decision and Auto mode's triage and
//! says what to do next ([`Step`]); the driver does it (asks the reviewer,
//! asks the owner, takes the binding again, reads the decision again) and
//! hands the result back with `Approval::on`. The driver is thin: every
//! choice about what happens after a verdict is made here, once, and tested
//! as a table (mode × triage × verdict × what changed meanwhile).

use guard::Decision;
use protocol::{Answer, Mode};
use review::Triage;

/// What the driver does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// It may run (or the engine is told yes).
    Run,
    /// It may not: the rule ids and the sentence the model is told.
    Refuse { ids: Vec<String>, sentence: String },
    /// Ask Auto mode's reviewer, then give back [`Input::Reviewed`].
    Review,
    /// Read the guard's decision again (settings, mode and the chat may
    /// have changed), then give back [`Input::Decided`].
    Decide,
    /// Ask the owner `decision` (an `Ask`), with an extra rule id and line
    /// when there is one; take the binding when asking; then give back
    /// [`Input::Answered`].
    Ask {
        decision: Decision,
        extra: Option<(String, String)>,
    },
    /// Take the binding again and compare it with the one approved; give
    /// back [`Input::Bound`].
    Bind,
    /// Stop was pressed: nothing runs.
    Stop,
}

/// The machine's first answer, for a hook that can't wait ([`Approval::quick`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Quick {
    Run,
    /// The sentence the model is told.
    Refuse(String),
    /// The whole path is needed: the question it would ask.
    Ask(String),
}

/// What the reviewer came back with (the driver has written
/// `review.judged`).
#[derive(Debug, Clone, PartialEq)]
pub enum Reviewed {
    Allowed,
    /// Turned down, or the budget used up: the sentence, and its rule id.
    Refused {
        id: String,
        sentence: String,
    },
    /// Left to the owner, with the line saying why.
    Owner(String),
    Stopped,
}

/// What the driver hands back.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    Reviewed(Reviewed),
    Decided {
        mode: Mode,
        decision: Decision,
        triage: Triage,
    },
    /// The owner's answer; None when the question ended without one (Stop).
    Answered(Option<Answer>),
    /// The binding taken again: None when nothing changed, else the line
    /// saying what did.
    Bound(Option<String>),
}

/// Asks at most this many times when what was approved keeps changing.
pub const MAX_REBINDS: usize = 3;

#[derive(Debug, Clone, PartialEq)]
enum State {
    /// Waiting for the reviewer.
    Reviewing,
    /// The reviewer allowed it: the decision is read again before it counts.
    AfterAllowed,
    /// The reviewer left it to the owner: the decision is read again, then
    /// the owner is asked with this line.
    AfterReviewOwner(String),
    /// Waiting for the owner.
    Asking,
    /// Approved: waiting for the binding to be taken again.
    Binding,
    /// What was approved changed: the decision is read again, then the
    /// owner is asked with this line.
    AfterChange(String),
    Done,
}

#[derive(Debug, Clone)]
pub struct Approval {
    state: State,
    rebinds: usize,
}

fn refused(ids: &[guard::Rule], sentence: &str) -> Step {
    Step::Refuse {
        ids: ids.iter().map(|r| r.id().to_owned()).collect(),
        sentence: sentence.to_owned(),
    }
}

impl Approval {
    /// The first step for a call the guard decided `decision` on, in
    /// `mode`, which Auto mode triaged as `triage`.
    pub fn start(mode: Mode, decision: Decision, triage: Triage) -> (Approval, Step) {
        let mut a = Approval {
            state: State::Done,
            rebinds: 0,
        };
        let step = a.first(mode, decision, triage);
        (a, step)
    }

    /// What an engine's hook is told at once: the machine run until its
    /// first step that needs IO (the reviewer, the owner). `Run` and
    /// `Refuse` are final; anything else is `Ask`, and the engine then asks
    /// through the whole path (`permission::drive`).
    pub fn quick(mode: Mode, decision: Decision, triage: Triage) -> Quick {
        let question = match &decision {
            Decision::Ask { question, .. } => question.clone(),
            _ => String::new(),
        };
        match Approval::start(mode, decision, triage).1 {
            Step::Run => Quick::Run,
            Step::Refuse { sentence, .. } => Quick::Refuse(sentence),
            Step::Stop => Quick::Refuse("Stopped.".to_owned()),
            Step::Review | Step::Decide | Step::Ask { .. } | Step::Bind => Quick::Ask(question),
        }
    }

    fn first(&mut self, mode: Mode, decision: Decision, triage: Triage) -> Step {
        let mut extra = None;
        if mode == Mode::Auto {
            match triage {
                Triage::Guard | Triage::Owner(None) => {}
                Triage::FastPath => return self.done(Step::Run),
                Triage::Owner(Some(hard)) => {
                    extra = Some((hard.id().to_owned(), hard.sentence().to_owned()));
                }
                Triage::Review => {
                    self.state = State::Reviewing;
                    return Step::Review;
                }
            }
        }
        self.decided(decision, extra)
    }

    /// What a decision means: run, refuse, or ask the owner.
    fn decided(&mut self, decision: Decision, extra: Option<(String, String)>) -> Step {
        match decision {
            Decision::Allow => self.done(Step::Run),
            Decision::Deny { why, sentence } => self.done(refused(&why, &sentence)),
            ask @ Decision::Ask { .. } => {
                self.state = State::Asking;
                Step::Ask {
                    decision: ask,
                    extra,
                }
            }
        }
    }

    fn done(&mut self, step: Step) -> Step {
        self.state = State::Done;
        step
    }

    /// The next step, given what the driver found.
    pub fn on(&mut self, input: Input) -> Step {
        match (std::mem::replace(&mut self.state, State::Done), input) {
            (State::Reviewing, Input::Reviewed(r)) => match r {
                Reviewed::Stopped => self.done(Step::Stop),
                Reviewed::Refused { id, sentence } => self.done(Step::Refuse {
                    ids: vec![id],
                    sentence,
                }),
                Reviewed::Allowed => {
                    self.state = State::AfterAllowed;
                    Step::Decide
                }
                Reviewed::Owner(line) => {
                    self.state = State::AfterReviewOwner(line);
                    Step::Decide
                }
            },
            (
                State::AfterAllowed,
                Input::Decided {
                    mode,
                    decision,
                    triage,
                },
            ) => match (&decision, triage) {
                // The tool's policy and the mode were read again: what the
                // guard alone lets run needs nothing more; what it refuses
                // is refused; still Auto's to judge, the reviewer's yes
                // stands (bound to what runs).
                (Decision::Allow, _) => self.done(Step::Run),
                (Decision::Deny { why, sentence }, _) => self.done(refused(why, sentence)),
                (_, Triage::Review | Triage::FastPath) if mode == Mode::Auto => {
                    self.state = State::Binding;
                    Step::Bind
                }
                _ => self.decided(
                    decision,
                    Some((
                        "review.ask".to_owned(),
                        "Something changed while Auto mode's reviewer looked, so you're asked."
                            .to_owned(),
                    )),
                ),
            },
            (State::AfterReviewOwner(line), Input::Decided { decision, .. }) => {
                self.decided(decision, Some(("review.ask".to_owned(), line)))
            }
            (State::Asking, Input::Answered(answer)) => match answer {
                Some(Answer::Once | Answer::Always) => {
                    self.state = State::Binding;
                    Step::Bind
                }
                Some(Answer::Deny) => self.done(Step::Refuse {
                    ids: Vec::new(),
                    sentence: "The owner said no to this. Don't try it another way; ask them what they'd like instead.".to_owned(),
                }),
                None => self.done(Step::Stop),
            },
            (State::Binding, Input::Bound(None)) => self.done(Step::Run),
            (State::Binding, Input::Bound(Some(line))) => {
                self.rebinds += 1;
                if self.rebinds > MAX_REBINDS {
                    return self.done(Step::Refuse {
                        ids: vec!["bind.changed".to_owned()],
                        sentence:
                            "What this would run kept changing after it was approved, so it didn't run."
                                .to_owned(),
                    });
                }
                self.state = State::AfterChange(line);
                Step::Decide
            }
            (State::AfterChange(line), Input::Decided { decision, .. }) => {
                // Approved for something else: decided again, as it is now.
                self.decided(decision, Some(("bind.changed".to_owned(), line)))
            }
            // An input that doesn't fit the state: nothing runs on it.
            (state, input) => {
                self.state = state;
                let _ = input;
                self.done(Step::Refuse {
                    ids: vec!["approval.out-of-order".to_owned()],
                    sentence: "This call couldn't be approved. Try it again.".to_owned(),
                })
            }
        }
    }

    pub fn finished(&self) -> bool {
        self.state == State::Done
    }
}

#[cfg(test)]
mod tests;
