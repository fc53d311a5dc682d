use std::fmt;

/// Why the device key couldn't be had.
#[derive(Debug)]
pub enum KeystoreError {
    /// No keystore of the kind asked for on this computer.
    Missing(String),
    /// The keystore is there but wouldn't give the key (locked, refused).
    Refused(String),
    /// What the keystore holds isn't a device key.
    Damaged(String),
    /// The key a sealed file was made with isn't in its keystore any more.
    Gone(&'static str),
    Io(std::io::Error),
}

impl fmt::Display for KeystoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeystoreError::Missing(what) => write!(f, "There is no {what} on this computer."),
            KeystoreError::Refused(why) => write!(
                f,
                "The keychain wouldn't give this computer's key ({why}). Unlock it and run the command again."
            ),
            KeystoreError::Damaged(what) => write!(
                f,
                "This computer's key for Conch is damaged ({what}), so sealed files can't be opened."
            ),
            KeystoreError::Gone(place) => write!(
                f,
                "This computer's key for Conch is gone from {place}, so files sealed with it can't be opened."
            ),
            KeystoreError::Io(e) => write!(f, "This computer's key for Conch can't be read: {e}."),
        }
    }
}

impl std::error::Error for KeystoreError {}

/// What went wrong with a sealed file.
#[derive(Debug)]
pub enum VaultError {
    /// The device key couldn't be had.
    Keystore(KeystoreError),
    /// The seal doesn't open: the file was changed, or sealed on another
    /// computer (or home).
    Changed(String),
    /// The file isn't a sealed file Conch can read, nor plain text it knows.
    Damaged(String, String),
    Io(String, std::io::Error),
}

impl fmt::Display for VaultError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VaultError::Keystore(e) => e.fmt(f),
            VaultError::Changed(name) => write!(
                f,
                "{name} can't be opened: the file was changed, or it was locked on another computer."
            ),
            VaultError::Damaged(name, why) => write!(f, "{name} is damaged: {why}."),
            VaultError::Io(name, e) => write!(f, "{name} can't be read or written: {e}."),
        }
    }
}

impl std::error::Error for VaultError {}

impl From<KeystoreError> for VaultError {
    fn from(e: KeystoreError) -> VaultError {
        VaultError::Keystore(e)
    }
}
