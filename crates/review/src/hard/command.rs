//! A command's categories, read from the words the shell will make
//! (`protocol::shell`), so `~/.npm''rc`, `$'\\x63url'` or `.git/ho''oks` read
//! as what they are; paths are read against the shared list of places where
//! keys live and the list of places that run later (the guard's), after
//! `~`, `$HOME` and the work folder have made them absolute.

use protocol::shell::{self, Reading, Word};

use super::lists::*;
use super::sends::Sent;
use super::{Facts, Hard};

/// Every program name the categories know, for patterns that could be one.
fn known_names() -> impl Iterator<Item = &'static str> {
    ESCALATE
        .iter()
        .chain(SECRET_PROGRAMS)
        .chain(SAFETY_PROGRAMS)
        .chain(DOWNLOADERS)
        .chain(INTERPRETERS)
        .chain(ALWAYS_REMOTE)
        .chain(SENDERS)
        .chain(CLOUD)
        .chain(SCHEDULERS)
        .chain(WIPERS)
        .chain(INSTALLERS.iter().map(|(p, _)| p))
        .chain(OTHER_PROGRAMS)
        .copied()
}

/// The names a program word could be: itself, or for a pattern every known
/// name it matches.
fn names(word: &Word) -> Vec<String> {
    match &word.glob {
        Some(_) => known_names()
            .filter(|n| word.could_be(n))
            .map(str::to_owned)
            .collect(),
        None => vec![word.text.clone()],
    }
}

/// Each simple command's possible programs, with the words after each.
fn parts(reading: &Reading) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for simple in &reading.simples {
        let Some(last) = simple.program_index() else {
            continue;
        };
        let chain = simple.candidates();
        let first = last + 1 - chain.len();
        for (k, program) in chain.iter().enumerate() {
            let args: Vec<String> = simple.words[(first + k + 1).min(simple.words.len())..]
                .iter()
                .map(|w| w.text.clone())
                .collect();
            for name in names(program) {
                out.push((name, args.clone()));
            }
        }
    }
    out
}

/// `text` made absolute: `~` and `$HOME` are already expanded by the
/// reading; a relative path is the work folder's; `..` and `.` are applied.
fn absolute(text: &str, work: &str) -> String {
    let joined = if text.starts_with('/') {
        text.to_owned()
    } else {
        format!("{}/{text}", work.trim_end_matches('/'))
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// The pieces of a word that could be paths: the word, and what follows
/// `=`, `:` or a leading `@` (`--config=~/.npmrc`, `-d @file`).
fn pieces(text: &str) -> Vec<&str> {
    let mut out = vec![text.trim_start_matches('@')];
    for sep in ['=', ':'] {
        if let Some((_, rest)) = text.split_once(sep) {
            out.push(rest.trim_start_matches('@'));
        }
    }
    out.retain(|p| !p.is_empty() && !p.contains("://"));
    out
}

/// Names that hold secrets wherever they are.
fn secret_name(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        name,
        "id_rsa"
            | "id_dsa"
            | "id_ecdsa"
            | "id_ed25519"
            | "id_ecdsa_sk"
            | "id_ed25519_sk"
            | "credentials.json"
            | ".env"
            | ".pgpass"
            | ".my.cnf"
            | "authorized_keys"
            | "shadow"
            | "gshadow"
            | "master.key"
    ) || (name.starts_with(".env.")
        && !["example", "sample", "template", "dist", "defaults"]
            .iter()
            .any(|s| name.ends_with(s)))
        || name.ends_with(".kdbx")
        || path.starts_with("/etc/shadow")
}

/// Whether `path` (absolute) is where keys live, or a file that holds one.
pub(super) fn names_secret(path: &str, facts: &Facts<'_>) -> bool {
    matches!(facts.protected.why(path), Some(guard::Why::Keys(_)))
        || secret_name(path)
        // The folder whose files are key files by name (`~/.terraform.d`
        // for its `credentials*`): naming it reaches them.
        || facts
            .protected
            .keys
            .iter()
            .any(|p| p.prefix.is_some() && p.path == path.trim_end_matches('/'))
}

/// What the words of the command reach: keys, Conch's folder, places that
/// run later.
struct Reaches {
    secrets: bool,
    conch: bool,
    runs_later: bool,
    sudoers: bool,
}

fn reaches(reading: &Reading, facts: &Facts<'_>) -> Reaches {
    let mut r = Reaches {
        secrets: false,
        conch: false,
        runs_later: false,
        sudoers: false,
    };
    for word in reading.all_words() {
        if word.computed {
            continue;
        }
        for piece in pieces(&word.text) {
            let path = absolute(piece, facts.work);
            r.secrets |= names_secret(&path, facts);
            r.conch |= facts.protected.why(&path) == Some(guard::Why::Conch);
            r.runs_later |= guard::runs_later::runs_later(&path).is_some();
            r.sudoers |= path.starts_with("/etc/sudoers");
        }
        // A pattern that could reach into a place where keys live.
        if let Some(glob) = &word.glob {
            let pattern = absolute(glob, facts.work);
            r.secrets |= facts
                .protected
                .keys
                .iter()
                .any(|p| shell::could_start_with(&pattern, &p.path));
        }
    }
    r
}

/// The category of `command` review may never waive, if it has one.
pub(super) fn category(command: &str, facts: &Facts<'_>) -> Option<Hard> {
    let reading = shell::read(command, &facts.protected.context());
    let parts = parts(&reading);
    let has = |names: &[&str]| parts.iter().any(|(p, _)| names.contains(&p.as_str()));
    let reach = reaches(&reading, facts);
    let lower = command.to_ascii_lowercase();

    if has(ESCALATE) || parts.iter().any(|(p, a)| escalates(p, a)) || reach.sudoers {
        return Some(Hard::PrivilegeEscalation);
    }
    if has(SECRET_PROGRAMS)
        || reach.secrets
        || parts.iter().any(|(p, a)| credential_subcommand(p, a))
    {
        return Some(Hard::Credentials);
    }
    if has(SAFETY_PROGRAMS) || reach.conch || parts.iter().any(|(p, a)| safety_subcommand(p, a)) {
        return Some(Hard::SafetyChange);
    }
    let borrowed: Vec<(String, &[String])> = parts
        .iter()
        .map(|(p, a)| (p.clone(), a.as_slice()))
        .collect();
    if runs_downloaded(&borrowed) || has(ALWAYS_REMOTE) || parts.iter().any(|(p, a)| installs(p, a))
    {
        return Some(Hard::RemoteCode);
    }
    let sent = parts
        .iter()
        .filter_map(|(p, a)| Sent::of_command(p, a, &reading));
    for one in sent {
        if !one.reviewable(facts) {
            return Some(Hard::Exfiltration);
        }
    }
    if has(SCHEDULERS) || reach.runs_later || parts.iter().any(|(p, a)| persists(p, a)) {
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

/// The first word that isn't an option: a subcommand.
pub(super) fn sub(args: &[String]) -> Option<&str> {
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

pub(super) fn sends(program: &str, args: &[String]) -> bool {
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
pub(super) fn is_remote(arg: &str) -> bool {
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
