//! The guard: `decide(call, chat, settings)` says whether a classified tool
//! call runs, asks the owner first, or is refused.
//!
//! Pure: no I/O, no clock, no randomness. Every Ask and Deny names the rule
//! ids that caused it (`family.rule`), and the same ids name the rows of the
//! table tests, so a question in a log leads to its rule in one hop.
//!
//! What it deliberately does not do: it doesn't read files or pages to judge
//! them (a file in the work folder someone else wrote doesn't mark the chat),
//! it can't tell an encoded secret from an ordinary id in an address (the
//! owner's own words are the only pass), and its checks of a command's text
//! are a speed bump, not a box: sealing is the box.

pub mod address;
pub mod always;
mod decide;
pub mod destination;
pub mod git_config;
mod hold;
pub mod keys;
mod mark;
mod policy;
pub mod private;
mod protect;
mod provenance;
mod rules;
pub mod runs_later;
pub mod site;
mod walk;
pub mod words;
pub mod work_folder;

pub use decide::{after_reading, decide, Call, Decision, Settings};
pub use hold::{off_list, on_list};
pub use keys::{places as key_places, KeyPlace, Place, Root, KEY_PLACES};
pub use mark::mark_for;
pub use policy::Policy;
pub use protect::{reaches_for_powers, Protected, Why};
pub use provenance::{provenance, Read};
pub use rules::{Hard, Rule};
pub use walk::Walk;
pub use work_folder::refusal as work_folder_refusal;
