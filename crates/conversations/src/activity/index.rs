use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use protocol::{ActivityChange, ActivityFold, ActivityKind, ActivityRow, Body, Event, Speaker};

use crate::built_once::BuiltOnce;
use crate::security::{Attempt, SpellChange, SpellFold};
use serde::Serialize;

/// A row's place in time: newest first is this order, reversed. Two events
/// in the same millisecond are told apart by chat and `seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cursor {
    pub at_ms: i64,
    chat: u32,
    pub seq: u64,
}

struct Chat {
    id: String,
    title: Option<String>,
    /// In the trash: its rows stay, marked.
    deleted: bool,
    fold: ActivityFold,
    last_seq: u64,
}

struct Inner {
    chats: Vec<Chat>,
    by_id: HashMap<String, u32>,
    rows: HashMap<(u32, u64), (Cursor, ActivityRow)>,
    all: BTreeSet<Cursor>,
    by_kind: HashMap<ActivityKind, BTreeSet<Cursor>>,
    totals: Totals,
    /// Tries to get in (`security.jsonl`), shown as the pseudo-chat
    /// `security`.
    security: SpellFold,
}

/// The id rows from `security.jsonl` are listed under.
pub const SECURITY_CHAT: &str = "security";

/// One row as a page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct PageRow {
    /// Where this row is in time, for `before`.
    pub cursor: String,
    pub chat: String,
    #[serde(rename = "chatTitle")]
    pub chat_title: Option<String>,
    /// The chat is in the trash (Settings → Trash puts it back).
    #[serde(rename = "chatDeleted", skip_serializing_if = "std::ops::Not::not")]
    pub chat_deleted: bool,
    #[serde(flatten)]
    pub row: ActivityRow,
}

#[derive(Debug, Clone, Serialize)]
pub struct ActivityPage {
    pub rows: Vec<PageRow>,
    /// Pass as `before` for the next page; absent at the end.
    pub next: Option<String>,
    /// Counts across every chat, whatever the page.
    pub totals: Totals,
}

/// Auto mode's judgement counters: counts of `review.judged` outcomes,
/// nothing of what was reviewed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub review_allowed: u64,
    pub review_rejected: u64,
    pub review_asked: u64,
    pub review_exhausted: u64,
}

impl Totals {
    fn count(&mut self, outcome: protocol::ReviewOutcome) {
        use protocol::ReviewOutcome::*;
        let n = match outcome {
            Allowed => &mut self.review_allowed,
            Rejected => &mut self.review_rejected,
            Asked => &mut self.review_asked,
            Exhausted => &mut self.review_exhausted,
        };
        *n += 1;
    }
}

impl Cursor {
    fn text(&self, inner: &Inner) -> String {
        let chat = inner
            .chats
            .get(self.chat as usize)
            .map_or("", |c| c.id.as_str());
        format!("{}.{}.{}", self.at_ms, chat, self.seq)
    }

    /// Reads `at_ms.chat.seq`.
    fn parse(text: &str, inner: &Inner) -> Option<Cursor> {
        let mut parts = text.splitn(3, '.');
        let at_ms = parts.next()?.parse().ok()?;
        let chat_id = parts.next()?;
        let seq = parts.next()?.parse().ok()?;
        // A chat the index doesn't know sorts as the highest of its
        // millisecond's chats would: nothing of that moment is skipped.
        let chat = inner.by_id.get(chat_id).copied().unwrap_or(u32::MAX);
        Some(Cursor { at_ms, chat, seq })
    }
}

impl Inner {
    fn new() -> Inner {
        Inner {
            chats: Vec::new(),
            by_id: HashMap::new(),
            rows: HashMap::new(),
            all: BTreeSet::new(),
            by_kind: HashMap::new(),
            totals: Totals::default(),
            security: SpellFold::default(),
        }
    }

    /// Adds a row, or puts it where it now belongs when it was there.
    fn put(&mut self, chat: u32, row: ActivityRow) {
        let cursor = Cursor {
            at_ms: protocol::parse_rfc3339(&row.at).unwrap_or(0),
            chat,
            seq: row.seq,
        };
        if let Some((was, _)) = self.rows.get(&(chat, row.seq)) {
            let was = *was;
            self.all.remove(&was);
            for set in self.by_kind.values_mut() {
                set.remove(&was);
            }
        }
        self.all.insert(cursor);
        self.by_kind.entry(row.kind).or_default().insert(cursor);
        self.rows.insert((chat, row.seq), (cursor, row));
    }

    fn apply_security(&mut self, attempt: &Attempt) {
        let Some(change) = self.security.apply(attempt) else {
            return;
        };
        let chat = self.chat_index(SECURITY_CHAT);
        if let Some(c) = self.chats.get_mut(chat as usize) {
            c.title.get_or_insert_with(|| "Signing in".to_owned());
        }
        let spell = match change {
            SpellChange::New(spell) | SpellChange::Grew { spell, .. } => spell,
        };
        self.put(chat, spell.row());
    }

    fn chat_index(&mut self, id: &str) -> u32 {
        if let Some(i) = self.by_id.get(id) {
            return *i;
        }
        let i = self.chats.len() as u32;
        self.chats.push(Chat {
            id: id.to_owned(),
            title: None,
            deleted: false,
            fold: ActivityFold::default(),
            last_seq: 0,
        });
        self.by_id.insert(id.to_owned(), i);
        i
    }

    fn apply(&mut self, chat: u32, event: &Event) {
        let Some(c) = self.chats.get_mut(chat as usize) else {
            return;
        };
        if event.seq <= c.last_seq {
            return;
        }
        c.last_seq = event.seq;
        if let Body::ReviewJudged(j) = &event.body {
            self.totals.count(j.outcome);
        }
        match &event.body {
            Body::Message(m) if c.title.is_none() && m.from == Speaker::Owner => {
                c.title = Some(protocol::title::plain(&m.text));
            }
            Body::ChatRenamed(r) => c.title = Some(protocol::title::plain(&r.title)),
            _ => {}
        }
        for change in c.fold.apply(event) {
            match change {
                ActivityChange::New(row) => self.put(chat, row),
                ActivityChange::State {
                    seq,
                    state,
                    ask,
                    says,
                } => {
                    if let Some((_, row)) = self.rows.get_mut(&(chat, seq)) {
                        row.state = Some(state);
                        row.ask = ask;
                        if let Some(says) = says {
                            row.says = says;
                        }
                        // A held memory the owner decided about waits no more.
                        if row.ask.is_none() {
                            row.memory = None;
                        }
                    }
                }
            }
        }
    }
}

/// Something committed while the index was being built.
enum Late {
    Event(String, Box<Event>),
    Attempt(Attempt),
}

/// The Activity index for one home.
pub struct Activity {
    chats_dir: PathBuf,
    security: PathBuf,
    inner: BuiltOnce<Inner, Late>,
}

fn read_log(path: &Path, mut each: impl FnMut(&Event)) {
    let Ok(bytes) = std::fs::read(path) else {
        return;
    };
    crate::log::scan::scan(&bytes, |e| each(e));
}

impl Activity {
    pub fn new(chats_dir: &Path) -> Activity {
        Activity {
            chats_dir: chats_dir.to_path_buf(),
            security: chats_dir
                .parent()
                .unwrap_or(chats_dir)
                .join(crate::security::SECURITY_FILE),
            inner: BuiltOnce::default(),
        }
    }

    /// Reads every chat's log, unless that was done already (see
    /// [`BuiltOnce`]).
    pub fn build(&self) {
        self.inner.build(
            || self.read_all(),
            |inner, late| match late {
                Late::Event(chat, event) => {
                    let i = inner.chat_index(&chat);
                    inner.apply(i, &event);
                }
                Late::Attempt(attempt) => inner.apply_security(&attempt),
            },
        );
    }

    fn read_all(&self) -> Inner {
        let mut inner = Inner::new();
        let dirs = crate::ids::chat_dirs(&self.chats_dir);
        for id in &dirs {
            let chat = inner.chat_index(id);
            let path = self.chats_dir.join(id).join(crate::log::LOG_FILE);
            read_log(&path, |e| inner.apply(chat, e));
        }
        // Deleted chats' rows stay, marked; one deleted twice is read once.
        let trash = self.trash();
        let mut trashed: Vec<(String, PathBuf)> = std::fs::read_dir(&trash)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let id = name.split('.').next()?.to_owned();
                crate::ids::is_valid_id(&id).then(|| (id, e.path()))
            })
            .filter(|(id, _)| dirs.binary_search(id).is_err())
            .collect();
        // The latest deletion of a chat deleted twice comes first.
        trashed.sort_by(|a, b| b.cmp(a));
        trashed.dedup_by(|a, b| a.0 == b.0);
        for (id, dir) in trashed {
            let chat = inner.chat_index(&id);
            read_log(&dir.join(crate::log::LOG_FILE), |e| inner.apply(chat, e));
            if let Some(c) = inner.chats.get_mut(chat as usize) {
                c.deleted = true;
            }
        }
        for attempt in crate::security::read(&self.security) {
            inner.apply_security(&attempt);
        }
        inner
    }

    /// Where deleted chats' folders are (`trash/chats` beside `chats`).
    fn trash(&self) -> PathBuf {
        self.chats_dir
            .parent()
            .unwrap_or(&self.chats_dir)
            .join(crate::home::TRASH_DIR)
            .join("chats")
    }

    /// A failed try to get in was written to `security.jsonl`.
    pub fn observe_security(&self, attempt: &Attempt) {
        self.inner.take_in(
            |inner| inner.apply_security(attempt),
            || Late::Attempt(attempt.clone()),
        );
    }

    /// An event was committed to `chat`'s log.
    pub fn observe(&self, chat: &str, event: &Event) {
        self.inner.take_in(
            |inner| {
                let i = inner.chat_index(chat);
                inner.apply(i, event);
            },
            || Late::Event(chat.to_owned(), Box::new(event.clone())),
        );
    }

    /// The page of rows older than `before` (newest first), of `kinds` (all
    /// when empty); `waiting` keeps only what still waits for the owner:
    /// questions, and held memories ("Keep this memory?").
    pub fn page(
        &self,
        before: Option<&str>,
        kinds: &[ActivityKind],
        waiting: bool,
        limit: usize,
    ) -> ActivityPage {
        self.build();
        let guard = self.inner.read();
        let Some(inner) = guard.as_ref() else {
            return ActivityPage {
                rows: Vec::new(),
                next: None,
                totals: Totals::default(),
            };
        };
        let upper = before.and_then(|b| Cursor::parse(b, inner));
        let limit = limit.clamp(1, 500);
        let mut sets: Vec<&BTreeSet<Cursor>> = if kinds.is_empty() {
            vec![&inner.all]
        } else {
            kinds.iter().filter_map(|k| inner.by_kind.get(k)).collect()
        };
        if waiting {
            sets = [ActivityKind::Question, ActivityKind::Memory]
                .iter()
                .filter_map(|k| inner.by_kind.get(k))
                .collect();
        }
        // Merge the sets newest first.
        let mut iters: Vec<_> = sets
            .iter()
            .map(|s| match upper {
                Some(u) => s.range(..u).rev().peekable(),
                None => s.range(..).rev().peekable(),
            })
            .collect();
        let mut rows = Vec::new();
        loop {
            let mut best: Option<(usize, Cursor)> = None;
            for (i, it) in iters.iter_mut().enumerate() {
                if let Some(c) = it.peek() {
                    if best.is_none_or(|(_, b)| **c > b) {
                        best = Some((i, **c));
                    }
                }
            }
            let Some((i, cursor)) = best else {
                break;
            };
            iters[i].next();
            let Some((_, row)) = inner.rows.get(&(cursor.chat, cursor.seq)) else {
                continue;
            };
            if waiting && row.ask.is_none() && row.memory.is_none() {
                continue;
            }
            let chat = &inner.chats[cursor.chat as usize];
            rows.push(PageRow {
                cursor: cursor.text(inner),
                chat: chat.id.clone(),
                chat_title: chat.title.clone(),
                chat_deleted: chat.deleted,
                row: row.clone(),
            });
            if rows.len() == limit {
                break;
            }
        }
        let next = (rows.len() == limit)
            .then(|| rows.last().map(|r| r.cursor.clone()))
            .flatten();
        ActivityPage {
            rows,
            next,
            totals: inner.totals,
        }
    }

    /// A chat was deleted: its rows stay, marked, until it is restored
    /// (or purged from the trash, when the next start doesn't find it).
    pub fn forget(&self, chat: &str) {
        self.mark_deleted(chat, true);
    }

    /// A chat came back from the trash.
    pub fn restored(&self, chat: &str) {
        self.mark_deleted(chat, false);
    }

    fn mark_deleted(&self, chat: &str, deleted: bool) {
        let mut guard = self.inner.write();
        let Some(inner) = guard.as_mut() else {
            return;
        };
        if let Some(&i) = inner.by_id.get(chat) {
            if let Some(c) = inner.chats.get_mut(i as usize) {
                c.deleted = deleted;
            }
        }
    }

    /// Auto mode's judgement counters across every chat.
    pub fn totals(&self) -> Totals {
        self.build();
        let guard = self.inner.read();
        guard.as_ref().map(|i| i.totals).unwrap_or_default()
    }

    /// Rows in the index (for the benchmark), and chats.
    pub fn size(&self) -> (usize, usize) {
        self.build();
        let guard = self.inner.read();
        guard
            .as_ref()
            .map_or((0, 0), |i| (i.rows.len(), i.chats.len()))
    }
}
