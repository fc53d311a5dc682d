//! The rules applied to one file: read it as instructions (`reading.rs`),
//! one `RegexSet` pass over them for every instruction rule, every signal
//! of the unit rules and the lesson markers, then only the rules that
//! matched are located; then the unit rules over sections; then what is
//! encoded is decoded and read the same way (`decode.rs`), to a depth; then
//! invisible characters. Lessons (a quotation after "Example:", ❌ and the
//! like, in a list, table or code block) are caution, never inside a
//! Prerequisites section, and `scan` takes that back when the skill itself
//! does something dangerous.

use std::sync::OnceLock;

use regex::bytes::{Regex, RegexSet};

use super::decode::{self, Budget, Found};
use super::installers::{self, addresses};
use super::reading::{self, Kind, Reading};
use super::rules::{expand, Rule, RULES};
use super::units::{SIGNALS, UNITS};
use super::{invisible, Severity};

/// A finding before it is put into words for a person.
#[derive(Debug, Clone)]
pub struct Hit {
    pub rule: &'static str,
    pub severity: Severity,
    /// What the reader is told to do, after "It ".
    pub core: String,
    pub reasons: Vec<&'static str>,
    pub line: usize,
    pub section: String,
    pub excerpt: String,
    /// The decoded text, when it was hidden.
    pub decoded: Option<String>,
    /// The encodings it was hidden in, outermost first.
    pub hidden_in: Vec<&'static str>,
    /// Quoted as a lesson.
    pub taught: bool,
    /// In a Prerequisites / Setup / IMPORTANT section.
    pub setup: bool,
    /// The skill does it (downloads, sends, reads keys), not mentions it.
    pub acts: bool,
}

/// A pattern compiled the first time it is needed: most rules never match
/// most skills, and a process that scans one skill shouldn't compile them.
struct Lazy {
    pattern: &'static str,
    re: OnceLock<Regex>,
}

impl Lazy {
    fn new(pattern: &'static str) -> Lazy {
        Lazy {
            pattern,
            re: OnceLock::new(),
        }
    }

    fn get(&self) -> &Regex {
        self.re.get_or_init(|| {
            Regex::new(&expand(self.pattern))
                .unwrap_or_else(|e| panic!("scanner rule {}: {e}", self.pattern))
        })
    }
}

struct Compiled {
    set: RegexSet,
    rules: Vec<Lazy>,
    unless: Vec<Option<Lazy>>,
    word_unless: Vec<Option<Lazy>>,
    escalate: Vec<Vec<(Lazy, &'static str)>>,
    soften: Vec<Option<Lazy>>,
    signals: Vec<Lazy>,
    /// Index in the set of the first signal, and of the lesson markers.
    signal_at: usize,
    strong_at: usize,
    weak_at: usize,
    strong: Lazy,
    weak: Lazy,
    heading_strong: Lazy,
    heading_weak: Lazy,
    topic: Lazy,
    units: Vec<Vec<Vec<usize>>>,
}

/// Lesson markers that need nothing else: ❌ and the like, or a label such
/// as "Malicious:", "Bad example:", "Red flags:".
const STRONG: &str = r"❌|🚫|⛔|🚩|☠|✗|✘|\b(?:malicious|attack|payload|bad|wrong|unsafe|dangerous|suspicious|vulnerable|blocked|detected|red\s+flag|ioc|indicator|threat|phishing|injection|exploit|never\s+run|never\s+do|do\s+not\s+run|don't\s+run|don't|avoid)s?(?:\s+\w+){0,2}\s*:";
/// Lesson markers that count only in a skill about security: "Example:",
/// "Input:", "e.g.", "such as".
const WEAK: &str = r"\b(?:examples?|input|output|samples?|patterns?|phrases?|quotes?|signatures?|rules?|test\s+cases?)\s*:|\be\.g\.|\bfor\s+instance\b|\bsuch\s+as\b";
const HEADING_STRONG: &str = r"❌|🚫|⛔|🚩|\b(?:malicious|attacks?|red\s+flags?|threats?|indicators?|detect\w*|injections?|exploit\w*|phishing|vulnerab\w*|anti-?patterns?|what\s+not\s+to|dangerous|suspicious|unsafe|never\s+do|don'?ts)\b";
const HEADING_WEAK: &str = r"\b(?:examples?|patterns?|samples?|test\s+cases?)\b";
const TOPIC: &str = r"\b(?:security|secure|injections?|attacks?|malicious|malware|threats?|phishing|exploit\w*|vulnerab\w*|pentest\w*|red[- ]team\w*|detect\w*|defen[cs]e\w*|audit\w*|scanners?|hardening|awareness|guard\w*|firewall|forensic\w*|incidents?|iocs?|safety)\b";

fn compiled() -> &'static Compiled {
    static C: OnceLock<Compiled> = OnceLock::new();
    C.get_or_init(|| {
        let opt = |p: Option<&'static str>| p.map(Lazy::new);
        let mut all: Vec<String> = RULES.iter().map(|r| expand(r.pattern)).collect();
        let signal_at = all.len();
        all.extend(SIGNALS.iter().map(|s| expand(s.pattern)));
        let strong_at = all.len();
        all.push(expand(STRONG));
        let weak_at = all.len();
        all.push(expand(WEAK));
        let signal = |id: &str| {
            SIGNALS
                .iter()
                .position(|s| s.id == id)
                .unwrap_or_else(|| panic!("unit rule names an unknown signal {id}"))
        };
        Compiled {
            set: RegexSet::new(&all).unwrap_or_else(|e| panic!("scanner rules: {e}")),
            rules: RULES.iter().map(|r| Lazy::new(r.pattern)).collect(),
            unless: RULES.iter().map(|r| opt(r.unless)).collect(),
            word_unless: RULES.iter().map(|r| opt(r.word_unless)).collect(),
            escalate: RULES
                .iter()
                .map(|r| {
                    r.escalate
                        .iter()
                        .map(|(p, why)| (Lazy::new(p), *why))
                        .collect()
                })
                .collect(),
            soften: RULES.iter().map(|r| opt(r.soften)).collect(),
            signals: SIGNALS.iter().map(|s| Lazy::new(s.pattern)).collect(),
            signal_at,
            strong_at,
            weak_at,
            strong: Lazy::new(STRONG),
            weak: Lazy::new(WEAK),
            heading_strong: Lazy::new(HEADING_STRONG),
            heading_weak: Lazy::new(HEADING_WEAK),
            topic: Lazy::new(TOPIC),
            units: UNITS
                .iter()
                .map(|u| {
                    u.needs
                        .iter()
                        .map(|g| g.iter().map(|id| signal(id)).collect())
                        .collect()
                })
                .collect(),
        }
    })
}

/// Up to 120 characters of `words`, from a little before byte `from`.
fn short_around(words: &str, from: usize) -> String {
    const MAX: usize = 120;
    let words_chars = words.chars().count();
    if words_chars <= MAX {
        return words.trim().to_owned();
    }
    let mut start = from.saturating_sub(30);
    while !words.is_char_boundary(start) {
        start -= 1;
    }
    let tail: String = words[start..].chars().take(MAX).collect();
    let cut_end = start + tail.len() < words.len();
    format!(
        "{}{}{}",
        if start > 0 { "…" } else { "" },
        tail.trim(),
        if cut_end { "…" } else { "" }
    )
}

/// The host a download-and-run names, for the sentence: the first address
/// that isn't a reviewed installer, else a bare host after the downloader.
fn named_host(span: &str) -> Option<String> {
    if let Some(a) = addresses(span)
        .into_iter()
        .find(|a| installers::official(a).is_none())
    {
        return Some(a.host.to_owned());
    }
    if span.contains('$') || span.contains('%') {
        return Some("an address kept in a variable".to_owned());
    }
    let mut words = span.split_whitespace();
    while let Some(w) = words.next() {
        let lower = w.to_ascii_lowercase();
        if ["curl", "wget", "wget2", "iwr", "irm"].contains(&lower.as_str()) {
            for arg in words.by_ref() {
                if arg.starts_with('-') {
                    continue;
                }
                let arg = arg.trim_matches(|c| c == '"' || c == '\'');
                if arg.contains(['.', ':', '/']) {
                    return Some(arg.split('/').next().unwrap_or(arg).to_owned());
                }
                if arg.starts_with('|') {
                    break;
                }
            }
        }
    }
    None
}

/// The word the match at `from..to` of `words` sits in.
fn word_around(words: &str, from: usize, to: usize) -> &str {
    let start = words[..from]
        .rfind(char::is_whitespace)
        .map_or(0, |i| i + 1);
    let end = words[to..]
        .find(char::is_whitespace)
        .map_or(words.len(), |i| to + i);
    &words[start..end]
}

/// Which instructions are quoted lessons.
fn lessons(r: &Reading, lower: &str, strong: &[bool], weak: &[bool], c: &Compiled) -> Vec<bool> {
    let low = |i: usize| &lower.as_bytes()[r.instructions[i].start..r.instructions[i].end];
    let mut out = vec![false; r.instructions.len()];
    if !r.markdown {
        return out;
    }
    let topic = r.instructions.iter().enumerate().any(|(i, inst)| {
        matches!(inst.kind, Kind::Front | Kind::Heading) && c.topic.get().is_match(low(i))
    });
    let mut heading_lead = false;
    let mut para_lead = false;
    for (i, inst) in r.instructions.iter().enumerate() {
        let marked = strong[i] || (topic && weak[i]);
        match inst.kind {
            Kind::Heading => {
                let w = low(i);
                heading_lead = c.heading_strong.get().is_match(w)
                    || (topic && c.heading_weak.get().is_match(w));
                para_lead = false;
            }
            Kind::Front => {}
            Kind::Prose => {
                para_lead = marked;
                out[i] = marked;
            }
            Kind::Item | Kind::Row | Kind::Code => out[i] = marked || heading_lead || para_lead,
        }
        if r.section_of(i).setup {
            out[i] = false;
        }
    }
    out
}

struct File<'a> {
    r: Reading,
    /// `r.text`, ASCII-lowercased (the same byte offsets): what rules read.
    lower: String,
    lesson: Vec<bool>,
    c: &'a Compiled,
}

impl File<'_> {
    fn hit(
        &self,
        rule: &'static str,
        severity: Severity,
        core: String,
        i: usize,
        at: usize,
        excerpt: String,
    ) -> Hit {
        Hit {
            rule,
            severity,
            core,
            reasons: Vec::new(),
            line: self.r.line_at(at),
            section: self.r.section_of(i).name.clone(),
            excerpt,
            decoded: None,
            hidden_in: Vec::new(),
            taught: false,
            setup: self.r.section_of(i).setup,
            acts: false,
        }
    }

    /// A lesson's quotation is caution.
    fn teach(&self, h: &mut Hit, i: usize) {
        if self.lesson[i] && h.severity == Severity::Danger {
            h.severity = Severity::Caution;
            h.taught = true;
        }
    }

    fn rule_hit(&self, k: usize, rule: &'static Rule, from: usize, to: usize) -> Option<Hit> {
        let c = self.c;
        let i = self.r.at(from);
        let inst = &self.r.instructions[i];
        let words = self.r.words(i);
        // The rules read the lowercased copy; the sentence shows the words.
        let low = &self.lower[inst.start..inst.end];
        let (wf, wt) = (from - inst.start, to.min(inst.end) - inst.start);
        if c.unless[k]
            .as_ref()
            .is_some_and(|u| u.get().is_match(low.as_bytes()))
        {
            return None;
        }
        let matched = &words[wf..wt];
        if c.word_unless[k]
            .as_ref()
            .is_some_and(|u| u.get().is_match(word_around(low, wf, wt).as_bytes()))
        {
            return None;
        }
        let mut severity = rule.severity;
        let mut acts = rule.acts;
        let mut core = rule.says.to_owned();
        let mut host = named_host(matched).or_else(|| named_host(words));
        if rule.installer {
            // `bash -c "$(curl …)"`: the address comes after the match.
            let span = if addresses(matched).is_empty() {
                &words[wf..]
            } else {
                matched
            };
            if host.is_none() {
                host = named_host(span);
            }
            let found = addresses(span);
            if host.is_none() && found.is_empty() {
                // `curl | bash` with no address: a mention, not a download.
                return None;
            }
            let official: Vec<_> = found.iter().filter_map(installers::official).collect();
            if !found.is_empty() && official.len() == found.len() {
                severity = Severity::Caution;
                core = format!(
                    "runs the official installer of {} from {}: usually fine, but it runs code from the web",
                    official[0].tool, found[0].host
                );
                host = None;
            }
        }
        let mut h = self.hit(
            rule.id,
            severity,
            String::new(),
            i,
            from,
            short_around(words, wf),
        );
        for (re, why) in &c.escalate[k] {
            if re.get().is_match(low.as_bytes()) {
                h.severity = Severity::Danger;
                h.reasons.push(why);
                acts = true;
            }
        }
        if c.soften[k]
            .as_ref()
            .is_some_and(|s| s.get().is_match(low.as_bytes()))
            && h.reasons.is_empty()
        {
            h.severity = Severity::Caution;
            h.taught = true;
        }
        let shown: String = matched.trim().chars().take(60).collect();
        h.core = core
            .replace(
                "{host}",
                host.as_deref().unwrap_or("an address in the text"),
            )
            .replace("{match}", &shown);
        h.acts = acts;
        self.teach(&mut h, i);
        Some(h)
    }

    /// The unit rules: reported at an instruction with the first group's
    /// signal, once per section, with the nearest instruction carrying each
    /// other group. A caution unit isn't added where a danger one already
    /// says more about the same section.
    fn unit_hits(&self, signals: &[u32], out: &mut Vec<Hit>) {
        let r = &self.r;
        let mut danger_sections = Vec::new();
        for (u, unit) in UNITS.iter().enumerate() {
            let masks: Vec<u32> = self.c.units[u]
                .iter()
                .map(|g| g.iter().fold(0u32, |m, s| m | 1 << s))
                .collect();
            let Some((&first, rest)) = masks.split_first() else {
                continue;
            };
            let mut done_sections = Vec::new();
            for anchor in 0..signals.len() {
                let section = r.instructions[anchor].section;
                if signals[anchor] & first == 0 || done_sections.contains(&section) {
                    continue;
                }
                let setup = r.sections[section].setup;
                if (unit.setup_only && !setup)
                    || (unit.severity == Severity::Caution && danger_sections.contains(&section))
                {
                    continue;
                }
                let reach = |j: usize| {
                    r.instructions[j].section == section
                        && (setup || j.abs_diff(anchor) <= unit.window)
                };
                // The nearest instruction with each other group's signal.
                let nearest = |m: u32| {
                    (0..signals.len())
                        .filter(|&j| signals[j] & m != 0 && reach(j))
                        .min_by_key(|&j| j.abs_diff(anchor))
                };
                let partners: Option<Vec<usize>> = rest.iter().map(|&m| nearest(m)).collect();
                let Some(partners) = partners else { continue };
                let host = partners
                    .iter()
                    .chain(std::iter::once(&anchor))
                    .find_map(|&j| named_host(r.words(j)))
                    .unwrap_or_else(|| "an address in the text".to_owned());
                let inst = &r.instructions[anchor];
                let words = r.words(anchor);
                let mut h = self.hit(
                    unit.id,
                    unit.severity,
                    unit.says.replace("{host}", &host),
                    anchor,
                    inst.start,
                    short_around(words, 0),
                );
                h.acts = unit.acts;
                if self.lesson[anchor] && partners.iter().all(|&j| self.lesson[j]) {
                    self.teach(&mut h, anchor);
                }
                if h.severity == Severity::Danger {
                    danger_sections.push(section);
                }
                done_sections.push(section);
                out.push(h);
            }
        }
    }
}

/// Keeps one hit per rule and line, the worst.
fn dedupe(hits: &mut Vec<Hit>) {
    hits.sort_by(|a, b| {
        (
            a.line,
            a.rule,
            std::cmp::Reverse(a.severity),
            a.decoded.is_some(),
        )
            .cmp(&(
                b.line,
                b.rule,
                std::cmp::Reverse(b.severity),
                b.decoded.is_some(),
            ))
    });
    hits.dedup_by(|b, a| a.line == b.line && a.rule == b.rule && a.decoded == b.decoded);
}

/// Every finding in one file (or in text decoded from one), `depth` decodes deep.
pub fn hits(path: &str, text: &str, depth: u8, budget: &mut Budget) -> Vec<Hit> {
    let c = compiled();
    let r = reading::read(path, text);
    let lower = r.text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let matched = c.set.matches(bytes);
    let n = r.instructions.len();
    let mut strong = vec![false; n];
    let mut weak = vec![false; n];
    let mut signals = vec![0u32; n];
    for k in matched.iter().filter(|&k| k >= c.signal_at) {
        let re = if k == c.strong_at {
            c.strong.get()
        } else if k == c.weak_at {
            c.weak.get()
        } else {
            c.signals[k - c.signal_at].get()
        };
        for m in re.find_iter(bytes) {
            let i = r.at(m.start());
            if k == c.strong_at {
                strong[i] = true;
            } else if k == c.weak_at {
                weak[i] = true;
            } else {
                signals[i] |= 1 << (k - c.signal_at);
            }
        }
    }
    let lesson = lessons(&r, &lower, &strong, &weak, c);
    let file = File {
        r,
        lower,
        lesson,
        c,
    };
    let bytes = file.lower.as_bytes();
    let mut out = Vec::new();
    for k in matched.iter().filter(|&k| k < c.signal_at) {
        let rule = &RULES[k];
        for m in c.rules[k].get().find_iter(bytes) {
            if let Some(h) = file.rule_hit(k, rule, m.start(), m.end()) {
                out.push(h);
            }
        }
    }
    file.unit_hits(&signals, &mut out);
    // Where each raw line starts, for what is found in the raw text
    // (counting from the start each time would be quadratic).
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |at: usize| starts.partition_point(|&s| s <= at);
    let raw_line = |line: usize| {
        let from = starts.get(line - 1).copied().unwrap_or(text.len());
        let to = starts.get(line).map_or(text.len(), |&e| e - 1);
        &text[from..to.max(from)]
    };
    // What's encoded, read the same way.
    let place = |line: usize| {
        file.r
            .instructions
            .partition_point(|inst| inst.line <= line)
            .saturating_sub(1)
    };
    if depth < decode::MAX_DEPTH {
        for d in decode::decode(text, budget) {
            let line = d.line;
            let i = place(line);
            let (section, lesson, setup) = if n == 0 {
                (String::new(), false, false)
            } else {
                let s = file.r.section_of(i);
                (s.name.clone(), file.lesson[i], s.setup)
            };
            let excerpt = short_around(raw_line(line), 0);
            let outer =
                |rule: &'static str, severity: Severity, core: String, how: &'static str| Hit {
                    rule,
                    severity,
                    core,
                    reasons: Vec::new(),
                    line,
                    section: section.clone(),
                    excerpt: excerpt.clone(),
                    decoded: None,
                    hidden_in: vec![how],
                    taught: false,
                    setup,
                    acts: true,
                };
            match d.found {
                Found::Text { how, text: inner } => {
                    for h in hits("decoded", &inner, depth + 1, budget) {
                        let mut hidden_in = vec![how];
                        hidden_in.extend(h.hidden_in.iter().copied());
                        let severity = if h.acts { Severity::Danger } else { h.severity };
                        let mut w = Hit {
                            severity,
                            line,
                            section: section.clone(),
                            excerpt: excerpt.clone(),
                            decoded: Some(h.decoded.clone().unwrap_or_else(|| h.excerpt.clone())),
                            hidden_in,
                            taught: false,
                            setup,
                            ..h
                        };
                        if lesson && w.severity == Severity::Danger {
                            w.severity = Severity::Caution;
                            w.taught = true;
                        }
                        out.push(w);
                    }
                }
                Found::Program { how, what } => out.push(outer(
                    "bundled.program",
                    Severity::Danger,
                    format!("carries {what}, which could be run"),
                    how,
                )),
                Found::Unreadable { how } => {
                    let mut h = outer(
                        if how == "hex" { "blob.hex" } else { "blob.base64" },
                        Severity::Caution,
                        "holds a long encoded blob that isn't text, an image or a font; what it is can't be read here".to_owned(),
                        how,
                    );
                    h.hidden_in.clear();
                    h.acts = false;
                    out.push(h);
                }
            }
        }
    } else if let Some(d) = decode::decode(text, budget)
        .into_iter()
        .find(|d| matches!(d.found, Found::Text { .. }))
    {
        // Encoded deeper than the scanner decodes: said, not dropped.
        let line = d.line;
        let section = if n == 0 {
            String::new()
        } else {
            file.r.section_of(place(line)).name.clone()
        };
        out.push(Hit {
            rule: "blob.too-deep",
            severity: Severity::Caution,
            core: format!(
                "holds text encoded more than {} times over; what it finally says wasn't read",
                decode::MAX_DEPTH
            ),
            reasons: Vec::new(),
            line,
            section,
            excerpt: short_around(raw_line(line), 0),
            decoded: None,
            hidden_in: Vec::new(),
            taught: false,
            setup: false,
            acts: false,
        });
    }
    let (marks, hidden) = invisible::check(text);
    for m in marks {
        let line = line_of(m.at);
        let section = if n == 0 {
            String::new()
        } else {
            file.r.section_of(place(line)).name.clone()
        };
        out.push(Hit {
            rule: m.rule,
            severity: m.severity,
            core: m.says,
            reasons: Vec::new(),
            line,
            section,
            excerpt: m.excerpt,
            decoded: None,
            hidden_in: Vec::new(),
            taught: false,
            setup: false,
            acts: false,
        });
    }
    if depth < decode::MAX_DEPTH {
        for (at, inner) in hidden {
            let line = line_of(at);
            let section = if n == 0 {
                String::new()
            } else {
                file.r.section_of(place(line)).name.clone()
            };
            for h in hits("decoded", &inner, depth + 1, budget) {
                let mut hidden_in = vec!["invisible tag characters"];
                hidden_in.extend(h.hidden_in.iter().copied());
                out.push(Hit {
                    severity: Severity::Danger,
                    line,
                    section: section.clone(),
                    decoded: Some(h.decoded.clone().unwrap_or_else(|| h.excerpt.clone())),
                    hidden_in,
                    ..h
                });
            }
        }
    }
    // A Prerequisites section that downloads and runs something.
    let fake: Vec<Hit> = out
        .iter()
        .filter(|h| {
            h.severity == Severity::Danger
                && h.acts
                && !h.taught
                && (h.rule.starts_with("download.") || h.rule.starts_with("remote."))
        })
        .filter(|h| h.setup)
        .map(|h| Hit {
            rule: "prerequisite.fake",
            core: "presents downloading and running something as a required first step: the way malicious skills hide an installer".to_owned(),
            reasons: Vec::new(),
            ..h.clone()
        })
        .collect();
    out.extend(fake);
    dedupe(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Patterns compile lazily in use; here every one compiles, so a broken
    /// pattern fails a test rather than a scan.
    #[test]
    fn every_pattern_compiles() {
        let c = compiled();
        let lazies = c
            .rules
            .iter()
            .chain(c.unless.iter().flatten())
            .chain(c.word_unless.iter().flatten())
            .chain(c.escalate.iter().flatten().map(|(l, _)| l))
            .chain(c.soften.iter().flatten())
            .chain(&c.signals)
            .chain([
                &c.strong,
                &c.weak,
                &c.heading_strong,
                &c.heading_weak,
                &c.topic,
            ]);
        let mut compiled = 0;
        for l in lazies {
            let _ = l.get();
            compiled += 1;
        }
        assert!(compiled >= RULES.len() + SIGNALS.len() + 5, "{compiled}");
    }
}
