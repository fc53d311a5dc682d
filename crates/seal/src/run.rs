//! Running a command sealed: the box's argument vector, the seccomp filter
//! on a pipe bubblewrap reads, the observing filter installed just before
//! bubblewrap starts, the allowlisted environment, and cleanup after.

use std::ffi::OsString;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::masks::Masks;
use crate::observe::{Channel, Network, Watch};
use crate::profile::{Profile, SealError};
use crate::{env, seccomp, BWRAP};

/// Sealing, set up once for a Conch folder.
#[derive(Debug, Clone)]
pub struct Sealed {
    pub conch_home: PathBuf,
    pub person_home: Option<PathBuf>,
    /// Where keys live and Conch's folder, exactly as the file tools refuse
    /// them (`tools::protected::here`).
    pub protected: guard::Protected,
    pub temp: Vec<PathBuf>,
    pub extra_writable: Vec<PathBuf>,
    pub extra_hidden: Vec<PathBuf>,
    /// The environment the box's is made from (this process's, captured
    /// when sealing was set up).
    pub vars: Vec<(OsString, OsString)>,
    /// Names the owner lets into the box (`sealEnv`): exact, or `PREFIX_*`.
    pub env_names: Vec<String>,
    /// Watch the network each command uses.
    pub observe: bool,
    empty: PathBuf,
    empty_file: PathBuf,
    filter: Arc<[u8]>,
    as_root: bool,
}

/// The folder, under Conch's, where sealing keeps its files.
pub fn seal_folder(conch_home: &Path) -> PathBuf {
    conch_home.join("seal")
}

impl Sealed {
    /// Sealing for the Conch folder `conch_home`, hiding what `protected`
    /// names; the person's home from `$HOME`, temp from /tmp and `$TMPDIR`,
    /// the environment from this process's.
    pub fn new(conch_home: &Path, protected: guard::Protected) -> Result<Sealed, SealError> {
        let folder = seal_folder(conch_home);
        let empty = folder.join("empty");
        let empty_file = folder.join("empty-file");
        let fresh = || -> std::io::Result<()> {
            if empty.exists() && std::fs::read_dir(&empty)?.next().is_some() {
                std::fs::set_permissions(
                    &empty,
                    std::os::unix::fs::PermissionsExt::from_mode(0o700),
                )?;
                std::fs::remove_dir_all(&empty)?;
            }
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&empty)?;
            std::fs::set_permissions(&empty, std::os::unix::fs::PermissionsExt::from_mode(0o555))?;
            let file_ok = std::fs::metadata(&empty_file).is_ok_and(|m| m.is_file() && m.len() == 0);
            if !file_ok {
                let _ = std::fs::remove_file(&empty_file);
                std::fs::write(&empty_file, b"")?;
            }
            std::fs::set_permissions(
                &empty_file,
                std::os::unix::fs::PermissionsExt::from_mode(0o444),
            )
        };
        fresh().map_err(|e| {
            SealError::Setup(format!(
                "its empty folder {} can't be made ({e})",
                empty.display()
            ))
        })?;
        crate::journal::sweep(&folder);
        let mut temp = vec![PathBuf::from("/tmp")];
        if let Some(t) = std::env::var_os("TMPDIR").filter(|t| !t.is_empty()) {
            temp.push(PathBuf::from(t));
        }
        Ok(Sealed {
            conch_home: conch_home.to_path_buf(),
            person_home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            protected,
            temp,
            extra_writable: Vec::new(),
            extra_hidden: Vec::new(),
            vars: std::env::vars_os().collect(),
            env_names: Vec::new(),
            observe: true,
            empty,
            empty_file,
            filter: seccomp::filter_bytes().map_err(SealError::Setup)?.into(),
            // SAFETY: geteuid has no preconditions.
            as_root: unsafe { libc::geteuid() } == 0,
        })
    }

    pub fn profile(&self, work: &Path) -> Profile {
        Profile {
            work: work.to_path_buf(),
            person_home: self.person_home.clone(),
            conch_home: self.conch_home.clone(),
            protected: self.protected.clone(),
            empty: self.empty.clone(),
            empty_file: self.empty_file.clone(),
            temp: self.temp.clone(),
            extra_writable: self.extra_writable.clone(),
            extra_hidden: self.extra_hidden.clone(),
            bind_at: Vec::new(),
            vars: self.vars.clone(),
            as_root: self.as_root,
            nests: false,
        }
    }

    /// The environment a sealed command gets.
    pub fn environment(&self) -> Vec<(OsString, OsString)> {
        env::environment(&self.vars, &self.env_names, self.person_home.as_deref())
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
            env: self.environment(),
            observe: self.observe,
            journal: crate::journal::name(&seal_folder(&self.conch_home)),
        })
    }
}

/// Quotes `word` for the shell the box starts.
fn sh_quote(word: &std::ffi::OsStr) -> String {
    format!("'{}'", word.to_string_lossy().replace('\'', r"'\''"))
}

impl Sealed {
    /// A program (an engine, a server) in the box for `work`, with the
    /// same masks as a sealed command, `binds` (host folder, path inside)
    /// bound writable, and no network watching (what it reaches is the
    /// provider; the commands it runs are sealed on their own). The
    /// caller sets the program's own environment on the command.
    pub fn program(
        &self,
        work: &Path,
        program: &Path,
        args: &[OsString],
        binds: &[(PathBuf, PathBuf)],
    ) -> Result<SealedCommand, SealError> {
        let mut profile = self.profile(work);
        let hidden = profile.hidden();
        for (_, to) in binds {
            if let Some(h) = hidden.iter().find(|h| to.starts_with(&h.path)) {
                return Err(SealError::WritableIsHidden {
                    writable: to.clone(),
                    hidden: h.path.clone(),
                });
            }
        }
        profile.bind_at = binds.to_vec();
        profile.nests = true;
        let masks = profile.masks()?;
        let mut command = String::from("exec ");
        command.push_str(&sh_quote(program.as_os_str()));
        for a in args {
            command.push(' ');
            command.push_str(&sh_quote(a));
        }
        Ok(SealedCommand {
            profile,
            masks,
            command,
            filter: self.filter.clone(),
            env: self.environment(),
            observe: false,
            journal: crate::journal::name(&seal_folder(&self.conch_home)),
        })
    }

    /// `command` sealed as [`Sealed::command`], with `binds` bound too and
    /// started in `cwd` (where the program that asked was; a folder the box
    /// hides isn't there inside it, so the command fails there).
    pub fn command_with(
        &self,
        work: &Path,
        cwd: &Path,
        command: &str,
        binds: &[(PathBuf, PathBuf)],
    ) -> Result<SealedCommand, SealError> {
        let mut sealed = self.command(work, command)?;
        sealed.profile.bind_at = binds.to_vec();
        if cwd != work && cwd.is_absolute() {
            sealed.command = format!("cd {} && {}", sh_quote(cwd.as_os_str()), command);
        }
        Ok(sealed)
    }
}

/// One command, ready to spawn sealed.
pub struct SealedCommand {
    pub profile: Profile,
    pub masks: Masks,
    pub command: String,
    pub env: Vec<(OsString, OsString)>,
    filter: Arc<[u8]>,
    observe: bool,
    /// Where the mount points it creates are noted until they're removed.
    journal: PathBuf,
}

/// What a spawn needs kept until it has happened: the filter's pipe (its
/// read end goes to bubblewrap) and the observer's channel.
pub struct Pending {
    filter: OwnedFd,
    channel: Option<Channel>,
}

impl Pending {
    /// Call right after a successful spawn: closes the filter's pipe and
    /// starts watching the box's network calls.
    pub fn started(self) -> Started {
        drop(self.filter);
        Started {
            watch: self.channel.map_or_else(Watch::none, Channel::started),
        }
    }
}

impl Pending {
    /// Call right after a successful spawn when this thread only waits for
    /// the command (`conch seal run`): watches its network on this thread
    /// until it ends, then reaps it.
    pub fn watch_until_exit(
        self,
        child: &mut std::process::Child,
    ) -> std::io::Result<(std::process::ExitStatus, Network)> {
        drop(self.filter);
        let network = match (self.channel, crate::observe::pidfd(child.id())) {
            (Some(channel), Some(ended)) => channel.watch_here(ended),
            (Some(channel), None) => {
                // No pidfd (a kernel before 5.3): watch from a thread.
                let watch = channel.started();
                let status = child.wait()?;
                return Ok((status, watch.finish()));
            }
            (None, _) => Network::default(),
        };
        Ok((child.wait()?, network))
    }
}

/// A sealed command that is running.
pub struct Started {
    watch: Watch,
}

impl Started {
    /// Call once the command has ended (and everything it started): stops
    /// watching, says what it reached.
    pub fn finish(self) -> Network {
        self.watch.finish()
    }
}

impl SealedCommand {
    /// The argument vector as it would run, with the filter read from `fd`.
    pub fn argv(&self, fd: i32) -> Vec<OsString> {
        self.profile.argv(&self.masks, &self.command, Some(fd))
    }

    /// A process ready to spawn: bubblewrap with the box's arguments, the
    /// filter waiting on a pipe, the environment allowlisted, the network
    /// watched. Call [`Pending::started`] after spawning it.
    pub fn std_command(&self) -> Result<(std::process::Command, Pending), SealError> {
        let (read, write) =
            pipe().map_err(|e| SealError::Setup(format!("no pipe for its filter ({e})")))?;
        {
            let mut w = std::fs::File::from(write);
            w.write_all(&self.filter)
                .map_err(|e| SealError::Setup(format!("its filter couldn't be written ({e})")))?;
        }
        crate::journal::write(&self.journal, &self.masks.created).map_err(|e| {
            SealError::Setup(format!(
                "its list of mount points couldn't be written ({e})"
            ))
        })?;
        let fd = read.as_raw_fd();
        let mut cmd = std::process::Command::new(BWRAP);
        cmd.args(self.argv(fd));
        cmd.env_clear();
        cmd.envs(self.env.iter().map(|(n, v)| (n, v)));
        // SAFETY: the closure only calls fcntl, async-signal-safe. Only the
        // filter's descriptor crosses into bubblewrap.
        unsafe {
            cmd.pre_exec(move || {
                if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let channel = if self.observe {
            Channel::new(crate::observe::proxy::local_proxies(&self.env))
        } else {
            None
        };
        if let Some(c) = &channel {
            // SAFETY: the child side makes only async-signal-safe system
            // calls (see observe::Channel::child_side).
            unsafe {
                cmd.pre_exec(c.child_side());
            }
        }
        Ok((
            cmd,
            Pending {
                filter: read,
                channel,
            },
        ))
    }

    /// Removes the mount points bubblewrap had to create on the host, if
    /// they are still empty, and their note.
    pub fn cleanup(&self) {
        crate::journal::remove(&self.journal, &self.masks.created);
    }
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 fills two descriptors on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both are new descriptors we own.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
