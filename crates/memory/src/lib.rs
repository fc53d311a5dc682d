//! Memories: short facts Conch keeps about its owner and their world, each
//! with where it came from; the check that holds the ones that look
//! planted (ADR 0028 §3, `checkMemories`); and recall.
//!
//! The checking half ([`check`], [`reading`], [`owner`], and what they
//! read: [`text`], [`targets`], the grammar) is pure: no I/O, no clock.
//! The store ([`store`]) is the only part that touches disk.
//!
//! What it deliberately does not do: it doesn't judge whether a fact is
//! *true*, only whether it reads like an instruction or names somewhere
//! to send things; a planted fact in plain words ("Ada's accountant is
//! Eve") from a chat that read nothing outside is kept, because nothing
//! outside could have planted it. It reads English, French, German,
//! Spanish, Italian, Portuguese, Russian, Japanese, Chinese and Korean; in
//! other languages only the places named (addresses, accounts, commands)
//! and hidden characters are seen, and a marked chat's memory is held
//! anyway.

pub mod check;
mod clause;
mod grammar;
pub mod owner;
pub mod reading;
pub mod recall;
pub mod store;
pub mod targets;
pub mod text;

pub use check::{check, planted, read_words, Reason, Source, Verdict};
pub use grammar::Cue;
pub use owner::owner_words;
pub use reading::{read, Reading};
pub use recall::Index;
pub use store::{
    tidy, Added, Memory, State, Store, StoreError, Undelivered, MAX_CHARS, MEMORIES_FILE,
};
