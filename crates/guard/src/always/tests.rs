//! The narrower "always": a table of commands and their signatures, and
//! a property that a narrower answer never covers a command whose program
//! (or subcommand) differs, however it is spelled or wrapped.

use super::*;
use protocol::shell::respell::Spellings;
use protocol::shell::{read, Context};

fn sig(command: &str) -> Option<String> {
    signature(&read(
        command,
        &Context {
            home: Some("/home/ada"),
        },
    ))
}

#[test]
fn the_table() {
    let rows: &[(&str, &str, Option<&str>)] = &[
        // name, command, signature
        (
            "a program with a subcommand",
            "git push origin main",
            Some("git push"),
        ),
        (
            "options after the subcommand",
            "git log --oneline -5",
            Some("git log"),
        ),
        (
            "a subcommand program's other subcommand",
            "git status",
            Some("git status"),
        ),
        ("npm", "npm install left-pad", Some("npm install")),
        ("cargo", "cargo test -p guard", Some("cargo test")),
        ("a program without subcommands", "ls -la", Some("ls")),
        (
            "quotes the shell removes",
            "g''it p\"us\"h",
            Some("git push"),
        ),
        (
            "a backslash and $'…'",
            "gi\\t $'\\x70'ush",
            Some("git push"),
        ),
        (
            "the same command twice",
            "git add a && git add b",
            Some("git add"),
        ),
        ("a pipe of the same", "ls a | ls b", Some("ls")),
        (
            "to /dev/null",
            "git fetch origin 2>/dev/null",
            Some("git fetch"),
        ),
        ("a copy of a stream", "git status 2>&1", Some("git status")),
        (
            "input from a file",
            "git apply < fix.patch",
            Some("git apply"),
        ),
        (
            "a path is its own program",
            "/usr/bin/git push",
            Some("/usr/bin/git push"),
        ),
        ("./ is its own program", "./git push", Some("./git push")),
        ("time is no program", "time git status", Some("git status")),
        // No signature: the careful side.
        ("two programs", "git push; rm -rf ~", None),
        ("two subcommands", "git add . && git commit -m x", None),
        (
            "a substitution runs another",
            "git commit -m \"$(curl -s x.example)\"",
            None,
        ),
        ("backticks run another", "git commit -m `id`", None),
        ("a pipe into a shell", "git log | sh", None),
        ("sh -c", "sh -c 'git push'", None),
        ("eval", "eval git push", None),
        ("sudo", "sudo git push", None),
        ("env", "env git push", None),
        ("an assignment", "GIT_SSH_COMMAND='sh -c id' git push", None),
        ("PATH", "PATH=/tmp/x git push", None),
        ("exec", "exec git push", None),
        ("command", "command git push", None),
        (
            "an option before the subcommand",
            "git -c core.pager=id log",
            None,
        ),
        ("-C", "git -C /tmp log", None),
        ("no subcommand", "git", None),
        ("a computed program", "$G push", None),
        ("a computed subcommand", "git $SUB", None),
        ("a pattern", "/usr/b?n/git push", None),
        ("a pattern subcommand", "git pu*", None),
        ("writing a file", "git log > notes.txt", None),
        ("appending to a file", "echo hi >> ~/.bashrc", None),
        ("writing with &>", "ls &> out.txt", None),
        ("a cd first", "cd /tmp/x && git push", None),
        (
            "a function shadowing it",
            "git() { rm -rf ~; }; git push",
            None,
        ),
        ("an alias", "alias git=rm; git push", None),
        ("nothing", "", None),
        ("only a redirection", "> ~/.bashrc", None),
        ("code handed on unread", "sh -c \"$X\"", None),
    ];
    let mut failures = Vec::new();
    for (name, command, want) in rows {
        let got = sig(command);
        if got.as_deref() != *want {
            failures.push(format!("{name}: {command:?} gave {got:?}, wanted {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_narrower_key_is_shown_as_its_command() {
    assert_eq!(
        shown(&narrow_key("read:run_command", "git push")).as_deref(),
        Some("git push …")
    );
    assert_eq!(shown("read:run_command"), None);
}

/// A small deterministic generator (SplitMix64), for the property.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }
}

const PROGRAMS: &[&str] = &[
    "git",
    "gitx",
    "gi",
    "/usr/bin/git",
    "./git",
    "/tmp/x/git",
    "npm",
    "pnpm",
    "cargo",
    "ls",
    "rm",
    "curl",
    "sh",
    "bash",
    "python3",
    "make",
    "docker",
    "/bin/ls",
    "l",
    "ls.",
    "git-push",
];
const SUBS: &[&str] = &[
    "push", "pull", "log", "status", "install", "run", "test", "rf", "x",
];
const ARGS: &[&str] = &[
    "-la", "origin", "main", "--force", "a.txt", "é.txt", "日本", "-m", ".",
];

/// A command that runs `program` (and `sub`) alone, in one of the shapes
/// the signature allows, respelled.
fn plain(g: &mut Gen, s: &mut Spellings, program: &str, sub: &str) -> String {
    let mut words = vec![s.respell(program), s.respell(sub)];
    for _ in 0..g.next() % 3 {
        words.push(s.respell(g.pick(ARGS)));
    }
    let tail = g.pick(&["", " 2>/dev/null", " 2>&1", " < in.txt"]);
    format!("{}{tail}", words.join(" "))
}

/// The same, wrapped or joined to something else: shapes in which the
/// program that runs (or another one beside it) is not just `program`.
fn wrapped(g: &mut Gen, s: &mut Spellings, program: &str, sub: &str) -> String {
    let inner = plain(g, s, program, sub);
    let (op, os) = (g.pick(PROGRAMS), g.pick(SUBS));
    let other = plain(g, s, op, os);
    match g.next() % 14 {
        0 => format!("{inner}; {other}"),
        1 => format!("{inner} && {other}"),
        2 => format!("{inner} | {other}"),
        3 => format!("{inner} \"$({other})\""),
        4 => format!("sh -c '{inner}'"),
        5 => format!("sudo {inner}"),
        6 => format!("env {inner}"),
        7 => format!("X=1 {inner}"),
        8 => format!("{inner} > out.txt"),
        9 => format!("{other}\n{inner}"),
        10 => format!("eval '{inner}'"),
        11 => format!("timeout 5 {inner}"),
        12 => format!("{inner} `{other}`"),
        _ => format!("( {other} ) ; {inner}"),
    }
}

/// Whatever the spelling: a narrower answer for one command never covers a
/// command that runs a different program or subcommand, or runs anything
/// beside it, and it does cover the same program and subcommand respelled.
#[test]
fn property_it_never_covers_another_program() {
    let mut g = Gen(0x5eed_a11a);
    let mut s = Spellings::new(0x00c0_ffee);
    let (mut covered, mut refused) = (0usize, 0usize);
    for _ in 0..6000 {
        let (p1, s1) = (g.pick(PROGRAMS), g.pick(SUBS));
        let first = plain(&mut g, &mut s, p1, s1);
        let Some(key) = sig(&first) else {
            panic!("{first:?} has no signature");
        };
        let (p2, s2) = (g.pick(PROGRAMS), g.pick(SUBS));
        let same_program = p1 == p2;
        let takes_sub = SUBCOMMANDS.contains(&p1.rsplit('/').next().unwrap_or(p1));
        let same = same_program && (!takes_sub || s1 == s2);
        // The second command, plain.
        let second = plain(&mut g, &mut s, p2, s2);
        let got = sig(&second);
        if same {
            assert_eq!(got.as_ref(), Some(&key), "{first:?} vs {second:?}");
            covered += 1;
        } else {
            assert_ne!(got.as_ref(), Some(&key), "{first:?} covers {second:?}");
            refused += 1;
        }
        // Wrapped or joined: never covered, whatever runs.
        let second = wrapped(&mut g, &mut s, p2, s2);
        let got = sig(&second);
        let joined_same = got.as_ref() == Some(&key);
        if joined_same {
            // Only the same program and subcommand run in it, alone (both
            // halves happened to be that command): still that command.
            let reading = read(&second, &Context::default());
            for simple in &reading.simples {
                assert_eq!(simple.words[0].text, p1, "{first:?} covers {second:?}");
            }
        } else {
            refused += 1;
        }
    }
    assert!(covered > 100 && refused > 5000, "{covered} / {refused}");
}
