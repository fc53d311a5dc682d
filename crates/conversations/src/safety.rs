//! Settings → Security → Safety (ADR 0028 §3), live: what the guard and
//! the tools read at each call, so a change counts from the next call
//! without a restart. The preferences themselves are in settings.json.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::settings::Safety;

#[derive(Debug)]
pub struct Switches {
    check_after_reading: AtomicBool,
    /// Shared with the tools, which seal a command only while it is on.
    sealed_commands: Arc<AtomicBool>,
    check_memories: AtomicBool,
    engines_in_box: AtomicBool,
    /// Tool policies (Ask, Read-only, Off), changed live.
    policies: std::sync::RwLock<std::collections::BTreeMap<String, guard::Policy>>,
    /// The people and places the owner keeps in Settings: a write to one of
    /// them after reading is Auto review's to judge (`review::hard::writes`).
    /// Only the owner sets them, never a chat.
    contacts: std::sync::RwLock<Arc<[String]>>,
}

impl Switches {
    pub fn new(safety: &Safety) -> Switches {
        Switches {
            check_after_reading: AtomicBool::new(safety.check_after_reading),
            sealed_commands: Arc::new(AtomicBool::new(safety.sealed_commands)),
            check_memories: AtomicBool::new(safety.check_memories),
            engines_in_box: AtomicBool::new(safety.engines_in_box),
            policies: Default::default(),
            contacts: std::sync::RwLock::new(Arc::from(Vec::new())),
        }
    }

    /// The owner's contacts now.
    pub fn contacts(&self) -> Arc<[String]> {
        self.contacts
            .read()
            .map(|c| c.clone())
            .unwrap_or_else(|_| Arc::from(Vec::new()))
    }

    pub fn set_contacts(&self, contacts: &[String]) {
        if let Ok(mut c) = self.contacts.write() {
            *c = Arc::from(contacts.to_vec());
        }
    }

    /// Every tool's policy now.
    pub fn policies(&self) -> std::collections::BTreeMap<String, guard::Policy> {
        self.policies.read().map(|p| p.clone()).unwrap_or_default()
    }

    pub fn set_policies(&self, policies: std::collections::BTreeMap<String, guard::Policy>) {
        if let Ok(mut p) = self.policies.write() {
            *p = policies;
        }
    }

    /// Sets one tool's policy; `Mode` (follow the mode) removes it.
    pub fn set_policy(&self, tool: &str, policy: guard::Policy) {
        if let Ok(mut p) = self.policies.write() {
            if policy == guard::Policy::default() {
                p.remove(tool);
            } else {
                p.insert(tool.to_owned(), policy);
            }
        }
    }

    pub fn check_after_reading(&self) -> bool {
        self.check_after_reading.load(Ordering::SeqCst)
    }

    pub fn sealed_commands(&self) -> bool {
        self.sealed_commands.load(Ordering::SeqCst)
    }

    pub fn check_memories(&self) -> bool {
        self.check_memories.load(Ordering::SeqCst)
    }

    pub fn engines_in_box(&self) -> bool {
        self.engines_in_box.load(Ordering::SeqCst)
    }

    /// The switch the tools read.
    pub fn sealing(&self) -> Arc<AtomicBool> {
        self.sealed_commands.clone()
    }

    pub fn now(&self) -> Safety {
        Safety {
            check_after_reading: self.check_after_reading(),
            sealed_commands: self.sealed_commands(),
            check_memories: self.check_memories(),
            engines_in_box: self.engines_in_box(),
        }
    }

    pub fn set(&self, safety: &Safety) {
        self.check_after_reading
            .store(safety.check_after_reading, Ordering::SeqCst);
        self.sealed_commands
            .store(safety.sealed_commands, Ordering::SeqCst);
        self.check_memories
            .store(safety.check_memories, Ordering::SeqCst);
        self.engines_in_box
            .store(safety.engines_in_box, Ordering::SeqCst);
    }
}
