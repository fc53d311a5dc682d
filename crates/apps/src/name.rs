//! The names a tool goes by. Three spellings, one tool:
//!
//! - **qualified**, `mail.search`: what the owner, the guard, skills'
//!   `integrations:` lists, marks and Activity say. The server's name, a
//!   dot, and the tool's name exactly as the server gives it.
//! - **engine**, `mcp__mail__search`: what a model calls it. Providers take
//!   only `[A-Za-z0-9_-]`, at most 64 characters, and Codex turns a dash
//!   into `_`, so the tool's part is spelled in `[A-Za-z0-9_]`
//!   ([`engine_names`]) and no engine renames it: Claude Code and Codex
//!   name the tools Conch hands them the same way, so one spelling serves
//!   every engine.
//! - the tool's own name, what the server is called with.
//!
//! A server's name is lowercase letters, digits and dashes: no dot (the
//! qualified name splits at the first one) and no underscore (the engine
//! name splits at the first `__` after `mcp__`). So every spelling reads
//! back one way.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

/// The most a server's name may be.
pub const MAX_SERVER: usize = 32;
/// The most characters a provider takes in a tool's name.
pub const MAX_ENGINE: usize = 64;
const PREFIX: &str = "mcp__";

/// Why a server's name can't be used: the sentence a person reads.
pub fn server_name_problem(name: &str) -> Option<String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_SERVER
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && name.starts_with(|c: char| c.is_ascii_alphanumeric());
    (!ok).then(|| {
        format!(
            "\"{}\" can't be an app's name: use 1 to {MAX_SERVER} lowercase letters, digits and dashes, starting with a letter or digit (like mail or my-notes).",
            name.chars().take(60).collect::<String>()
        )
    })
}

/// `mail.search`.
pub fn qualified(server: &str, tool: &str) -> String {
    format!("{server}.{tool}")
}

/// `mail.search` → (`mail`, `search`): the server is before the first dot.
pub fn split_qualified(name: &str) -> Option<(&str, &str)> {
    let (server, tool) = name.split_once('.')?;
    (server_name_problem(server).is_none() && !tool.is_empty()).then_some((server, tool))
}

/// `mcp__mail__search` → (`mail`, `search`), the tool's part as spelled
/// for engines.
pub fn split_engine(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix(PREFIX)?;
    let (server, tool) = rest.split_once("__")?;
    (server_name_problem(server).is_none() && !tool.is_empty()).then_some((server, tool))
}

fn spelled(tool: &str) -> String {
    tool.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn short_hash(tool: &str) -> String {
    let digest = Sha256::digest(tool.as_bytes());
    digest.iter().take(4).map(|b| format!("{b:02x}")).collect()
}

/// Each of a server's tools' engine-facing spelling (the part after
/// `mcp__server__`), one for one: a name that fits is kept; one with other
/// characters (a dash among them) has them as `_`; one too long, or that would be the same as
/// another's, is cut and ends in `_` and eight hex digits of its own
/// name's hash. The same list always gives the same spellings.
pub fn engine_names<'a>(
    server: &str,
    tools: impl IntoIterator<Item = &'a str>,
) -> BTreeMap<String, String> {
    let room = MAX_ENGINE.saturating_sub(PREFIX.len() + server.len() + 2);
    let mut tools: Vec<&str> = tools.into_iter().collect();
    tools.sort_unstable();
    tools.dedup();
    let mut taken: BTreeMap<String, String> = BTreeMap::new();
    let mut out = BTreeMap::new();
    // Names that fit as they are keep them, whatever order they come in.
    for tool in &tools {
        let s = spelled(tool);
        if s == *tool && s.len() <= room {
            taken.insert(s.clone(), (*tool).to_owned());
            out.insert((*tool).to_owned(), s);
        }
    }
    for tool in &tools {
        if out.contains_key(*tool) {
            continue;
        }
        let s = spelled(tool);
        let s = if s.len() <= room && !taken.contains_key(&s) {
            s
        } else {
            let hash = short_hash(tool);
            let keep = room.saturating_sub(hash.len() + 1);
            let cut: String = s.chars().take(keep).collect();
            format!("{cut}_{hash}")
        };
        taken.insert(s.clone(), (*tool).to_owned());
        out.insert((*tool).to_owned(), s);
    }
    out
}

/// `mcp__mail__search`.
pub fn engine(server: &str, spelled: &str) -> String {
    format!("{PREFIX}{server}__{spelled}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_names() {
        for ok in ["mail", "my-notes", "a", "x1", "0day"] {
            assert!(server_name_problem(ok).is_none(), "{ok}");
        }
        for bad in [
            "",
            "Mail",
            "my_notes",
            "my.notes",
            "-x",
            "ünï",
            "a b",
            &"a".repeat(33),
        ] {
            assert!(server_name_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn each_spelling_reads_back() {
        assert_eq!(
            split_qualified("mail.search.v2"),
            Some(("mail", "search.v2"))
        );
        assert_eq!(split_qualified("mail."), None);
        assert_eq!(split_qualified("Mail.x"), None);
        assert_eq!(
            split_engine("mcp__mail__get__inbox"),
            Some(("mail", "get__inbox"))
        );
        assert_eq!(split_engine("mcp__mail"), None);
        assert_eq!(split_engine("mail__x"), None);
    }

    /// Any list of names: every spelling is an engine's kind of name, fits
    /// 64 with its prefix, and no two tools share one.
    #[test]
    fn spellings_are_distinct_and_fit_for_any_names() {
        let alphabet: Vec<char> = "aZ0_-.é/ 🙂x".chars().collect();
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..2000 {
            let server = "my-server-name-that-is-long-1234";
            let count = (next() % 8) as usize + 1;
            let names: Vec<String> = (0..count)
                .map(|_| {
                    let len = (next() % 90) as usize + 1;
                    (0..len)
                        .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                        .collect()
                })
                .collect();
            let got = engine_names(server, names.iter().map(String::as_str));
            let mut seen = std::collections::BTreeSet::new();
            for name in &names {
                let s = &got[name];
                let full = engine(server, s);
                assert!(full.len() <= MAX_ENGINE, "{full}");
                let (_, part) = full.split_at(PREFIX.len() + server.len() + 2);
                assert!(part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
                assert_eq!(split_engine(&full), Some((server, s.as_str())));
                seen.insert(s.clone());
            }
            let distinct: std::collections::BTreeSet<&String> = names.iter().collect();
            assert_eq!(seen.len(), distinct.len(), "{names:?} → {got:?}");
        }
    }

    #[test]
    fn a_plain_name_is_kept() {
        let got = engine_names("mail", ["search", "send.now", "send_now"]);
        assert_eq!(got["search"], "search");
        assert_eq!(got["send_now"], "send_now", "a name that fits keeps it");
        assert!(got["send.now"].starts_with("send_now_"), "{got:?}");
    }
}
