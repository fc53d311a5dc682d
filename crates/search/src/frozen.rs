//! Words in order with their events, in a few flat arrays: a word costs
//! its letters and a few numbers, not a node, a key and a list of its own
//! on the heap. New words gather in a small map and are merged in now and
//! then (`Index::add`), so a search reads both.

use crate::postings::{each, first, push_gap, Postings};

#[derive(Debug, Default)]
pub struct Frozen {
    /// Every word's letters, one after the other.
    text: String,
    /// Where each word ends in `text`.
    text_ends: Vec<u32>,
    /// Every word's list, one after the other.
    lists: Vec<u8>,
    /// Where each list ends in `lists`.
    list_ends: Vec<u64>,
}

impl Frozen {
    pub fn len(&self) -> usize {
        self.text_ends.len()
    }

    fn word(&self, i: usize) -> &str {
        let start = if i == 0 {
            0
        } else {
            self.text_ends[i - 1] as usize
        };
        self.text
            .get(start..self.text_ends[i] as usize)
            .unwrap_or_default()
    }

    fn list(&self, i: usize) -> &[u8] {
        let start = if i == 0 {
            0
        } else {
            self.list_ends[i - 1] as usize
        };
        self.lists
            .get(start..self.list_ends[i] as usize)
            .unwrap_or_default()
    }

    /// The lists of every word beginning with `prefix`, and their bytes
    /// (a list's bytes stand for its length: most events take one).
    pub fn prefixed<'a>(&'a self, prefix: &str, out: &mut Vec<&'a [u8]>) -> usize {
        let mut i = self.lower_bound(prefix);
        let mut total = 0;
        while i < self.len() && self.word(i).starts_with(prefix) {
            let list = self.list(i);
            out.push(list);
            total += list.len();
            i += 1;
        }
        total
    }

    fn lower_bound(&self, word: &str) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.word(mid) < word {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    fn push(&mut self, word: &str, list: &[u8]) {
        self.lists.extend_from_slice(list);
        self.close(word);
    }

    /// Ends the word whose list was just written.
    fn close(&mut self, word: &str) {
        self.text.push_str(word);
        self.text_ends.push(self.text.len() as u32);
        self.list_ends.push(self.lists.len() as u64);
    }

    /// This and `fresh` (in order) as one: a word in both keeps this list, then the
    /// fresh one's events (all later).
    pub fn merge(self, fresh: Vec<(Box<str>, Postings)>) -> Frozen {
        // Sized to the byte, as this is most of what search holds. A word in
        // both may take up to 4 bytes more for its joining distance.
        let words = self.len() + fresh.len();
        let text: usize = fresh.iter().map(|(k, _)| k.len()).sum();
        let lists: usize = fresh.iter().map(|(_, p)| p.bytes.len() + 4).sum();
        let mut out = Frozen {
            text: String::with_capacity(self.text.len() + text),
            text_ends: Vec::with_capacity(words),
            lists: Vec::with_capacity(self.lists.len() + lists),
            list_ends: Vec::with_capacity(words),
        };
        let mut fresh = fresh.into_iter().peekable();
        let mut i = 0;
        while i < self.len() || fresh.peek().is_some() {
            let old = (i < self.len()).then(|| self.word(i));
            match (old, fresh.peek()) {
                (Some(w), Some((f, _))) if w == &**f => {
                    let Some((_, p)) = fresh.next() else { break };
                    let old = self.list(i);
                    out.lists.extend_from_slice(old);
                    let (doc, used) = first(&p.bytes);
                    push_gap(&mut out.lists, doc.saturating_sub(last(old)));
                    out.lists
                        .extend_from_slice(p.bytes.get(used..).unwrap_or_default());
                    out.close(w);
                    i += 1;
                }
                (Some(w), Some((f, _))) if w > &**f => {
                    let Some((f, p)) = fresh.next() else { break };
                    out.push(&f, &p.bytes);
                }
                (None, Some(_)) => {
                    let Some((f, p)) = fresh.next() else { break };
                    out.push(&f, &p.bytes);
                }
                (Some(w), _) => {
                    out.push(w, self.list(i));
                    i += 1;
                }
                (None, None) => break,
            }
        }
        out
    }

    /// Bytes held.
    pub fn size(&self) -> usize {
        self.text.capacity()
            + self.lists.capacity()
            + self.text_ends.capacity() * 4
            + self.list_ends.capacity() * 8
    }
}

/// A list's last event.
fn last(list: &[u8]) -> u32 {
    let mut out = 0;
    each(list, |d| out = d);
    out
}
