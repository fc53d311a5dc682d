//! The guard: `decide(call, chat, settings)` says whether a classified tool
//! call runs, asks the owner first, or is refused.
//!
//! Pure: no I/O, no clock, no randomness. Every Ask and Deny names the rule
//! ids that caused it (`family.rule`), and the same ids name the rows of the
//! table tests, so a question in a log leads to its rule in one hop.

mod decide;
mod policy;
mod rules;
mod words;

pub use decide::{decide, Call, Decision, Settings};
pub use policy::Policy;
pub use rules::Rule;
