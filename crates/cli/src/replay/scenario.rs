//! The replay scenario format (docs/replay.md).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "ask")]
    pub mode: String,
    /// Someone is there to choose (the owner started the chat).
    #[serde(default = "yes")]
    pub present: bool,
    /// owner, app, routine or task.
    #[serde(default)]
    pub origin: Option<String>,
    /// Address → the page's body, served by replay itself.
    #[serde(default)]
    pub pages: BTreeMap<String, String>,
    #[serde(default)]
    pub integrations: Vec<Integration>,
    /// Real MCP servers, by app name, started for the scenario as the
    /// owner's apps (docs/apps.md): their tools are offered as
    /// `mcp__NAME__TOOL` and guarded like any app's.
    #[serde(default)]
    pub apps: BTreeMap<String, ScenarioApp>,
    /// Tool policies, as in settings.json `toolPolicies`.
    #[serde(default)]
    pub policies: BTreeMap<String, guard::Policy>,
    /// Safety preferences, as in settings.json `safety`.
    #[serde(default)]
    pub safety: conversations::Safety,
    /// Run commands sealed (default false, so outcomes are the same on every
    /// computer); true needs bubblewrap.
    #[serde(default)]
    pub sealed: bool,
    /// Auto mode's review deadline in milliseconds (default 30,000).
    #[serde(default)]
    pub review_deadline_ms: Option<u64>,
    /// Rejections in a turn before review stops being tried (default 3).
    #[serde(default)]
    pub review_budget: Option<u32>,
    /// Auto mode's reviewer for the whole scenario: `always-allow` says
    /// allow to everything (the steps' `review` replies are skipped).
    #[serde(default)]
    pub review: Option<Reviewer>,
    /// Skills installed into the temporary home as Conch's own.
    #[serde(default)]
    pub skills: BTreeMap<String, ScenarioSkill>,
    /// The chat's work folder (default: a new temporary one). It must
    /// exist; the same rules as for any chat's work folder apply.
    #[serde(default)]
    pub work: Option<std::path::PathBuf>,
    /// Steps one turn may take, as `maxSteps` in settings.json.
    #[serde(default, alias = "maxSteps")]
    pub max_steps: Option<usize>,
    /// Memories already kept (or held) when the scenario starts.
    #[serde(default)]
    pub memories: Vec<ScenarioMemory>,
    pub steps: Vec<Step>,
    /// What a test expects; replay itself ignores it.
    #[serde(default, rename = "expect")]
    pub _expect: Option<Value>,
    /// A sentence on what the scenario shows; ignored.
    #[serde(default, rename = "about")]
    pub _about: Option<String>,
}

/// A reviewer the scenario stands in for the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Reviewer {
    /// Allows everything it is asked, citing the owner's first message.
    AlwaysAllow,
}

fn ask() -> String {
    "ask".to_owned()
}

fn yes() -> bool {
    true
}

/// A skill as a scenario writes it: its SKILL.md front matter as it is,
/// either as the raw text (`front_matter`) or as keys beside these
/// (`allowed-tools`, `license`, `metadata`… go into the front matter
/// unchanged), and the instructions after it.
#[derive(Debug, Deserialize)]
pub struct ScenarioSkill {
    #[serde(default)]
    pub description: String,
    /// The skill's `permissions`, as in SKILL.md.
    #[serde(default)]
    pub permissions: Option<Value>,
    #[serde(default)]
    pub instructions: Option<String>,
    /// The front matter exactly as it would be written in SKILL.md (between
    /// the `---` lines); when given, nothing else goes into it.
    #[serde(default)]
    pub front_matter: Option<String>,
    /// Every other key of the front matter, as it is.
    #[serde(flatten)]
    pub other: serde_json::Map<String, Value>,
}

/// A memory in Conch's folder before the chat starts.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioMemory {
    pub text: String,
    /// `owner` (default), `import`, or `chat` (written by an earlier chat).
    #[serde(default)]
    pub source: Option<String>,
    /// For `chat`: what that chat had read (none: it was unmarked).
    #[serde(default)]
    pub read: Vec<String>,
    /// `kept` or `held`; absent, the check decides as it would have.
    #[serde(default)]
    pub state: Option<String>,
}

/// A real MCP server: a program (`command`, `args`, `env`) or an address
/// (`url`, `headers`); and the owner's choices for its tools.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioApp {
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Tool → follow, ask, read-only or off (`*` for every tool).
    #[serde(default)]
    pub choices: BTreeMap<String, String>,
    /// Tools the owner says write, whatever the server says.
    #[serde(default)]
    pub writes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Integration {
    pub name: String,
    #[serde(default)]
    pub read_only: bool,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Step {
    Owner(OwnerStep),
    Person(PersonStep),
    Routine(RoutineStep),
    Call(CallStep),
    Mode(ModeStep),
    Reply(ReplyStep),
    Skill(SkillStep),
    EditSkill(EditSkillStep),
    DeleteSkill(DeleteSkillStep),
    StopHolding(StopHoldingStep),
    Compact(CompactStep),
    Keep(KeepStep),
}

/// The owner keeps a held memory (by its text or id), as on the Memories
/// page.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeepStep {
    pub keep: String,
}

/// Older turns are summarised to fit the model (a `compacted` event).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactStep {
    pub compact: String,
}

/// The owner types `/name`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillStep {
    pub skill: String,
    /// Only `typed` (the assistant loads a skill with a `use_skill` call).
    #[serde(default)]
    pub by: Option<String>,
}

/// The skill's permissions change on disk after it was used.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditSkillStep {
    pub edit_skill: String,
    pub permissions: Value,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeleteSkillStep {
    pub delete_skill: String,
}

/// Someone tries to stop holding the chat to a skill's list.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopHoldingStep {
    pub stop_holding: String,
    /// `person` (signed in with the password) or `key` (an access key).
    #[serde(default)]
    pub by: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnerStep {
    pub owner: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PersonStep {
    pub person: Person,
    pub text: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Person {
    pub name: String,
    #[serde(default)]
    pub app: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoutineStep {
    pub routine: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallStep {
    pub call: CallSpec,
    /// What a declared integration tool returns.
    #[serde(default)]
    pub returns: Option<String>,
    /// once, always or deny (the default) when the call asks.
    #[serde(default)]
    pub answer: Option<String>,
    /// For `delegate`: what the helper's model does (calls and replies).
    #[serde(default)]
    pub script: Option<Vec<Step>>,
    /// In Auto mode, what the reviewer model replies when asked about this
    /// call: its raw text, or `{"delay_ms": n}` (optionally with `"reply"`)
    /// to answer late. Absent: the model can't be reached.
    #[serde(default)]
    pub review: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallSpec {
    pub tool: String,
    #[serde(default)]
    pub input: Value,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModeStep {
    pub mode: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyStep {
    pub reply: String,
}
