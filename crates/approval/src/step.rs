//! What the machine tells its driver to do, and what the driver hands back.

use guard::{Decision, Rule};
use protocol::{Answer, ReviewOutcome};
use review::{Judgement, ReviewInput};

use crate::machine::Decided;

/// What the driver does next: one piece of IO, or an end.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// It may run (or the engine is told yes).
    Run,
    /// It may not: the rules behind it and the sentence the model is told.
    Refuse { why: Vec<Rule>, sentence: String },
    /// Stop was pressed: nothing runs.
    Stop,
    /// Read the chat again ([`crate::look`]) and hand back
    /// [`Input::Looked`]: settings, the mode and the chat may have changed.
    Look,
    /// Ask the owner `decision` (an `Ask`), with an extra rule and line
    /// when there is one; take the binding when asking; then wait, and
    /// hand back [`Input::Answered`] (or [`Input::Looked`] when the mode
    /// changes meanwhile).
    Ask {
        decision: Decision,
        extra: Option<(Rule, String)>,
    },
    /// The question stays: keep waiting for the owner.
    Wait,
    /// The chat's new mode allows what was asked: answer it once, by the
    /// mode, then hand back [`Input::Answered`] (with the answer the log
    /// holds, if the owner's came first).
    ModeAnswers,
    /// Take the binding again and compare it with the one approved; hand
    /// back [`Input::Bound`].
    Bind,
    /// Count the reviewer's refusals in this turn; hand back
    /// [`Input::Budget`].
    Count,
    /// Take the binding the reviewer will approve; hand back
    /// [`Input::Pinned`].
    Pin,
    /// Read the page the browser action acts on; hand back [`Input::Page`].
    ReadPage,
    /// Build the reviewer's input (with this page, whole and redacted) and
    /// ask the model; hand back [`Input::Replied`], or [`Input::Unbuilt`]
    /// when the input can't be made.
    Review { page: Option<String> },
    /// Write what became of the review (`review.judged`), then do `then`.
    Record { judged: Judged, then: Box<Step> },
}

/// One `review.judged`, as the driver writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub outcome: ReviewOutcome,
    pub judgement: Option<Judgement>,
    /// Why no verdict counted (`budget`, `deadline`, `changed`, ...).
    pub problem: Option<String>,
    /// The page a browser action was allowed on: it happens only on
    /// exactly that page.
    pub page: Option<String>,
}

/// The machine's first answer, for a hook that can't wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Quick {
    Run,
    /// The sentence the model is told.
    Refuse(String),
    /// The whole path is needed: the question it would ask.
    Ask(String),
}

/// What the browser's page was, for a review of an action on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Password and other secret fields whose values would be sent.
    pub hidden_values: usize,
    /// The whole page was read (no frame left out).
    pub complete: bool,
    /// The page, redacted, as the reviewer reads it.
    pub redacted: String,
}

/// What the model gave the reviewer.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Text(String),
    /// The deadline passed first.
    Deadline,
    /// The model couldn't be reached: why.
    Unavailable(String),
    Stopped,
}

/// What the driver hands back.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// The chat read again.
    Looked(Decided),
    /// The owner's answer; None when the question ended without one (Stop).
    Answered(Option<Answer>),
    /// The binding taken again: None when nothing changed, else the line
    /// saying what did.
    Bound(Option<String>),
    /// The reviewer's refusals in this turn, and how many it may make.
    Budget { used: u32, limit: u32 },
    /// The binding taken for the reviewer: why it can't be pinned down, if
    /// it can't.
    Pinned(Option<String>),
    /// The page read, or why it couldn't be.
    Page(Result<Page, String>),
    /// The reviewer's input couldn't be made: why.
    Unbuilt(String),
    /// The reviewer was asked `prompt` and gave `reply`; `changed` when a
    /// message came or the call's arguments resolve differently since.
    Replied {
        prompt: Box<ReviewInput>,
        reply: Reply,
        changed: bool,
    },
}
