use std::path::PathBuf;

#[derive(Debug)]
pub enum LogError {
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// Another process holds the chat's writer lock.
    Busy(PathBuf),
    /// The log's writer has stopped (the chat was closed).
    Closed,
    /// An event held a secret that couldn't be taken out of it, so it
    /// wasn't stored (failing closed).
    Unmaskable,
}

impl LogError {
    pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> LogError + '_ {
        move |error| LogError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}

impl std::fmt::Display for LogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LogError::Io { path, error } => write!(
                f,
                "Conch couldn't use the chat's log {}: {error}. Nothing was lost that was already saved.",
                path.display()
            ),
            LogError::Busy(path) => write!(
                f,
                "This chat is open in another Conch process ({}). Stop that one first.",
                path.display()
            ),
            LogError::Closed => f.write_str("The chat's log was closed. Open the chat again."),
            LogError::Unmaskable => f.write_str(
                "This held one of Conch's secrets that couldn't be taken out of it, so it wasn't saved or shown.",
            ),
        }
    }
}

impl std::error::Error for LogError {}
