use crate::index::{Index, Kind, Place};
use crate::sample::Rng;
use crate::{fold_word, snippet, words};

fn folded(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    words(text, |w| out.push(w.folded.to_owned()));
    out
}

#[test]
fn case_accents_and_width_are_one_spelling() {
    for spelling in ["Café", "cafe", "CAFÉ", "ＣＡＦＥ", "cafe\u{301}"] {
        assert_eq!(fold_word(spelling), "cafe", "{spelling}");
    }
    assert_eq!(
        folded("ﬁle Straße ÅNGSTRÖM"),
        ["file", "strasse", "angstrom"]
    );
    assert_eq!(fold_word("STRASSE"), fold_word("Straße"));
}

#[test]
fn words_split_on_what_isnt_a_letter_or_digit() {
    assert_eq!(
        folded("run_command(\"git log --oneline\") → 3 lines"),
        ["run", "command", "git", "log", "oneline", "3", "lines"]
    );
    assert_eq!(
        folded("Привет, мир! مرحبا ١٢٣"),
        ["привет", "мир", "مرحبا", "١٢٣"]
    );
}

#[test]
fn unspaced_scripts_are_pairs_of_characters() {
    assert_eq!(folded("東京都へ"), ["東京", "京都", "都へ", "へ"]);
    assert_eq!(folded("ｶﾀｶﾅ"), ["カタ", "タカ", "カナ", "ナ"]);
    assert_eq!(folded("a東b"), ["a", "東", "b"]);
}

#[test]
fn a_word_keeps_its_place_in_the_text() {
    let text = "Ｈｅｌｌｏ, 東京 wörld";
    words(text, |w| {
        assert!(text.is_char_boundary(w.start) && text.is_char_boundary(w.end));
        assert_eq!(
            fold_word(&text[w.start..w.end]).chars().next(),
            w.folded.chars().next()
        );
    });
}

#[test]
fn a_long_word_still_finds_itself() {
    let hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    let mut index = Index::new();
    index.add(
        "c1",
        1,
        1,
        Kind::Output,
        &format!("commit {hash}"),
        Place::default(),
    );
    assert_eq!(index.find(hash, 10).total, 1);
    assert_eq!(index.find(&hash[..12], 10).total, 1);
}

const VOCABULARY: &[&str] = &[
    "deploy",
    "deployment",
    "Déploiement",
    "ＤＥＰＬＯＹ",
    "script",
    "scripts",
    "git",
    "log",
    "東京",
    "東京都",
    "京都",
    "カタカナ",
    "ｶﾀｶﾅ",
    "Straße",
    "café",
    "CAFE",
    "naïve",
    "invoice",
    "Rechnung",
    "счёт",
    "счет",
    "الفاتورة",
    "١٢٣",
    "123",
    "ls",
    "-la",
    "rm",
    "-rf",
    "./tmp",
    "🙂",
    "ok",
    "o",
    "a",
    "ab",
    "abc",
    "\n",
    "  ",
    "—",
    "run_command",
    "x9f86d0818",
];

/// What "matches" means, said plainly: every word of the query begins a
/// word of the text.
fn matches(text: &str, query: &str) -> bool {
    let have = folded(text);
    let want = folded(query);
    !want.is_empty()
        && want
            .iter()
            .all(|q| have.iter().any(|h| h.starts_with(q.as_str())))
}

fn text(rng: &mut Rng) -> String {
    let n = 1 + rng.below(12);
    (0..n)
        .map(|_| rng.pick(VOCABULARY))
        .collect::<Vec<_>>()
        .join(" ")
}

fn query(rng: &mut Rng) -> String {
    let n = 1 + rng.below(3);
    (0..n)
        .map(|_| {
            let w = rng.pick(VOCABULARY);
            let cut: Vec<char> = w.chars().collect();
            let keep = 1 + rng.below(cut.len());
            cut[..keep].iter().collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_index_finds_what_reading_every_text_finds() {
    for seed in 0..40u64 {
        let mut rng = Rng(seed);
        let mut index = Index::new();
        let mut docs: Vec<(String, u64, i64, String)> = Vec::new();
        for i in 0..300u64 {
            let chat = format!("c{}", rng.below(7));
            let at = rng.below(1000) as i64;
            let t = text(&mut rng);
            index.add(&chat, i + 1, at, Kind::Message, &t, Place::default());
            docs.push((chat, i + 1, at, t));
            // Words merged at any point read the same as fresh ones.
            if rng.below(40) == 0 {
                index.settle();
            }
        }
        index.hide("c3", true);
        for _ in 0..60 {
            let q = query(&mut rng);
            let mut want: Vec<(i64, u64)> = docs
                .iter()
                .filter(|d| d.0 != "c3" && matches(&d.3, &q) && !folded(&d.3).is_empty())
                .map(|d| (d.2, d.1))
                .collect();
            want.sort_unstable_by(|a, b| b.cmp(a));
            let found = index.find(&q, 5);
            assert_eq!(found.total, want.len(), "seed {seed}, query {q:?}");
            let got: Vec<i64> = found.hits.iter().map(|h| h.at_ms).collect();
            let newest: Vec<i64> = want.iter().take(5).map(|w| w.0).collect();
            assert_eq!(got, newest, "seed {seed}, query {q:?}");
            for hit in &found.hits {
                let doc = docs.iter().find(|d| d.1 == hit.seq).map(|d| d.3.clone());
                let shown = snippet(&doc.unwrap_or_default(), &q, 80);
                let shown = shown.unwrap_or_else(|| panic!("seed {seed}: no line for {q:?}"));
                assert!(!shown.marks.is_empty());
                for (s, e) in shown.marks {
                    assert!(s < e && e <= shown.line.len());
                    assert!(shown.line.is_char_boundary(s) && shown.line.is_char_boundary(e));
                }
            }
        }
    }
}

#[test]
fn an_event_seen_by_the_build_and_the_append_counts_once() {
    let mut index = Index::new();
    index.add("c", 4, 1, Kind::Reply, "hello there", Place::default());
    index.add("c", 4, 1, Kind::Reply, "hello there", Place::default());
    index.add("c", 3, 1, Kind::Reply, "hello again", Place::default());
    assert_eq!(index.find("hello", 10).total, 1);
}

#[test]
fn a_chat_in_the_trash_isnt_searched_until_it_comes_back() {
    let mut index = Index::new();
    index.add(
        "c",
        1,
        1,
        Kind::Message,
        "the quarterly invoice",
        Place::default(),
    );
    index.hide("c", true);
    assert_eq!(index.find("invoice", 10).total, 0);
    index.hide("c", false);
    assert_eq!(index.find("invoice", 10).total, 1);
}

#[test]
fn the_shown_line_is_the_one_with_the_words() {
    let text = "first line\nthe invoice is due Friday\nlast line";
    let s = snippet(text, "INVOICE fri", 80).unwrap_or_else(|| panic!("no line"));
    assert_eq!(s.line, "the invoice is due Friday");
    assert_eq!(s.marks, [(4, 11), (19, 25)]);
}

#[test]
fn a_long_line_is_cut_around_the_match_on_character_boundaries() {
    let line = format!("{}needle{}", "é ".repeat(150), "東".repeat(300));
    let s = snippet(&line, "needle", 40).unwrap_or_else(|| panic!("no line"));
    assert!(s.line.starts_with('…') && s.line.ends_with('…'));
    assert_eq!(s.line.chars().count(), 42);
    let (a, b) = s.marks[0];
    assert_eq!(&s.line[a..b], "needle");
}

#[test]
fn cutting_never_splits_a_character() {
    let mut rng = Rng(7);
    for _ in 0..2000 {
        let t = text(&mut rng).replace('\n', " ");
        let q = query(&mut rng);
        let width = 1 + rng.below(30);
        if let Some(s) = snippet(&t, &q, width) {
            assert!(s.line.chars().count() <= width + 2);
            for (a, b) in s.marks {
                assert!(a < b && b <= s.line.len(), "{t:?} {q:?} {width}");
                assert!(s.line.is_char_boundary(a) && s.line.is_char_boundary(b));
            }
        }
    }
}

#[test]
fn a_pasted_paragraph_counts_its_first_dozen_words() {
    let mut index = Index::new();
    let first: Vec<String> = (0..12).map(|i| format!("w{i}")).collect();
    index.add("c", 1, 1, Kind::Message, &first.join(" "), Place::default());
    let mut query = first.clone();
    query.extend((12..400).map(|i| format!("absent{i}")));
    assert_eq!(index.find(&query.join(" "), 10).total, 1);
    query.insert(0, "absent".into());
    assert_eq!(index.find(&query.join(" "), 10).total, 0);
}
