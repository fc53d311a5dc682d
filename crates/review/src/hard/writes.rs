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

use guard::destination::{identifiers, parts, WriteKind};
use protocol::seen::{words, SeenIn};
use serde_json::Value;

use super::{Facts, Hard};

pub use guard::destination::kind_of;

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
