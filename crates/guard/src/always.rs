//! The narrower "always": Always allow `git push …` in this chat.
//!
//! The record's "Always allow" lets a tool through for the rest of the chat
//! (`run_command`, `read:run_command`, `box:run_command`): any command. This
//! one lets through only commands whose program (and, for programs that
//! take one, subcommand) match the command asked about. Its key is the wider
//! key with the command's *signature* after an `@`:
//! `read:run_command@git push`. Coverage is exact equality of signatures,
//! so nothing is ever parsed back out of a key.
//!
//! The signature is read from [`protocol::shell::Reading`], the way bash
//! will read the command, never from its text: `g''it push`, `gi\t push`
//! and `$'\x67'it push` are all `git push`; `/usr/bin/git push`,
//! `./git push` and `git push` are three different programs. A command
//! has a signature only when every part of it is known and the same:
//!
//! - every simple command (those inside substitutions, `sh -c` strings,
//!   `eval`, subshells and loops included) has the same signature, and the
//!   code handed to another shell could all be read;
//! - the program is the first word: no `VAR=value` before it (which can
//!   make a program run another, `GIT_SSH_COMMAND=…`), no wrapper (`sudo`,
//!   `env`, `timeout`…), nothing computed, no pattern;
//! - for a program in [`SUBCOMMANDS`], the word right after it is a plain
//!   subcommand (`git -c core.pager=… log` has none);
//! - nothing is written to a file by a redirection (only `/dev/null` and
//!   copies of the standard streams), since writing is a different act.
//!
//! Anything else has no signature: the narrower choice isn't offered, and a
//! narrower answer given before never covers it. That is the careful side:
//! the wider choice still stands for the owner who wants it.

use protocol::shell::{Reading, Simple, Word};

/// Programs whose first argument says what they do: the signature takes
/// it too (`git push`, `npm install`, `cargo test`).
pub const SUBCOMMANDS: &[&str] = &[
    "git",
    "hg",
    "svn",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "npx",
    "bunx",
    "deno",
    "node-gyp",
    "cargo",
    "rustup",
    "go",
    "pip",
    "pip3",
    "pipx",
    "uv",
    "poetry",
    "pipenv",
    "conda",
    "mamba",
    "gem",
    "bundle",
    "rake",
    "composer",
    "mix",
    "dotnet",
    "swift",
    "flutter",
    "dart",
    "mvn",
    "gradle",
    "make",
    "just",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "terraform",
    "tofu",
    "pulumi",
    "gh",
    "glab",
    "brew",
    "apt",
    "apt-get",
    "dnf",
    "yum",
    "zypper",
    "apk",
    "snap",
    "flatpak",
    "systemctl",
    "launchctl",
    "aws",
    "gcloud",
    "az",
    "heroku",
    "fly",
    "flyctl",
    "vercel",
    "netlify",
    "wrangler",
    "nix",
    "rails",
];

/// The separator between the wider key and the signature.
pub const SEP: char = '@';

/// The narrower key for a wider one: `run_command@git push`.
pub fn narrow_key(wide: &str, signature: &str) -> String {
    format!("{wide}{SEP}{signature}")
}

/// What the card shows for a narrower key: `git push …`, or None for a key
/// that isn't narrower.
pub fn shown(key: &str) -> Option<String> {
    key.split_once(SEP).map(|(_, sig)| format!("{sig} …"))
}

/// The command's signature (above), or None.
pub fn signature(reading: &Reading) -> Option<String> {
    if reading.opaque || reading.simples.is_empty() {
        return None;
    }
    let mut found: Option<String> = None;
    for simple in &reading.simples {
        let sig = one(simple)?;
        match &found {
            None => found = Some(sig),
            Some(first) if *first == sig => {}
            Some(_) => return None,
        }
    }
    found
}

fn known(word: &Word) -> bool {
    !word.computed && word.glob.is_none() && !word.text.is_empty()
}

fn one(simple: &Simple) -> Option<String> {
    // The program is the first word, and nothing stands before it.
    if simple.chain_indices() != [0] {
        return None;
    }
    let program = simple.words.first().filter(|w| known(w))?;
    if program.text.chars().any(|c| c.is_control() || c == SEP) || program.text.contains('=') {
        return None;
    }
    if !simple.redirects.iter().all(quiet_redirect) {
        return None;
    }
    let base = program.base().text;
    if !SUBCOMMANDS.contains(&base.as_str()) {
        return Some(program.text.clone());
    }
    let sub = simple.words.get(1).filter(|w| known(w))?;
    let plain = sub
        .text
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && sub
            .text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
    plain.then(|| format!("{} {}", program.text, sub.text))
}

/// A redirection that writes no file: to `/dev/null`, a copy of a standard
/// stream (`2>&1`), or input (`<`, here-documents, here-strings).
fn quiet_redirect(r: &protocol::shell::Redirect) -> bool {
    let op = r.op.trim_start_matches(|c: char| c.is_ascii_digit());
    let input = matches!(op, "<" | "<<" | "<<-" | "<<<");
    let dup = matches!(op, ">&" | "<&")
        && known(&r.target)
        && r.target
            .text
            .chars()
            .all(|c| c.is_ascii_digit() || c == '-');
    let null = known(&r.target) && r.target.text == "/dev/null";
    input || dup || null
}

#[cfg(test)]
mod tests;
