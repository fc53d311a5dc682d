use std::fmt;
use std::path::PathBuf;

/// What went wrong with a backup, as the sentence a person reads. Each
/// says what was (not) written.
#[derive(Debug)]
pub enum BackupError {
    /// The file isn't a Conch backup at all.
    NotABackup(PathBuf),
    /// Locked with a passphrase, and none was given.
    NeedsPassphrase,
    /// The passphrase doesn't open it.
    WrongPassphrase,
    /// Cut short, changed, or holding what no backup holds.
    Damaged(String),
    /// The folder to restore into already has things of its own.
    NotEmpty {
        home: PathBuf,
        found: String,
    },
    /// A key file couldn't be opened to be carried.
    Key(String, String),
    /// A passphrase that is too short to protect keys.
    WeakPassphrase,
    /// The file to write the backup to is already there.
    Exists(PathBuf),
    Io(String, std::io::Error),
}

impl fmt::Display for BackupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackupError::NotABackup(p) => write!(
                f,
                "{} isn't a Conch backup. Nothing was restored.",
                p.display()
            ),
            BackupError::NeedsPassphrase => f.write_str(
                "This backup is locked with a passphrase. Give it on standard input with --passphrase-stdin. Nothing was restored.",
            ),
            BackupError::WrongPassphrase => f.write_str(
                "That passphrase doesn't open this backup. Nothing was restored; try again with the passphrase it was made with.",
            ),
            BackupError::Damaged(why) => write!(
                f,
                "This backup can't be used: {why}. Nothing was restored."
            ),
            BackupError::NotEmpty { home, found } => write!(
                f,
                "{} already has {found}, and a restore doesn't mix two Conches. Nothing was restored. Restore beside it with --beside, or into an empty folder with --home DIR.",
                home.display()
            ),
            BackupError::Key(name, why) => write!(
                f,
                "{name} can't be opened to go in the backup ({why}). Nothing was written. Run conch doctor, or make a backup without a passphrase (it leaves keys out)."
            ),
            BackupError::WeakPassphrase => f.write_str(
                "A backup's passphrase is at least 8 characters: it is all that protects the keys inside. Nothing was written.",
            ),
            BackupError::Exists(p) => write!(
                f,
                "{} is already there, and a backup never writes over a file. Nothing was written; name another file, or a folder to make a new one in.",
                p.display()
            ),
            BackupError::Io(what, e) => write!(f, "{what}: {e}."),
        }
    }
}

impl std::error::Error for BackupError {}

pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BackupError {
    let what = what.into();
    move |e| BackupError::Io(what, e)
}
