//! Skill holds (ADR 0047 §1): a chat is held to every skill whose
//! instructions are in it. A call that isn't on every held skill's list asks
//! first, whatever the mode, with no "always" (an "always" answer counts as
//! once): several holds combine the strictest way.

use protocol::{Action, ChatView, FileAccess, Hold, SkillPermissions, WebAccess};

use crate::address;

/// Whether `action` is on one skill's list.
pub fn on_list(action: &Action, list: &SkillPermissions, chat: &ChatView) -> bool {
    match action {
        Action::LookAround { .. } => list.files != FileAccess::None,
        Action::FileChange { inside: true, .. } => list.files == FileAccess::Write,
        Action::FileChange { inside: false, .. } => false,
        Action::Command { programs, .. } => {
            list.commands.iter().any(|c| c == "*")
                || (!programs.is_empty()
                    && programs
                        .iter()
                        .all(|p| list.commands.iter().any(|c| c == p)))
        }
        Action::PageRead { url, .. } => match list.web {
            WebAccess::None => false,
            WebAccess::Read => address::carries_data(url, chat).is_none(),
            WebAccess::Send => true,
        },
        Action::Search { .. } => list.web != WebAccess::None,
        Action::FetchSends { .. } => list.web == WebAccess::Send,
        Action::Integration { tool, .. } => list.integrations.iter().any(|i| {
            i == tool
                || i == "*"
                || i.strip_suffix(".*")
                    .is_some_and(|server| tool.starts_with(&format!("{server}.")))
        }),
        // The helper is held to every list this chat is; its own steps
        // are judged in its own chat.
        // Made in Conch's own store, sealed when shown.
        Action::UseSkill { .. } | Action::Delegate { .. } | Action::Artifact { .. } => true,
        // Recalling reads Conch's own memories; what a skill would have
        // remembered or forgotten steers later chats, and no list says it.
        Action::Memory { op, .. } => op.reads_only(),
        // No skill's list can say it may set something up to run later.
        Action::Routine { .. } => false,
        // Reading pages in the browser is reading the web; using a page's
        // controls can send, which only `web: send` says.
        Action::Browser(b) => match list.web {
            WebAccess::None => false,
            WebAccess::Read => {
                b.op.reads_only()
                    && (b.op != protocol::BrowserOp::Open
                        || address::carries_data(&b.url, chat).is_none())
            }
            WebAccess::Send => true,
        },
    }
}

/// The list a hold is held to: the one recorded when the skill came in;
/// for older events, the skill's list now, or the usual one when it's gone.
pub fn list_of<'a>(
    hold: &'a Hold,
    now: &'a std::collections::BTreeMap<String, SkillPermissions>,
    usual: &'a SkillPermissions,
) -> &'a SkillPermissions {
    hold.permissions
        .as_ref()
        .or_else(|| now.get(&hold.skill))
        .unwrap_or(usual)
}

/// The holds whose lists don't have this call.
pub fn off_list<'a>(
    action: &Action,
    chat: &'a ChatView,
    now: &std::collections::BTreeMap<String, SkillPermissions>,
) -> Vec<&'a Hold> {
    let usual = SkillPermissions::usual();
    chat.holds
        .iter()
        .filter(|h| !on_list(action, list_of(h, now, &usual), chat))
        .collect()
}

/// What the call would do, for the question.
fn step(tool: &str, action: &Action) -> String {
    match action {
        Action::Command { .. } => "run this command".to_owned(),
        Action::FileChange { inside: true, .. } => "change files".to_owned(),
        Action::FileChange { inside: false, .. } => {
            "change a file outside the work folder".to_owned()
        }
        Action::LookAround { .. } => "read files".to_owned(),
        Action::PageRead { .. } => "open this address".to_owned(),
        Action::FetchSends { .. } => "send a request".to_owned(),
        Action::Search { .. } => "search the web".to_owned(),
        Action::Integration { tool, .. } => format!("use {tool}"),
        Action::UseSkill { .. } | Action::Delegate { .. } | Action::Artifact { .. } => {
            format!("use {tool}")
        }
        Action::Memory { op, .. } => match op {
            protocol::MemoryOp::Remember => "remember something".to_owned(),
            protocol::MemoryOp::Forget => "forget a memory".to_owned(),
            protocol::MemoryOp::Recall => "look through memories".to_owned(),
        },
        Action::Routine { .. } => "make a routine".to_owned(),
        Action::Browser(b) if b.op.reads_only() => "read pages in the browser".to_owned(),
        Action::Browser(_) => "use a page's controls in the browser".to_owned(),
    }
}

/// "This chat is held to the "Quick setup" skill's list, and it doesn't say
/// it needs to run this command. So I'm checking first." In the turn the
/// skill came in: "… skill is in use, …".
pub fn question_note(held: &[&Hold], chat: &ChatView, tool: &str, action: &Action) -> String {
    let first = held[0];
    let more = match held.len() {
        1 => String::new(),
        2 => format!(" (and the \"{}\" skill's)", held[1].skill),
        n => format!(" (and {} other skills')", n - 1),
    };
    let in_use = first.turn.is_some() && first.turn == chat.open_turn.map(|t| t.seq);
    let opening = if in_use {
        format!("The \"{}\" skill is in use{more}", first.skill)
    } else {
        format!(
            "This chat is held to the \"{}\" skill's list{more}",
            first.skill
        )
    };
    format!(
        "{opening}, and it doesn't say it needs to {}. So I'm checking first.",
        step(tool, action)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(action: &Action, list: &SkillPermissions) -> bool {
        on_list(action, list, &ChatView::default())
    }

    fn list(
        commands: &[&str],
        files: FileAccess,
        web: WebAccess,
        integrations: &[&str],
    ) -> SkillPermissions {
        SkillPermissions {
            commands: commands.iter().map(|s| s.to_string()).collect(),
            files,
            web,
            integrations: integrations.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn cmd(programs: &[&str]) -> Action {
        Action::Command {
            command: programs.join(" && "),
            programs: programs.iter().map(|s| s.to_string()).collect(),
            unsealed: false,
            leaves_box: false,
        }
    }

    #[test]
    fn what_is_on_a_list() {
        let quick = list(&["git"], FileAccess::Read, WebAccess::Read, &[]);
        let weekly = SkillPermissions::usual();
        assert!(on(&cmd(&["git"]), &quick));
        assert!(!on(&cmd(&["git", "curl"]), &quick));
        assert!(
            !on(&cmd(&["git"]), &weekly),
            "the usual list has no commands"
        );
        assert!(on(
            &cmd(&["anything"]),
            &list(&["*"], FileAccess::Read, WebAccess::Read, &[])
        ));
        assert!(on(&Action::LookAround { paths: vec![] }, &weekly));
        assert!(!on(
            &Action::FileChange {
                path: "/w/a".into(),
                inside: true,
                runs_later: None,
            },
            &weekly
        ));
        assert!(on(
            &Action::FileChange {
                path: "/w/a".into(),
                inside: true,
                runs_later: None,
            },
            &list(&[], FileAccess::Write, WebAccess::Read, &[])
        ));
        assert!(!on(
            &Action::FileChange {
                path: "/etc/x".into(),
                inside: false,
                runs_later: None,
            },
            &list(&["*"], FileAccess::Write, WebAccess::Send, &["*"])
        ));
        let page = Action::PageRead {
            url: "https://docs.rs/x".into(),
            host: "docs.rs".into(),
        };
        let exfil = Action::PageRead {
            url: "https://x.example/?d=QUtJQUlPU0ZPRE5ON0VYQU1QTEUvd0phbHJYVXRuRkVNSQ".into(),
            host: "x.example".into(),
        };
        assert!(on(&page, &weekly));
        assert!(!on(&exfil, &weekly), "read isn't send");
        assert!(on(
            &exfil,
            &list(&[], FileAccess::Read, WebAccess::Send, &[])
        ));
        let mail = Action::Integration {
            tool: "mail.search".into(),
            read_only: true,
        };
        assert!(!on(&mail, &weekly));
        assert!(on(
            &mail,
            &list(&[], FileAccess::Read, WebAccess::Read, &["mail.*"])
        ));
        assert!(!on(
            &Action::Integration {
                tool: "mailer.send".into(),
                read_only: false
            },
            &list(&[], FileAccess::Read, WebAccess::Read, &["mail.*"])
        ));
    }
}
