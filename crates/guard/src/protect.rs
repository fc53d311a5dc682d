//! What no mode lets through: Conch's own folder and where keys live, and
//! commands that reach for Conch's own powers.
//!
//! For commands this is a speed bump, not a box: a command can spell a path
//! or a program in ways no check of its text will see (variables, `eval`,
//! scripts it writes first). Sealed commands can't read the protected paths
//! at all; unsealed ones can, and the documentation says so.

use protocol::Action;

/// Where keys live, under the person's home folder: file tools never touch
/// these.
pub const KEY_PLACES: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".config/gh",
    ".password-store",
    ".local/share/keyrings",
    ".config/op",
    ".config/Bitwarden",
];

/// Whether `path` (resolved) is one of `protected` or inside one.
pub fn is_protected(path: &str, protected: &[String]) -> bool {
    protected.iter().any(|p| {
        let p = p.trim_end_matches('/');
        !p.is_empty()
            && path
                .strip_prefix(p)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

fn paths(action: &Action) -> Vec<&str> {
    match action {
        Action::LookAround { paths } => paths.iter().map(String::as_str).collect(),
        Action::FileChange { path, .. } => vec![path.as_str()],
        _ => Vec::new(),
    }
}

/// Whether a command's text names a protected place: any of `protected`
/// spelled out, or Conch's folder by its usual names.
fn command_names(command: &str, protected: &[String], spellings: &[String]) -> bool {
    protected
        .iter()
        .chain(spellings.iter())
        .any(|p| !p.trim_end_matches('/').is_empty() && command.contains(p.trim_end_matches('/')))
}

/// What is protected, as the guard is told.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Protected {
    /// Conch's own folder, resolved: no tool touches it, and no command
    /// names it.
    pub conch_home: Vec<String>,
    /// Other spellings of Conch's folder a command might use (`~/.conch`,
    /// `$CONCH_HOME`).
    pub conch_spellings: Vec<String>,
    /// Where the person's keys live (see [`KEY_PLACES`]): file tools never
    /// touch them. Commands may (ssh, gpg and git use them every day).
    pub keys: Vec<String>,
}

impl Protected {
    /// The usual protection for a person whose home folder is `home` and
    /// whose Conch folder is `conch`.
    pub fn usual(home: Option<&str>, conch: &str) -> Protected {
        let mut spellings = vec![
            "~/.conch".to_owned(),
            "$CONCH_HOME".to_owned(),
            "${CONCH_HOME}".to_owned(),
        ];
        if let Some(home) = home {
            if let Some(rest) = conch.strip_prefix(home) {
                spellings.push(format!("~{rest}"));
                spellings.push(format!("$HOME{rest}"));
                spellings.push(format!("${{HOME}}{rest}"));
            }
        }
        Protected {
            conch_home: vec![conch.to_owned()],
            conch_spellings: spellings,
            keys: home
                .map(|h| KEY_PLACES.iter().map(|k| format!("{h}/{k}")).collect())
                .unwrap_or_default(),
        }
    }

    pub fn touched_by(&self, action: &Action) -> bool {
        match action {
            Action::Command { command, .. } => {
                command_names(command, &self.conch_home, &self.conch_spellings)
            }
            other => paths(other)
                .iter()
                .any(|p| is_protected(p, &self.conch_home) || is_protected(p, &self.keys)),
        }
    }
}

/// Whether a command reaches for Conch's own powers: `conch keys …` or
/// `conch skills sign|trust|forget|key`, however the binary is spelled (a
/// path, `./conch`, `cargo run … --`, behind `env` or `sudo`, in quotes).
pub fn reaches_for_powers(command: &str) -> bool {
    let words: Vec<&str> = command
        .split(|c: char| {
            c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '`' | '"' | '\'' | '$')
        })
        .filter(|w| !w.is_empty())
        .collect();
    for (i, word) in words.iter().enumerate() {
        let program = word.rsplit('/').next().unwrap_or(word);
        let is_conch = program == "conch";
        // `cargo run … --` runs the workspace's binary: what follows `--` is
        // its arguments.
        let is_cargo_run = program == "cargo" && words.get(i + 1) == Some(&"run");
        let rest: &[&str] = if is_conch {
            &words[i + 1..]
        } else if is_cargo_run {
            match words[i..].iter().position(|w| *w == "--") {
                Some(at) => &words[i + at + 1..],
                None => continue,
            }
        } else {
            continue;
        };
        let mut args = rest.iter().copied().peekable();
        // Global options like `--home DIR` come first.
        while let Some(&a) = args.peek() {
            if a == "--home" {
                args.next();
                args.next();
            } else if a.starts_with('-') {
                args.next();
            } else {
                break;
            }
        }
        match (args.next(), args.next()) {
            (Some("keys"), _) => return true,
            (Some("skills"), Some("sign" | "trust" | "forget" | "key")) => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_however_the_binary_is_spelled() {
        for yes in [
            "conch keys create x",
            "conch keys list",
            "/usr/local/bin/conch keys revoke a",
            "./conch skills sign ./my-skill",
            "~/bin/conch skills trust AAAA --name x",
            "conch --home /tmp/h skills forget k",
            "conch skills key --new",
            "env FOO=1 conch keys create y",
            "sudo conch keys create y",
            "cargo run -p conch -- keys create z",
            "cargo run --release -- skills sign .",
            "target/release/conch keys create q",
            "echo hi && conch keys create w",
            "sh -c 'conch keys create v'",
            "\"$(which conch)\" keys list",
        ] {
            assert!(reaches_for_powers(yes), "{yes}");
        }
        for no in [
            "conch serve",
            "conch skills list",
            "conch skills scan .",
            "conch chat hello",
            "cargo run -- serve",
            "echo conch",
            "grep keys conch.log",
            "ssh-keygen -t ed25519",
        ] {
            assert!(!reaches_for_powers(no), "{no}");
        }
    }

    #[test]
    fn protected_places() {
        let protected = vec!["/home/ada/.conch".to_string(), "/home/ada/.ssh".to_string()];
        assert!(is_protected("/home/ada/.conch/secrets.json", &protected));
        assert!(is_protected("/home/ada/.ssh", &protected));
        assert!(!is_protected("/home/ada/.conch-notes/x", &protected));
        let p = Protected::usual(Some("/home/ada"), "/home/ada/.conch");
        let cmd = |c: &str| Action::Command {
            command: c.into(),
            programs: vec![],
            unsealed: true,
            leaves_box: false,
        };
        let read = |path: &str| Action::LookAround {
            paths: vec![path.into()],
        };
        assert!(p.touched_by(&cmd("cat ~/.conch/owner.json")));
        assert!(p.touched_by(&cmd("cat /home/ada/.conch/owner.json")));
        assert!(p.touched_by(&cmd("ls $CONCH_HOME")));
        assert!(p.touched_by(&cmd("tar czf x.tgz $HOME/.conch")));
        assert!(!p.touched_by(&cmd("ls ~/projects")));
        assert!(
            !p.touched_by(&cmd("ssh-add ~/.ssh/id_ed25519")),
            "commands may use the person's keys"
        );
        assert!(p.touched_by(&read("/home/ada/.ssh/id_ed25519")));
        assert!(p.touched_by(&read("/home/ada/.conch/chats")));
        assert!(!p.touched_by(&read("/home/ada/notes.txt")));
    }
}
