//! The chat's basic state, folded from its log one event at a time.
//!
//! `apply` is O(1) per event, so a reader that keeps a view up to date as the
//! log grows pays only for the new events, and one that opens a chat pays one
//! pass.

use crate::body::{Body, ChatCreated, Mode};
use crate::event::Event;

/// A turn that has started and not ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenTurn {
    /// The `seq` of its `turn.started`.
    pub seq: u64,
}

/// What every reader agrees a chat is, from its log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatView {
    pub created: Option<ChatCreated>,
    /// The mode now: the last `mode.changed`, else the one it was created with.
    pub mode: Option<Mode>,
    pub last_seq: u64,
    pub open_turn: Option<OpenTurn>,
    /// The first owner message, shortened: what a list of chats shows.
    pub title: Option<String>,
    pub messages: u64,
    pub turns: u64,
    last_message: u64,
    last_turn_started: u64,
}

const TITLE_CHARS: usize = 80;

impl ChatView {
    pub fn fold<'a>(events: impl IntoIterator<Item = &'a Event>) -> ChatView {
        let mut view = ChatView::default();
        for event in events {
            view.apply(event);
        }
        view
    }

    pub fn apply(&mut self, event: &Event) {
        self.last_seq = self.last_seq.max(event.seq);
        match &event.body {
            Body::ChatCreated(created) => {
                self.mode.get_or_insert(created.mode);
                self.created = Some(created.clone());
            }
            Body::ModeChanged(changed) => self.mode = Some(changed.mode),
            Body::Message(message) => {
                self.messages += 1;
                self.last_message = event.seq;
                if self.title.is_none() && message.from == crate::Speaker::Owner {
                    self.title = Some(shorten(&message.text));
                }
            }
            Body::TurnStarted(_) => {
                self.turns += 1;
                self.last_turn_started = event.seq;
                self.open_turn = Some(OpenTurn { seq: event.seq });
            }
            Body::TurnEnded(ended) if self.open_turn.map(|t| t.seq) == Some(ended.turn) => {
                self.open_turn = None;
            }
            _ => {}
        }
    }

    /// A message arrived after the last turn started: a turn should run for it.
    pub fn waiting_for_turn(&self) -> bool {
        self.open_turn.is_none() && self.last_message > self.last_turn_started
    }
}

fn shorten(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= TITLE_CHARS {
        return line;
    }
    let mut short: String = line.chars().take(TITLE_CHARS - 1).collect();
    short.push('…');
    short
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::*;

    fn ev(seq: u64, body: Body) -> Event {
        Event {
            seq,
            id: format!("e{seq}"),
            at: "t".into(),
            body,
        }
    }

    fn msg(text: &str, from: Speaker) -> Body {
        Body::Message(Message {
            from,
            text: text.into(),
            name: None,
            app: None,
        })
    }

    #[test]
    fn tracks_mode_turns_and_waiting_messages() {
        let log = vec![
            ev(
                1,
                Body::ChatCreated(ChatCreated {
                    work: "/w".into(),
                    mode: Mode::Ask,
                    origin: Origin::Owner,
                    parent: None,
                }),
            ),
            ev(2, msg("hello   there\nfriend", Speaker::Owner)),
        ];
        let mut view = ChatView::fold(&log);
        assert_eq!(view.mode, Some(Mode::Ask));
        assert_eq!(view.title.as_deref(), Some("hello there friend"));
        assert!(view.waiting_for_turn());

        view.apply(&ev(
            3,
            Body::TurnStarted(TurnStarted {
                engine: "mock".into(),
                model: None,
            }),
        ));
        assert_eq!(view.open_turn, Some(OpenTurn { seq: 3 }));
        assert!(!view.waiting_for_turn());
        view.apply(&ev(4, msg("queued", Speaker::Owner)));
        assert!(!view.waiting_for_turn(), "a turn is still running");
        view.apply(&ev(
            5,
            Body::TurnEnded(TurnEnded {
                turn: 3,
                reason: EndReason::Done,
                error: None,
            }),
        ));
        assert_eq!(view.open_turn, None);
        assert!(view.waiting_for_turn(), "the queued message wants a turn");
        view.apply(&ev(6, Body::ModeChanged(ModeChanged { mode: Mode::Full })));
        assert_eq!(view.mode, Some(Mode::Full));
        assert_eq!(view.last_seq, 6);
        assert_eq!(view.title.as_deref(), Some("hello there friend"));
    }

    #[test]
    fn unknown_events_are_skipped() {
        let mut view = ChatView::default();
        view.apply(&ev(
            1,
            Body::Unknown {
                kind: "future.thing".into(),
            },
        ));
        assert_eq!(view.last_seq, 1);
        assert_eq!(view.messages, 0);
    }

    #[test]
    fn long_titles_are_shortened() {
        let view = ChatView::fold(&[ev(1, msg(&"word ".repeat(40), Speaker::Owner))]);
        let title = view.title.unwrap();
        assert_eq!(title.chars().count(), TITLE_CHARS);
        assert!(title.ends_with('…'));
    }
}
