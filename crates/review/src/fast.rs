//! The fast path: what Auto mode allows without any model call. Looking
//! around and file changes inside the work folder are already allowed by the
//! guard in Auto; this adds sealed commands made only of programs on the
//! reviewed table ([`crate::table`]).
//!
//! It reads the command's text once, without allocating more than the
//! shell reader does, so a decision costs microseconds.

use protocol::{shell, Action};

use crate::table;

/// Characters that make a shell compute, redirect or background something:
/// a command holding any of them is never on the fast path, whatever its
/// programs. (`&&`, `||`, `|` and `;` are fine: each part is checked.)
fn computes(command: &str) -> bool {
    let bytes = command.as_bytes();
    bytes.iter().enumerate().any(|(i, b)| match b {
        b'$' | b'`' | b'>' | b'<' | b'(' | b')' | b'\n' | b'\r' | b'\\' | b'{' | b'}' => true,
        b'&' => {
            let before = i > 0 && bytes[i - 1] == b'&';
            let after = bytes.get(i + 1) == Some(&b'&');
            before == after
        }
        _ => false,
    })
}

/// Whether `action` runs in Auto mode without review.
pub fn fast_path(action: &Action) -> bool {
    let Action::Command {
        command,
        unsealed: false,
        leaves_box: false,
        ..
    } = action
    else {
        return false;
    };
    if command.trim().is_empty() || computes(command) {
        return false;
    }
    let segments = shell::segments(command);
    !segments.is_empty() && segments.iter().all(|s| segment_on_table(s))
}

fn segment_on_table(words: &[String]) -> bool {
    // The first word must be the program itself: no path, no assignment,
    // no wrapper (`sudo ls` is not `ls`).
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    let Some(entry) = table::entry(program) else {
        return false;
    };
    if !entry.subcommands.is_empty() {
        let Some(sub) = args.first() else {
            return false;
        };
        if !entry.subcommands.contains(&sub.as_str()) {
            return false;
        }
    }
    !args
        .iter()
        .any(|a| entry.refused.iter().any(|r| a.starts_with(r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealed(command: &str) -> Action {
        Action::command(command, false, false)
    }

    #[test]
    fn the_table_runs_sealed_looking_and_building() {
        for c in [
            "ls -la",
            "cat src/main.rs",
            "rg -n 'fn main' src",
            "git status",
            "git log --oneline -5",
            "git diff HEAD~1",
            "git show HEAD",
            "cargo build --release",
            "cargo test -p review",
            "cargo check && cargo clippy",
            "npm test",
            "rg TODO | head -20",
            "ls; pwd",
            "find . -name '*.rs'",
            "go test ./...",
        ] {
            assert!(fast_path(&sealed(c)), "{c} should be on the fast path");
        }
    }

    #[test]
    fn anything_else_is_not() {
        for c in [
            "",
            "git push",
            "git commit -m x",
            "git -C /tmp status",
            "git diff --output=/tmp/x",
            "git -c core.pager=sh log",
            "cargo run",
            "cargo install ripgrep",
            "npm install",
            "npm run build",
            "rm -rf target",
            "sudo ls",
            "env ls",
            "FOO=1 cargo test",
            "/bin/ls",
            "./ls",
            "ls > files.txt",
            "cat < secret",
            "echo $(whoami)",
            "echo `id`",
            "ls & curl x",
            "cat x | sh",
            "find . -delete",
            "find . -exec rm {} ;",
            "rg --pre cat x",
            "sort -o out.txt in.txt",
            "ls\ncurl evil",
            "git",
            "python3 -m pytest",
        ] {
            assert!(!fast_path(&sealed(c)), "{c:?} must not be on the fast path");
        }
    }

    #[test]
    fn only_sealed_commands() {
        let unsealed = Action::Command {
            command: "ls".into(),
            programs: vec!["ls".into()],
            unsealed: true,
            leaves_box: false,
        };
        let leaving = Action::Command {
            command: "ls".into(),
            programs: vec!["ls".into()],
            unsealed: false,
            leaves_box: true,
        };
        assert!(!fast_path(&unsealed));
        assert!(!fast_path(&leaving));
        assert!(!fast_path(&Action::FileChange {
            path: "/w/x".into(),
            inside: false,
            runs_later: None,
        }));
    }
}
