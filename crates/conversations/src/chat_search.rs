//! Search inside chats (issue 36): the words of messages, replies, tool
//! calls and outputs, artifacts' titles and chats' names, found with the
//! line that holds them.
//!
//! The index (`search`, pure) is built the first time a search is made, by
//! reading every chat's log once, then kept up to date by the append path
//! (see [`BuiltOnce`]). It keeps where each event's line is in its log, not
//! its text: a result's line is read again from the log and cut there, so
//! the index holds numbers, not a second copy of every chat. Chats in the
//! trash aren't searched.

use std::borrow::Cow;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use protocol::{Body, Event};
use search::{Index, Kind, Place};
use serde::Serialize;

use crate::built_once::BuiltOnce;
use crate::log::scan::{scan_spans, Span};
use crate::log::LOG_FILE;

/// Characters of a result's line.
const LINE_CHARS: usize = 160;

/// One match, as the API gives it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    pub chat: String,
    /// The event: the chat opens there (`?at=`).
    pub seq: u64,
    pub at: String,
    /// `message`, `reply`, `call`, `output`, `artifact` or `title`.
    pub kind: &'static str,
    /// The line that holds the words, cut around them.
    pub line: String,
    /// `line` in order, split at the matches.
    pub parts: Vec<Part>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Part {
    pub text: String,
    #[serde(rename = "match", skip_serializing_if = "std::ops::Not::not")]
    pub matched: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct SearchResults {
    pub results: Vec<SearchResult>,
    /// Events matching in all, of which `results` are the newest.
    pub total: usize,
}

type Late = (String, Box<Event>, Span);

pub struct ChatSearch {
    chats_dir: PathBuf,
    index: BuiltOnce<Index, Late>,
}

/// What of an event is searched, and as what.
fn text_of(event: &Event) -> Option<(Kind, Cow<'_, str>)> {
    Some(match &event.body {
        Body::Message(m) => (Kind::Message, Cow::Borrowed(m.text.as_str())),
        Body::Reply(r) => (Kind::Reply, Cow::Borrowed(r.text.as_str())),
        Body::ToolCalled(c) => {
            let mut strings = Vec::new();
            collect_strings(&c.input, &mut strings);
            (Kind::Call, Cow::Owned(strings.join("\n")))
        }
        Body::ToolFinished(f) => (Kind::Output, Cow::Borrowed(f.output.as_str())),
        Body::Artifact(a) => (Kind::Artifact, Cow::Borrowed(a.title.as_str())),
        Body::ChatRenamed(r) => (Kind::Title, Cow::Borrowed(r.title.as_str())),
        _ => return None,
    })
}

/// A call's arguments that are words (a command, a path, an address).
fn collect_strings<'a>(value: &'a serde_json::Value, out: &mut Vec<&'a str>) {
    match value {
        serde_json::Value::String(s) => out.push(s),
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

fn add(index: &mut Index, chat: &str, event: &Event, span: Span) {
    if let Some((kind, text)) = text_of(event) {
        let at = protocol::parse_rfc3339(&event.at).unwrap_or(0);
        let place = Place {
            start: span.start,
            len: span.len,
        };
        index.add(chat, event.seq, at, kind, &text, place);
    }
}

/// Every event of a log, with its line's place.
fn read_log(path: &Path, mut each: impl FnMut(&Event, Span)) {
    let Ok(bytes) = std::fs::read(path) else {
        return;
    };
    scan_spans(&bytes, |e, span| each(e, span));
}

impl ChatSearch {
    pub fn new(chats_dir: &Path) -> ChatSearch {
        ChatSearch {
            chats_dir: chats_dir.to_path_buf(),
            index: BuiltOnce::default(),
        }
    }

    /// Reads every chat's log, unless that was done already.
    pub fn build(&self) {
        self.index.build(
            || {
                let mut index = Index::new();
                for id in crate::ids::chat_dirs(&self.chats_dir) {
                    let path = self.chats_dir.join(&id).join(LOG_FILE);
                    read_log(&path, |e, span| add(&mut index, &id, e, span));
                }
                index
            },
            |index, (chat, event, span)| add(index, &chat, &event, span),
        );
    }

    /// An event was committed to `chat`'s log.
    pub fn observe(&self, chat: &str, event: &Event, span: Span) {
        if text_of(event).is_none() {
            return;
        }
        self.index.take_in(
            |index| add(index, chat, event, span),
            || (chat.to_owned(), Box::new(event.clone()), span),
        );
    }

    /// The chat went to the trash: it isn't searched.
    pub fn deleted(&self, chat: &str) {
        if let Some(index) = self.index.write().as_mut() {
            index.hide(chat, true);
        }
    }

    /// The chat came back: searched again, with what the build didn't see
    /// (it was in the trash then).
    pub fn restored(&self, chat: &str) {
        let mut guard = self.index.write();
        if let Some(index) = guard.as_mut() {
            index.hide(chat, false);
            let path = self.chats_dir.join(chat).join(LOG_FILE);
            read_log(&path, |e, span| add(index, chat, e, span));
        }
    }

    /// The newest `limit` events holding every word of `query`.
    pub fn find(&self, query: &str, limit: usize) -> SearchResults {
        self.build();
        let found = match self.index.read().as_ref() {
            Some(index) => index.find(query, limit.clamp(1, 200)),
            None => return SearchResults::default(),
        };
        let results = found
            .hits
            .iter()
            .filter_map(|hit| {
                let event = self.event_at(&hit.chat, hit.seq, hit.place)?;
                let (kind, text) = text_of(&event)?;
                let shown = search::snippet(&text, query, LINE_CHARS)?;
                Some(SearchResult {
                    chat: hit.chat.clone(),
                    seq: hit.seq,
                    at: event.at.clone(),
                    kind: kind.as_str(),
                    parts: parts(&shown),
                    line: shown.line,
                })
            })
            .collect();
        SearchResults {
            results,
            total: found.total,
        }
    }

    /// The event from its line; from the whole log when the line moved (a
    /// repair rewrote the log).
    fn event_at(&self, chat: &str, seq: u64, place: Place) -> Option<Event> {
        let path = self.chats_dir.join(chat).join(LOG_FILE);
        let file = std::fs::File::open(&path).ok()?;
        let mut line = vec![0u8; place.len as usize];
        if file.read_exact_at(&mut line, place.start).is_ok() {
            if let Ok(event) = Event::from_line(&line) {
                if event.seq == seq {
                    return Some(event);
                }
            }
        }
        let mut found = None;
        read_log(&path, |e, _| {
            if e.seq == seq {
                found = Some(e.clone());
            }
        });
        found
    }

    /// Events held (for the benchmark and the memory figure).
    pub fn size(&self) -> (usize, usize) {
        self.build();
        self.index
            .read()
            .as_ref()
            .map_or((0, 0), |i| (i.len(), i.size()))
    }
}

/// The line split at its marks.
fn parts(shown: &search::Snippet) -> Vec<Part> {
    let mut out = Vec::new();
    let mut at = 0;
    for &(s, e) in &shown.marks {
        if s > at {
            out.push(Part {
                text: shown.line.get(at..s).unwrap_or_default().to_owned(),
                matched: false,
            });
        }
        out.push(Part {
            text: shown.line.get(s..e).unwrap_or_default().to_owned(),
            matched: true,
        });
        at = e;
    }
    if at < shown.line.len() {
        out.push(Part {
            text: shown.line.get(at..).unwrap_or_default().to_owned(),
            matched: false,
        });
    }
    out
}
