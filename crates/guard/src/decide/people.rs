//! Who the answer goes to and whose list the chat is held to: what a chat
//! with someone else in it reads of the owner's asks the owner, and a
//! skill's hold asks for what is off its list, whatever the mode.

use protocol::ChatView;

use super::{Call, Found, Reason, Settings};
use crate::rules::Rule;
use crate::words;

/// What it reads goes back to someone else here: the owner's private
/// things ask the owner first, in every mode, each time.
pub(super) fn others_see(call: &Call<'_>, chat: &ChatView, settings: &Settings, found: &mut Found) {
    let Some(what) = crate::private::private_read(call.action) else {
        return;
    };
    if chat.audience().is_empty() {
        return;
    }
    found.reasons.push(Reason::each_time(Rule::OthersSee));
    found.note.others_see = Some(words::others_see(chat.audience(), what));
    found
        .told
        .get_or_insert_with(|| words::told(&settings.owner_name));
}

/// Skill holds: whatever the mode, with no "always".
pub(super) fn holds(
    call: &Call<'_>,
    tool: &str,
    chat: &ChatView,
    settings: &Settings,
    found: &mut Found,
) {
    let held = crate::hold::off_list(call.action, chat, &settings.skill_lists);
    if held.is_empty() {
        return;
    }
    found.reasons.push(Reason::each_time(Rule::HoldOffList));
    found.note.hold = Some(crate::hold::question_note(&held, chat, tool, call.action));
}
