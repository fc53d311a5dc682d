//! Auto mode's reviewer (ADR 0144), the pure half: which calls take the
//! fast path, which can never be waived, what the reviewer model is shown,
//! and how its reply is read. No I/O, no clock, no async: the turn loop in
//! `conversations` calls the model, keeps the deadline and the budget, and
//! binds what was approved to what runs.

mod fast;
mod hard;
pub mod input;
pub mod quote;
pub mod table;
mod triage;
pub mod verdict;

pub use fast::fast_path;
pub use hard::{never_waivable, Facts, Hard};
pub use input::{build as build_input, build_with_page, InputError, ReviewInput, SYSTEM};
pub use triage::{triage, Triage};
pub use verdict::{parse_verdict, Judgement, Risk, Verdict, VerdictError};

/// How long a review may take, acquiring the model included.
pub const DEFAULT_DEADLINE_MS: u64 = 30_000;
/// Rejections in one turn before review stops being tried.
pub const DEFAULT_BUDGET: u32 = 3;
/// The most characters the reviewer's input may have.
pub const DEFAULT_CONTEXT_CHARS: usize = 60_000;
