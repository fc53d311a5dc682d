//! `conch doctor [--repair]`: what in Conch's folder needs attention. A
//! plain look only warns; `--repair` fixes what can be fixed without you.

use clap::Args;
use conversations::secrets::SECRETS_FILE;
use conversations::{Home, Settings};
use skills::signing_key::{self, key_fingerprint, KeyStatus};
use vault::{Locked, Vault};

use crate::Failure;

#[derive(Args)]
pub struct DoctorArgs {
    /// Fix what can be fixed (lock keys found in the clear).
    #[arg(long)]
    repair: bool,
}

/// One check's outcome, as printed.
enum Line {
    Ok(String),
    Warn(String),
    Needs(String),
}

fn secrets_check(vault: &Vault, repair: bool) -> Option<Line> {
    match vault.is_clear(SECRETS_FILE) {
        Ok(false) => None,
        Ok(true) if repair => Some(
            match vault.lock_if_clear(SECRETS_FILE, |b| {
                serde_json::from_slice::<conversations::Secrets>(b)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }) {
                Ok(_) => Line::Ok("Provider keys: locked with this computer's own key.".into()),
                Err(e) => Line::Needs(format!("Provider keys: {e}")),
            },
        ),
        Ok(true) => Some(Line::Warn(
            "Provider keys are in the clear in secrets.json. conch doctor --repair locks them with this computer's own key.".into(),
        )),
        Err(e) => Some(Line::Needs(format!("Provider keys: {e}"))),
    }
}

fn signing_check(vault: &Vault, repair: bool) -> Option<Line> {
    match signing_key::status(vault) {
        // Silent when you've never signed a skill.
        KeyStatus::None => None,
        KeyStatus::Sealed(_) => Some(Line::Ok(
            "Key for signing skills: Locked with this computer's own key.".into(),
        )),
        KeyStatus::Clear if repair => Some(match signing_key::lock_if_clear(vault) {
            Ok(Locked::Locked) | Ok(Locked::AlreadySealed) => match signing_key::status(vault) {
                KeyStatus::Sealed(key) => Line::Ok(format!(
                    "Key for signing skills ({}): was in the clear; now Locked with this computer's own key.",
                    key_fingerprint(&key)
                )),
                _ => Line::Needs("Key for signing skills: it was locked but doesn't open now. Run conch doctor again.".into()),
            },
            Ok(Locked::Missing) => Line::Ok("Key for signing skills: none.".into()),
            Err(e) => Line::Needs(format!("Key for signing skills: {e}")),
        }),
        KeyStatus::Clear => Some(Line::Warn(
            "Key for signing skills is in the clear. conch doctor --repair locks it with this computer's own key.".into(),
        )),
        KeyStatus::CantOpen(e) => Some(Line::Needs(format!(
            "Key for signing skills: {e}\nTo make a new one (the old stays trusted as yours), copy:\n  conch skills key --new\nor restore the key from a backup."
        ))),
    }
}

/// How many artifacts there are, and which had to be healed (their
/// artifact.json rebuilt from the version files).
fn artifacts_check(home: &Home) -> Option<Line> {
    let store = artifacts::Store::new(&home.root().join("artifacts"));
    let all = store.list();
    if all.is_empty() {
        return None;
    }
    let healed: Vec<&artifacts::Artifact> = all.iter().filter(|a| a.healed.is_some()).collect();
    let count = format!(
        "{} artifact{}",
        all.len(),
        if all.len() == 1 { "" } else { "s" }
    );
    if healed.is_empty() {
        return Some(Line::Ok(format!("Artifacts: {count}.")));
    }
    let which: Vec<String> = healed
        .iter()
        .map(|a| format!("{} ({})", a.id, a.healed.as_deref().unwrap_or("")))
        .collect();
    Some(Line::Warn(format!(
        "Artifacts: {count}; {} healed: {}",
        healed.len(),
        which.join("; ")
    )))
}

/// Auto mode's judgement counters, read from every chat's log.
fn review_check(home: &Home) -> Option<Line> {
    let activity = conversations::activity::Activity::new(&home.chats_dir());
    let t = activity.totals();
    let all = t.review_allowed + t.review_rejected + t.review_asked + t.review_exhausted;
    (all > 0).then(|| {
        Line::Ok(format!(
            "Auto mode's reviewer: {} allowed, {} turned down, {} left to you, {} after its budget ran out.",
            t.review_allowed, t.review_rejected, t.review_asked, t.review_exhausted
        ))
    })
}

/// Whether Claude Code is installed at `bin` (and which version), as a
/// sentence either way.
pub fn claude_code_status(bin: &std::path::Path) -> Result<String, String> {
    match engines::claude_code::version::version(bin) {
        Ok(v) => Ok(format!("Claude Code {v} is installed ({}).", bin.display())),
        Err(why) => Err(format!(
            "Claude Code: {why}. Install it with npm install -g @anthropic-ai/claude-code, or give its path with conch providers add NAME --kind claude-code --bin PATH."
        )),
    }
}

pub fn claude_code_line(bin: &std::path::Path) -> String {
    claude_code_status(bin).unwrap_or_else(|why| why)
}

/// Each provider that is a program: is it there, and which version.
fn engines_check(settings: &Settings) -> Vec<Line> {
    settings
        .providers
        .iter()
        .filter(|p| p.kind == engines::providers::ProviderKind::ClaudeCode)
        .map(|p| {
            let bin = engines::claude_code::launch::program(p.bin.as_deref());
            match claude_code_status(&bin) {
                Ok(said) => Line::Ok(format!("Provider \"{}\": {said}", p.name)),
                Err(said) => Line::Warn(format!("Provider \"{}\": {said}", p.name)),
            }
        })
        .collect()
}

/// Whether a Codex provider's program is installed, and which version.
fn codex_check(p: &engines::providers::ProviderSettings) -> Line {
    let bin = p.bin.as_deref().unwrap_or("codex");
    match engines::codex::resolve(bin) {
        Some((program, _)) => match engines::codex::version(&program) {
            Some(v) => Line::Ok(format!(
                "Codex for \"{}\": {v} ({}).",
                p.name,
                program.display()
            )),
            None => Line::Needs(format!(
                "Codex for \"{}\" is at {} but doesn't run (codex --version failed). Reinstall it with: npm install -g @openai/codex",
                p.name,
                program.display()
            )),
        },
        None => Line::Needs(format!(
            "Codex for \"{}\" isn't installed (\"{bin}\" wasn't found). Install it with: npm install -g @openai/codex, or point to it with: conch providers add {} --kind codex --bin PATH",
            p.name, p.name
        )),
    }
}

/// What `conch providers add` says about a Codex provider's program.
pub fn codex_line(name: &str, bin: Option<&str>) -> String {
    let bin = bin.unwrap_or("codex");
    match engines::codex::resolve(bin).and_then(|(p, _)| engines::codex::version(&p)) {
        Some(v) => format!(" It runs {v}."),
        None => format!(
            " \"{bin}\" wasn't found or doesn't run yet; install Codex (npm install -g @openai/codex) before chatting with \"{name}\"."
        ),
    }
}

pub fn run(home: &Home, args: DoctorArgs) -> Result<(), Failure> {
    let settings = Settings::load(home.root())?;
    let vault = settings.vault(home.root());
    let mut lines: Vec<Line> = [
        secrets_check(&vault, args.repair),
        signing_check(&vault, args.repair),
        artifacts_check(home),
        review_check(home),
    ]
    .into_iter()
    .flatten()
    .collect();
    lines.extend(engines_check(&settings));
    for p in &settings.providers {
        if p.kind == engines::providers::ProviderKind::Codex {
            lines.push(codex_check(p));
        }
    }
    // The security checkup, as Settings → Security shows it (where Conch
    // listens is only known to a running Conch).
    for check in conversations::checkup::checkup(home.root(), &settings.safety, None) {
        lines.push(match (check.ok, &check.fix) {
            (true, _) => Line::Ok(check.says),
            (false, Some(conversations::checkup::Fix::TurnOn { .. })) => Line::Warn(format!(
                "{} Turn it back on in Settings → Security, or set it to true in settings.json.",
                check.says
            )),
            (false, Some(conversations::checkup::Fix::Command { line })) => {
                Line::Warn(format!("{} To fix it, type:\n  {line}", check.says))
            }
            (false, Some(conversations::checkup::Fix::Advice { says })) => {
                Line::Warn(format!("{} {says}", check.says))
            }
            (false, Some(conversations::checkup::Fix::Memories { held })) => Line::Warn(format!(
                "{} Keep or forget it on the Memories page, or with `conch memories keep {}` (`conch memories list` shows them all).",
                check.says,
                held.first().map(String::as_str).unwrap_or("ID")
            )),
            (false, None) => Line::Warn(check.says),
        });
    }
    let mut needs = false;
    for line in &lines {
        match line {
            Line::Ok(t) => println!("ok: {t}"),
            Line::Warn(t) => println!("warning: {t}"),
            Line::Needs(t) => {
                needs = true;
                println!("needs you: {t}");
            }
        }
    }
    if lines.is_empty() {
        println!("Nothing needs attention.");
    }
    if needs {
        return Err(Failure("Something needs you; see above.".into()));
    }
    Ok(())
}

/// At start: keys found in the clear (an older Conch, a restored backup)
/// are checked and locked. A sealed file is left alone without reaching for
/// the keychain. What can't be locked is said, and Conch starts anyway.
pub fn lock_at_start(vault: &Vault) {
    if let Some(Line::Needs(t)) = secrets_check(vault, true) {
        eprintln!("conch: {t}");
    }
    if let Err(e) = signing_key::lock_if_clear(vault) {
        eprintln!("conch: Key for signing skills: {e}");
    }
}
