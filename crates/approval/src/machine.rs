//! The machine: its states, its start, and what follows an owner's answer,
//! a binding and a fresh look. The reviewer's half is in `reviewing`.

use guard::{Decision, Rule};
use protocol::{Action, Answer, BrowserOp, Mode};
use review::{Judgement, Triage};

use crate::step::{Input, Quick, Step};
use crate::{Call, Look};

/// Asks at most this many times when what was approved keeps changing.
pub const MAX_REBINDS: usize = 3;

/// What one look at the chat decided: the mode, the guard's decision, and
/// where Auto mode sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decided {
    pub mode: Mode,
    pub decision: Decision,
    pub triage: Triage,
}

/// The one place a call is decided: the guard, then Auto mode's triage,
/// from the same look at the chat.
pub fn look(call: Call<'_>, at: &Look<'_>) -> Decided {
    let decision = guard::decide(
        guard::Call {
            tool: call.tool,
            action: call.action,
        },
        at.view,
        at.settings,
    );
    let facts = review::Facts {
        protected: &at.settings.protected,
        work: at.work,
        marked: at.view.is_marked(),
        seen: &at.view.seen,
        input: call.input,
        contacts: at.contacts,
    };
    let triage = review::triage(call.action, &decision, &facts);
    Decided {
        mode: at.settings.mode,
        decision,
        triage,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum State {
    /// Waiting for the reviewer's refusals so far.
    Counting,
    /// Waiting for the binding the reviewer will approve.
    Pinning,
    /// Waiting for the page a browser action acts on.
    ReadingPage,
    /// Waiting for the model, which reads this page with the call.
    Reviewing {
        page: Option<String>,
    },
    /// The reviewer allowed it: waiting for the binding again.
    VerdictBinding {
        judgement: Judgement,
        page: Option<String>,
    },
    /// The reviewer allowed it: the chat is read again before it counts.
    AfterAllowed,
    /// The reviewer left it to the owner: the chat is read again, then the
    /// owner is asked with this line.
    AfterReviewOwner(String),
    /// Waiting for the owner (or a new mode).
    Asking,
    /// The new mode answered: waiting for the answer the log holds.
    ModeAnswering,
    /// Approved: waiting for the binding to be taken again.
    Binding,
    /// What was approved changed: the chat is read again, then the owner
    /// is asked with this line.
    AfterChange(String),
    Done,
}

#[derive(Debug, Clone)]
pub struct Approval {
    pub(crate) state: State,
    rebinds: usize,
    /// A browser action the page's script would see: the reviewer reads
    /// the page with it.
    pub(crate) on_page: bool,
    /// What the call names, for whether the reviewer cited only quotes.
    pub(crate) needle: String,
}

fn on_page(action: &Action) -> bool {
    matches!(action, Action::Browser(b) if b.op == BrowserOp::Click || b.sends.is_some())
}

pub(crate) fn refused(why: Vec<Rule>, sentence: impl Into<String>) -> Step {
    Step::Refuse {
        why,
        sentence: sentence.into(),
    }
}

impl Approval {
    /// Decides `call` once, from the chat as `at` shows it, and says the
    /// first step.
    pub fn start(call: Call<'_>, at: &Look<'_>) -> (Approval, Step) {
        Approval::begin(call.action, look(call, at))
    }

    /// The first step for `action`, decided as `decided`.
    pub fn begin(action: &Action, decided: Decided) -> (Approval, Step) {
        let mut a = Approval {
            state: State::Done,
            rebinds: 0,
            on_page: on_page(action),
            needle: review::input::needle(action).to_owned(),
        };
        let step = a.first(decided);
        (a, step)
    }

    /// What an engine's hook is told at once: the machine run until its
    /// first step that needs IO. `Run` and `Refuse` are final; anything
    /// else is `Ask`, and the engine then asks through the whole path.
    pub fn quick(call: Call<'_>, at: &Look<'_>) -> Quick {
        let decided = look(call, at);
        let question = match &decided.decision {
            Decision::Ask { question, .. } => question.clone(),
            _ => String::new(),
        };
        match Approval::begin(call.action, decided).1 {
            Step::Run => Quick::Run,
            Step::Refuse { sentence, .. } => Quick::Refuse(sentence),
            Step::Stop => Quick::Refuse("Stopped.".to_owned()),
            _ => Quick::Ask(question),
        }
    }

    fn first(&mut self, d: Decided) -> Step {
        let mut extra = None;
        // Only a question is triaged: what the guard allows or refuses
        // stands, whatever a triage says.
        if d.mode == Mode::Auto && matches!(d.decision, Decision::Ask { .. }) {
            match d.triage {
                Triage::Guard | Triage::Owner(None) => {}
                Triage::FastPath => return self.done(Step::Run),
                Triage::Owner(Some(hard)) => {
                    extra = Some((Rule::NeverWaivable(hard), hard.sentence().to_owned()));
                }
                Triage::Review => return self.wait(State::Counting, Step::Count),
            }
        }
        self.decided(d.decision, extra)
    }

    /// What a decision means: run, refuse, or ask the owner.
    pub(crate) fn decided(&mut self, decision: Decision, extra: Option<(Rule, String)>) -> Step {
        match decision {
            Decision::Allow => self.done(Step::Run),
            Decision::Deny { why, sentence } => self.done(refused(why, sentence)),
            ask @ Decision::Ask { .. } => self.wait(
                State::Asking,
                Step::Ask {
                    decision: ask,
                    extra,
                },
            ),
        }
    }

    pub(crate) fn done(&mut self, step: Step) -> Step {
        self.state = State::Done;
        step
    }

    pub(crate) fn wait(&mut self, state: State, step: Step) -> Step {
        self.state = state;
        step
    }

    /// The next step, given what the driver found.
    pub fn on(&mut self, input: Input) -> Step {
        let state = std::mem::replace(&mut self.state, State::Done);
        match (state, input) {
            (State::AfterAllowed, Input::Looked(d)) => self.after_allowed(d),
            (State::AfterReviewOwner(line), Input::Looked(d)) => {
                self.decided(d.decision, Some((Rule::ReviewAsk, line)))
            }
            (State::Asking, Input::Looked(d)) => match d.decision {
                // A new mode allows it: answered by the mode.
                Decision::Allow => self.wait(State::ModeAnswering, Step::ModeAnswers),
                // The tool was turned off meanwhile: no yes can run it.
                Decision::Deny { why, sentence } => self.done(refused(why, sentence)),
                Decision::Ask { .. } => self.wait(State::Asking, Step::Wait),
            },
            (State::Asking | State::ModeAnswering, Input::Answered(answer)) => {
                self.answered(answer)
            }
            (State::Binding, Input::Bound(None)) => self.done(Step::Run),
            (State::Binding, Input::Bound(Some(line))) => self.changed(line),
            (State::AfterChange(line), Input::Looked(d)) => {
                // Approved for something else: decided again, as it is now.
                self.decided(d.decision, Some((Rule::BindChanged, line)))
            }
            (state, input) => match self.reviewing(state, input) {
                Ok(step) => step,
                // An input that doesn't fit the state: nothing runs on it.
                Err(()) => self.done(refused(
                    vec![Rule::ApprovalOutOfOrder],
                    "This call couldn't be approved. Try it again.",
                )),
            },
        }
    }

    /// The reviewer allowed it and the chat was read again: the tool's
    /// policy and the mode may have changed. What the guard alone lets run
    /// needs nothing more; what it refuses is refused; still Auto's to
    /// judge, the reviewer's yes stands, bound to what runs.
    fn after_allowed(&mut self, d: Decided) -> Step {
        match (&d.decision, d.triage) {
            (Decision::Allow, _) => self.done(Step::Run),
            (Decision::Deny { why, sentence }, _) => {
                let step = refused(why.clone(), sentence.clone());
                self.done(step)
            }
            (_, Triage::Review | Triage::FastPath) if d.mode == Mode::Auto => {
                self.wait(State::Binding, Step::Bind)
            }
            _ => self.decided(
                d.decision,
                Some((
                    Rule::ReviewAsk,
                    "Something changed while Auto mode's reviewer looked, so you're asked."
                        .to_owned(),
                )),
            ),
        }
    }

    fn answered(&mut self, answer: Option<Answer>) -> Step {
        match answer {
            Some(Answer::Once | Answer::Always) => self.wait(State::Binding, Step::Bind),
            Some(Answer::Deny) => self.done(refused(
                Vec::new(),
                "The owner said no to this. Don't try it another way; ask them what they'd like instead.",
            )),
            None => self.done(Step::Stop),
        }
    }

    fn changed(&mut self, line: String) -> Step {
        self.rebinds += 1;
        if self.rebinds > MAX_REBINDS {
            return self.done(refused(
                vec![Rule::BindChanged],
                "What this would run kept changing after it was approved, so it didn't run.",
            ));
        }
        self.wait(State::AfterChange(line), Step::Look)
    }

    pub fn finished(&self) -> bool {
        self.state == State::Done
    }
}
