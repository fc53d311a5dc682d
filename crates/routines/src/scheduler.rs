//! The scheduler: looks at the routines, starts what is due, and sleeps
//! until the next one is ([`crate::alarm`]). It never polls: between runs
//! it is one thread blocked in `poll` and one task waiting on it.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use jiff::tz::TimeZone;

use crate::alarm::Alarm;
use crate::plan::plan;
use crate::store::{LastRun, Routine, Store, StoreError, ROUTINES_FILE};

/// Starts one run of a routine: its own chat, origin `routine`. Resolves
/// when the run has started (its chat exists), with the chat's id.
pub trait Runner: Send + Sync + 'static {
    fn run(
        &self,
        routine: Routine,
        due: i64,
    ) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'static>>;
}

/// The owner's time zone, looked up at each wake (it is a setting).
pub type Zone = Box<dyn Fn() -> TimeZone + Send + Sync>;

pub struct Scheduler {
    store: Store,
    alarm: Alarm,
    runner: Arc<dyn Runner>,
    zone: Zone,
    runs: Mutex<BTreeMap<String, LastRun>>,
    /// Said once per different problem, not at every wake.
    said: Mutex<Option<String>>,
}

impl Scheduler {
    /// A scheduler for the routines in `home`, waking also when any of
    /// `also` (besides routines.json) changes there (settings.json, for
    /// the time zone).
    pub fn new(
        home: &Path,
        runner: Arc<dyn Runner>,
        zone: Zone,
        also: &[&str],
    ) -> std::io::Result<Arc<Scheduler>> {
        let mut names = vec![ROUTINES_FILE];
        names.extend_from_slice(also);
        let store = Store::new(home);
        let runs = store.runs();
        Ok(Arc::new(Scheduler {
            alarm: Alarm::new(Some(home), &names)?,
            store,
            runner,
            zone,
            runs: Mutex::new(runs),
            said: Mutex::new(None),
        }))
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Looks again now (a routine was added or changed in this process).
    pub fn poke(&self) {
        self.alarm.poke();
    }

    /// Runs until the process ends: start what's due, sleep until the
    /// next.
    pub async fn run(self: Arc<Self>) {
        loop {
            let wake = self.tick().await;
            self.alarm.set(wake);
            self.alarm.wait().await;
        }
    }

    /// One look: starts the runs that are due and says when to look next.
    pub async fn tick(&self) -> Option<i64> {
        let routines = match self.store.list() {
            Ok(r) => {
                *self.said.lock().unwrap_or_else(|p| p.into_inner()) = None;
                r
            }
            Err(e) => {
                self.say_once(&e);
                return None;
            }
        };
        let now = crate::now();
        let before = self.runs.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let p = plan(&routines, &before, now, &(self.zone)());
        // Settled before the runs start: a crash now doesn't run them twice.
        if p.runs != before {
            if let Err(e) = self.store.save_runs(&p.runs) {
                self.say_once(&e);
            }
            *self.runs.lock().unwrap_or_else(|p| p.into_inner()) = p.runs.clone();
        }
        for due in p.due {
            let Some(routine) = routines.iter().find(|r| r.id == due.routine).cloned() else {
                continue;
            };
            let name = routine.name.clone();
            let started = self.runner.run(routine, due.due);
            tokio::spawn(async move {
                if let Err(why) = started.await {
                    eprintln!("conch: warning: The routine \"{name}\" couldn't start: {why}");
                }
            });
        }
        p.wake
    }

    /// Runs a routine now, whatever its schedule (`conch routines run`).
    /// Its schedule is untouched.
    pub async fn run_now(
        &self,
        name: &str,
    ) -> Result<(Routine, Result<String, String>), StoreError> {
        let routine = self.store.find(name)?;
        let chat = self.runner.run(routine.clone(), crate::now()).await;
        Ok((routine, chat))
    }

    fn say_once(&self, e: &StoreError) {
        let sentence = e.to_string();
        let mut said = self.said.lock().unwrap_or_else(|p| p.into_inner());
        if said.as_deref() != Some(sentence.as_str()) {
            eprintln!("conch: warning: Routines can't run: {sentence}");
            *said = Some(sentence);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewRoutine;
    use std::time::Duration;

    struct Record(Mutex<Vec<(String, i64)>>, tokio::sync::Notify);

    impl Runner for Arc<Record> {
        fn run(
            &self,
            routine: Routine,
            due: i64,
        ) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'static>> {
            self.0.lock().unwrap().push((routine.name, due));
            self.1.notify_one();
            Box::pin(async { Ok("chat".to_owned()) })
        }
    }

    #[tokio::test]
    async fn a_routine_due_in_the_past_runs_once_at_start_and_one_added_later_counts() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        // Made a day ago, every minute: 1,440 times went by.
        store
            .add(
                NewRoutine {
                    schedule: "every minute".into(),
                    task: "tick".into(),
                    ..NewRoutine::default()
                },
                crate::now() - 86_400,
            )
            .unwrap();
        let record = Arc::new(Record(Mutex::new(Vec::new()), tokio::sync::Notify::new()));
        let scheduler = Scheduler::new(
            dir.path(),
            Arc::new(record.clone()),
            Box::new(|| TimeZone::UTC),
            &[],
        )
        .unwrap();
        tokio::spawn(scheduler.clone().run());
        tokio::time::timeout(Duration::from_secs(5), record.1.notified())
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(record.0.lock().unwrap().len(), 1);
        // Another process adds one whose time has come: the folder's watch
        // wakes the scheduler.
        let other = Store::new(dir.path());
        let mut file: serde_json::Value =
            serde_json::from_slice(&std::fs::read(other.path()).unwrap()).unwrap();
        let mut added = file["routines"][0].clone();
        added["id"] = "later".into();
        added["name"] = "later".into();
        added["created"] = (crate::now() - 120).into();
        file["routines"].as_array_mut().unwrap().push(added);
        vault::write_atomic(&other.path(), file.to_string().as_bytes()).unwrap();
        tokio::time::timeout(Duration::from_secs(5), record.1.notified())
            .await
            .unwrap();
        let runs = record.0.lock().unwrap().clone();
        assert!(runs.iter().any(|(n, _)| n == "later"), "{runs:?}");
        // The runs file says they're settled: a restart doesn't run them again.
        let settled = Store::new(dir.path()).runs();
        assert_eq!(settled.len(), 2);
        let p = plan(
            &Store::new(dir.path()).list().unwrap(),
            &settled,
            crate::now(),
            &TimeZone::UTC,
        );
        assert!(p.due.iter().all(|d| d.due > crate::now() - 60), "{p:?}");
    }
}
