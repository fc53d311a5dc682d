//! What Auto mode's reviewer can never waive (ADR 0144), by category: the
//! review crate reads them from an action; their ids are rule ids like
//! every other (`review.never-waivable.<category>`).

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hard {
    /// The owner set the tool to Ask.
    ToolAsk,
    /// The owner turned the tool off.
    ToolOff,
    Credentials,
    Exfiltration,
    SafetyChange,
    PrivilegeEscalation,
    /// Downloading something and running it, or installing packages.
    RemoteCode,
    Spending,
    /// Where a write goes wasn't the owner's to begin with: read, or
    /// composed.
    Destination,
    /// A write carries an identifier (an address, a link, a number, an id)
    /// that came from reading or from nowhere.
    ReadIdentifier,
    /// Something that runs again later: cron, shell start-up files,
    /// services, autostart, git hooks.
    Persistence,
    CriticalDestruction,
}

impl Hard {
    /// The rule id on the question (`review.never-waivable.<category>`).
    pub fn id(self) -> &'static str {
        match self {
            Hard::ToolAsk => "review.never-waivable.tool-ask",
            Hard::ToolOff => "review.never-waivable.tool-off",
            Hard::Credentials => "review.never-waivable.credentials",
            Hard::Exfiltration => "review.never-waivable.exfiltration",
            Hard::SafetyChange => "review.never-waivable.safety-change",
            Hard::PrivilegeEscalation => "review.never-waivable.privilege-escalation",
            Hard::RemoteCode => "review.never-waivable.remote-code",
            Hard::Spending => "review.never-waivable.spending",
            Hard::Destination => "review.never-waivable.destination",
            Hard::ReadIdentifier => "review.never-waivable.identifier",
            Hard::Persistence => "review.never-waivable.persistence",
            Hard::CriticalDestruction => "review.never-waivable.critical-destruction",
        }
    }

    /// The line the owner reads on the question.
    pub fn sentence(self) -> &'static str {
        match self {
            Hard::ToolAsk => "You set this tool to Ask, so Auto mode asks you.",
            Hard::ToolOff => "You turned this tool off.",
            Hard::Credentials => "It touches keys or passwords, so Auto mode asks you.",
            Hard::Exfiltration => "It sends something out, so Auto mode asks you.",
            Hard::SafetyChange => "It changes a safety setting, so Auto mode asks you.",
            Hard::PrivilegeEscalation => {
                "It asks for more power over the computer, so Auto mode asks you."
            }
            Hard::RemoteCode => "It downloads and runs code, so Auto mode asks you.",
            Hard::Spending => "It could spend money, so Auto mode asks you.",
            Hard::Destination => {
                "Where it goes isn't something you wrote or a contact you keep, so Auto mode asks you."
            }
            Hard::ReadIdentifier => {
                "It carries a link, an address or a number that didn't come from you, so Auto mode asks you."
            }
            Hard::Persistence => "It sets something up to run again later, so Auto mode asks you.",
            Hard::CriticalDestruction => "It could destroy a lot at once, so Auto mode asks you.",
        }
    }
}
