//! Words to the events that hold them, and a query's newest matches.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::frozen::Frozen;
use crate::postings::{each, Postings};
use crate::words::words;

/// Only this much of one event's text is read into the index: a file of
/// megabytes printed by a command is found by its start.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// A query's words that count: the first dozen (each one read is a pass
/// over its lists, so a pasted paragraph can't make one search cost seconds).
pub const MAX_TERMS: usize = 12;

/// New words kept apart before a merge, at the least.
const FRESH_WORDS: usize = 50_000;

/// What part of a chat the text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Someone's message: the owner's, a person's, a routine's.
    Message,
    /// The assistant's words.
    Reply,
    /// What a tool was asked (a command, an address, a path).
    Call,
    /// What a tool gave back.
    Output,
    /// An artifact's title.
    Artifact,
    /// A name the owner gave the chat.
    Title,
}

impl Kind {
    /// The API's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Message => "message",
            Kind::Reply => "reply",
            Kind::Call => "call",
            Kind::Output => "output",
            Kind::Artifact => "artifact",
            Kind::Title => "title",
        }
    }
}

/// Where the caller can read the event again (its line in the log); kept
/// as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Place {
    pub start: u64,
    pub len: u32,
}

/// 32 bytes: a home of a million events holds 32 MB of these.
#[derive(Debug, Clone, Copy)]
struct Doc {
    at_ms: i64,
    start: u64,
    /// A chat never reaches four billion events; one that did would show
    /// the wrong line for the later ones, not fail.
    seq: u32,
    len: u32,
    chat: u32,
    kind: Kind,
}

/// One match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub chat: String,
    pub seq: u64,
    pub at_ms: i64,
    pub kind: Kind,
    pub place: Place,
}

/// What a query found: the newest `limit` matches, and how many in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    pub hits: Vec<Hit>,
    pub total: usize,
}

#[derive(Debug)]
struct Chat {
    id: Box<str>,
    /// In the trash: not searched until it is put back.
    hidden: bool,
    last_seq: u64,
}

#[derive(Debug, Default)]
pub struct Index {
    docs: Vec<Doc>,
    /// Most words, flat (see `frozen`).
    frozen: Frozen,
    /// Words met since the last merge, in no order: a search reads them
    /// all, and they are at most a quarter of the words.
    fresh: HashMap<Box<str>, Postings>,
    chats: Vec<Chat>,
    by_id: HashMap<Box<str>, u32>,
}

impl Index {
    pub fn new() -> Index {
        Index::default()
    }

    fn chat(&mut self, id: &str) -> u32 {
        if let Some(&i) = self.by_id.get(id) {
            return i;
        }
        let i = self.chats.len() as u32;
        self.chats.push(Chat {
            id: id.into(),
            hidden: false,
            last_seq: 0,
        });
        self.by_id.insert(id.into(), i);
        i
    }

    /// Adds an event's text. An event at or below the chat's last `seq`
    /// was added already (a build and the live appends can both see it).
    pub fn add(&mut self, chat: &str, seq: u64, at_ms: i64, kind: Kind, text: &str, place: Place) {
        let c = self.chat(chat);
        let Some(entry) = self.chats.get_mut(c as usize) else {
            return;
        };
        if seq <= entry.last_seq {
            return;
        }
        entry.last_seq = seq;
        let Ok(doc) = u32::try_from(self.docs.len()) else {
            return;
        };
        let mut cut = text.len().min(MAX_TEXT_BYTES);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let before = self.fresh.len();
        let fresh = &mut self.fresh;
        let mut any = false;
        // A word met twice in one event is pushed once: a list ignores an
        // event it ends with already.
        words(&text[..cut], |w| {
            any = true;
            match fresh.get_mut(w.folded) {
                Some(p) => p.push(doc),
                None => {
                    let mut p = Postings::default();
                    p.push(doc);
                    fresh.insert(w.folded.into(), p);
                }
            }
        });
        if !any {
            return;
        }
        self.docs.push(Doc {
            at_ms,
            start: place.start,
            seq: seq as u32,
            len: place.len,
            chat: c,
            kind,
        });
        if self.fresh.len() == before {
            return;
        }
        // Merged when the new words are a quarter of the old: each word is
        // copied a few times in all, however large the index grows.
        if self.fresh.len() >= FRESH_WORDS.max(self.frozen.len() / 4) {
            self.settle();
        }
    }

    /// Merges the words met since the last merge into the flat ones.
    pub fn settle(&mut self) {
        let mut fresh: Vec<(Box<str>, Postings)> =
            std::mem::take(&mut self.fresh).into_iter().collect();
        fresh.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        self.frozen = std::mem::take(&mut self.frozen).merge(fresh);
    }

    /// The chat went to the trash (`true`) or came back (`false`).
    pub fn hide(&mut self, id: &str, hidden: bool) {
        let c = self.chat(id);
        if let Some(entry) = self.chats.get_mut(c as usize) {
            entry.hidden = hidden;
        }
    }

    /// Events held.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Bytes held, roughly: for the memory figure.
    pub fn size(&self) -> usize {
        let fresh: usize = self
            .fresh
            .iter()
            .map(|(k, p)| k.len() + p.bytes.capacity() + 64)
            .sum();
        self.frozen.size() + fresh + self.docs.capacity() * std::mem::size_of::<Doc>()
    }

    /// The words of a query as the index keeps them, the rarest first;
    /// None when one of them is in no event.
    fn terms(&self, query: &str) -> Option<Vec<Term<'_>>> {
        let mut folded: Vec<String> = Vec::new();
        words(query, |w| {
            if folded.len() < MAX_TERMS && !folded.iter().any(|f| f == w.folded) {
                folded.push(w.folded.to_owned());
            }
        });
        let mut terms = Vec::with_capacity(folded.len());
        for term in &folded {
            let mut lists: Vec<&[u8]> = Vec::new();
            let mut size = self.frozen.prefixed(term, &mut lists);
            for (_, p) in self
                .fresh
                .iter()
                .filter(|(k, _)| k.starts_with(term.as_str()))
            {
                lists.push(&p.bytes);
                size += p.bytes.len();
            }
            if size == 0 {
                return None;
            }
            terms.push((size, lists));
        }
        terms.sort_by_key(|t| t.0);
        Some(terms)
    }

    /// The newest `limit` events holding every word of `query` (each as
    /// the start of a word), in chats not in the trash.
    pub fn find(&self, query: &str, limit: usize) -> Found {
        let Some(terms) = self.terms(query) else {
            return Found::default();
        };
        if terms.is_empty() {
            return Found::default();
        }
        let mut all = Bits::new(self.docs.len());
        let mut one = Bits::new(self.docs.len());
        for (i, (_, lists)) in terms.iter().enumerate() {
            let target = if i == 0 { &mut all } else { &mut one };
            target.clear();
            for list in lists {
                each(list, |d| target.set(d));
            }
            if i > 0 {
                all.and(&one);
            }
        }
        let mut newest: BinaryHeap<Reverse<(i64, u32)>> = BinaryHeap::with_capacity(limit + 1);
        let mut total = 0;
        all.each(|d| {
            let Some(doc) = self.docs.get(d as usize) else {
                return;
            };
            if self.chats.get(doc.chat as usize).is_none_or(|c| c.hidden) {
                return;
            }
            total += 1;
            newest.push(Reverse((doc.at_ms, d)));
            if newest.len() > limit {
                newest.pop();
            }
        });
        let mut hits: Vec<Hit> = newest
            .into_sorted_vec()
            .into_iter()
            .filter_map(|Reverse((_, d))| self.hit(d))
            .collect();
        hits.truncate(limit);
        Found { hits, total }
    }

    fn hit(&self, d: u32) -> Option<Hit> {
        let doc = self.docs.get(d as usize)?;
        Some(Hit {
            chat: self.chats.get(doc.chat as usize)?.id.to_string(),
            seq: u64::from(doc.seq),
            at_ms: doc.at_ms,
            kind: doc.kind,
            place: Place {
                start: doc.start,
                len: doc.len,
            },
        })
    }
}

/// A query's word: how many bytes its lists hold, and the lists (of
/// every word it begins).
type Term<'a> = (usize, Vec<&'a [u8]>);

/// One bit per event.
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }

    fn clear(&mut self) {
        self.0.fill(0);
    }

    fn set(&mut self, i: u32) {
        if let Some(w) = self.0.get_mut(i as usize / 64) {
            *w |= 1 << (i % 64);
        }
    }

    fn and(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= b;
        }
    }

    fn each(&self, mut f: impl FnMut(u32)) {
        for (i, &w) in self.0.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                let bit = w.trailing_zeros();
                f(i as u32 * 64 + bit);
                w &= w - 1;
            }
        }
    }
}
