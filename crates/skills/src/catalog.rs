//! Every skill Conch can see, read and scanned, with whether it is on and,
//! when it isn't, why in a sentence; and turning skills on and off.
//!
//! - A dangerous skill is off wherever it came from, until a person looks
//!   (`conch skills review`) and turns it on with the fingerprint they
//!   reviewed. Any change means looking again.
//! - Another app's skill is off until turned on, and is pinned to its
//!   fingerprint then; if any file in it changes, it is off again.

use std::path::{Path, PathBuf};

use protocol::SkillPermissions;
use serde::Serialize;

use crate::read::{read_folder, Unread};
use crate::scan::{scan, Finding, Verdict};
use crate::sources::{places, Source};
use crate::trust::{Trust, TrustError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OffWhy {
    Danger,
    Changed,
    NotTurnedOn,
    TurnedOff,
    Broken,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum State {
    On,
    Off { why: OffWhy, says: String },
}

#[derive(Debug, Clone, Serialize)]
pub struct Skill {
    /// `source:folder`, unique.
    pub id: String,
    pub name: String,
    pub description: String,
    pub source: Source,
    pub app: &'static str,
    pub dir: PathBuf,
    pub fingerprint: String,
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
    pub unread: Vec<Unread>,
    pub permissions: SkillPermissions,
    /// It declared its list (else it has the usual one).
    pub declared: bool,
    pub state: State,
    /// The other files in the skill, relative to its folder.
    pub files: Vec<String>,
    #[serde(skip)]
    pub instructions: String,
}

impl Skill {
    pub fn is_on(&self) -> bool {
        self.state == State::On
    }
}

#[derive(Debug)]
pub enum SkillError {
    NotFound(String),
    Ambiguous(String, Vec<String>),
    Off { id: String, says: String },
    HashNeeded { id: String, fingerprint: String },
    HashMismatch { id: String, fingerprint: String },
    NoSuchFile { id: String, file: String },
    Trust(TrustError),
    Io(PathBuf, std::io::Error),
}

impl From<TrustError> for SkillError {
    fn from(e: TrustError) -> Self {
        SkillError::Trust(e)
    }
}

impl std::fmt::Display for SkillError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkillError::NotFound(n) => write!(f, "There's no skill called \"{n}\". See them with conch skills list."),
            SkillError::Ambiguous(n, ids) => write!(f, "More than one skill is called \"{n}\": {}. Name one of those.", ids.join(", ")),
            SkillError::Off { id, says } => write!(f, "The skill {id} is off: {says}"),
            SkillError::HashNeeded { id, fingerprint } => write!(
                f,
                "The skill {id} could hurt, so it stays off until you look. Read what the scanner found with conch skills review {id}; to turn this version on anyway, run conch skills enable {id} --hash {fingerprint}"
            ),
            SkillError::HashMismatch { id, fingerprint } => write!(
                f,
                "That fingerprint isn't the skill {id} as it is now ({fingerprint}): it changed. Review it again."
            ),
            SkillError::NoSuchFile { id, file } => write!(f, "The skill {id} has no text file {file}."),
            SkillError::Trust(e) => e.fmt(f),
            SkillError::Io(p, e) => write!(f, "{} can't be read: {e}.", p.display()),
        }
    }
}

impl std::error::Error for SkillError {}

/// Where to look, and where trust is kept.
#[derive(Debug, Clone)]
pub struct Catalog {
    pub conch_home: PathBuf,
    pub person_home: Option<PathBuf>,
    pub project: Option<PathBuf>,
}

/// Reads and scans one skill folder (no trust applied yet).
pub fn load(dir: &Path, source: Source) -> Result<Skill, SkillError> {
    let folder = read_folder(dir).map_err(|e| SkillError::Io(dir.to_path_buf(), e))?;
    let report = scan(&folder);
    let fingerprint = folder.fingerprint();
    let folder_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let skill_md = folder.files.iter().find(|f| f.path == "SKILL.md");
    let parsed = match skill_md {
        Some(f) => {
            crate::front::parse(&String::from_utf8_lossy(&f.bytes)).map_err(|e| e.to_string())
        }
        None => Err("It has no SKILL.md (or it was too big to read).".to_owned()),
    };
    let files: Vec<String> = folder
        .files
        .iter()
        .map(|f| f.path.clone())
        .filter(|p| p != "SKILL.md")
        .collect();
    let (name, description, permissions, declared, instructions, broken) = match parsed {
        Ok(front) => (
            front.name.unwrap_or_else(|| folder_name.clone()),
            front.description.unwrap_or_default(),
            front.permissions,
            front.declared,
            front.body,
            None,
        ),
        Err(sentence) => (
            folder_name.clone(),
            String::new(),
            SkillPermissions::usual(),
            false,
            String::new(),
            Some(sentence),
        ),
    };
    let state = match broken {
        Some(says) => State::Off {
            why: OffWhy::Broken,
            says,
        },
        None => State::On,
    };
    Ok(Skill {
        id: format!("{}:{folder_name}", source.id()),
        name,
        description,
        source,
        app: source.app(),
        dir: dir.to_path_buf(),
        fingerprint,
        verdict: report.verdict,
        findings: report.findings,
        unread: report.unread,
        permissions,
        declared,
        state,
        files,
        instructions,
    })
}

/// Whether the skill is on, given what a person said.
fn judge(skill: &mut Skill, trust: &Trust) {
    if matches!(skill.state, State::Off { .. }) {
        return;
    }
    let acknowledged = trust.acknowledged.get(&skill.id) == Some(&skill.fingerprint);
    let off = |why, says: String| State::Off { why, says };
    skill.state = if skill.verdict == Verdict::Danger && !acknowledged {
        off(
            OffWhy::Danger,
            format!(
                "the scanner found things that could hurt. Look with conch skills review {}.",
                skill.id
            ),
        )
    } else if skill.source.is_other_app() {
        match trust.pins.get(&skill.id) {
            None => off(
                OffWhy::NotTurnedOn,
                format!("it's in {}'s folder; turn it on to use it here.", skill.app),
            ),
            Some(pin) if *pin != skill.fingerprint => off(
                OffWhy::Changed,
                format!(
                    "It changed in {} since you turned it on. Look at it again, then turn it on.",
                    skill.app
                ),
            ),
            Some(_) => State::On,
        }
    } else if trust.disabled.contains(&skill.id) {
        off(OffWhy::TurnedOff, "you turned it off.".to_owned())
    } else {
        State::On
    };
}

impl Catalog {
    pub fn new(conch_home: &Path) -> Catalog {
        Catalog {
            conch_home: conch_home.to_path_buf(),
            person_home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            project: None,
        }
    }

    /// Every skill, Conch's first, then by source and id.
    pub fn list(&self) -> Result<Vec<Skill>, SkillError> {
        let trust = Trust::load(&self.conch_home)?;
        let mut out = Vec::new();
        for place in places(
            &self.conch_home,
            self.person_home.as_deref(),
            self.project.as_deref(),
        ) {
            let Ok(entries) = std::fs::read_dir(&place.dir) else {
                continue;
            };
            let mut dirs: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
                .map(|e| e.path())
                .collect();
            dirs.sort();
            for dir in dirs {
                if let Ok(mut skill) = load(&dir, place.source) {
                    judge(&mut skill, &trust);
                    if !out.iter().any(|s: &Skill| s.id == skill.id) {
                        out.push(skill);
                    }
                }
            }
        }
        Ok(out)
    }

    /// The skill named `name`: its id, or its name when only one has it
    /// (Conch's own wins a tie).
    pub fn find(&self, name: &str) -> Result<Skill, SkillError> {
        let all = self.list()?;
        if let Some(s) = all.iter().find(|s| s.id == name) {
            return Ok(s.clone());
        }
        let named: Vec<&Skill> = all
            .iter()
            .filter(|s| s.name == name || s.id.split_once(':').map(|x| x.1) == Some(name))
            .collect();
        match named.as_slice() {
            [] => Err(SkillError::NotFound(name.to_owned())),
            [one] => Ok((*one).clone()),
            many => match many.iter().find(|s| s.source == Source::Conch) {
                Some(conch) => Ok((*conch).clone()),
                None => Err(SkillError::Ambiguous(
                    name.to_owned(),
                    many.iter().map(|s| s.id.clone()).collect(),
                )),
            },
        }
    }

    /// A skill that may be used now, or why not.
    pub fn usable(&self, name: &str) -> Result<Skill, SkillError> {
        let skill = self.find(name)?;
        match &skill.state {
            State::On => Ok(skill),
            State::Off { says, .. } => Err(SkillError::Off {
                id: skill.id.clone(),
                says: says.clone(),
            }),
        }
    }

    /// Turns a skill on: a dangerous one only with the fingerprint that was
    /// reviewed; another app's one is pinned to its fingerprint now.
    pub fn enable(&self, name: &str, hash: Option<&str>) -> Result<Skill, SkillError> {
        let skill = self.find(name)?;
        if let State::Off {
            why: OffWhy::Broken,
            says,
        } = &skill.state
        {
            return Err(SkillError::Off {
                id: skill.id.clone(),
                says: says.clone(),
            });
        }
        if let Some(h) = hash {
            if h != skill.fingerprint {
                return Err(SkillError::HashMismatch {
                    id: skill.id.clone(),
                    fingerprint: skill.fingerprint.clone(),
                });
            }
        }
        let mut trust = Trust::load(&self.conch_home)?;
        if skill.verdict == Verdict::Danger {
            if hash.is_none() {
                return Err(SkillError::HashNeeded {
                    id: skill.id.clone(),
                    fingerprint: skill.fingerprint.clone(),
                });
            }
            trust
                .acknowledged
                .insert(skill.id.clone(), skill.fingerprint.clone());
        }
        if skill.source.is_other_app() {
            trust
                .pins
                .insert(skill.id.clone(), skill.fingerprint.clone());
        }
        trust.disabled.remove(&skill.id);
        trust.save(&self.conch_home)?;
        self.find(&skill.id)
    }

    pub fn disable(&self, name: &str) -> Result<Skill, SkillError> {
        let skill = self.find(name)?;
        let mut trust = Trust::load(&self.conch_home)?;
        if skill.source.is_other_app() {
            trust.pins.remove(&skill.id);
        } else {
            trust.disabled.insert(skill.id.clone());
        }
        trust.save(&self.conch_home)?;
        self.find(&skill.id)
    }

    /// A text file of a skill that is on, by its path in the skill.
    pub fn file(&self, name: &str, file: &str) -> Result<String, SkillError> {
        let skill = self.usable(name)?;
        if file.contains("..") || file.starts_with('/') || !skill.files.iter().any(|f| f == file) {
            return Err(SkillError::NoSuchFile {
                id: skill.id,
                file: file.to_owned(),
            });
        }
        let path = skill.dir.join(file);
        let bytes = std::fs::read(&path).map_err(|e| SkillError::Io(path.clone(), e))?;
        String::from_utf8(bytes).map_err(|_| SkillError::NoSuchFile {
            id: skill.id,
            file: file.to_owned(),
        })
    }
}
