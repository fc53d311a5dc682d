//! Every rule the guard applies, by id. An id is never reused for a
//! different rule.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// Ask and Accept edits ask before any command.
    ModeAskCommand,
    /// Ask mode asks before a file change inside the work folder.
    ModeAskEdit,
    /// Ask and Accept edits ask before a file change outside the work folder.
    ModeEditsOutside,
    /// Ask and Accept edits ask before an integration call that isn't read-only.
    ModeAskIntegration,
    /// The command would run unsealed because sealing isn't available here.
    BoxUnavailable,
    /// The command asks to leave the box.
    BoxLeave,
    /// The owner set this tool to Ask.
    PolicyAsk,
    /// The owner turned this tool off.
    PolicyOff,
    /// The owner set this tool to read-only, and this call doesn't only read.
    PolicyReadOnly,
}

impl Rule {
    pub fn id(self) -> &'static str {
        match self {
            Rule::ModeAskCommand => "mode.ask-command",
            Rule::ModeAskEdit => "mode.ask-edit",
            Rule::ModeEditsOutside => "mode.edits-outside",
            Rule::ModeAskIntegration => "mode.ask-integration",
            Rule::BoxUnavailable => "box.unavailable",
            Rule::BoxLeave => "box.leave",
            Rule::PolicyAsk => "policy.ask",
            Rule::PolicyOff => "policy.off",
            Rule::PolicyReadOnly => "policy.read-only",
        }
    }
}
