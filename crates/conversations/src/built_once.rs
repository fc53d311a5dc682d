//! An index kept in memory beside the logs (Activity, search): built by
//! reading every log once, the first time it is asked, then kept up to date
//! by the append path. Nothing is stored beside the logs, so it can't drift
//! from them: a restart builds it again.
//!
//! The index isn't locked while the logs are read: appends go on meanwhile
//! (what they commit waits as `Late`), so a slow build never holds up a
//! chat. An index drops what it has seen already (by each chat's `seq`).

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

pub struct BuiltOnce<T, Late> {
    /// One build at a time.
    building: Mutex<()>,
    /// While a build reads the files: what was committed meanwhile.
    pending: Mutex<Option<Vec<Late>>>,
    inner: RwLock<Option<T>>,
}

impl<T, Late> Default for BuiltOnce<T, Late> {
    fn default() -> Self {
        BuiltOnce {
            building: Mutex::new(()),
            pending: Mutex::new(None),
            inner: RwLock::new(None),
        }
    }
}

impl<T, Late> BuiltOnce<T, Late> {
    pub fn is_built(&self) -> bool {
        self.read().is_some()
    }

    /// Builds the index with `read` (from the files), then gives it what
    /// was committed meanwhile with `late`; nothing when it is built.
    pub fn build(&self, read: impl FnOnce() -> T, mut late: impl FnMut(&mut T, Late)) {
        if self.is_built() {
            return;
        }
        let _one_builder = self.building.lock().unwrap_or_else(|p| p.into_inner());
        if self.is_built() {
            return;
        }
        *self.lock_pending() = Some(Vec::new());
        let mut built = read();
        let mut guard = self.write();
        for item in self.lock_pending().take().unwrap_or_default() {
            late(&mut built, item);
        }
        *guard = Some(built);
    }

    /// Applies what was committed; while a build reads the files, keeps it
    /// for the build; before any build, leaves it to the build to come
    /// (which reads it from its file).
    pub fn take_in(&self, apply: impl FnOnce(&mut T), late: impl FnOnce() -> Late) {
        let mut guard = self.write();
        match guard.as_mut() {
            Some(inner) => apply(inner),
            None => {
                if let Some(pending) = self.lock_pending().as_mut() {
                    pending.push(late());
                }
            }
        }
    }

    pub fn read(&self) -> RwLockReadGuard<'_, Option<T>> {
        self.inner.read().unwrap_or_else(|p| p.into_inner())
    }

    pub fn write(&self) -> RwLockWriteGuard<'_, Option<T>> {
        self.inner.write().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_pending(&self) -> MutexGuard<'_, Option<Vec<Late>>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }
}
