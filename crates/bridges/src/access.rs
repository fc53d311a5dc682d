//! Who is writing, decided once for every message, with no IO: the owner
//! (linked once with a one-time code), someone the owner allowed, or a
//! stranger. Only the app's account id makes someone the owner or lets
//! them in; names and handles are what people choose, so they prove
//! nothing (a handle lets someone in once, then their id is kept).

use sha2::{Digest, Sha256};

use crate::app::{Place, Said};
use crate::state::{BridgeState, LinkCode, Owner};

/// Letters and digits that can't be mistaken for one another.
const CODE_ALPHABET: &[u8; 32] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
/// Characters in a link code: 40 bits.
pub const CODE_CHARS: usize = 8;
/// How long a code links for.
pub const CODE_SECONDS: i64 = 10 * 60;
/// Wrong codes a sender may send before this code no longer links them.
pub const CODE_TRIES: u32 = 5;
/// Wrong codes from everyone together before the code is spent: far too
/// few to find 40 bits, many more than a crowd of strangers would spend to
/// annoy.
pub const CODE_TRIES_ALL: u32 = 200;

/// What to do with a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `/link CODE` (or `/start CODE`) in a direct chat.
    Link(String),
    /// `/link CODE` in a group: the right code there was seen by everyone,
    /// so it is spent; any other leaves the owner's code as it was.
    LinkInGroup(String),
    /// The owner's own words.
    Owner,
    /// `/stop` from the owner, in their own words (not a forward): stop
    /// everything, before any model sees it.
    Stop,
    /// Someone the owner allowed; `pin`: the allowlist entry (by handle)
    /// whose id should now be kept.
    Person { pin: Option<usize> },
    /// A stranger: refused with this sentence, and nothing is kept.
    Refuse(String),
    /// A group message that doesn't name the bot: not read.
    Ignore,
}

/// The code shown to the owner and what is kept of it, from 8 random
/// bytes (the caller's, so this stays pure).
pub fn new_code(random: [u8; CODE_CHARS], now: i64) -> (String, LinkCode) {
    let code: String = random
        .iter()
        .map(|b| CODE_ALPHABET[(b & 31) as usize] as char)
        .collect();
    let kept = LinkCode {
        sha256: hash(&code),
        expires: now + CODE_SECONDS,
        tries: 0,
        tries_by: Default::default(),
    };
    (code, kept)
}

/// A code as typed, the way it was made: capitals, letters and digits
/// only ("abcd-efgh" and "ABCD EFGH" are the same code).
fn normalise(code: &str) -> String {
    code.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

fn hash(code: &str) -> String {
    Sha256::digest(normalise(code).as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A handle as the app compares them: without `@`, lowercase.
pub fn handle(text: &str) -> String {
    text.trim().trim_start_matches('@').to_lowercase()
}

/// The command a message starts with (`/link@conch_bot` → `link`), and
/// the rest.
fn command(text: &str) -> Option<(String, &str)> {
    let text = text.trim_start();
    let rest = text.strip_prefix('/')?;
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let (word, after) = rest.split_at(end);
    let name = word.split('@').next().unwrap_or("").to_lowercase();
    Some((name, after.trim()))
}

pub fn route(state: &BridgeState, said: &Said, owner_name: &str) -> Route {
    if let Some((name, rest)) = command(&said.text) {
        let links = name == "link" || (name == "start" && !rest.is_empty());
        if links {
            return match said.place {
                Place::Group => Route::LinkInGroup(rest.to_owned()),
                Place::Direct => Route::Link(rest.to_owned()),
            };
        }
    }
    if said.place == Place::Group && !said.mentions_bot {
        return Route::Ignore;
    }
    let owner = state.owner.as_ref().is_some_and(|o| o.id == said.from.id);
    if command(&said.text).is_some_and(|(name, _)| name == "stop") {
        // Only the owner's own /stop stops: not a forward of someone
        // else's, not anyone else's.
        if owner && said.origin.is_none() {
            return Route::Stop;
        }
        if state.owner.is_some() {
            return Route::Refuse(format!("Only {owner_name} can stop Conch."));
        }
    }
    if owner {
        return Route::Owner;
    }
    if state
        .allowed
        .iter()
        .any(|a| a.id.as_deref() == Some(said.from.id.as_str()))
    {
        return Route::Person { pin: None };
    }
    if let Some(theirs) = said.from.handle.as_deref().map(handle) {
        if let Some(i) = state
            .allowed
            .iter()
            .position(|a| a.id.is_none() && a.handle.as_deref() == Some(theirs.as_str()))
        {
            return Route::Person { pin: Some(i) };
        }
    }
    if state.owner.is_none() {
        return Route::Refuse(NOT_LINKED.to_owned());
    }
    Route::Refuse(refused(owner_name, &said.from.id))
}

/// What anyone but a linking owner is told while nobody is linked: the
/// owner's first message to their new bot gets told what to do.
pub const NOT_LINKED: &str = "This bot isn't linked to its owner yet, so I can't talk with you. If it's yours, run conch bridges link telegram on your computer and send me /link and the code.";

/// What a stranger is told.
pub fn refused(owner_name: &str, id: &str) -> String {
    format!(
        "Sorry, I only talk with people {owner_name} has allowed. If you know {owner_name}, ask them to add you: your id is {id}."
    )
}

/// What `/link` with a wrong or spent code is told.
pub const WRONG_CODE: &str = "That code isn't right, or it has run out. Make a new one with conch bridges link telegram, and send /link and the code here within 10 minutes.";

/// What the owner is told once linked.
pub const LINKED: &str = "Linked. What you write here is yours now, and when something needs your OK, I'll ask you here with buttons.";

/// What `/link` in a group is told when the code was the right one.
pub const LINK_IN_GROUP: &str = "Send /link in a direct chat with me, not in a group: everyone here saw that code, so it no longer works. Make a new one with conch bridges link telegram.";

/// What `/link` in a group is told otherwise.
pub const LINK_NOT_IN_GROUP: &str = "Send /link in a direct chat with me, not in a group.";

/// `/link CODE` in a group: the right code is spent (everyone there saw
/// it); anything else spends nothing.
/// Whether it was spent.
pub fn link_in_group(state: &mut BridgeState, code: &str) -> bool {
    let right = state
        .link
        .as_ref()
        .is_some_and(|kept| same(&hash(code), &kept.sha256));
    if right {
        state.link = None;
    }
    right
}

/// Tries to link the writer as the owner with `code`. The code is spent
/// when it links, when it has run out, and after [`CODE_TRIES_ALL`] wrong
/// ones from everyone; a sender who sent [`CODE_TRIES`] wrong ones can't
/// link with it, while it stays usable for the owner.
pub fn link(
    state: &mut BridgeState,
    said: &Said,
    code: &str,
    now: i64,
) -> Result<Owner, &'static str> {
    let Some(kept) = state.link.as_mut() else {
        return Err(WRONG_CODE);
    };
    if now > kept.expires {
        state.link = None;
        return Err(WRONG_CODE);
    }
    let theirs = kept.tries_by.get(&said.from.id).copied().unwrap_or(0);
    if theirs >= CODE_TRIES {
        return Err(WRONG_CODE);
    }
    if !same(&hash(code), &kept.sha256) {
        kept.tries += 1;
        kept.tries_by.insert(said.from.id.clone(), theirs + 1);
        if kept.tries >= CODE_TRIES_ALL {
            state.link = None;
        }
        return Err(WRONG_CODE);
    }
    state.link = None;
    let owner = Owner {
        id: said.from.id.clone(),
        chat: said.chat.clone(),
        name: said.from.name.clone(),
    };
    // The owner is the owner, not also someone allowed.
    state
        .allowed
        .retain(|a| a.id.as_deref() != Some(owner.id.as_str()));
    state.owner = Some(owner.clone());
    Ok(owner)
}

/// Compares two hashes without stopping at the first difference.
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Reads `conch bridges allow telegram USER`: an account id (digits, as
/// the app shows it), or a handle (`@eve` or `eve`).
pub fn parse_user(text: &str) -> Result<crate::state::Allowed, String> {
    let t = text.trim();
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(crate::state::Allowed {
            id: Some(t.to_owned()),
            handle: None,
            name: None,
        });
    }
    let h = handle(t);
    let fits =
        (3..=32).contains(&h.len()) && h.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if fits {
        return Ok(crate::state::Allowed {
            id: None,
            handle: Some(h),
            name: None,
        });
    }
    Err(format!(
        "\"{}\" isn't a Telegram account. Give their numeric id (it shows when they write to the bot and are refused) or their @handle.",
        t.chars().take(40).collect::<String>()
    ))
}

#[cfg(test)]
mod tests;
