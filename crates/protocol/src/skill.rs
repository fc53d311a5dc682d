//! A skill's permission list, as `skill.used` records it: what the words in
//! the chat were reviewed under.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileAccess {
    None,
    #[default]
    Read,
    /// Read, and write inside the work folder.
    Write,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WebAccess {
    None,
    /// Fetch and search.
    #[default]
    Read,
    /// Also addresses that can carry data.
    Send,
}

/// What a skill says it needs. A skill that declares nothing gets
/// [`SkillPermissions::usual`]: read files, read the web, no commands, no
/// integrations.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SkillPermissions {
    /// Programs it may run; `"*"` for any; none when empty.
    #[serde(default)]
    pub commands: Vec<String>,
    #[serde(default)]
    pub files: FileAccess,
    #[serde(default)]
    pub web: WebAccess,
    /// Tool names, or `server.*`.
    #[serde(default)]
    pub integrations: Vec<String>,
}

impl SkillPermissions {
    pub fn usual() -> SkillPermissions {
        SkillPermissions {
            commands: Vec::new(),
            files: FileAccess::Read,
            web: WebAccess::Read,
            integrations: Vec::new(),
        }
    }

    pub fn allows_any_command(&self) -> bool {
        !self.commands.is_empty()
    }
}

/// How a skill came into a chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillBy {
    /// The owner typed `/name`.
    Typed,
    /// The assistant loaded it with the `use_skill` tool.
    UseSkill,
    /// Carried in with work from another chat.
    Carried,
}

/// A person stopped holding the chat to a skill's list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillHoldEnded {
    pub skill: String,
    /// `you`: only a person ends a hold.
    pub reason: String,
}

/// Older turns were summarised to fit the model (what is sent changed; the
/// log keeps everything, and holds stay).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Compacted {
    #[serde(default)]
    pub summary: String,
    /// The last seq the summary covers.
    #[serde(default)]
    pub through: u64,
}

/// A skill's instructions came into the chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillUsed {
    pub skill: String,
    /// Where it lives: `conch`, `openclaw`, `hermes`, `claude`, `project`.
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub fingerprint: String,
    /// The list as it was then. Older events have none; readers fall back to
    /// the skill's list now, or the usual one when it's gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<SkillPermissions>,
    pub by: SkillBy,
    /// The chat it was carried from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The instructions, as the model was given them.
    #[serde(default)]
    pub instructions: String,
    /// The transcript's line for a carried skill ("Held to the Quick setup
    /// skill, like the chat it came from").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub says: Option<String>,
}
