//! use_skill: a skill's instructions (or one of its files) for the model.
//! Only a skill that is on; the turn loop records `skill.used` from the
//! result's `detail.skill`.

use serde_json::json;

use crate::classify::{input, SkillInput, TAKES_SKILL};
use crate::toolbox::{Outcome, ToolCall};

pub fn run(catalog: &skills::Catalog, name: &str, call: &ToolCall) -> Outcome {
    let file = input::<SkillInput>(call, TAKES_SKILL)
        .ok()
        .and_then(|i| i.file);
    if let Some(file) = file {
        return match catalog.file(name, &file) {
            Ok(text) => Outcome::ok(text, None),
            Err(e) => Outcome::failed(e.to_string()),
        };
    }
    let skill = match catalog.usable(name) {
        Ok(s) => s,
        Err(e) => return Outcome::failed(e.to_string()),
    };
    let mut text = format!(
        "The {} skill's instructions:\n\n{}",
        skill.name,
        skill.instructions.trim()
    );
    if !skill.files.is_empty() {
        text.push_str(&format!(
            "\n\nIts other files (read one with use_skill and \"file\"): {}",
            skill.files.join(", ")
        ));
    }
    Outcome::ok(
        text,
        Some(json!({ "skill": {
            "id": skill.id,
            "name": skill.name,
            "source": skill.source.id(),
            "fingerprint": skill.fingerprint,
            "permissions": skill.permissions,
            "instructions": skill.instructions,
        }})),
    )
}
