//! `spending.jsonl` in Conch's folder: one line per model request that
//! cost something, appended and flushed, so the day's total holds across a
//! restart. Read once, then kept up to date in memory. A torn or unreadable
//! line is passed over.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

pub const SPENDING_FILE: &str = "spending.jsonl";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Line {
    pub at: String,
    /// `YYYY-MM-DD`, UTC.
    pub day: String,
    pub chat: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routine: Option<String>,
    pub provider: String,
    pub amount: f64,
    pub currency: String,
}

#[derive(Default)]
struct Totals {
    day: HashMap<String, f64>,
    chat: HashMap<String, f64>,
    routine: HashMap<(String, String), f64>,
}

impl Totals {
    fn add(&mut self, l: &Line) {
        *self.day.entry(l.day.clone()).or_default() += l.amount;
        *self.chat.entry(l.chat.clone()).or_default() += l.amount;
        if let Some(r) = &l.routine {
            *self.routine.entry((l.day.clone(), r.clone())).or_default() += l.amount;
        }
    }
}

pub struct Ledger {
    home: PathBuf,
    path: PathBuf,
    totals: Mutex<Option<Totals>>,
}

/// Today, UTC, as the ledger writes it.
pub fn today() -> String {
    protocol::format_rfc3339(std::time::SystemTime::now())
        .chars()
        .take(10)
        .collect()
}

impl Ledger {
    pub fn new(home: &Path) -> Ledger {
        Ledger {
            home: home.to_path_buf(),
            path: home.join(SPENDING_FILE),
            totals: Mutex::new(None),
        }
    }

    /// Conch's folder, where settings.json says the caps.
    pub fn home(&self) -> &Path {
        &self.home
    }

    fn with<T>(&self, f: impl FnOnce(&mut Totals) -> T) -> T {
        let mut totals = self.totals.lock().unwrap_or_else(|p| p.into_inner());
        let totals = totals.get_or_insert_with(|| {
            let mut t = Totals::default();
            let text = std::fs::read_to_string(&self.path).unwrap_or_default();
            for line in text.lines() {
                if let Ok(l) = serde_json::from_str::<Line>(line) {
                    t.add(&l);
                }
            }
            t
        });
        f(totals)
    }

    /// Spent today, in `chat` over its life, and by `routine` today.
    pub fn spent(&self, chat: &str, routine: Option<&str>) -> super::Spent {
        let day = today();
        self.with(|t| super::Spent {
            day: t.day.get(&day).copied().unwrap_or(0.0),
            chat: t.chat.get(chat).copied().unwrap_or(0.0),
            routine: routine.map(|r| {
                t.routine
                    .get(&(day.clone(), r.to_owned()))
                    .copied()
                    .unwrap_or(0.0)
            }),
        })
    }

    /// Spent today, all chats together.
    pub fn today(&self) -> f64 {
        let day = today();
        self.with(|t| t.day.get(&day).copied().unwrap_or(0.0))
    }

    /// Adds a request's cost: counted at once, written and flushed.
    pub fn record(&self, line: Line) -> std::io::Result<()> {
        self.with(|t| t.add(&line));
        let mut text = serde_json::to_string(&line).unwrap_or_default();
        text.push('\n');
        let mut file = crate::private_file::open_private_append(&self.path)?;
        file.write_all(text.as_bytes())?;
        file.sync_data()
    }
}
