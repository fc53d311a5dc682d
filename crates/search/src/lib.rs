//! Search inside chats (issue 36): the words of a text as a search sees them,
//! an index from words to the events that hold them, and the line of an
//! event to show for a match.
//!
//! Pure: the index is fed text and asked queries; reading the logs and the
//! lines a result shows is the caller's (`conversations::search`).
//!
//! A query matches an event when each of its words begins a word of the
//! event, after folding: case, accents and width don't count ("Café",
//! "cafe" and "ＣＡＦＥ" are one word), and each Chinese or Japanese
//! character is a word of its own, as those scripts don't space words.

mod frozen;
mod index;
mod postings;
pub mod sample;
mod snippet;
mod words;

pub use index::{Found, Hit, Index, Kind, Place, MAX_TEXT_BYTES};
pub use snippet::{snippet, Snippet};
pub use words::{fold_word, words, Word};

#[cfg(test)]
mod tests;
