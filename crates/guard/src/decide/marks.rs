//! Check before acting on what it read (ADR 0028 §1 and its updates): in a
//! marked chat, what could carry out a stranger's words asks, and the
//! browser asks once per site it acts on, even in Full trust.

use protocol::{Action, ChatView};

use super::{after_reading_rule, full_trust_skips, Call, Found, Reason, Settings};
use crate::rules::Rule;
use crate::words;

/// Asks where someone else's words are in the chat, or nobody is there:
/// no "always" is offered then, and none given before counts.
fn others_and_nobody(chat: &ChatView, settings: &Settings, found: &mut Found) {
    if chat.others_words() {
        found.reasons.push(Reason::each_time(Rule::OthersWords));
        found.told = Some(words::told(&settings.owner_name));
    }
    if !chat.someone_there() {
        found.reasons.push(Reason::each_time(Rule::NobodyThere));
    }
}

/// The after-reading rules for commands, outside changes, data-carrying
/// fetches, writing apps and forgetting.
pub(super) fn after_reading(
    call: &Call<'_>,
    tool: &str,
    chat: &ChatView,
    settings: &Settings,
    found: &mut Found,
) {
    if !settings.check_after_reading {
        return;
    }
    let (Some(rule), Some(mark)) = (
        after_reading_rule(call.action, chat),
        chat.held_taints().last(),
    ) else {
        return;
    };
    // Full trust, in a chat someone is in with nobody else's words: it
    // still records the mark, but doesn't ask.
    if full_trust_skips(settings.mode, chat) {
        return;
    }
    let held = chat.held_taints().count();
    found.note.mark = Some(words::guard_note(mark, held - 1, tool, call.action));
    // The browser keeps its own "always" (per site, below).
    let browser = matches!(call.action, Action::Browser(_));
    if chat.others_words() || !chat.someone_there() || browser {
        found.reasons.push(Reason::each_time(rule));
        if !browser {
            others_and_nobody(chat, settings, found);
        }
    } else {
        let read = format!("read:{tool}");
        found.reasons.push(Reason {
            rule,
            offers: Some(read.clone()),
            satisfied_by: vec![read],
        });
    }
}

/// The browser asks once per site in a marked chat, even for a site the
/// owner trusts and in Full trust: the first action on each site it acts
/// on (the page's, where a click sends, where typing can reach).
pub(super) fn browser_sites(
    call: &Call<'_>,
    tool: &str,
    chat: &ChatView,
    settings: &Settings,
    found: &mut Found,
) {
    let (true, Action::Browser(b), Some(mark)) = (
        settings.check_after_reading,
        call.action,
        chat.held_taints().last(),
    ) else {
        return;
    };
    // "Always" would be untrue where someone else's words are in the chat
    // or nobody is there: none is offered, and none given counts.
    let honest = chat.someone_there() && !chat.others_words();
    for site in b.sites() {
        let key = crate::site::key(site);
        if honest && chat.always.contains(&key) {
            continue;
        }
        found.browser_sites.push(site.to_owned());
        found.reasons.push(Reason {
            rule: Rule::AfterReadingBrowserSite,
            offers: honest.then(|| key.clone()),
            satisfied_by: if honest { vec![key] } else { Vec::new() },
        });
    }
    if !found.browser_sites.is_empty() {
        let held = chat.held_taints().count();
        found
            .note
            .mark
            .get_or_insert_with(|| words::guard_note(mark, held - 1, tool, call.action));
        others_and_nobody(chat, settings, found);
    }
}
