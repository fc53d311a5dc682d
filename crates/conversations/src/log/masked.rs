//! The last step before an event is stored: the secrets Conch holds are
//! taken out of its line (see `known_secrets`). Everything else reads the
//! log (the model's transcript, the page, Activity, search, the chat
//! apps), so a secret taken out here is out of all of them.

use std::borrow::Cow;

use mask::{Masker, Syntax};
use protocol::Event;
use serde_json::Value;

use super::LogError;

/// The event and its line with every secret replaced by its name.
pub(super) fn masked(
    event: Event,
    line: String,
    masker: &Masker,
) -> Result<(Event, String), LogError> {
    let masked = match masker.mask(&line, Syntax::Json) {
        Cow::Borrowed(_) => return Ok((event, line)),
        Cow::Owned(masked) => masked,
    };
    if let Ok(event) = Event::from_line(masked.as_bytes()) {
        return Ok((event, masked));
    }
    // A secret with a quote or a backslash in it can sit across an escape
    // in a way the line can't be cut at: take it out of each string.
    let mut value: Value = serde_json::from_str(&line).map_err(|_| LogError::Unmaskable)?;
    each_string(&mut value, masker);
    let line = value.to_string();
    let event = Event::from_line(line.as_bytes()).map_err(|_| LogError::Unmaskable)?;
    Ok((event, line))
}

fn each_string(value: &mut Value, masker: &Masker) {
    match value {
        Value::String(s) => {
            if let Cow::Owned(m) = masker.mask(s, Syntax::Text) {
                *s = m;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| each_string(v, masker)),
        Value::Object(fields) => fields.values_mut().for_each(|v| each_string(v, masker)),
        _ => {}
    }
}
