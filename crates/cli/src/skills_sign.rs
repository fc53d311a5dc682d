//! `conch skills sign|verify|trust|forget|key`: signing skills to share,
//! and whose signatures say "Verified" here. A terminal job: it works
//! with Conch stopped, and the guard keeps the assistant from running it.

use std::path::Path;

use conversations::{Home, Settings};
use serde_json::json;
use skills::signature::{self, Verdict};
use skills::signing_key::{self, key_fingerprint, parse_public, public_text, Replaced};
use skills::Trust;
use vault::Vault;

use crate::Failure;

fn vault(home: &Home) -> Result<Vault, Failure> {
    Ok(Settings::load(home.root())?.vault(home.root()))
}

/// Your own key stays trusted as yours, so what you signed says Verified.
fn trust_own(home: &Home, key: &skills::VerifyingKey) -> Result<(), Failure> {
    let mut trust = Trust::load(home.root())?;
    if trust.signer(key).is_none_or(|s| !s.yours) {
        trust.trust_signer(key, "you", true);
        trust.save(home.root())?;
    }
    Ok(())
}

fn skill_dir(path: &Path) -> Result<std::path::PathBuf, Failure> {
    let dir = path
        .canonicalize()
        .map_err(|_| Failure(format!("{} isn't there.", path.display())))?;
    if !dir.join("SKILL.md").is_file() {
        return Err(Failure(format!(
            "{} isn't a skill: it has no SKILL.md.",
            dir.display()
        )));
    }
    Ok(dir)
}

pub fn sign(home: &Home, path: &Path) -> Result<(), Failure> {
    let dir = skill_dir(path)?;
    let vault = vault(home)?;
    let (signer, made) = signing_key::open_or_make(&vault)?;
    let key = signer.public_key();
    trust_own(home, &key)?;
    if made {
        println!(
            "Made your key for signing skills ({}), locked with this computer's own key.",
            key_fingerprint(&key)
        );
    }
    let file = signature::sign(&dir, &signer)?;
    println!(
        "Signed {} with your key ({}). Its digest: {}",
        dir.display(),
        key_fingerprint(&key),
        file.digest
    );
    println!(
        "Others who trust your public key see it as verified:\n{}",
        public_text(&key)
    );
    Ok(())
}

pub fn verify(home: &Home, path: &Path, as_json: bool) -> Result<(), Failure> {
    let dir = skill_dir(path)?;
    let trust = Trust::load(home.root())?;
    let verdict = signature::verify(&dir, &trust)?;
    if as_json {
        let (kind, signer, fingerprint) = match &verdict {
            Verdict::Verified {
                signer,
                fingerprint,
                ..
            } => ("verified", Some(signer.clone()), Some(fingerprint.clone())),
            Verdict::UnknownKey { fingerprint, .. } => {
                ("unknown-key", None, Some(fingerprint.clone()))
            }
            Verdict::Changed => ("changed", None, None),
            Verdict::NotSigned => ("not-signed", None, None),
            Verdict::Damaged(_) => ("damaged", None, None),
        };
        println!(
            "{}",
            json!({ "path": dir, "verdict": kind, "signer": signer, "fingerprint": fingerprint, "says": verdict.words() })
        );
        return Ok(());
    }
    match verdict {
        Verdict::Verified { .. } => {
            println!("{}", verdict.words());
            Ok(())
        }
        other => Err(Failure(other.words())),
    }
}

pub fn trust(home: &Home, public: &str, name: &str) -> Result<(), Failure> {
    let key = parse_public(public).ok_or_else(|| {
        Failure(
            "That isn't an Ed25519 public key. Ask for the line conch skills key prints."
                .to_owned(),
        )
    })?;
    let name = name.trim();
    if name.is_empty() {
        return Err(Failure("Give the key a name with --name.".to_owned()));
    }
    let mut trust = Trust::load(home.root())?;
    trust.trust_signer(&key, name, false);
    trust.save(home.root())?;
    println!(
        "Skills signed by {name} ({}) now say Verified here.",
        key_fingerprint(&key)
    );
    Ok(())
}

pub fn forget(home: &Home, what: &str) -> Result<(), Failure> {
    let mut trust = Trust::load(home.root())?;
    let gone = trust.forget_signer(what);
    if gone.is_empty() {
        return Err(Failure(format!(
            "No trusted key matches \"{what}\". Give its public key, its fingerprint, or its name."
        )));
    }
    trust.save(home.root())?;
    println!(
        "Forgot {}. Skills signed with it no longer say Verified.",
        gone.join(", ")
    );
    Ok(())
}

pub fn key(home: &Home, new: bool) -> Result<(), Failure> {
    let vault = vault(home)?;
    if new {
        let (signer, replaced) = signing_key::make_new(&vault)?;
        let key = signer.public_key();
        trust_own(home, &key)?;
        match replaced {
            Replaced::Nothing => {}
            Replaced::SetAside(to) => println!(
                "The old key's file is kept, still sealed, as {} (in case the keychain comes back). Skills you signed with it still say Verified here.",
                to.display()
            ),
            Replaced::Removed => println!(
                "The old key's file was damaged and in the clear, so it was removed. Skills you signed with it still say Verified here."
            ),
        }
        println!(
            "Made a new key for signing skills ({}), locked with this computer's own key.\nShare the public key:\n{}",
            key_fingerprint(&key),
            public_text(&key)
        );
        return Ok(());
    }
    match signing_key::open(&vault)? {
        None => println!(
            "You haven't made a key for signing skills yet: conch skills sign PATH makes one."
        ),
        Some(signer) => {
            let key = signer.public_key();
            println!(
                "Your key for signing skills: {}\nShare the public key (the private half never leaves this computer):\n{}",
                key_fingerprint(&key),
                public_text(&key)
            );
        }
    }
    Ok(())
}
