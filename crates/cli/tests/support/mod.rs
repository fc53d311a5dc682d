//! Running the `conch` binary from the CLI's tests: one way to start it,
//! so every test gives it a home folder, its input and its environment the
//! same way, and none inherits the person's own Conch.
#![allow(dead_code)] // Each test file uses the shapes it needs.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

pub const EXE: &str = env!("CARGO_BIN_EXE_conch");

/// One run of `conch --home HOME ...`, built up, then [`Conch::run`].
pub struct Conch {
    cmd: Command,
    stdin: Option<String>,
}

/// `conch --home HOME`, with the person's own Conch settings taken out.
pub fn conch_at(home: &Path) -> Conch {
    let mut cmd = Command::new(EXE);
    cmd.arg("--home")
        .arg(home)
        .env_remove("CONCH_HOME")
        .env_remove("CONCH_KEY");
    Conch { cmd, stdin: None }
}

impl Conch {
    pub fn args(mut self, args: &[&str]) -> Conch {
        self.cmd.args(args);
        self
    }

    /// What is typed at it; none is an empty input, closed at once.
    pub fn input(mut self, text: Option<&str>) -> Conch {
        self.stdin = text.map(str::to_owned);
        self
    }

    pub fn envs(mut self, env: &[(&str, &str)]) -> Conch {
        self.cmd.envs(env.iter().copied());
        self
    }

    /// Runs as the person whose home folder is `person` (their keys, their
    /// other apps), with no XDG folders of the machine's.
    pub fn person(mut self, person: &Path) -> Conch {
        self.cmd
            .env("HOME", person)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME");
        self
    }

    pub fn run(mut self) -> Output {
        let mut child = self
            .cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{EXE} didn't start: {e}"));
        let mut input = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
        if let Some(text) = &self.stdin {
            // A command that doesn't read its input may have exited.
            let _ = input.write_all(text.as_bytes());
        }
        drop(input);
        child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("{EXE} didn't finish: {e}"))
    }
}

/// `conch --home HOME ARGS`, with nothing typed.
pub fn run(home: &Path, args: &[&str]) -> Output {
    conch_at(home).args(args).run()
}

/// The same, with `stdin` typed.
pub fn run_typed(home: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    conch_at(home).args(args).input(stdin).run()
}

/// The same, with `stdin` typed and `env` set.
pub fn run_env(home: &Path, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
    conch_at(home).args(args).input(stdin).envs(env).run()
}

/// The same, as the person whose home folder is `person`.
pub fn run_as(home: &Path, person: &Path, args: &[&str]) -> Output {
    conch_at(home).person(person).args(args).run()
}

/// Whether it succeeded, and what it wrote to each stream.
pub fn run_parts(home: &Path, args: &[&str]) -> (bool, String, String) {
    let out = run(home, args);
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

/// Everything it said, both streams.
pub fn said(out: &Output) -> String {
    format!("{}{}", text(&out.stdout), text(&out.stderr))
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
