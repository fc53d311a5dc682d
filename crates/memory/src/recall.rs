//! `recall(query)`: the kept memories that share the most telling words
//! with a query. An inverted index of words (roughly stemmed) and, for
//! Japanese and Chinese, character pairs; each shared word counts by how
//! rare it is among memories (its inverse document frequency), so "Ada's
//! dentist" finds the dentist before every memory that says "Ada".

use std::collections::HashMap;

use crate::text::{clean, is_cjk};

/// What recall searches: built once for a list of memories.
#[derive(Debug, Default)]
pub struct Index {
    /// Each term's postings: the memories that have it.
    terms: HashMap<String, Vec<u32>>,
    docs: usize,
}

fn stem(word: &str) -> String {
    if !word.is_ascii() || word.len() <= 3 {
        return word.to_owned();
    }
    for (suffix, with) in [("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")] {
        if let Some(base) = word.strip_suffix(suffix) {
            if base.len() >= 3 {
                // "running" → "run", "stopped" → "stop".
                let b = base.as_bytes();
                let doubled = with.is_empty()
                    && suffix != "s"
                    && suffix != "es"
                    && b.len() >= 2
                    && b[b.len() - 1] == b[b.len() - 2]
                    && !b"aeiouls".contains(&b[b.len() - 1]);
                let base = if doubled {
                    &base[..base.len() - 1]
                } else {
                    base
                };
                return format!("{base}{with}");
            }
        }
    }
    word.to_owned()
}

/// The terms of `text`: stemmed words, and CJK character pairs (single
/// characters when a run has one).
pub fn terms(text: &str) -> Vec<String> {
    let cleaned = clean(text).text.to_lowercase();
    let mut out = Vec::new();
    let mut word = String::new();
    let mut run: Vec<char> = Vec::new();
    let flush_word = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            out.push(stem(word));
            word.clear();
        }
    };
    let flush_run = |run: &mut Vec<char>, out: &mut Vec<String>| {
        match run.len() {
            0 => {}
            1 => out.push(run[0].to_string()),
            _ => out.extend(run.windows(2).map(|w| w.iter().collect::<String>())),
        }
        run.clear();
    };
    for c in cleaned.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut out);
            run.push(c);
        } else if c.is_alphanumeric() {
            flush_run(&mut run, &mut out);
            word.push(c);
        } else {
            flush_word(&mut word, &mut out);
            flush_run(&mut run, &mut out);
        }
    }
    flush_word(&mut word, &mut out);
    flush_run(&mut run, &mut out);
    out.sort();
    out.dedup();
    out
}

impl Index {
    /// An index of `texts`, in order: results are their positions.
    pub fn build<'a>(texts: impl IntoIterator<Item = &'a str>) -> Index {
        let mut index = Index::default();
        for (i, text) in texts.into_iter().enumerate() {
            for t in terms(text) {
                index.terms.entry(t).or_default().push(i as u32);
            }
            index.docs = i + 1;
        }
        index
    }

    pub fn len(&self) -> usize {
        self.docs
    }

    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// The positions of the best `limit` matches for `query`, best first;
    /// ties go to the later (newer) one.
    pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let mut scores: HashMap<u32, f64> = HashMap::new();
        let n = self.docs as f64;
        for t in terms(query) {
            if let Some(postings) = self.terms.get(&t) {
                let idf = (1.0 + n / postings.len() as f64).ln();
                for &d in postings {
                    *scores.entry(d).or_default() += idf;
                }
            }
        }
        let mut ranked: Vec<(u32, f64)> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        ranked
            .into_iter()
            .take(limit)
            .map(|(d, _)| d as usize)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_shared_words_rank_first() {
        let texts = [
            "Ada's dentist is Dr Okafor on Mill Road",
            "Ada likes green tea",
            "Ada runs on Sundays",
            "Ada's sister lives in Lyon",
        ];
        let index = Index::build(texts);
        assert_eq!(index.search("who is ada's dentist?", 2)[0], 0);
        assert_eq!(index.search("running", 1), vec![2]);
        assert!(index.search("volcano", 5).is_empty());
    }

    #[test]
    fn cjk_by_pairs() {
        let index = Index::build(["私は緑茶が好き", "妹はリヨンに住んでいる"]);
        assert_eq!(index.search("緑茶", 1), vec![0]);
    }
}
