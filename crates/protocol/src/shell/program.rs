//! Which word of a simple command is the program, and the code a command
//! hands to another shell.
//!
//! The program is the first word after assignments and wrappers (`env`,
//! `sudo`, `nohup`, `timeout 10`…, with their options). A word that could
//! be a wrapper (a pattern like `n?hup`) keeps every candidate, so a rule
//! asking "could this run curl?" sees both.
//!
//! Code handed on is read as commands too: `sh -c STRING`, `eval WORDS`,
//! `env -S STRING`, `su -c`, `find -exec … ;`, `watch`, and a shell fed a
//! here-document or here-string with no script of its own.

use super::word::Word;
use super::Simple;

/// A wrapper, the options of it that take a value, and how many plain
/// words come before the program (`timeout DURATION`, `chroot DIR`).
struct Wrapper {
    name: &'static str,
    valued: &'static [&'static str],
    positional: usize,
}

const fn w(name: &'static str, valued: &'static [&'static str], positional: usize) -> Wrapper {
    Wrapper {
        name,
        valued,
        positional,
    }
}

const WRAPPERS: &[Wrapper] = &[
    w(
        "env",
        &["-u", "-C", "--unset", "--chdir", "-S", "--split-string"],
        0,
    ),
    w(
        "sudo",
        &[
            "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group",
        ],
        0,
    ),
    w("doas", &["-u", "-C"], 0),
    w("pkexec", &["--user"], 0),
    w("run0", &["--user", "-u"], 0),
    w("nohup", &[], 0),
    w("time", &["-f", "-o"], 0),
    w("nice", &["-n", "--adjustment"], 0),
    w("timeout", &["-s", "-k", "--signal", "--kill-after"], 1),
    w("stdbuf", &["-i", "-o", "-e"], 0),
    w("exec", &["-a"], 0),
    w("command", &[], 0),
    w("builtin", &[], 0),
    w(
        "xargs",
        &["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "-i", "-l"],
        0,
    ),
    w("ionice", &["-c", "-n", "-p"], 0),
    w("chrt", &[], 1),
    w("taskset", &[], 1),
    w("setsid", &[], 0),
    w("unbuffer", &[], 0),
    w("caffeinate", &["-t", "-w"], 0),
    w("busybox", &[], 0),
    w("toybox", &[], 0),
    w(
        "flock",
        &["-w", "-E", "--timeout", "--conflict-exit-code"],
        1,
    ),
    w("chroot", &["--userspec", "--groups"], 1),
    w("sg", &[], 1),
    w(
        "strace",
        &["-o", "-e", "-p", "-s", "-u", "-E", "-P", "-I"],
        0,
    ),
    w("ltrace", &["-o", "-e", "-p", "-u", "-n", "-s"], 0),
    w("proxychains", &["-f"], 0),
    w("proxychains4", &["-f"], 0),
    w("torsocks", &["-u", "-p", "-a", "-P"], 0),
    w("firejail", &[], 0),
    w("unshare", &[], 0),
    w("nsenter", &["-t", "-S", "-G", "--target"], 0),
    w("catchsegv", &[], 0),
    w("rlwrap", &["-f", "-H", "-S"], 0),
    w(
        "systemd-run",
        &["-p", "-u", "--unit", "--property", "-E", "--setenv"],
        0,
    ),
    w("valgrind", &[], 0),
    w("gdbserver", &[], 1),
    w("watch", &["-n", "-d", "--interval"], 0),
];

fn wrapper(name: &str) -> Option<&'static Wrapper> {
    WRAPPERS.iter().find(|w| w.name == name)
}

fn wrapper_could_be(word: &Word) -> Option<&'static Wrapper> {
    if word.computed {
        return None;
    }
    let base = word.base();
    match &base.glob {
        None => wrapper(&base.text),
        Some(_) => WRAPPERS.iter().find(|w| base.could_be(w.name)),
    }
}

pub fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// Where each word that could be the program is, in order: the last one
/// is the program when no pattern is involved.
pub(crate) fn program_chain(words: &[Word]) -> Vec<usize> {
    let mut chain = Vec::new();
    let mut i = 0;
    while words.get(i).is_some_and(|w| is_assignment(&w.text)) {
        i += 1;
    }
    while let Some(word) = words.get(i) {
        chain.push(i);
        let Some(wrapper) = wrapper_could_be(word) else {
            break;
        };
        let definite = word.glob.is_none();
        i += 1;
        let mut positional = wrapper.positional;
        while let Some(next) = words.get(i) {
            let text = next.text.as_str();
            if text == "--" {
                i += 1;
                break;
            }
            if text.starts_with('-') && text != "-" {
                i += 1;
                if wrapper.valued.contains(&text) {
                    i += 1;
                }
                // `chrt -p PID` and `taskset -p` take no program.
                continue;
            }
            if wrapper.name == "env" && is_assignment(text) {
                i += 1;
                continue;
            }
            if positional > 0 {
                positional -= 1;
                i += 1;
                continue;
            }
            break;
        }
        // `watch` takes one string of code; it is read as nested code.
        if wrapper.name == "watch" && definite {
            break;
        }
    }
    chain
}

/// The shells whose `-c` takes a command string.
const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "yash", "posh", "fish",
];

/// Code this simple command hands to a shell, as text, when it can be read
/// (None inside: there is code, but it is computed).
pub(crate) fn handed_code(simple: &Simple) -> Vec<Option<String>> {
    let mut out = Vec::new();
    let chain = simple.chain_indices();
    for &at in chain {
        let program = simple.words[at].base();
        let args = &simple.words[at + 1..];
        let could = |name: &str| !program.computed && program.could_be(name);
        let text_of = |w: &Word| (!w.computed).then(|| w.text.clone());
        if SHELLS.iter().any(|s| could(s)) {
            match shell_code(args) {
                ShellCode::String(w) => out.push(text_of(w)),
                ShellCode::Stdin => {
                    for r in &simple.redirects {
                        if matches!(r.op.as_str(), "<<" | "<<<") {
                            out.push(text_of(&r.target));
                        }
                    }
                }
                ShellCode::File | ShellCode::None => {}
            }
        }
        if could("eval") || could("watch") {
            let joined: Vec<&str> = args
                .iter()
                .skip_while(|a| could("watch") && a.text.starts_with('-'))
                .map(|a| a.text.as_str())
                .collect();
            if args.iter().any(|a| a.computed) {
                out.push(None);
            }
            out.push(Some(joined.join(" ")));
        }
        if could("su") || could("runuser") || could("script") || could("flock") {
            if let Some(pos) = args
                .iter()
                .position(|a| matches!(a.text.as_str(), "-c" | "--command"))
            {
                out.push(args.get(pos + 1).and_then(text_of));
            }
        }
        if could("env") {
            for (i, a) in args.iter().enumerate() {
                let split = if a.text == "-S" || a.text == "--split-string" {
                    args.get(i + 1)
                } else if a.text.starts_with("-S") || a.text.starts_with("--split-string=") {
                    Some(a)
                } else {
                    continue;
                };
                if let Some(s) = split {
                    let text = s
                        .text
                        .trim_start_matches("--split-string=")
                        .trim_start_matches("-S");
                    let rest: Vec<&str> = args[i + 1..]
                        .iter()
                        .skip(1)
                        .map(|w| w.text.as_str())
                        .collect();
                    out.push((!s.computed).then(|| format!("{text} {}", rest.join(" "))));
                }
            }
        }
        if could("find") {
            let mut i = 0;
            while i < args.len() {
                if matches!(
                    args[i].text.as_str(),
                    "-exec" | "-execdir" | "-ok" | "-okdir"
                ) {
                    let end = args[i + 1..]
                        .iter()
                        .position(|a| a.text == ";" || a.text == "+")
                        .map_or(args.len(), |p| i + 1 + p);
                    let words: Vec<String> =
                        args[i + 1..end].iter().map(|a| quote(&a.text)).collect();
                    out.push(Some(words.join(" ")));
                    i = end;
                }
                i += 1;
            }
        }
    }
    out
}

enum ShellCode<'a> {
    String(&'a Word),
    Stdin,
    File,
    None,
}

/// Where a shell's code comes from, read from its arguments.
fn shell_code(args: &[Word]) -> ShellCode<'_> {
    let mut has_c = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if matches!(t, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
            i += 2;
            continue;
        }
        if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
            if !t.starts_with("--") && t.contains('c') {
                has_c = true;
            }
            if t == "-s" {
                return ShellCode::Stdin;
            }
            i += 1;
            continue;
        }
        break;
    }
    match args.get(i) {
        Some(w) if has_c => ShellCode::String(w),
        Some(_) => ShellCode::File,
        None if has_c => ShellCode::None,
        None => ShellCode::Stdin,
    }
}

/// A word written back so that reading it again gives the same word.
fn quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%^".contains(c))
    {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}
