//! Keys at rest: this computer's device key, and files sealed under it.
//!
//! Why it is built this way. Every key Conch keeps (provider keys, the
//! skill-signing key) is a file in the home folder, and a home folder gets
//! copied: into backups, onto another computer, into a bug report. So each
//! such file is sealed with AES-256-GCM under a key the home folder doesn't
//! hold: the device key, kept by the operating system's keystore (the Secret
//! Service on Linux, the Keychain on macOS, DPAPI on Windows), or, where
//! there is none (a headless server), by a 0600 file beside the vault.
//!
//! - Each file gets its own subkey, HKDF-SHA256 of the device key for
//!   `conch-system/1 <name>`, and its name is the associated data: a sealed
//!   file renamed or swapped for another one doesn't open.
//! - A fresh random 96-bit nonce on every write (NIST SP 800-38D): with a
//!   subkey per file and few writes per file, random nonces are far from
//!   the 2^32 writes where they would start to risk repeating.
//! - Files are written atomically (temporary file, fsync, rename, fsync the
//!   folder): a crash leaves the old file or the new one, never half.
//! - The keystore is reached only when a sealed file is read or written, so
//!   a command that never opens a key never touches the keychain.
//!
//! What it does not do: shred. A rename unlinks an old plain file, but on
//! copy-on-write filesystems and SSDs its blocks stay until reused; disk
//! encryption covers that. And with the file keystore the seal is only as
//! strong as that file's permissions.

mod atomic;
mod error;
mod file_lock;
mod json_file;
pub mod keystore;
mod sealed;
mod vault;

pub use atomic::{write_atomic, write_private};
pub use error::{KeystoreError, VaultError};
pub use file_lock::{lock, FileLock};
pub use json_file::{JsonFile, JsonFileError};
pub use keystore::{KeystoreKind, KeystoreMode};
pub use sealed::{is_sealed, keystore_of, open, seal, SealedFile, FORMAT};
pub use vault::{Locked, Stored, Vault, SEALED_FILES};
