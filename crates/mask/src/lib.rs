//! Secrets never leave in the clear. Conch knows the secrets it holds
//! (provider keys, bots' tokens, apps' variables and headers, the backup
//! passphrase, access keys) and the secret-looking values of the
//! environment it was started with. Wherever one of them appears in text
//! Conch is about to store, show or send (a command's output, a reply, a
//! message, an artifact), it is replaced by `[secret: NAME]` first: the
//! model is told a secret was there, never what it was.
//!
//! A secret is found as it is and as a command might print it: base64
//! (standard and URL-safe, at any of the three alignments, so inside a
//! longer encoded text too), hex in either case, percent-encoded, and
//! split across lines (`fold`, `base64`'s 76 columns). Line breaks are
//! read past, not matched: the text is searched with them left out and
//! each match mapped back, so one search with one automaton covers every
//! secret and every spelling at once.
//!
//! Access keys are kept only as hashes, so they're found by their shape
//! (`conch_` and 40 letters) and then hashed.
//!
//! What it doesn't do: find a value shorter than [`MIN_SECRET`] bytes (a
//! short value would match ordinary words), see through other encodings
//! (gzip, rot13, a secret spelled out a letter per line with spaces), or
//! read a secret split across two separate texts. This crate does no IO:
//! the caller hands it the secrets and the text.

mod cut;
mod masker;
mod secret;
mod variants;
mod view;

pub use cut::{keep_end, keep_start, MARGIN};
pub use masker::{Masker, Syntax};
pub use secret::{env_secrets, Hashed, Secret, MIN_SECRET};

#[cfg(test)]
mod tests;
