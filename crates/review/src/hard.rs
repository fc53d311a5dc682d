//! What review can never waive (ADR 0144): these go to the owner as before,
//! whatever the reviewer would say. The tool policies (Ask, Off) come from
//! the guard's decision; the rest are read from the action here, the same
//! way every time, from the command's words rather than a model's opinion.
//!
//! Like the guard's checks of a command's text, this is a reading, not a
//! box: a program that hides what it does behind a script it wrote a moment
//! ago isn't caught here, which is why sealing and the guard stay in front.

use protocol::{shell, Action};

mod lists;
use lists::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hard {
    /// The owner set the tool to Ask.
    ToolAsk,
    /// The owner turned the tool off.
    ToolOff,
    Credentials,
    Exfiltration,
    SafetyChange,
    PrivilegeEscalation,
    /// Downloading something and running it, or installing packages.
    RemoteCode,
    Spending,
    /// Something that runs again later: cron, shell start-up files,
    /// services, autostart, git hooks.
    Persistence,
    CriticalDestruction,
}

impl Hard {
    /// The rule id on the question (`review.never-waivable.<category>`).
    pub fn id(self) -> &'static str {
        match self {
            Hard::ToolAsk => "review.never-waivable.tool-ask",
            Hard::ToolOff => "review.never-waivable.tool-off",
            Hard::Credentials => "review.never-waivable.credentials",
            Hard::Exfiltration => "review.never-waivable.exfiltration",
            Hard::SafetyChange => "review.never-waivable.safety-change",
            Hard::PrivilegeEscalation => "review.never-waivable.privilege-escalation",
            Hard::RemoteCode => "review.never-waivable.remote-code",
            Hard::Spending => "review.never-waivable.spending",
            Hard::Persistence => "review.never-waivable.persistence",
            Hard::CriticalDestruction => "review.never-waivable.critical-destruction",
        }
    }

    /// The line the owner reads on the question.
    pub fn sentence(self) -> &'static str {
        match self {
            Hard::ToolAsk => "You set this tool to Ask, so Auto mode asks you.",
            Hard::ToolOff => "You turned this tool off.",
            Hard::Credentials => "It touches keys or passwords, so Auto mode asks you.",
            Hard::Exfiltration => "It sends something out, so Auto mode asks you.",
            Hard::SafetyChange => "It changes a safety setting, so Auto mode asks you.",
            Hard::PrivilegeEscalation => {
                "It asks for more power over the computer, so Auto mode asks you."
            }
            Hard::RemoteCode => "It downloads and runs code, so Auto mode asks you.",
            Hard::Spending => "It could spend money, so Auto mode asks you.",
            Hard::Persistence => "It sets something up to run again later, so Auto mode asks you.",
            Hard::CriticalDestruction => "It could destroy a lot at once, so Auto mode asks you.",
        }
    }
}

/// The category of `action` that review may never waive, if it has one.
pub fn never_waivable(action: &Action) -> Option<Hard> {
    match action {
        Action::Command { command, .. } => command_category(command),
        Action::FileChange { path, .. } => path_category(path),
        Action::FetchSends { .. } => Some(Hard::Exfiltration),
        Action::Integration { tool, read_only } => {
            if *read_only {
                None
            } else {
                integration_category(tool)
            }
        }
        _ => None,
    }
}

fn command_category(command: &str) -> Option<Hard> {
    let segments = shell::segments(command);
    let lower = command.to_ascii_lowercase();
    // Each simple command's program and its words, read once.
    let parts: Vec<(String, &[String])> = segments.iter().filter_map(|s| split(s)).collect();
    let has = |names: &[&str]| parts.iter().any(|(p, _)| names.contains(&p.as_str()));
    // Wrappers like sudo are skipped by program_of, so look at every word
    // a segment starts with too.
    let starts = |names: &[&str]| {
        segments
            .iter()
            .any(|s| s.iter().any(|w| names.contains(&basename(w))))
    };

    if starts(ESCALATE)
        || parts.iter().any(|(p, a)| escalates(p, a))
        || lower.contains("/etc/sudoers")
    {
        return Some(Hard::PrivilegeEscalation);
    }
    if has(SECRET_PROGRAMS)
        || SECRET_PLACES.iter().any(|p| lower.contains(p))
        || parts.iter().any(|(p, a)| credential_subcommand(p, a))
    {
        return Some(Hard::Credentials);
    }
    if has(SAFETY_PROGRAMS) || parts.iter().any(|(p, a)| safety_subcommand(p, a)) {
        return Some(Hard::SafetyChange);
    }
    if runs_downloaded(&parts) || has(ALWAYS_REMOTE) || parts.iter().any(|(p, a)| installs(p, a)) {
        return Some(Hard::RemoteCode);
    }
    if has(SENDERS) || parts.iter().any(|(p, a)| sends(p, a)) {
        return Some(Hard::Exfiltration);
    }
    if has(SCHEDULERS)
        || STARTUP_PLACES.iter().any(|p| command.contains(p))
        || parts.iter().any(|(p, a)| persists(p, a))
    {
        return Some(Hard::Persistence);
    }
    if has(CLOUD) || parts.iter().any(|(p, a)| spends(p, a)) {
        return Some(Hard::Spending);
    }
    if parts.iter().any(|(p, _)| {
        WIPERS
            .iter()
            .any(|w| p == w || p.strip_prefix(w).is_some_and(|rest| rest.starts_with('.')))
    }) || parts.iter().any(|(p, a)| destroys(p, a))
        || lower.contains("drop table")
        || lower.contains("drop database")
    {
        return Some(Hard::CriticalDestruction);
    }
    None
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// The program's name and the words after it.
fn split(segment: &[String]) -> Option<(String, &[String])> {
    let program = shell::program_of(segment)?;
    let at = segment.iter().position(|w| basename(w) == program)?;
    Some((program, &segment[at + 1..]))
}

/// The first word that isn't an option: a subcommand.
fn sub(args: &[String]) -> Option<&str> {
    args.iter()
        .map(String::as_str)
        .find(|a| !a.starts_with('-'))
}

fn escalates(program: &str, args: &[String]) -> bool {
    match program {
        // setuid / setgid bits.
        "chmod" => args.iter().any(|a| {
            a.contains("+s")
                || (a.len() == 4
                    && a.chars().all(|c| c.is_ascii_digit())
                    && a.as_bytes()[0] != b'0')
        }),
        "chown" | "chgrp" => args.iter().any(|a| a.starts_with("root")),
        _ => false,
    }
}

fn credential_subcommand(program: &str, args: &[String]) -> bool {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match program {
        "gh" => sub(args) == Some("auth"),
        "git" => {
            words.contains(&"credential") || words.iter().any(|w| w.starts_with("credential."))
        }
        "docker" | "podman" | "npm" => sub(args) == Some("login"),
        _ => false,
    }
}

fn safety_subcommand(program: &str, args: &[String]) -> bool {
    program == "systemctl" && matches!(sub(args), Some("stop" | "disable" | "mask" | "kill"))
}

/// Whether a command downloads something and hands it to an interpreter:
/// as its input (`curl … | sh`), through a substitution (`bash -c
/// "$(curl …)"`, `<(curl …)`), or as the file the download wrote (`curl -o
/// i.sh … && sh i.sh`). An interpreter running a module or a file of the
/// work folder beside a download (`curl … | python3 -m json.tool`) is not.
fn runs_downloaded(parts: &[(String, &[String])]) -> bool {
    let downloads: Vec<&[String]> = parts
        .iter()
        .filter(|(p, _)| DOWNLOADERS.contains(&p.as_str()))
        .map(|(_, args)| *args)
        .collect();
    if downloads.is_empty() {
        return false;
    }
    parts.iter().any(|(program, args)| {
        let program = program.as_str();
        if !INTERPRETERS.contains(&program) {
            return false;
        }
        if matches!(program, "source" | "." | "eval") {
            return true;
        }
        if args.iter().any(|a| {
            a.contains("$(")
                || a.contains('`')
                || a.starts_with("<(")
                || a.starts_with("/dev/fd")
                || a == "/dev/stdin"
                || a == "-"
        }) {
            return true;
        }
        let inline = args
            .iter()
            .any(|a| matches!(a.as_str(), "-c" | "-e" | "--eval"));
        let module = args.iter().any(|a| a == "-m");
        match args.iter().find(|a| !a.starts_with('-')) {
            // No script named: it reads one from its input.
            None => !inline && !module,
            Some(_) if inline || module => false,
            Some(file) => downloads.iter().any(|d| {
                d.iter()
                    .any(|w| w == file || w.rsplit('/').next() == Some(file.as_str()))
            }),
        }
    })
}

fn installs(program: &str, args: &[String]) -> bool {
    if program == "deno"
        && args
            .iter()
            .any(|a| a.starts_with("http://") || a.starts_with("https://"))
    {
        return true;
    }
    INSTALLERS
        .iter()
        .any(|(p, subs)| *p == program && sub(args).is_some_and(|s| subs.contains(&s)))
}

fn sends(program: &str, args: &[String]) -> bool {
    match program {
        "curl" => {
            args.iter().any(|a| {
                let a = a.as_str();
                matches!(
                    a,
                    "-d" | "-F" | "-T" | "--form" | "--upload-file" | "--json"
                ) || a.starts_with("--data")
                    || a.starts_with("--form")
                    || (a.starts_with("-d") && !a.starts_with("--"))
            }) || method_sends(args)
        }
        "wget" => args.iter().any(|a| {
            a.starts_with("--post") || a.starts_with("--body") || a.starts_with("--method")
        }),
        "rsync" => args.iter().any(|a| !a.starts_with('-') && is_remote(a)),
        _ => false,
    }
}

fn method_sends(args: &[String]) -> bool {
    args.windows(2).any(|w| {
        (w[0] == "-X" || w[0] == "--request")
            && matches!(
                w[1].to_ascii_uppercase().as_str(),
                "POST" | "PUT" | "PATCH" | "DELETE"
            )
    }) || args.iter().any(|a| {
        let up = a.to_ascii_uppercase();
        up.starts_with("-XPOST")
            || up.starts_with("-XPUT")
            || up.starts_with("--REQUEST=POST")
            || up.starts_with("--REQUEST=PUT")
    })
}

/// `host:path` or `user@host:path`, not a local path with a colon after a slash.
fn is_remote(arg: &str) -> bool {
    match arg.find(':') {
        Some(at) => !arg[..at].contains('/') && at > 0,
        None => false,
    }
}

fn persists(program: &str, args: &[String]) -> bool {
    match program {
        "systemctl" => matches!(sub(args), Some("enable" | "link" | "preset")),
        "loginctl" => sub(args) == Some("enable-linger"),
        _ => false,
    }
}

fn spends(program: &str, args: &[String]) -> bool {
    match program {
        "terraform" | "tofu" => matches!(sub(args), Some("apply")),
        "pulumi" => matches!(sub(args), Some("up")),
        _ => false,
    }
}

fn destroys(program: &str, args: &[String]) -> bool {
    let flags = |short: char, long: &str| {
        args.iter()
            .any(|a| a == long || (a.starts_with('-') && !a.starts_with("--") && a.contains(short)))
    };
    match program {
        "rm" => {
            let recursive = flags('r', "--recursive") || flags('R', "--recursive");
            let targets: Vec<&str> = args
                .iter()
                .map(String::as_str)
                .filter(|a| !a.starts_with('-'))
                .collect();
            args.iter().any(|a| a == "--no-preserve-root")
                || (recursive
                    && targets.iter().any(|t| {
                        BROAD.contains(t)
                            || t.starts_with('/')
                            || t.starts_with('~')
                            || t.starts_with("$HOME")
                            || t.split('/').any(|p| p == "..")
                    }))
        }
        "dd" => args.iter().any(|a| a.starts_with("of=/dev/")),
        "git" => {
            let words: Vec<&str> = args.iter().map(String::as_str).collect();
            match sub(args) {
                Some("push") => words.iter().any(|w| {
                    matches!(*w, "-f" | "--force" | "--mirror" | "--delete" | "-d")
                        || w.starts_with("--force")
                        || w.starts_with('+')
                }),
                Some("reset") => words.contains(&"--hard"),
                Some("clean") => {
                    words
                        .iter()
                        .any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('f'))
                        || words.contains(&"--force")
                }
                Some("branch") => words.contains(&"-D"),
                _ => false,
            }
        }
        "find" => {
            args.iter().any(|a| a == "-delete")
                && args
                    .iter()
                    .any(|a| a == "/" || a.starts_with('~') || a.starts_with("$HOME"))
        }
        "terraform" | "tofu" => sub(args) == Some("destroy"),
        "kubectl" => sub(args) == Some("delete"),
        _ => false,
    }
}

fn path_category(path: &str) -> Option<Hard> {
    if path.starts_with("/etc/sudoers") || path == "/etc/passwd" || path == "/etc/group" {
        return Some(Hard::PrivilegeEscalation);
    }
    if SECRET_FILES.iter().any(|p| path.contains(p))
        || path.ends_with("/.env")
        || path.ends_with("credentials.json")
    {
        return Some(Hard::Credentials);
    }
    if path.contains("/.conch/")
        || path.starts_with("/etc/apparmor")
        || path.starts_with("/etc/selinux")
    {
        return Some(Hard::SafetyChange);
    }
    if STARTUP_PLACES.iter().any(|p| path.contains(p)) {
        return Some(Hard::Persistence);
    }
    None
}

fn integration_category(tool: &str) -> Option<Hard> {
    let t = tool.to_ascii_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if any(&[
        "credential",
        "password",
        "token",
        "secret",
        "apikey",
        "api_key",
        "oauth",
    ]) {
        Some(Hard::Credentials)
    } else if any(&["setting", "permission", "policy", "safety"]) {
        Some(Hard::SafetyChange)
    } else if any(&[
        "pay",
        "purchase",
        "buy",
        "order",
        "checkout",
        "charge",
        "invoice",
        "subscribe",
        "transfer",
        "donate",
        "refund",
    ]) {
        Some(Hard::Spending)
    } else if any(&["send", "share", "upload", "forward", "email", "publish"]) {
        Some(Hard::Exfiltration)
    } else if any(&["schedule", "cron", "autostart", "startup"]) {
        Some(Hard::Persistence)
    } else if any(&["delete_all", "purge", "wipe", "destroy"]) {
        Some(Hard::CriticalDestruction)
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
