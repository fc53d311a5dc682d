//! Routines: chats that run on a schedule with nobody there (ADR 0028's
//! "nobody is there to choose").
//!
//! - [`Schedule`]: cron expressions and a few plain-English forms, read
//!   once into cron specs, and the next time after a moment in the owner's
//!   time zone (pure).
//! - `store`: `routines.json` (what the owner made) and
//!   `routines.runs.json` (when each last ran, written only by the
//!   scheduler).
//! - `plan`: which routines are due now and when to wake next (pure):
//!   missed runs after a sleep or a restart run once, not once per miss.
//! - `scheduler` and `alarm`: a loop that sleeps until the next due time
//!   (a wall-clock timer, so a computer that slept wakes it), a change to
//!   the routines file, or a poke, and never polls.
//!
//! What it doesn't do: run anything itself. A [`Runner`] (the chats, in
//! `conversations`) starts each run as its own chat, origin `routine`.

pub mod alarm;
pub mod cron;
pub mod plan;
mod schedule;
pub mod scheduler;
pub mod store;
pub mod words;

pub use plan::{plan, Due, Plan};
pub use schedule::{Schedule, ScheduleError};
pub use scheduler::{Runner, Scheduler};
pub use store::{Routine, Store, StoreError};

/// The owner's time zone: `timeZone` in settings.json when it names one
/// this computer knows, else the system's.
pub fn time_zone(name: Option<&str>) -> jiff::tz::TimeZone {
    name.and_then(|n| jiff::tz::TimeZone::get(n).ok())
        .unwrap_or_else(jiff::tz::TimeZone::system)
}

/// Now, in Unix seconds.
pub fn now() -> i64 {
    jiff::Timestamp::now().as_second()
}
