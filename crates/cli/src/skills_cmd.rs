//! `conch skills list|scan|review|enable|disable`; signing is in
//! skills_sign.rs.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use conversations::Home;
use serde_json::{json, Value};
use skills::{catalog, Catalog, Skill, Source, State, Verdict};

use crate::Failure;

#[derive(Subcommand)]
pub enum SkillsCommand {
    /// Every skill Conch can see, and whether it's on.
    List,
    /// Scan a folder that is one skill, or a folder of skills.
    Scan {
        path: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// What the scanner found in a skill, in plain words.
    Review { name: String },
    /// Turn a skill on (a dangerous one needs the fingerprint you reviewed).
    Enable {
        name: String,
        #[arg(long, value_name = "FINGERPRINT")]
        hash: Option<String>,
    },
    /// Turn a skill off.
    Disable { name: String },
    /// Sign a skill folder with your key (made on first use).
    Sign { path: PathBuf },
    /// Check a skill folder's signature.
    Verify {
        path: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Trust a public key: skills it signed say Verified.
    Trust {
        public_key: String,
        #[arg(long)]
        name: String,
    },
    /// Stop trusting a key (its public key, fingerprint or name).
    Forget { key: String },
    /// Show your signing key's fingerprint; --new makes a new one when the old can't be opened.
    Key {
        #[arg(long)]
        new: bool,
    },
}

fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::Clean => "clean",
        Verdict::Caution => "caution",
        Verdict::Danger => "danger",
    }
}

fn state(s: &State) -> String {
    match s {
        State::On => "on".into(),
        State::Off { says, .. } => format!("off: {says}"),
    }
}

fn scan_json(path: &Path, skill: &Skill) -> Value {
    json!({
        "path": path,
        "name": skill.name,
        "fingerprint": skill.fingerprint,
        "verdict": verdict(skill.verdict),
        "findings": skill.findings,
        "unread": skill.unread,
    })
}

fn print_review(skill: &Skill) {
    println!("{} ({}, from {})", skill.name, skill.id, skill.app);
    if !skill.description.is_empty() {
        println!("{}", skill.description);
    }
    println!(
        "Verdict: {}. State: {}.",
        verdict(skill.verdict),
        state(&skill.state)
    );
    println!("Fingerprint: {}", skill.fingerprint);
    println!(
        "It says it needs: commands {}; files {:?}; web {:?}; integrations {}.",
        if skill.permissions.commands.is_empty() {
            "none".to_owned()
        } else {
            skill.permissions.commands.join(", ")
        },
        skill.permissions.files,
        skill.permissions.web,
        if skill.permissions.integrations.is_empty() {
            "none".to_owned()
        } else {
            skill.permissions.integrations.join(", ")
        },
    );
    if skill.findings.is_empty() {
        println!("\nThe scanner found nothing that could hurt.");
    }
    for f in &skill.findings {
        let at = if f.line > 0 {
            format!("{}:{}", f.file, f.line)
        } else {
            f.file.clone()
        };
        println!(
            "\n[{}] {at}: {}",
            if f.severity == skills::Severity::Danger {
                "danger"
            } else {
                "caution"
            },
            f.says
        );
        if !f.excerpt.is_empty() {
            println!("    {}", f.excerpt);
        }
        if let Some(d) = &f.decoded {
            println!("    decodes to: {d}");
        }
    }
    for u in &skill.unread {
        println!("\nNot read: {} ({}).", u.path, u.why);
    }
    if skill.verdict == Verdict::Danger && !skill.is_on() {
        println!(
            "\nTo turn this exact version on anyway: conch skills enable {} --hash {}",
            skill.id, skill.fingerprint
        );
    }
}

pub fn run(home: &Home, command: SkillsCommand) -> Result<(), Failure> {
    let cat = Catalog {
        project: std::env::current_dir().ok(),
        ..Catalog::new(home.root())
    };
    match command {
        SkillsCommand::Sign { path } => return crate::skills_sign::sign(home, &path),
        SkillsCommand::Verify { path, json } => {
            return crate::skills_sign::verify(home, &path, json)
        }
        SkillsCommand::Trust { public_key, name } => {
            return crate::skills_sign::trust(home, &public_key, &name)
        }
        SkillsCommand::Forget { key } => return crate::skills_sign::forget(home, &key),
        SkillsCommand::Key { new } => return crate::skills_sign::key(home, new),
        SkillsCommand::List => {
            let all = cat.list()?;
            if all.is_empty() {
                println!(
                    "No skills. Put one in {} (a folder with a SKILL.md).",
                    home.root().join("skills").display()
                );
            }
            for s in all {
                println!(
                    "{}\t{}\t{}\t{}",
                    s.id,
                    s.app,
                    verdict(s.verdict),
                    state(&s.state)
                );
            }
        }
        SkillsCommand::Scan { path, json } => {
            let path = path
                .canonicalize()
                .map_err(|_| Failure(format!("{} isn't there.", path.display())))?;
            let dirs: Vec<PathBuf> = if path.join("SKILL.md").is_file() {
                vec![path.clone()]
            } else {
                let mut d: Vec<PathBuf> = std::fs::read_dir(&path)?
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect();
                d.sort();
                d
            };
            let mut out = Vec::new();
            for dir in dirs {
                match catalog::load(&dir, Source::Conch) {
                    Ok(skill) => {
                        if json {
                            out.push(scan_json(&dir, &skill));
                        } else {
                            println!(
                                "{}\t{}\t{} finding(s)\t{}",
                                dir.display(),
                                verdict(skill.verdict),
                                skill.findings.len(),
                                skill.fingerprint
                            );
                            for f in &skill.findings {
                                println!(
                                    "  [{}] {}:{} {} — {}",
                                    verdict(if f.severity == skills::Severity::Danger {
                                        Verdict::Danger
                                    } else {
                                        Verdict::Caution
                                    }),
                                    f.file,
                                    f.line,
                                    f.rule,
                                    f.says
                                );
                                if !f.excerpt.is_empty() {
                                    println!("      {}", f.excerpt);
                                }
                                if let Some(d) = &f.decoded {
                                    println!("      decodes to: {d}");
                                }
                            }
                            for u in &skill.unread {
                                println!("  not read: {} ({})", u.path, u.why);
                            }
                        }
                    }
                    Err(e) => eprintln!("conch: {}: {e}", dir.display()),
                }
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            }
        }
        SkillsCommand::Review { name } => print_review(&cat.find(&name)?),
        SkillsCommand::Enable { name, hash } => {
            let s = cat.enable(&name, hash.as_deref())?;
            println!("Turned on {} ({}).", s.id, state(&s.state));
        }
        SkillsCommand::Disable { name } => {
            let s = cat.disable(&name)?;
            println!("Turned off {}.", s.id);
        }
    }
    Ok(())
}
