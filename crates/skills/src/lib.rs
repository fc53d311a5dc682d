//! Skills: folders with a SKILL.md (Conch's own, and other agents'), read
//! whole by the scanner before they can steer anything, fingerprinted, and
//! trusted only as far as a person said.

pub mod catalog;
pub mod fingerprint;
pub mod front;
mod permissions;
pub mod read;
pub mod scan;
pub mod signature;
pub mod signing_key;
pub mod sources;
pub mod trust;

pub use catalog::{Catalog, OffWhy, Skill, SkillError, State};
pub use ed25519_dalek::VerifyingKey;
pub use front::{Front, FrontError};
pub use read::{read_folder, Folder, Unread};
pub use scan::{scan, scan_text, Finding, Report, Severity, Verdict};
pub use signing_key::{SigningKeyError, SIGNING_FILE};
pub use sources::Source;
pub use trust::{Signer, Trust, TrustError, TRUST_FILE};
