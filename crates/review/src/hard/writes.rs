//! An integration write judged by where its values came from (issue 35):
//! where it goes (its destination) and what it carries (its content), read
//! from its arguments' names for the common kinds of tool (mail, chat,
//! calendar, payments, files, HTTP). A tool of no known kind keeps the old
//! rule: after reading, the owner is asked.
//!
//! The rule holds if the reviewer says yes to everything:
//! - every destination is the owner's (in their own words in this chat, or
//!   a contact they keep in Settings): one that was read or composed keeps
//!   the question with the owner;
//! - after reading, every identifier in the content (an address, a link, an
//!   account, phone or IBAN number, a file or event id) is the owner's too;
//!   a read or composed one keeps the question with the owner. Prose may be
//!   anyone's: a summary of what was read is what the owner asked for;
//! - no secret, and no file beyond one the owner named.

use protocol::seen::{words, SeenIn};
use serde_json::Value;

use super::{Facts, Hard};

/// The common kinds of tool that write somewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    Mail,
    Chat,
    Calendar,
    Payments,
    Files,
    Http,
}

/// The kind of `tool`, from its name (`mail.send`, `slack.post_message`,
/// `calendar.create_event`), if it is one of the common ones.
pub fn kind_of(tool: &str) -> Option<WriteKind> {
    let t = tool.to_ascii_lowercase();
    let any = |ws: &[&str]| ws.iter().any(|w| t.contains(w));
    if any(&["pay", "transfer", "iban", "invoice", "bank", "wire"]) {
        Some(WriteKind::Payments)
    } else if any(&["mail", "reply", "forward", "draft"]) {
        Some(WriteKind::Mail)
    } else if any(&["calendar", "event", "invite", "meeting"]) {
        Some(WriteKind::Calendar)
    } else if any(&[
        "slack", "chat", "message", "post", "channel", "telegram", "dm", "sms",
    ]) {
        Some(WriteKind::Chat)
    } else if any(&["file", "drive", "share", "upload", "doc", "folder"]) {
        Some(WriteKind::Files)
    } else if any(&["http", "webhook", "request", "fetch", "api"]) {
        Some(WriteKind::Http)
    } else {
        None
    }
}

/// Arguments whose value says where a write goes, whatever the kind.
const DESTINATION_KEYS: &[&str] = &[
    "to",
    "cc",
    "bcc",
    "recipient",
    "recipients",
    "reply_to",
    "address",
    "email",
    "emails",
    "channel",
    "channel_id",
    "chat",
    "chat_id",
    "conversation",
    "user",
    "user_id",
    "users",
    "attendees",
    "attendee",
    "invitees",
    "guests",
    "participants",
    "share_with",
    "shared_with",
    "grantee",
    "iban",
    "account",
    "account_number",
    "payee",
    "beneficiary",
    "url",
    "endpoint",
    "webhook",
    "phone",
    "number",
];

/// Arguments that name a file sent along.
const FILE_KEYS: &[&str] = &["attach", "file", "path", "upload"];

/// Where a write goes and what it carries.
#[derive(Debug, Default)]
pub struct Parts {
    pub destinations: Vec<String>,
    pub content: Vec<String>,
    /// Files named in it (sent along, or shared).
    pub files: Vec<String>,
}

fn key_is(key: &str, list: &[&str]) -> bool {
    let k = key.to_ascii_lowercase().replace(['-', ' '], "_");
    list.iter().any(|d| {
        k == *d
            || k.ends_with(&format!("_{d}"))
            || k.ends_with(d) && (d.len() > 4 && k.len() > d.len())
    })
}

/// A key naming a file: one of its words starts with a file word
/// (`attachment`, `file_path`, `files`, `uploadId`).
fn names_file(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| FILE_KEYS.iter().any(|f| w.starts_with(f)))
        || FILE_KEYS.iter().any(|f| k.starts_with(f))
}

/// Splits an integration's arguments into destination and content. A
/// value under a destination argument (however deep: `attendees: [{email}]`)
/// is a destination.
pub fn parts(input: &Value) -> Parts {
    let mut out = Parts::default();
    let mut stack: Vec<(Option<&str>, bool, &Value)> = vec![(None, false, input)];
    while let Some((key, under, v)) = stack.pop() {
        let here = under || key.is_some_and(|k| key_is(k, DESTINATION_KEYS));
        match v {
            Value::String(s) if s.is_empty() => {}
            Value::String(s) => {
                if key.is_some_and(names_file) {
                    out.files.push(s.clone());
                } else if here {
                    out.destinations.push(s.clone());
                } else {
                    out.content.push(s.clone());
                }
            }
            Value::Number(n) if here => out.destinations.push(n.to_string()),
            Value::Number(n) => out.content.push(n.to_string()),
            Value::Array(items) => stack.extend(items.iter().map(|i| (key, here, i))),
            Value::Object(map) => {
                stack.extend(map.iter().map(|(k, v)| (Some(k.as_str()), here, v)));
            }
            _ => {}
        }
    }
    out
}

/// The identifiers in `text`: addresses, links, IBANs, phone and account
/// numbers, and ids (a run of letters and digits mixing both, 8 or more).
pub fn identifiers(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // Links and addresses first, as written.
    for url in protocol::seen::addresses(text) {
        out.push(url.to_owned());
    }
    let tokens: Vec<&str> = text
        .split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    ',' | ';' | '<' | '>' | '(' | ')' | '"' | '\'' | '[' | ']'
                )
        })
        .filter(|t| !t.is_empty())
        .collect();
    for t in &tokens {
        let t = t.trim_end_matches(['.', ':', '!', '?']);
        if (t.contains('@') && t.contains('.') && !t.starts_with('@')) || names_a_place(t) {
            out.push(t.to_owned());
            continue;
        }
        let digits = t.chars().filter(char::is_ascii_digit).count();
        let letters = t.chars().filter(char::is_ascii_alphabetic).count();
        let plain = t
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '/' | '.'));
        if plain && digits >= 6 && letters == 0 {
            out.push(t.to_owned()); // account or phone number, amount-free
        } else if plain && digits >= 2 && letters >= 2 && t.len() >= 8 {
            out.push(t.to_owned()); // an id, an IBAN without spaces
        }
    }
    // An IBAN or a number written in groups: "DE89 3704 0044 0532 0130 00",
    // "+49 151 2345 6789".
    let mut i = 0;
    while i < tokens.len() {
        let start = i;
        let mut joined = String::new();
        while i < tokens.len()
            && tokens[i]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-')
            && tokens[i].chars().any(|c| c.is_ascii_digit())
            && tokens[i].len() <= 6
        {
            joined.push_str(tokens[i]);
            i += 1;
        }
        if i - start >= 2 && joined.chars().filter(char::is_ascii_digit).count() >= 7 {
            out.push(tokens[start..i].join(" "));
        }
        if i == start {
            i += 1;
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A link or a host however it is spelled: a scheme in any case
/// (`HTTPS://`), `www.`, or a bare `name.tld/path`. A file's name
/// (`report.pdf`) is one too: a file id is an identifier.
fn names_a_place(t: &str) -> bool {
    let lower = t.to_ascii_lowercase();
    if lower.contains("://") || lower.starts_with("www.") || lower.contains("%2f") {
        return true;
    }
    let host = lower.split(['/', '?', '#']).next().unwrap_or("");
    let labels: Vec<&str> = host.split('.').collect();
    labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_alphanumeric() || c == '-'))
        && labels
            .last()
            .is_some_and(|tld| tld.chars().count() >= 2 && tld.chars().all(char::is_alphabetic))
}

/// Where a value came from, as the write rule needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum From {
    /// The owner wrote it in this chat, or keeps it as a contact.
    Owner,
    /// Some of it was read.
    Read,
    /// Neither: the model composed it.
    Nowhere,
}

/// Where `value` came from: the owner's only when they wrote it whole (or
/// keep it as a contact); a value put together from their words isn't.
/// A multi-word value that isn't a number (a name: "Bob Smith") is the
/// owner's when each of its words is one they wrote whole.
pub fn from(value: &str, facts: &Facts<'_>) -> From {
    let v = value.trim();
    let contact = facts
        .contacts
        .iter()
        .any(|c| c.trim().eq_ignore_ascii_case(v));
    let named = !v.chars().any(|c| c.is_ascii_digit())
        && v.split_whitespace().count() > 1
        && v.split_whitespace().all(|w| facts.seen.owner_wrote(w));
    if contact || facts.seen.owner_said(v) || facts.seen.owner_wrote(v) || named {
        return From::Owner;
    }
    if facts.seen.address_seen(v) || words(v).any(|w| facts.seen.word(&w) == SeenIn::Read) {
        From::Read
    } else {
        From::Nowhere
    }
}

/// Why a write stays with the owner, or None when review may judge it.
pub fn kept(kind: WriteKind, input: &Value, facts: &Facts<'_>) -> Option<Hard> {
    let p = parts(input);
    // A mail, a message, a payment or a request goes somewhere: when where
    // can't be told, it stays with the owner. An event or a file with no
    // one named is the owner's own.
    let must_go = matches!(
        kind,
        WriteKind::Mail | WriteKind::Chat | WriteKind::Payments | WriteKind::Http
    );
    if must_go && p.destinations.is_empty() {
        return Some(Hard::Destination);
    }
    if p.destinations.iter().any(|d| from(d, facts) != From::Owner) {
        return Some(Hard::Destination);
    }
    let all = p.destinations.iter().chain(&p.content).chain(&p.files);
    if all.clone().any(|t| super::sends::secret_like(t)) {
        return Some(Hard::Credentials);
    }
    if p.files.iter().any(|f| from(f, facts) != From::Owner) {
        return Some(Hard::Exfiltration);
    }
    if facts.marked
        && p.content
            .iter()
            .flat_map(|c| identifiers(c))
            .any(|id| from(&id, facts) != From::Owner)
    {
        return Some(Hard::ReadIdentifier);
    }
    None
}
