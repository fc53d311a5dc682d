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

/// `word` written so the shell reads it back as the same word (an argv
/// turned into a command line).
pub fn quote_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Takes the binding of `action` called with `input` in `work`.
///
/// The command is read as the shell will read it (`protocol::shell`), and
/// followed as it will run: `cd` moves where the next program is looked
/// for, `PATH=…` before a program (or exported earlier) is the path it is
/// found on, an interpreter's options that take a value are skipped before
/// its script, `sh < file` runs `file`, and `"$PWD"/x` and `./x` are the
/// folder it is in. What can't be followed exactly (a variable it can't
/// read, code from a pipe, a module) is named in `unidentified`: such an
/// approval is for this once, as it is now.
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
    let home = std::env::var("HOME").ok();
    let reading = shell::read(
        command,
        &shell::Context {
            home: home.as_deref(),
        },
    );
    let mut path_var = std::env::var_os("PATH").unwrap_or_default();
    // Where the shell is: None once a `cd` can't be followed.
    let mut cwd: Option<PathBuf> = Some(work.to_path_buf());
    for simple in &reading.simples {
        let Some(at) = simple.program_index() else {
            // `export PATH=…` and plain assignments change what follows.
            for (name, word) in simple.assignments() {
                if name == "PATH" {
                    path_var = path_value(&word.text, &path_var, cwd.as_deref());
                }
            }
            continue;
        };
        let word = &simple.words[at];
        let name = simple.program().map(|p| p.text).unwrap_or_default();
        if name == "cd" || name == "pushd" {
            cwd = match (simple.words.get(at + 1), &cwd) {
                (None, _) => home.as_deref().map(PathBuf::from),
                (Some(dir), Some(c)) if !dir.computed && dir.glob.is_none() && dir.text != "-" => {
                    Some(c.join(&dir.text))
                }
                _ => None,
            };
            continue;
        }
        if name == "export" {
            for arg in &simple.words[at + 1..] {
                if let Some(value) = arg.text.strip_prefix("PATH=") {
                    path_var = path_value(value, &path_var, cwd.as_deref());
                }
            }
            continue;
        }
        // This command's own PATH, if it sets one.
        let mut own_path = path_var.clone();
        for (n, w) in simple.assignments() {
            if n == "PATH" {
                own_path = path_value(
                    w.text.split_once('=').map_or("", |(_, v)| v),
                    &path_var,
                    cwd.as_deref(),
                );
            }
        }
        let unknown = |b: &mut Binding, why: String| {
            b.unidentified.get_or_insert(why);
        };
        if word.computed && !word.text.starts_with("$PWD/") && !word.text.starts_with("${PWD}/") {
            unknown(
                &mut binding,
                format!("runs {}, whose name is only known when it runs.", word.text),
            );
            continue;
        }
        if word.glob.is_some() {
            unknown(&mut binding, format!("runs {}, a pattern.", word.text));
            continue;
        }
        if word.text.contains('/') {
            let Some(file) = place(&word.text, cwd.as_deref()) else {
                unknown(
                    &mut binding,
                    format!("runs {} from a folder it can't follow.", word.text),
                );
                continue;
            };
            binding.programs.push((name.clone(), Some(file.clone())));
            binding.files.push((file.clone(), hash_of(&file)));
        } else if !binding.programs.iter().any(|(n, _)| *n == name) {
            let found = find_on_path(&name, &own_path, cwd.as_deref());
            // A program the assistant could have written (in the work
            // folder or the person's home) is bound by its contents too.
            if let Some(f) = &found {
                let writable =
                    f.starts_with(work) || home.as_deref().is_some_and(|h| f.starts_with(h));
                if writable {
                    binding.files.push((f.clone(), hash_of(f)));
                }
            }
            binding.programs.push((name.clone(), found));
        }
        if INTERPRETERS.contains(&name.as_str()) {
            let args = &simple.words[at + 1..];
            match script_of(&name, args) {
                Script::Inline => {}
                Script::File(arg) => match place(&arg, cwd.as_deref()) {
                    Some(file) if file.is_file() => {
                        binding.files.push((file.clone(), hash_of(&file)));
                    }
                    _ => unknown(
                        &mut binding,
                        format!("{name} runs {arg}, which isn't a file."),
                    ),
                },
                Script::Stdin => {
                    // `sh < file`: the file is the script.
                    let from = simple.redirects.iter().find(|r| r.op == "<");
                    match from.and_then(|r| {
                        (!r.target.computed)
                            .then(|| place(&r.target.text, cwd.as_deref()))
                            .flatten()
                    }) {
                        Some(file) if file.is_file() => {
                            binding.files.push((file.clone(), hash_of(&file)));
                        }
                        _ if simple.redirects.iter().any(|r| r.op.starts_with("<<")) => {}
                        _ => unknown(
                            &mut binding,
                            format!("{name} reads its script from its input."),
                        ),
                    }
                }
                Script::Unknown(why) => unknown(&mut binding, format!("{name} {why}")),
            }
        }
    }
    if reading.opaque {
        binding
            .unidentified
            .get_or_insert("hands a shell code that is only known when it runs.".to_owned());
    }
    binding
}

/// A path as the shell will open it from `cwd`: `./x`, `"$PWD"/x`, `a/b`
/// and absolute paths.
fn place(text: &str, cwd: Option<&Path>) -> Option<PathBuf> {
    let rest = text
        .strip_prefix("$PWD/")
        .or_else(|| text.strip_prefix("${PWD}/"));
    if let Some(rest) = rest {
        return cwd.map(|c| c.join(rest));
    }
    if text.starts_with('/') {
        return Some(PathBuf::from(text));
    }
    cwd.map(|c| c.join(text))
}

/// A PATH value as the shell will use it: `$PATH` is the one before, a
/// relative entry is from where the shell is.
fn path_value(value: &str, before: &std::ffi::OsStr, cwd: Option<&Path>) -> std::ffi::OsString {
    let mut out: Vec<PathBuf> = Vec::new();
    for entry in value.split(':') {
        if entry == "$PATH" || entry == "${PATH}" {
            out.extend(std::env::split_paths(before));
        } else if entry.starts_with("$PWD/") || entry.starts_with("${PWD}/") {
            out.extend(place(entry, cwd));
        } else if !entry.contains('$') {
            match cwd {
                Some(c) if !entry.starts_with('/') => out.push(c.join(entry)),
                _ => out.push(PathBuf::from(entry)),
            }
        }
    }
    std::env::join_paths(out).unwrap_or_default()
}

enum Script {
    Inline,
    File(String),
    Stdin,
    Unknown(&'static str),
}

/// Options of each interpreter that take the next word as their value.
fn takes_value(interpreter: &str, option: &str) -> bool {
    match interpreter {
        "sh" | "bash" | "dash" | "zsh" | "ksh" => {
            matches!(
                option,
                "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file"
            )
        }
        "python" | "python2" | "python3" => {
            matches!(option, "-W" | "-X" | "--check-hash-based-pycs")
        }
        "node" | "tsx" | "ts-node" | "deno" | "bun" => matches!(
            option,
            "-r" | "--require"
                | "--import"
                | "--loader"
                | "--experimental-loader"
                | "--env-file"
                | "-C"
                | "--conditions"
        ),
        "perl" => matches!(option, "-I" | "-M" | "-m" | "-x"),
        "ruby" => matches!(option, "-I" | "-r" | "-C" | "-E"),
        "php" => matches!(option, "-d" | "-c" | "-z"),
        "lua" => matches!(option, "-l"),
        _ => false,
    }
}

fn script_of(interpreter: &str, args: &[shell::Word]) -> Script {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if INLINE.contains(&t)
            || (interpreter.ends_with("sh")
                && t.starts_with('-')
                && !t.starts_with("--")
                && t.contains('c'))
        {
            return Script::Inline;
        }
        if t == "-m" && interpreter.starts_with("python") {
            return Script::Unknown("runs a module, which isn't one file.");
        }
        if t == "-" || t == "-s" {
            return Script::Stdin;
        }
        if t == "--" {
            i += 1;
            break;
        }
        if t.starts_with('-') || t.starts_with('+') {
            i += if takes_value(interpreter, t) { 2 } else { 1 };
            continue;
        }
        break;
    }
    match args.get(i) {
        None => Script::Stdin,
        Some(w) if w.computed && !w.text.starts_with("$PWD/") && !w.text.starts_with("${PWD}/") => {
            Script::Unknown("runs a script whose name is computed.")
        }
        Some(w) => Script::File(w.text.clone()),
    }
}

fn find_on_path(name: &str, path_var: &std::ffi::OsStr, cwd: Option<&Path>) -> Option<PathBuf> {
    std::env::split_paths(path_var)
        .map(|dir| match cwd {
            Some(c) if dir.is_relative() => c.join(dir),
            _ => dir,
        })
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

    /// Each shape the shell runs a file in: the file is found where the
    /// shell would find it, and a change to it is a change to what runs.
    #[test]
    fn every_shape_binds_the_file_the_shell_will_run() {
        let dir = tempfile::tempdir().expect("temp");
        let work = dir.path().canonicalize().expect("real");
        std::fs::create_dir_all(work.join("sub/bin")).expect("dirs");
        let files = [
            ("cd sub && ./x.sh", "sub/x.sh"),
            ("cd sub; bash x.sh", "sub/x.sh"),
            ("PATH=sub/bin:$PATH tool", "sub/bin/tool"),
            ("export PATH=\"$PWD/sub/bin:$PATH\"; tool", "sub/bin/tool"),
            ("bash -o posix x.sh", "x.sh"),
            ("python3 -W ignore x.py", "x.py"),
            ("node -r ./setup.js x.js", "x.js"),
            ("sh < x.sh", "x.sh"),
            ("\"$PWD\"/x.sh", "x.sh"),
            ("./x.sh --fast", "x.sh"),
            ("env FOO=1 ./x.sh", "x.sh"),
            ("source ./x.sh", "x.sh"),
            ("sh -c './x.sh'", "x.sh"),
        ];
        for (c, file) in files {
            let path = work.join(file);
            std::fs::write(&path, "echo one\n").expect("write");
            #[allow(clippy::permissions_set_readonly_false)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                    .expect("mode");
            }
            let a = command(c);
            let first = bind(&a, &Value::Null, &work);
            assert!(
                first.files.iter().any(|(p, _)| *p == path),
                "{c}: {:?} {:?}",
                first.files,
                first.unidentified
            );
            std::fs::write(&path, "echo two\n").expect("write");
            assert!(bind(&a, &Value::Null, &work).changed_from(&first), "{c}");
        }
    }
}
