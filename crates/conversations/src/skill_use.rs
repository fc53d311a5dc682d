//! `skill.used` events: from a typed `/name`, or from a `use_skill` result.

use protocol::{SkillBy, SkillPermissions, SkillUsed};
use serde_json::Value;

pub fn used(skill: &skills::Skill, by: SkillBy) -> SkillUsed {
    SkillUsed {
        skill: skill.name.clone(),
        source: skill.source.id().to_owned(),
        fingerprint: skill.fingerprint.clone(),
        permissions: Some(skill.permissions.clone()),
        by,
        from: None,
        instructions: skill.instructions.clone(),
        says: None,
    }
}

/// The skill a `use_skill` call loaded, from its result's detail.
pub fn from_detail(detail: &protocol::ToolDetail) -> Option<SkillUsed> {
    let s = detail.get("skill")?;
    let permissions: Option<SkillPermissions> =
        serde_json::from_value(s.get("permissions")?.clone()).ok();
    Some(SkillUsed {
        skill: s.get("name")?.as_str()?.to_owned(),
        source: s
            .get("source")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        fingerprint: s
            .get("fingerprint")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        permissions,
        by: SkillBy::UseSkill,
        from: None,
        instructions: s
            .get("instructions")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        says: None,
    })
}
