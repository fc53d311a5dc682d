//! Where an integration's write goes and what it carries, read from its
//! arguments' names for the common kinds of tool (mail, chat, calendar,
//! payments, files, HTTP), and the identifiers in what it carries
//! (addresses, links, account, phone and IBAN numbers, file and event ids).
//! Auto review judges a write by where these came from
//! (`review::hard::writes`); the question card shows the destination first.

use serde_json::Value;

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
        let digits = t.chars().filter(|c: &char| c.is_numeric()).count();
        let letters = t.chars().filter(|c: &char| c.is_alphabetic()).count();
        let plain = t
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '+' | '/' | '.'));
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
                .all(|c| c.is_alphanumeric() || c == '+' || c == '-')
            && tokens[i].chars().any(|c| c.is_numeric())
            && tokens[i].chars().count() <= 6
        {
            joined.push_str(tokens[i]);
            i += 1;
        }
        if i - start >= 2 && joined.chars().filter(|c: &char| c.is_numeric()).count() >= 7 {
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
