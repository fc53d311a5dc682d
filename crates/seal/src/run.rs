//! Running a command sealed: the box's argument vector, the seccomp filter on
//! a pipe bubblewrap reads, a scrubbed environment, and cleanup after.

use std::ffi::OsString;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use crate::masks::Masks;
use crate::profile::{Profile, SealError};
use crate::{env, seccomp, BWRAP};

/// Sealing, set up once for a Conch folder.
#[derive(Debug, Clone)]
pub struct Sealed {
    pub conch_home: PathBuf,
    pub person_home: Option<PathBuf>,
    pub temp: Vec<PathBuf>,
    pub extra_writable: Vec<PathBuf>,
    pub extra_hidden: Vec<PathBuf>,
    empty: PathBuf,
    filter: Vec<u8>,
    as_root: bool,
}

impl Sealed {
    /// Sealing for the Conch folder `conch_home`, the person's home from
    /// `$HOME`, temp from /tmp and `$TMPDIR`.
    pub fn new(conch_home: &Path) -> Result<Sealed, SealError> {
        let empty = conch_home.join("seal").join("empty");
        let fresh = || -> std::io::Result<()> {
            if empty.exists() && std::fs::read_dir(&empty)?.next().is_some() {
                std::fs::remove_dir_all(&empty)?;
            }
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&empty)?;
            std::fs::set_permissions(&empty, std::os::unix::fs::PermissionsExt::from_mode(0o555))
        };
        fresh().map_err(|e| {
            SealError::Setup(format!(
                "its empty folder {} can't be made ({e})",
                empty.display()
            ))
        })?;
        let mut temp = vec![PathBuf::from("/tmp")];
        if let Some(t) = std::env::var_os("TMPDIR").filter(|t| !t.is_empty()) {
            temp.push(PathBuf::from(t));
        }
        Ok(Sealed {
            conch_home: conch_home.to_path_buf(),
            person_home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            temp,
            extra_writable: Vec::new(),
            extra_hidden: Vec::new(),
            empty,
            filter: seccomp::filter_bytes().map_err(SealError::Setup)?,
            as_root: unsafe { libc::geteuid() } == 0,
        })
    }

    pub fn profile(&self, work: &Path) -> Profile {
        Profile {
            work: work.to_path_buf(),
            person_home: self.person_home.clone(),
            conch_home: self.conch_home.clone(),
            empty: self.empty.clone(),
            temp: self.temp.clone(),
            extra_writable: self.extra_writable.clone(),
            extra_hidden: self.extra_hidden.clone(),
            as_root: self.as_root,
        }
    }

    /// `command` (a shell command) sealed, to run in `work`.
    pub fn command(&self, work: &Path, command: &str) -> Result<SealedCommand, SealError> {
        let profile = self.profile(work);
        let masks = profile.masks()?;
        Ok(SealedCommand {
            profile,
            masks,
            command: command.to_owned(),
            filter: self.filter.clone(),
        })
    }
}

/// One command, ready to spawn sealed.
pub struct SealedCommand {
    pub profile: Profile,
    pub masks: Masks,
    pub command: String,
    filter: Vec<u8>,
}

/// The filter's pipe: its read end goes to bubblewrap, and must stay open
/// until the process has been spawned.
pub struct FilterPipe(OwnedFd);

impl SealedCommand {
    /// The argument vector as it would run, with the filter read from `fd`.
    pub fn argv(&self, fd: i32) -> Vec<OsString> {
        self.profile.argv(&self.masks, &self.command, Some(fd), &[])
    }

    /// A process ready to spawn: bubblewrap with the box's arguments, the
    /// filter waiting on a pipe, the environment scrubbed.
    pub fn std_command(&self) -> Result<(std::process::Command, FilterPipe), SealError> {
        let (read, write) =
            pipe().map_err(|e| SealError::Setup(format!("no pipe for its filter ({e})")))?;
        {
            let mut w = std::fs::File::from(write);
            w.write_all(&self.filter)
                .map_err(|e| SealError::Setup(format!("its filter couldn't be written ({e})")))?;
        }
        let fd = read.as_raw_fd();
        let mut cmd = std::process::Command::new(BWRAP);
        cmd.args(self.argv(fd));
        for (name, _) in std::env::vars_os() {
            if let Some(n) = name.to_str() {
                if env::scrubbed(n) {
                    cmd.env_remove(n);
                }
            }
        }
        // Only the filter's descriptor crosses into bubblewrap.
        unsafe {
            cmd.pre_exec(move || {
                if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        Ok((cmd, FilterPipe(read)))
    }

    /// Removes the mount points bubblewrap had to create on the host, if
    /// they are still empty.
    pub fn cleanup(&self) {
        for path in &self.masks.created {
            if std::fs::read_dir(path)
                .map(|mut d| d.next().is_none())
                .unwrap_or(false)
            {
                let _ = std::fs::remove_dir(path);
            }
        }
    }
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0i32; 2];
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

impl FilterPipe {
    pub fn close(self) {
        drop(self.0);
    }
}
