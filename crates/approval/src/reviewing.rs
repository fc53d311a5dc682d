//! Auto mode's reviewer, as the machine's states (ADR 0144): the budget,
//! a script it can't pin down, the page a browser action acts on, the
//! model's reply or its absence, something changed while it looked, a
//! verdict citing only quoted words, and the binding changed after its
//! yes. Each is a choice made here; the driver only fetches.

use guard::Rule;
use protocol::ReviewOutcome;
use review::{Judgement, Verdict};

use crate::machine::{refused, Approval, State};
use crate::step::{Input, Judged, Page, Reply, Step};

fn judged(outcome: ReviewOutcome, judgement: Option<Judgement>, problem: Option<&str>) -> Judged {
    Judged {
        outcome,
        judgement,
        problem: problem.map(str::to_owned),
        page: None,
    }
}

impl Approval {
    /// The reviewer's states; Err for an input that doesn't fit.
    pub(crate) fn reviewing(&mut self, state: State, input: Input) -> Result<Step, ()> {
        Ok(match (state, input) {
            (State::Counting, Input::Budget { used, limit }) => self.counted(used, limit),
            (State::Pinning, Input::Pinned(Some(why))) => self.keep(
                None,
                Some("script"),
                format!("Auto mode's reviewer can't approve a script it can't pin down: {why}"),
            ),
            (State::Pinning, Input::Pinned(None)) if self.on_page => {
                self.wait(State::ReadingPage, Step::ReadPage)
            }
            (State::Pinning, Input::Pinned(None)) => {
                self.wait(State::Reviewing { page: None }, Step::Review { page: None })
            }
            (State::ReadingPage, Input::Page(page)) => self.page(page),
            (State::Reviewing { .. }, Input::Unbuilt(why)) => {
                self.keep(None, Some("oversized"), why)
            }
            (
                State::Reviewing { page },
                Input::Replied {
                    prompt,
                    reply,
                    changed,
                },
            ) => self.replied(&prompt, reply, changed, page),
            (State::VerdictBinding { judgement, .. }, Input::Bound(Some(line))) => {
                self.keep(Some(judgement), Some("changed"), line)
            }
            (State::VerdictBinding { judgement, page }, Input::Bound(None)) => {
                let mut record = judged(ReviewOutcome::Allowed, Some(judgement), None);
                record.page = page;
                self.record(record, State::AfterAllowed, Step::Look)
            }
            _ => return Err(()),
        })
    }

    fn counted(&mut self, used: u32, limit: u32) -> Step {
        if used < limit {
            return self.wait(State::Pinning, Step::Pin);
        }
        let sentence = format!(
            "Auto mode's reviewer has turned down {limit} actions this turn, so it won't look at more until the owner writes again. Don't try this another way; finish what you can without it, or ask the owner in your reply."
        );
        self.record(
            judged(ReviewOutcome::Exhausted, None, Some("budget")),
            State::Done,
            refused(vec![Rule::ReviewExhausted], sentence),
        )
    }

    /// A click, or typing the page's script reads, is reviewed with the
    /// page it acts on, whole and redacted.
    fn page(&mut self, page: Result<Page, String>) -> Step {
        let line = match page {
            Ok(p) if p.hidden_values > 0 => "This click would send a password or another secret field the reviewer can't see, so you're asked.".to_owned(),
            Ok(p) if p.complete => {
                return self.wait(
                    State::Reviewing {
                        page: Some(p.redacted.clone()),
                    },
                    Step::Review {
                        page: Some(p.redacted),
                    },
                )
            }
            Ok(_) => {
                "Part of the page is in frames Auto mode's reviewer can't see, so you're asked."
                    .to_owned()
            }
            Err(e) => format!("Auto mode's reviewer couldn't read the page, so you're asked. {e}"),
        };
        self.keep(None, Some("page"), line)
    }

    /// The verdict is for what was shown: the call's arguments and what
    /// they resolve to, and the messages; `changed` says either moved.
    fn replied(
        &mut self,
        prompt: &review::ReviewInput,
        reply: Reply,
        changed: bool,
        page: Option<String>,
    ) -> Step {
        let text = match reply {
            Reply::Stopped => return self.done(Step::Stop),
            Reply::Deadline => {
                let line = "Auto mode's reviewer didn't answer in time, so you're asked.";
                return self.keep(None, Some("deadline"), line.to_owned());
            }
            Reply::Unavailable(e) => {
                let line =
                    format!("Auto mode's reviewer couldn't reach the model, so you're asked. {e}");
                return self.keep(None, Some("unavailable"), line);
            }
            Reply::Text(text) => text,
        };
        if changed {
            let line = "Something changed while Auto mode's reviewer looked, so you're asked.";
            return self.keep(None, Some("changed"), line.to_owned());
        }
        let judgement = match review::parse_verdict(&text, &prompt.ids()) {
            Ok(j) => j,
            Err(e) => {
                let line =
                    format!("Auto mode's reviewer gave no usable verdict, so you're asked. {e}");
                return self.keep(None, Some(e.code()), line);
            }
        };
        match judgement.verdict {
            Verdict::Reject => {
                let sentence = format!(
                    "Auto mode's reviewer turned this down: {} Don't try it another way; do what you can without it, or ask the owner in your reply.",
                    judgement.reason.trim()
                );
                self.record(
                    judged(ReviewOutcome::Rejected, Some(judgement), None),
                    State::Done,
                    refused(vec![Rule::ReviewRejected], sentence),
                )
            }
            Verdict::Ask => {
                let line = format!(
                    "Auto mode's reviewer left this to you: {}",
                    judgement.reason.trim()
                );
                self.keep(Some(judgement), None, line)
            }
            Verdict::Allow => {
                let cited = prompt.cited(&judgement.evidence);
                if review::quote::only_quotations(&cited, &self.needle) {
                    let line = "Auto mode's reviewer cited words you quoted, which aren't a request, so you're asked.";
                    return self.keep(Some(judgement), Some("quoted"), line.to_owned());
                }
                // The page goes with the yes: the click happens only there.
                self.wait(State::VerdictBinding { judgement, page }, Step::Bind)
            }
        }
    }

    /// The question is kept for the owner; `line` says why on it.
    fn keep(&mut self, judgement: Option<Judgement>, problem: Option<&str>, line: String) -> Step {
        self.record(
            judged(ReviewOutcome::Asked, judgement, problem),
            State::AfterReviewOwner(line),
            Step::Look,
        )
    }

    fn record(&mut self, judged: Judged, next: State, then: Step) -> Step {
        self.state = next;
        Step::Record {
            judged,
            then: Box::new(then),
        }
    }
}
