//! Where skills live: Conch's own folder, and other agents' folders
//! (OpenClaw, Hermes, Claude Code, and a project's .claude/skills).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Conch,
    OpenClaw,
    Hermes,
    Claude,
    Project,
}

impl Source {
    pub fn id(self) -> &'static str {
        match self {
            Source::Conch => "conch",
            Source::OpenClaw => "openclaw",
            Source::Hermes => "hermes",
            Source::Claude => "claude",
            Source::Project => "project",
        }
    }

    /// The app, as a person would name it.
    pub fn app(self) -> &'static str {
        match self {
            Source::Conch => "Conch",
            Source::OpenClaw => "OpenClaw",
            Source::Hermes => "Hermes",
            Source::Claude => "Claude Code",
            Source::Project => "this project's Claude Code folder",
        }
    }

    /// Another app's skill: off until a person turns it on, then pinned.
    pub fn is_other_app(self) -> bool {
        self != Source::Conch
    }
}

/// One folder of skills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub source: Source,
    pub dir: PathBuf,
}

pub fn places(conch_home: &Path, person_home: Option<&Path>, project: Option<&Path>) -> Vec<Place> {
    let mut out = vec![Place {
        source: Source::Conch,
        dir: conch_home.join("skills"),
    }];
    // Skills brought over by `conch import`: still the other app's (off
    // until turned on, pinned once on), but kept in Conch's folder, so a
    // backup carries them and the other app can't change them later.
    for source in [Source::OpenClaw, Source::Hermes] {
        out.push(Place {
            source,
            dir: conch_home.join("imported").join(source.id()).join("skills"),
        });
    }
    if let Some(home) = person_home {
        for (source, rel) in [
            (Source::OpenClaw, ".openclaw/skills"),
            (Source::OpenClaw, ".openclaw/workspace/skills"),
            (Source::Hermes, ".hermes/skills"),
            (Source::Claude, ".claude/skills"),
        ] {
            out.push(Place {
                source,
                dir: home.join(rel),
            });
        }
    }
    if let Some(project) = project {
        out.push(Place {
            source: Source::Project,
            dir: project.join(".claude/skills"),
        });
    }
    out
}
