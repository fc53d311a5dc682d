//! The reviewer model's verdict, read strictly (ADR 0144: "Strict JSON
//! rejects duplicate keys, contradictory allowance, unknown fields and
//! invalid evidence ids").
//!
//! The reply must be exactly this object and nothing else:
//!
//! ```text
//! {"verdict":"allow"|"reject"|"ask",
//!  "risk":"low"|"moderate"|"high"|"critical",
//!  "evidence":["m1", ...],
//!  "reason":"..."}
//! ```
//!
//! `evidence` names the owner messages (ids from the reviewer's input) that
//! grant authority for the action. Checks, in the order they run:
//!
//! 1. Before parsing: not over 16 KiB, not empty or only whitespace, no
//!    leading byte-order mark (rejected, not stripped: a reply that starts
//!    with one was not written the way we asked).
//! 2. One pass: exactly one JSON value (JSON whitespace around it is fine;
//!    trailing text, a second value or code fences are not), and no key
//!    twice in any object at any depth, keys compared after unescaping.
//! 3. The shape: an object with exactly the four fields, each of its type,
//!    `verdict` and `risk` as the exact lowercase words; a non-blank
//!    `reason`.
//! 4. Evidence: every id was given in the input, none repeated.
//! 5. No contradictory allowance: `allow` needs evidence and low or
//!    moderate risk; `reject` cites no evidence (a constraint the owner set
//!    later belongs in `reason`). `ask` may cite evidence or none.
//!
//! Any failure means the reviewer said nothing usable; the caller treats
//! that as no verdict, never as a yes.

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

#[cfg(test)]
mod tests;

/// The longest reply read. A verdict is a few hundred bytes; anything far
/// bigger is a model that lost the plot, and the bound also caps the work
/// the duplicate check does.
pub const MAX_REPLY_BYTES: usize = 16 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    Reject,
    Ask,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Reject => "reject",
            Verdict::Ask => "ask",
        }
    }

    fn from_word(s: &str) -> Option<Verdict> {
        match s {
            "allow" => Some(Verdict::Allow),
            "reject" => Some(Verdict::Reject),
            "ask" => Some(Verdict::Ask),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Risk {
    Low,
    Moderate,
    High,
    Critical,
}

impl Risk {
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Moderate => "moderate",
            Risk::High => "high",
            Risk::Critical => "critical",
        }
    }

    fn from_word(s: &str) -> Option<Risk> {
        match s {
            "low" => Some(Risk::Low),
            "moderate" => Some(Risk::Moderate),
            "high" => Some(Risk::High),
            "critical" => Some(Risk::Critical),
            _ => None,
        }
    }
}

/// A verdict that passed every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub verdict: Verdict,
    pub risk: Risk,
    /// Owner-message ids, in the reviewer's order, each given and unique.
    pub evidence: Vec<String>,
    /// As written; known not to be blank.
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerdictError {
    Empty,
    TooLong {
        bytes: usize,
    },
    ByteOrderMark,
    NotJson {
        detail: String,
    },
    TrailingText {
        line: usize,
        column: usize,
    },
    DuplicateKey {
        key: String,
    },
    NotAnObject {
        found: &'static str,
    },
    UnknownField {
        field: String,
    },
    MissingField {
        field: &'static str,
    },
    WrongType {
        field: &'static str,
        expected: &'static str,
        found: String,
    },
    EmptyReason,
    UnknownEvidence {
        id: String,
    },
    DuplicateEvidence {
        id: String,
    },
    AllowWithoutEvidence,
    AllowAtHighRisk {
        risk: Risk,
    },
    RejectCitesAuthority {
        evidence: Vec<String>,
    },
}

impl VerdictError {
    /// Stable across wording changes, for logs and tests.
    pub fn code(&self) -> &'static str {
        match self {
            VerdictError::Empty => "empty",
            VerdictError::TooLong { .. } => "too-long",
            VerdictError::ByteOrderMark => "byte-order-mark",
            VerdictError::NotJson { .. } => "not-json",
            VerdictError::TrailingText { .. } => "trailing-text",
            VerdictError::DuplicateKey { .. } => "duplicate-key",
            VerdictError::NotAnObject { .. } => "not-an-object",
            VerdictError::UnknownField { .. } => "unknown-field",
            VerdictError::MissingField { .. } => "missing-field",
            VerdictError::WrongType { .. } => "wrong-type",
            VerdictError::EmptyReason => "empty-reason",
            VerdictError::UnknownEvidence { .. } => "unknown-evidence",
            VerdictError::DuplicateEvidence { .. } => "duplicate-evidence",
            VerdictError::AllowWithoutEvidence => "allow-without-evidence",
            VerdictError::AllowAtHighRisk { .. } => "allow-at-high-risk",
            VerdictError::RejectCitesAuthority { .. } => "reject-cites-authority",
        }
    }
}

impl fmt::Display for VerdictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerdictError::Empty => write!(f, "The reviewer's reply is empty."),
            VerdictError::TooLong { bytes } => write!(
                f,
                "The reviewer's reply is {bytes} bytes long, over the {MAX_REPLY_BYTES}-byte limit."
            ),
            VerdictError::ByteOrderMark => write!(
                f,
                "The reviewer's reply starts with a byte-order mark (U+FEFF) before its JSON."
            ),
            VerdictError::NotJson { detail } => {
                write!(f, "The reviewer's reply isn't JSON ({detail}).")
            }
            VerdictError::TrailingText { line, column } => write!(
                f,
                "The reviewer's reply has more after its JSON, from line {line} column {column}."
            ),
            VerdictError::DuplicateKey { key } => {
                write!(f, "The reviewer's reply has the key {} twice.", quoted(key))
            }
            VerdictError::NotAnObject { found } => {
                write!(f, "The reviewer's reply is {found}, not a JSON object.")
            }
            VerdictError::UnknownField { field } => write!(
                f,
                "The reviewer's reply has the field {}, which isn't one of verdict, risk, evidence and reason.",
                quoted(field)
            ),
            VerdictError::MissingField { field } => {
                write!(f, "The reviewer's reply has no \"{field}\".")
            }
            VerdictError::WrongType {
                field,
                expected,
                found,
            } => write!(
                f,
                "The reviewer's \"{field}\" should be {expected} but is {found}."
            ),
            VerdictError::EmptyReason => write!(f, "The reviewer's reply gives no reason."),
            VerdictError::UnknownEvidence { id } => write!(
                f,
                "The reviewer cites {} as evidence, but no owner message it was shown has that id.",
                quoted(id)
            ),
            VerdictError::DuplicateEvidence { id } => write!(
                f,
                "The reviewer cites {} as evidence more than once.",
                quoted(id)
            ),
            VerdictError::AllowWithoutEvidence => write!(
                f,
                "The reviewer allows the action without citing an owner message that grants it."
            ),
            VerdictError::AllowAtHighRisk { risk } => write!(
                f,
                "The reviewer allows the action yet rates its risk {}; only low or moderate risk may be allowed.",
                risk.as_str()
            ),
            VerdictError::RejectCitesAuthority { evidence } => {
                let ids: Vec<String> = evidence.iter().map(|id| quoted(id)).collect();
                write!(
                    f,
                    "The reviewer rejects the action yet cites {} as the owner's authority for it.",
                    ids.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for VerdictError {}

/// Reads the reviewer's reply. `ids`: the owner-message ids the input gave
/// (may be empty, and then no evidence can be cited).
pub fn parse_verdict(reply: &str, ids: &[String]) -> Result<Judgement, VerdictError> {
    // Length first, so nothing below ever looks at an oversized reply.
    if reply.len() > MAX_REPLY_BYTES {
        return Err(VerdictError::TooLong { bytes: reply.len() });
    }
    if reply.trim().is_empty() {
        return Err(VerdictError::Empty);
    }
    // serde_json would call this "expected value"; naming it tells whoever
    // reads the log that the model's output was close but mis-encoded.
    if reply
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('\u{FEFF}')
    {
        return Err(VerdictError::ByteOrderMark);
    }

    let tree = read_tree(reply)?;
    let fields = match tree {
        Node::Object(fields) => fields,
        other => {
            return Err(VerdictError::NotAnObject {
                found: other.kind(),
            })
        }
    };

    let mut verdict = None;
    let mut risk = None;
    let mut evidence = None;
    let mut reason = None;
    for (key, value) in fields {
        // Keys are already unique, so each slot is filled at most once.
        match key.as_str() {
            "verdict" => verdict = Some(value),
            "risk" => risk = Some(value),
            "evidence" => evidence = Some(value),
            "reason" => reason = Some(value),
            _ => return Err(VerdictError::UnknownField { field: key }),
        }
    }
    let verdict = verdict.ok_or(VerdictError::MissingField { field: "verdict" })?;
    let risk = risk.ok_or(VerdictError::MissingField { field: "risk" })?;
    let evidence = evidence.ok_or(VerdictError::MissingField { field: "evidence" })?;
    let reason = reason.ok_or(VerdictError::MissingField { field: "reason" })?;

    let verdict = word(verdict, "verdict", VERDICT_WORDS, Verdict::from_word)?;
    let risk = word(risk, "risk", RISK_WORDS, Risk::from_word)?;
    let evidence = strings(evidence)?;
    let reason = match reason {
        Node::Str(s) => s,
        other => return Err(wrong_type("reason", "text", &other)),
    };
    if reason.trim().is_empty() {
        return Err(VerdictError::EmptyReason);
    }

    let mut cited = HashSet::new();
    for id in &evidence {
        if !cited.insert(id.as_str()) {
            return Err(VerdictError::DuplicateEvidence { id: id.clone() });
        }
        if !ids.contains(id) {
            return Err(VerdictError::UnknownEvidence { id: id.clone() });
        }
    }

    match verdict {
        Verdict::Allow if risk >= Risk::High => {
            return Err(VerdictError::AllowAtHighRisk { risk });
        }
        Verdict::Allow if evidence.is_empty() => {
            return Err(VerdictError::AllowWithoutEvidence);
        }
        Verdict::Reject if !evidence.is_empty() => {
            return Err(VerdictError::RejectCitesAuthority { evidence });
        }
        _ => {}
    }

    Ok(Judgement {
        verdict,
        risk,
        evidence,
        reason,
    })
}

const VERDICT_WORDS: &str = "\"allow\", \"reject\" or \"ask\"";
const RISK_WORDS: &str = "\"low\", \"moderate\", \"high\" or \"critical\"";

fn word<T>(
    node: Node,
    field: &'static str,
    expected: &'static str,
    from_word: fn(&str) -> Option<T>,
) -> Result<T, VerdictError> {
    match &node {
        Node::Str(s) => from_word(s).ok_or_else(|| wrong_type(field, expected, &node)),
        _ => Err(wrong_type(field, expected, &node)),
    }
}

fn strings(node: Node) -> Result<Vec<String>, VerdictError> {
    const EXPECTED: &str = "a list of message ids";
    let items = match node {
        Node::Array(items) => items,
        other => return Err(wrong_type("evidence", EXPECTED, &other)),
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Node::Str(s) => out.push(s),
            other => {
                return Err(VerdictError::WrongType {
                    field: "evidence",
                    expected: EXPECTED,
                    found: format!("a list holding {}", other.kind()),
                })
            }
        }
    }
    Ok(out)
}

fn wrong_type(field: &'static str, expected: &'static str, found: &Node) -> VerdictError {
    let found = match found {
        // The near-misses ("Allow", "medium") are the useful ones to show.
        Node::Str(s) => format!("the text {}", quoted(s)),
        other => other.kind().to_owned(),
    };
    VerdictError::WrongType {
        field,
        expected,
        found,
    }
}

/// Model-written text in a message: short, escaped, on one line.
fn quoted(s: &str) -> String {
    const MAX_CHARS: usize = 40;
    let mut out = String::from("\"");
    for (i, c) in s.chars().enumerate() {
        if i == MAX_CHARS {
            out.push('…');
            break;
        }
        out.extend(c.escape_debug());
    }
    out.push('"');
    out
}

/// The reply as parsed, keeping only what the checks look at.
enum Node {
    Null,
    Bool,
    Number,
    Str(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

impl Node {
    fn kind(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool => "a boolean",
            Node::Number => "a number",
            Node::Str(_) => "a string",
            Node::Array(_) => "a list",
            Node::Object(_) => "an object",
        }
    }
}

fn read_tree(reply: &str) -> Result<Node, VerdictError> {
    let duplicate = Cell::new(None);
    let mut de = serde_json::Deserializer::from_str(reply);
    let tree = match (Tree {
        duplicate: &duplicate,
    })
    .deserialize(&mut de)
    {
        Ok(tree) => tree,
        // The visitor can only report a duplicate through serde's error
        // type, which would lose the key; it leaves the key in the cell.
        Err(e) => {
            return Err(match duplicate.take() {
                Some(key) => VerdictError::DuplicateKey { key },
                None => VerdictError::NotJson {
                    detail: e.to_string(),
                },
            })
        }
    };
    de.end().map_err(|e| VerdictError::TrailingText {
        line: e.line(),
        column: e.column(),
    })?;
    Ok(tree)
}

/// Builds a [`Node`] while checking every object for a repeated key.
/// serde_json's own maps keep the last of two equal keys silently, so the
/// check has to happen while the keys stream past. Recursion depth is
/// bounded by serde_json's nesting limit.
#[derive(Clone, Copy)]
struct Tree<'a> {
    duplicate: &'a Cell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for Tree<'_> {
    type Value = Node;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tree<'_> {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Node, E> {
        Ok(Node::Bool)
    }

    // Out-of-range numbers (1e400, 400 digits) never get here: serde_json
    // fails on them, which surfaces as not-json.
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Node, E> {
        Ok(Node::Number)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Node, E> {
        Ok(Node::Number)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Node, E> {
        Ok(Node::Number)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Node, E> {
        Ok(Node::Str(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Node, E> {
        Ok(Node::Str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut seen = HashSet::new();
        let mut fields = Vec::new();
        // Keys arrive unescaped, so "verdict" and "\u0076erdict" collide.
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                self.duplicate.set(Some(key));
                return Err(de::Error::custom("duplicate key"));
            }
            let value = map.next_value_seed(self)?;
            fields.push((key, value));
        }
        Ok(Node::Object(fields))
    }
}
