//! The routines the owner made, in `routines.json`, and when each last
//! ran, in `routines.runs.json`.
//!
//! `routines.json` is changed by the terminal (`conch routines add`), the
//! web pages and a chat's `routine_create`, possibly from two processes at
//! once: every change reads, changes and writes the file whole under an
//! exclusive lock (`routines.lock`), and writes are atomic. The running
//! scheduler is the only writer of `routines.runs.json`, so the owner's
//! edits and its bookkeeping never overwrite each other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use protocol::Mode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::schedule::Schedule;

pub const ROUTINES_FILE: &str = "routines.json";
pub const RUNS_FILE: &str = "routines.runs.json";
const LOCK_FILE: &str = "routines.lock";

/// One routine: a task that runs as its own chat on a schedule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Routine {
    /// Random, never reused: what a run's chat names (`chat.created`'s
    /// `routine`).
    pub id: String,
    /// What the owner calls it; unique; what `remove` and `run` take.
    pub name: String,
    /// As written: cron, or plain English.
    pub schedule: String,
    /// What the routine's chat is asked, each run.
    pub task: String,
    /// The mode its chats run in; absent: the default mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// The work folder its chats run in; absent: the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work: Option<String>,
    /// When it was made (Unix seconds): runs due before aren't missed runs.
    pub created: i64,
    /// Where it was made: `terminal`, `web`, or `chat:<id>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made_in: Option<String>,
    /// What the chat it was made in had read (its marks, in words): every
    /// run starts marked with them. The owner's yes covered making the
    /// routine, not what it does every morning after reading a stranger's
    /// page.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carries: Vec<String>,
    /// The people other than the owner whose words were in that chat
    /// ("Eve on telegram"): every run starts with their words in it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asked_by: Vec<String>,
    /// Paused when false.
    #[serde(default = "yes")]
    pub on: bool,
    /// When it was last turned back on (Unix seconds): runs due while it
    /// was paused aren't missed runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed: Option<i64>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct RoutinesFile {
    #[serde(default)]
    routines: Vec<Routine>,
    #[serde(flatten)]
    other: Map<String, Value>,
}

/// When a routine last ran, as the scheduler recorded it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastRun {
    /// The due time it ran for (Unix seconds).
    pub due: i64,
    /// Up to when its runs are settled: every due time up to here has run
    /// or was folded into one run.
    pub through: i64,
}

#[derive(Debug)]
pub enum StoreError {
    Io(PathBuf, std::io::Error),
    Damaged(PathBuf, serde_json::Error),
    Schedule(String),
    Name(String),
    NotFound(String),
    Task,
}

impl From<vault::JsonFileError> for StoreError {
    fn from(e: vault::JsonFileError) -> StoreError {
        match e {
            vault::JsonFileError::Read(p, e) | vault::JsonFileError::Write(p, e) => {
                StoreError::Io(p, e)
            }
            vault::JsonFileError::Damaged(p, e) => StoreError::Damaged(p, e),
        }
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Io(path, e) => {
                write!(f, "Conch couldn't use {}: {e}.", path.display())
            }
            StoreError::Damaged(path, e) => write!(
                f,
                "{} can't be read (line {}, column {}): {e}. Fix it, or move it aside to start with no routines.",
                path.display(),
                e.line(),
                e.column()
            ),
            StoreError::Schedule(why) | StoreError::Name(why) => f.write_str(why),
            StoreError::NotFound(name) => write!(
                f,
                "There's no routine called \"{name}\". See them with conch routines list."
            ),
            StoreError::Task => f.write_str(
                "A routine needs a task: what its chat is asked each time (1 to 10,000 characters).",
            ),
        }
    }
}

impl std::error::Error for StoreError {}

/// A new routine, before it has an id.
#[derive(Debug, Clone, Default)]
pub struct NewRoutine {
    pub schedule: String,
    pub task: String,
    pub name: Option<String>,
    pub mode: Option<Mode>,
    pub work: Option<String>,
    pub made_in: Option<String>,
    /// See [`Routine::carries`].
    pub carries: Vec<String>,
    /// See [`Routine::asked_by`].
    pub asked_by: Vec<String>,
}

/// The routines of one home folder.
#[derive(Debug, Clone)]
pub struct Store {
    home: PathBuf,
}

pub const MAX_TASK_CHARS: usize = 10_000;

impl Store {
    pub fn new(home: &Path) -> Store {
        Store {
            home: home.to_path_buf(),
        }
    }

    pub fn path(&self) -> PathBuf {
        self.home.join(ROUTINES_FILE)
    }

    fn file(&self) -> vault::JsonFile {
        vault::JsonFile::new(self.path(), self.home.join(LOCK_FILE))
    }

    fn read(&self) -> Result<RoutinesFile, StoreError> {
        Ok(self.file().load()?)
    }

    /// Every routine, in the order made.
    pub fn list(&self) -> Result<Vec<Routine>, StoreError> {
        Ok(self.read()?.routines)
    }

    /// The routine named `name` (or with that id).
    pub fn find(&self, name: &str) -> Result<Routine, StoreError> {
        self.list()?
            .into_iter()
            .find(|r| r.name == name || r.id == name)
            .ok_or_else(|| StoreError::NotFound(name.chars().take(80).collect()))
    }

    /// Adds a routine; its schedule must read, its name be free.
    pub fn add(&self, new: NewRoutine, now: i64) -> Result<Routine, StoreError> {
        let schedule = Schedule::parse(&new.schedule).map_err(|e| StoreError::Schedule(e.0))?;
        let task = new.task.trim();
        if task.is_empty() || task.chars().count() > MAX_TASK_CHARS {
            return Err(StoreError::Task);
        }
        let held = self.file().lock()?;
        let mut file = self.read()?;
        let name = match new.name.as_deref().map(str::trim) {
            Some(name) => {
                check_name(name)?;
                if file.routines.iter().any(|r| r.name == name) {
                    return Err(StoreError::Name(format!(
                        "There's already a routine called \"{name}\". Pick another name, or remove that one first."
                    )));
                }
                name.to_owned()
            }
            None => free_name(&slug(task), &file.routines),
        };
        let routine = Routine {
            id: random_id(),
            name,
            schedule: schedule.text,
            task: task.to_owned(),
            mode: new.mode,
            work: new.work,
            created: now,
            made_in: new.made_in,
            carries: new.carries,
            asked_by: new.asked_by,
            on: true,
            resumed: None,
            other: Map::new(),
        };
        file.routines.push(routine.clone());
        self.file().save(&file, &held)?;
        Ok(routine)
    }

    /// Removes the routine named `name` (or with that id). Its chats stay.
    pub fn remove(&self, name: &str) -> Result<Routine, StoreError> {
        let held = self.file().lock()?;
        let mut file = self.read()?;
        let at = file
            .routines
            .iter()
            .position(|r| r.name == name || r.id == name)
            .ok_or_else(|| StoreError::NotFound(name.chars().take(80).collect()))?;
        let gone = file.routines.remove(at);
        self.file().save(&file, &held)?;
        Ok(gone)
    }

    /// Pauses or resumes a routine; what fell due while it was paused
    /// doesn't run.
    pub fn set_on(&self, name: &str, on: bool, now: i64) -> Result<Routine, StoreError> {
        let held = self.file().lock()?;
        let mut file = self.read()?;
        let routine = file
            .routines
            .iter_mut()
            .find(|r| r.name == name || r.id == name)
            .ok_or_else(|| StoreError::NotFound(name.chars().take(80).collect()))?;
        if on && !routine.on {
            routine.resumed = Some(now);
        }
        routine.on = on;
        let changed = routine.clone();
        self.file().save(&file, &held)?;
        Ok(changed)
    }

    /// When each routine last ran (the scheduler's own file).
    pub fn runs(&self) -> BTreeMap<String, LastRun> {
        std::fs::read(self.home.join(RUNS_FILE))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Records when routines last ran. Only the scheduler calls this.
    pub fn save_runs(&self, runs: &BTreeMap<String, LastRun>) -> Result<(), StoreError> {
        let path = self.home.join(RUNS_FILE);
        let text = serde_json::to_vec(runs).unwrap_or_default();
        vault::write_atomic(&path, &text).map_err(|e| StoreError::Io(path, e))
    }
}

fn check_name(name: &str) -> Result<(), StoreError> {
    let ok = (1..=60).contains(&name.chars().count())
        && !name.chars().any(char::is_control)
        && name.trim() == name;
    if ok {
        Ok(())
    } else {
        Err(StoreError::Name(
            "A routine's name is 1 to 60 characters, with no line breaks.".to_owned(),
        ))
    }
}

/// A short name from the task's first words: "Summarise my inbox" →
/// "summarise-my-inbox". Letters of any script are kept.
fn slug(task: &str) -> String {
    let words: Vec<String> = task
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(5)
        .map(str::to_lowercase)
        .collect();
    let mut name = words.join("-");
    if name.chars().count() > 40 {
        name = name.chars().take(40).collect::<String>();
        name = name.trim_end_matches('-').to_owned();
    }
    if name.is_empty() {
        "routine".to_owned()
    } else {
        name
    }
}

fn free_name(base: &str, taken: &[Routine]) -> String {
    let used = |n: &str| taken.iter().any(|r| r.name == n);
    if !used(base) {
        return base.to_owned();
    }
    (2..)
        .map(|i| format!("{base}-{i}"))
        .find(|n| !used(n))
        .unwrap_or_else(|| base.to_owned())
}

/// Ten random lowercase letters and digits.
fn random_id() -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut bytes = [0u8; 10];
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (nanos >> (i * 5)) as u8;
        }
    }
    bytes
        .iter()
        .map(|b| ALPHABET[(b & 31) as usize] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(schedule: &str, task: &str) -> NewRoutine {
        NewRoutine {
            schedule: schedule.into(),
            task: task.into(),
            ..NewRoutine::default()
        }
    }

    #[test]
    fn add_list_find_remove() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        assert!(store.list().unwrap().is_empty());
        let a = store
            .add(new("every weekday at 8:00", "Summarise my inbox"), 100)
            .unwrap();
        assert_eq!(a.name, "summarise-my-inbox");
        let b = store
            .add(new("0 8 * * *", "Summarise my inbox"), 100)
            .unwrap();
        assert_eq!(b.name, "summarise-my-inbox-2");
        let c = store
            .add(new("@daily", "Résumé des nouvelles, 日本語も"), 100)
            .unwrap();
        assert_eq!(c.name, "résumé-des-nouvelles-日本語も");
        assert_eq!(store.list().unwrap().len(), 3);
        assert_eq!(store.find(&b.id).unwrap().name, b.name);
        store.remove("summarise-my-inbox").unwrap();
        assert!(matches!(
            store.find("summarise-my-inbox"),
            Err(StoreError::NotFound(_))
        ));
        let e = store
            .add(new("sometimes", "x"), 100)
            .unwrap_err()
            .to_string();
        assert!(e.contains("every weekday at 8:00"), "{e}");
        let e = store.add(new("@daily", "   "), 100).unwrap_err();
        assert!(matches!(e, StoreError::Task));
        let named = NewRoutine {
            name: Some(b.name.clone()),
            ..new("@daily", "x")
        };
        assert!(store
            .add(named, 1)
            .unwrap_err()
            .to_string()
            .contains("already"));
    }

    #[test]
    fn unknown_keys_survive_and_a_damaged_file_says_where() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        std::fs::write(
            store.path(),
            r#"{"future":1,"routines":[{"id":"a","name":"n","schedule":"@daily","task":"t","created":0,"later":true}]}"#,
        )
        .unwrap();
        store.add(new("@hourly", "more"), 5).unwrap();
        let text = std::fs::read_to_string(store.path()).unwrap();
        assert!(
            text.contains("\"future\"") && text.contains("\"later\""),
            "{text}"
        );
        std::fs::write(store.path(), "{\n oops").unwrap();
        let e = store.list().unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn two_writers_at_once_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let store = Store::new(dir.path());
                std::thread::spawn(move || {
                    for j in 0..10 {
                        store
                            .add(new("@daily", &format!("task {i} {j}")), 1)
                            .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(Store::new(dir.path()).list().unwrap().len(), 80);
    }
}
