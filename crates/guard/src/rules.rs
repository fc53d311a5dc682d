//! Every rule the guard applies, by id. An id is never reused for a
//! different rule.

mod hard;
pub use hard::Hard;

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
    /// Marked: any command asks.
    AfterReadingCommand,
    /// Marked: a file change outside the work folder asks.
    AfterReadingOutsideWrite,
    /// Marked: a fetch of an address the model composed, saying more than
    /// a small amount the chat never read or heard from the owner, asks.
    AfterReadingDataFetch,
    /// Marked: an integration tool that isn't read-only asks.
    AfterReadingIntegrationWrite,
    /// Someone else's words are in the chat: after-reading questions stay,
    /// even in Full trust, and "always" would be untrue.
    OthersWords,
    /// Nobody is there to choose (a routine, a task, a chat app): after-reading
    /// questions stay, even in Full trust, and wait for the owner.
    NobodyThere,
    /// The command would run unsealed because sealing isn't available here.
    BoxUnavailable,
    /// The command asks to leave the box.
    BoxLeave,
    /// The owner set this tool to Ask.
    PolicyAsk,
    /// The owner turned this tool off.
    PolicyOff,
    /// An app's tool changed (description, input schema, annotations)
    /// since the owner turned it on: off until they look.
    PolicyChanged,
    /// The owner set this tool to read-only, and this call doesn't only read.
    PolicyReadOnly,
    /// The call touches Conch's own folder, or where keys live.
    ProtectedPath,
    /// The command reaches for Conch's own powers (keys, skill signing).
    ProtectedPower,
    /// The call isn't on every held skill's list.
    HoldOffList,
    /// A file change where what is written runs later by itself (a git
    /// hook, CI, a start-up file, `package.json`'s scripts): asked in every
    /// mode, with no "always".
    RunsLater,
    /// Marked: forgetting a memory asks (a page could be trying to erase
    /// what the owner told it).
    AfterReadingForget,
    /// Making a routine: a chat that will run by itself on a schedule,
    /// with nobody there. Persistence: asked in every mode, each time, with
    /// no "always".
    RunsLaterRoutine,
    /// Marked: the first action on each site in the browser asks, even in
    /// Full trust; a yes to Always allow covers that site for the rest of
    /// the chat (its own key, `browser:<site>`).
    AfterReadingBrowserSite,
    /// Typing into a password field in the browser: asked in every mode,
    /// each time, never remembered.
    BrowserPassword,
    /// Ask, Accept edits and Auto ask before a click that sends something,
    /// or typing that the page's own script reads (Auto's reviewer first).
    ModeAskBrowserSend,
    /// A chat that answers someone other than the owner (a chat app chat):
    /// reading the owner's files, memories, apps or a local address asks
    /// the owner in every mode, each time, since what it finds goes back
    /// to that person.
    OthersSee,
    /// Auto mode's reviewer left the call to the owner, or something
    /// changed while it looked.
    ReviewAsk,
    /// Auto mode's reviewer turned the call down.
    ReviewRejected,
    /// Auto mode's reviewer has turned down its budget of calls this turn.
    ReviewExhausted,
    /// What Auto mode's reviewer can never waive: the owner is asked.
    NeverWaivable(Hard),
    /// What was approved changed before it ran.
    BindChanged,
    /// The approval path was handed something out of order: nothing runs.
    ApprovalOutOfOrder,
}

impl Rule {
    pub fn id(self) -> &'static str {
        match self {
            Rule::ModeAskCommand => "mode.ask-command",
            Rule::ModeAskEdit => "mode.ask-edit",
            Rule::ModeEditsOutside => "mode.edits-outside",
            Rule::ModeAskIntegration => "mode.ask-integration",
            Rule::AfterReadingCommand => "after-reading.command",
            Rule::AfterReadingOutsideWrite => "after-reading.outside-write",
            Rule::AfterReadingDataFetch => "after-reading.data-fetch",
            Rule::AfterReadingIntegrationWrite => "after-reading.integration-write",
            Rule::OthersWords => "others-words.owner-decides",
            Rule::NobodyThere => "nobody-there.waits",
            Rule::BoxUnavailable => "box.unavailable",
            Rule::BoxLeave => "box.leave",
            Rule::PolicyAsk => "policy.ask",
            Rule::PolicyOff => "policy.off",
            Rule::PolicyChanged => "policy.changed",
            Rule::PolicyReadOnly => "policy.read-only",
            Rule::ProtectedPath => "protected.path",
            Rule::ProtectedPower => "protected.power",
            Rule::HoldOffList => "hold.off-list",
            Rule::RunsLater => "runs-later.file",
            Rule::AfterReadingForget => "after-reading.forget-memory",
            Rule::RunsLaterRoutine => "runs-later.routine",
            Rule::AfterReadingBrowserSite => "after-reading.browser-site",
            Rule::BrowserPassword => "browser.password",
            Rule::ModeAskBrowserSend => "mode.ask-browser-send",
            Rule::OthersSee => "others-see.private-read",
            Rule::ReviewAsk => "review.ask",
            Rule::ReviewRejected => "review.rejected",
            Rule::ReviewExhausted => "review.exhausted",
            Rule::NeverWaivable(hard) => hard.id(),
            Rule::BindChanged => "bind.changed",
            Rule::ApprovalOutOfOrder => "approval.out-of-order",
        }
    }

    pub const ALL: [Rule; 26] = [
        Rule::OthersSee,
        Rule::AfterReadingBrowserSite,
        Rule::BrowserPassword,
        Rule::ModeAskBrowserSend,
        Rule::AfterReadingForget,
        Rule::RunsLater,
        Rule::RunsLaterRoutine,
        Rule::HoldOffList,
        Rule::ModeAskCommand,
        Rule::ModeAskEdit,
        Rule::ModeEditsOutside,
        Rule::ModeAskIntegration,
        Rule::AfterReadingCommand,
        Rule::AfterReadingOutsideWrite,
        Rule::AfterReadingDataFetch,
        Rule::AfterReadingIntegrationWrite,
        Rule::OthersWords,
        Rule::NobodyThere,
        Rule::BoxUnavailable,
        Rule::BoxLeave,
        Rule::PolicyAsk,
        Rule::PolicyOff,
        Rule::PolicyChanged,
        Rule::PolicyReadOnly,
        Rule::ProtectedPath,
        Rule::ProtectedPower,
    ];
}
