//! Refresh for a pinned app (ADR 0034 §4): a chat of its own (origin
//! `artifact`, kept out of the chat list) that can read the web and call
//! `artifact_update` on that one artifact, and nothing else, under the
//! guard like any chat: a read that would send something asks the owner.

use artifacts::Artifact;
use protocol::Action;

/// The tools a Refresh chat may use besides `artifact_update`: reading the
/// web for fresh data.
pub const REFRESH_READS: &[&str] = &["web_fetch", "web_search"];

/// What a Refresh chat may do, judged on what a call does (its action),
/// on every engine: read the web (the guard still decides each read), and
/// update an artifact (which one, the artifact tool checks: only its own,
/// with its own sentence). Anything else is refused, not asked: the
/// owner's Refresh covered fresh data, nothing more. `Err` is the sentence
/// the model is told.
pub fn refresh_allows(action: &Action, only: &str) -> Result<(), String> {
    match action {
        Action::PageRead { .. } | Action::Search { .. } | Action::FetchSends { .. } => Ok(()),
        Action::Artifact {
            artifact: Some(_), ..
        } => Ok(()),
        _ => Err(format!(
            "This chat only refreshes the artifact {only}: it can read the web, then artifact_update it."
        )),
    }
}

/// The task the refresh chat is given.
pub fn refresh_task(artifact: &Artifact, current: &str) -> String {
    let made_for = artifact
        .request
        .as_deref()
        .map(|r| format!(" It was made for: \"{r}\"."))
        .unwrap_or_default();
    format!(
        "Refresh {} \"{}\" (artifact {}) with fresh data, then call artifact_update with id \"{}\" and its whole new content, of the same kind.{made_for} Its current content:\n\n{current}",
        artifact.kind.words(),
        artifact.title,
        artifact.id,
        artifact.id
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refresh_reads_the_web_and_updates_its_one_artifact_and_nothing_else() {
        let ok = [
            Action::PageRead {
                url: "https://news.example/".into(),
                host: "news.example".into(),
            },
            Action::Search {
                query: "météo".into(),
            },
            Action::FetchSends {
                url: "https://api.example/?q=1".into(),
                host: "api.example".into(),
            },
            Action::Artifact {
                artifact: Some("a1".into()),
                what: "chart".into(),
            },
        ];
        for action in &ok {
            assert_eq!(refresh_allows(action, "a1"), Ok(()), "{action:?}");
        }
        let refused = [
            Action::Artifact {
                artifact: None,
                what: "html".into(),
            },
            Action::LookAround {
                paths: vec!["/home/ada/.ssh".into()],
            },
            Action::Integration {
                tool: "mail.send".into(),
                read_only: false,
            },
            Action::Delegate {
                task: "anything".into(),
            },
            Action::UseSkill { skill: "x".into() },
        ];
        for action in &refused {
            assert!(refresh_allows(action, "a1").is_err(), "{action:?}");
        }
    }
}
