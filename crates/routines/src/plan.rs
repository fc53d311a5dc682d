//! Which routines are due now, and when to wake next. Pure: the routines,
//! when each last ran, the time and the time zone go in.
//!
//! A routine is due when its next time after the moment its runs were
//! settled up to (`through`: the last wake that looked at it, or when it
//! was made or turned back on) has come. Then it runs once, however many
//! of its times went by while the computer slept or Conch was stopped,
//! and its runs are settled up to now.

use std::collections::BTreeMap;

use jiff::tz::TimeZone;

use crate::schedule::Schedule;
use crate::store::{LastRun, Routine};

/// One run to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Due {
    pub routine: String,
    /// The earliest of its times that went by unrun: its lateness is
    /// counted from here.
    pub due: i64,
    /// How many of its times went by (1 when it's on time).
    pub missed: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Runs to start now, earliest due first.
    pub due: Vec<Due>,
    /// When the next routine is due; None when none ever is.
    pub wake: Option<i64>,
    /// When each routine's runs are settled up to, after these runs.
    pub runs: BTreeMap<String, LastRun>,
}

/// The most missed times counted for one run (past this, "at least").
const COUNT_MISSED: u32 = 1000;

pub fn plan(
    routines: &[Routine],
    runs: &BTreeMap<String, LastRun>,
    now: i64,
    tz: &TimeZone,
) -> Plan {
    let mut due = Vec::new();
    let mut wake: Option<i64> = None;
    let mut settled = BTreeMap::new();
    for routine in routines {
        let last = runs.get(&routine.id).copied();
        let Ok(schedule) = Schedule::parse(&routine.schedule) else {
            // A schedule that doesn't read (edited by hand) never runs;
            // `conch routines list` says why.
            continue;
        };
        if !routine.on {
            settled.insert(
                routine.id.clone(),
                LastRun {
                    due: last.map_or(0, |l| l.due),
                    through: now,
                },
            );
            continue;
        }
        let since = [
            Some(routine.created),
            routine.resumed,
            last.map(|l| l.through),
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(routine.created);
        let next = schedule.next_after(since, tz);
        match next {
            Some(first) if first <= now => {
                let mut missed = 1;
                let mut t = first;
                while missed < COUNT_MISSED {
                    match schedule.next_after(t, tz) {
                        Some(n) if n <= now => {
                            missed += 1;
                            t = n;
                        }
                        _ => break,
                    }
                }
                due.push(Due {
                    routine: routine.id.clone(),
                    due: first,
                    missed,
                });
                settled.insert(
                    routine.id.clone(),
                    LastRun {
                        due: first,
                        through: now,
                    },
                );
                if let Some(n) = schedule.next_after(now, tz) {
                    wake = Some(wake.map_or(n, |w| w.min(n)));
                }
            }
            other => {
                settled.insert(
                    routine.id.clone(),
                    LastRun {
                        due: last.map_or(0, |l| l.due),
                        through: since,
                    },
                );
                if let Some(n) = other {
                    wake = Some(wake.map_or(n, |w| w.min(n)));
                }
            }
        }
    }
    due.sort_by_key(|d| (d.due, d.routine.clone()));
    Plan {
        due,
        wake,
        runs: settled,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routine(id: &str, schedule: &str, created: i64) -> Routine {
        Routine {
            id: id.into(),
            name: id.into(),
            schedule: schedule.into(),
            task: "t".into(),
            mode: None,
            work: None,
            created,
            made_in: None,
            carries: Vec::new(),
            asked_by: Vec::new(),
            on: true,
            resumed: None,
            other: Default::default(),
        }
    }

    const HOUR: i64 = 3600;

    #[test]
    fn missed_runs_after_a_sleep_run_once_not_once_per_miss() {
        let utc = TimeZone::UTC;
        let r = [routine("a", "0 * * * *", 0)];
        // Ten hours asleep: ten times went by, one run.
        let p = plan(&r, &BTreeMap::new(), 10 * HOUR + 5, &utc);
        assert_eq!(
            p.due,
            vec![Due {
                routine: "a".into(),
                due: HOUR,
                missed: 10
            }]
        );
        assert_eq!(p.wake, Some(11 * HOUR));
        // Looking again at once: nothing more is due.
        let again = plan(&r, &p.runs, 10 * HOUR + 6, &utc);
        assert!(again.due.is_empty());
        assert_eq!(again.wake, Some(11 * HOUR));
        // Restarted after the next time: one run again.
        let later = plan(&r, &again.runs, 11 * HOUR, &utc);
        assert_eq!(later.due.len(), 1);
        assert_eq!(later.due[0].missed, 1);
    }

    #[test]
    fn a_routine_made_after_its_time_waits_for_the_next() {
        let utc = TimeZone::UTC;
        let r = [routine("a", "0 8 * * *", 9 * HOUR)];
        let p = plan(&r, &BTreeMap::new(), 9 * HOUR + 1, &utc);
        assert!(p.due.is_empty());
        assert_eq!(p.wake, Some(32 * HOUR));
    }

    #[test]
    fn paused_routines_dont_catch_up_when_resumed() {
        let utc = TimeZone::UTC;
        let mut r = routine("a", "0 * * * *", 0);
        r.on = false;
        let p = plan(std::slice::from_ref(&r), &BTreeMap::new(), 5 * HOUR, &utc);
        assert!(p.due.is_empty() && p.wake.is_none());
        r.on = true;
        r.resumed = Some(7 * HOUR + 10);
        let p = plan(&[r], &p.runs, 7 * HOUR + 20, &utc);
        assert!(p.due.is_empty());
        assert_eq!(p.wake, Some(8 * HOUR));
    }

    #[test]
    fn the_earliest_wake_of_many() {
        let utc = TimeZone::UTC;
        let r: Vec<Routine> = (0..50)
            .map(|i| routine(&format!("r{i}"), &format!("{} * * * *", i % 60), 0))
            .collect();
        let p = plan(&r, &BTreeMap::new(), 30, &utc);
        // Only "0 * * * *" was due at 0… but it was made at 0, so nothing.
        assert!(p.due.is_empty());
        assert_eq!(p.wake, Some(60));
    }
}
