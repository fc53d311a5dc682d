//! The network a sealed command used, observed by the box.
//!
//! **Why seccomp user notification, not a proxy.** A proxy sees only the
//! programs that honour `HTTP_PROXY`; a download through a raw socket, a Go
//! binary with its own settings, or `git://` walks past it, and forcing
//! everything through one means taking the network away (ADR 0028 keeps it
//! open). A seccomp filter sees every `connect` whatever program made it,
//! however the command was spelled. With `SECCOMP_RET_USER_NOTIF` the
//! kernel hands each such call to Conch, which reads the address and lets
//! the call continue unchanged (`SECCOMP_USER_NOTIF_FLAG_CONTINUE`): nothing
//! is routed, nothing is refused, and calls without an address (every read
//! and write of a download) never stop at all.
//!
//! **Names, not just addresses.** The box watches DNS answers come in (a
//! `recvfrom` with an address, which is how resolvers read them; the
//! datagram is peeked, not taken) and names each address by the host the
//! program asked for. An address no answer named (a lookup by `/etc/hosts`,
//! DNS over TCP or HTTPS, a resolver that reads with `read`, like Go's) is
//! shown as the address.
//!
//! **Not downloads:** connections that stay on this computer (loopback, the
//! unspecified address), multicast and broadcast, DNS (port 53), and a
//! datagram socket's `connect`, which sends nothing. Except a proxy on
//! this computer that the box's variables name (`proxy.rs`): a connection
//! to it is a download "through the proxy at 127.0.0.1:3128".
//!
//! The filter is installed just before bubblewrap starts, so the box and
//! everything in it inherit it, and its listening descriptor comes back to
//! Conch over a socket pair. If it can't be installed (an old kernel) the
//! command runs all the same, unobserved, and says so.

pub mod address;
pub mod dns;
pub mod filter;
pub mod proxy;
mod supervisor;

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::mpsc::Receiver;

pub use supervisor::Findings;

/// What a command did on the network, as the box saw it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Network {
    /// Whether the box watched every call (false: not installed here, or
    /// some address couldn't be read).
    pub observed: bool,
    /// The hosts it reached, by name where a DNS answer gave one, else the
    /// address; first reached first.
    pub hosts: Vec<String>,
    /// Network calls the box looked at.
    pub calls: usize,
}

impl Network {
    fn from(findings: Findings) -> Network {
        let mut hosts: Vec<String> = Vec::new();
        for to in &findings.reached {
            let ip = address::plain(to.ip());
            let host = findings
                .names
                .get(&ip)
                .cloned()
                .unwrap_or_else(|| ip.to_string());
            if !hosts.contains(&host) {
                hosts.push(host);
            }
        }
        for to in &findings.proxied {
            let host = format!("a site through the proxy at {to}");
            if !hosts.contains(&host) {
                hosts.push(host);
            }
        }
        Network {
            observed: findings.unread == 0,
            hosts,
            calls: findings.calls,
        }
    }
}

/// The filter ready to install, and the socket pair its listener comes back
/// on. Made before the process is spawned.
pub struct Channel {
    prog: filter::Program,
    ours: OwnedFd,
    theirs: OwnedFd,
    /// Proxies on this computer the box's variables name.
    proxies: Vec<std::net::SocketAddr>,
}

impl Channel {
    /// `proxies`: the local proxies the box's variables name (a connection
    /// to one is a download).
    pub fn new(proxies: Vec<std::net::SocketAddr>) -> Option<Channel> {
        let prog = filter::program()?;
        let mut fds = [0 as RawFd; 2];
        // SAFETY: socketpair fills two descriptors on success.
        let ok = unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        };
        if ok != 0 {
            return None;
        }
        // SAFETY: both are new descriptors we own.
        let (ours, theirs) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Some(Channel {
            prog,
            ours,
            theirs,
            proxies,
        })
    }

    /// What the child runs between fork and exec: install the filter with a
    /// listener and send the listener back. Only system calls, no
    /// allocation. A failure leaves the command to run unobserved.
    pub fn child_side(&self) -> impl FnMut() -> std::io::Result<()> + Send + Sync + 'static {
        let template = self.prog;
        let theirs = self.theirs.as_raw_fd();
        move || {
            // SAFETY: between fork and exec only async-signal-safe system
            // calls are made here (prctl, seccomp, sendmsg, close), on stack
            // memory: the program is a copy on this frame, the message too.
            unsafe {
                let mut hand_over = HandOver::new();
                let msg = hand_over.prepare();
                let mut prog = template;
                // The hand-over below is the one call let through: this
                // descriptor, this message's address on this stack.
                prog.exempt(theirs, msg as u64);
                let fprog = libc::sock_fprog {
                    len: prog.len as libc::c_ushort,
                    filter: prog.code.as_mut_ptr(),
                };
                // Needed to install a filter without CAP_SYS_ADMIN;
                // bubblewrap sets it too before running the command.
                libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
                let listener = libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
                    &fprog as *const libc::sock_fprog,
                ) as RawFd;
                if listener >= 0 {
                    hand_over.send(theirs, msg, listener);
                    libc::close(listener);
                }
                libc::close(theirs);
            }
            Ok(())
        }
    }

    /// After the spawn: takes the listener, if one came, and starts watching.
    pub fn started(self) -> Watch {
        drop(self.theirs);
        let Some(listener) = recv_fd(self.ours.as_raw_fd()) else {
            return Watch { running: None };
        };
        let mut stop = [0 as RawFd; 2];
        // SAFETY: pipe2 fills two descriptors on success.
        if unsafe { libc::pipe2(stop.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            // Without a way to stop it, a supervisor would outlive the
            // command; serve nothing rather than hang. Dropping the
            // listener lets the box's calls fail instead of wait forever.
            return Watch { running: None };
        }
        // SAFETY: both are new descriptors we own.
        let (stop_r, stop_w) =
            unsafe { (OwnedFd::from_raw_fd(stop[0]), OwnedFd::from_raw_fd(stop[1])) };
        let (tx, rx) = std::sync::mpsc::channel();
        let proxies = self.proxies;
        let thread = std::thread::Builder::new()
            .name("seal-observe".into())
            .spawn(move || {
                let _ = tx.send(supervisor::serve(listener, stop_r, proxies));
            });
        match thread {
            Ok(_) => Watch {
                running: Some((stop_w, rx)),
            },
            Err(_) => Watch { running: None },
        }
    }
}

impl Channel {
    /// After the spawn, for a caller that has nothing else to do: watches
    /// on this thread until `until` is readable (a pidfd of the process,
    /// readable when it ends), with no thread to start or hand back.
    pub fn watch_here(self, until: OwnedFd) -> Network {
        drop(self.theirs);
        match recv_fd(self.ours.as_raw_fd()) {
            Some(listener) => Network::from(supervisor::serve(listener, until, self.proxies)),
            None => Network::default(),
        }
    }
}

/// A descriptor that becomes readable when process `pid` (a child of this
/// one) ends.
pub fn pidfd(pid: u32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags, returns a descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) } as RawFd;
    // SAFETY: a non-negative result is a descriptor we now own.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// How long [`Watch::finish`] waits for the supervisor once the box has
/// ended. A caller killed between the kernel saying a call is waiting and
/// the supervisor taking it leaves the supervisor waiting for a call that
/// will never come; it is left behind then, and the command counts as
/// unwatched.
const FINISHING: std::time::Duration = std::time::Duration::from_secs(2);

/// Watching one box's network calls, until [`Watch::finish`].
pub struct Watch {
    running: Option<(OwnedFd, Receiver<Findings>)>,
}

impl Watch {
    /// A watch that sees nothing (observation off or unavailable).
    pub fn none() -> Watch {
        Watch { running: None }
    }

    /// Whether the box's calls are being watched.
    pub fn is_watching(&self) -> bool {
        self.running.is_some()
    }

    /// Stops watching (call it once the command has ended) and says what it
    /// saw.
    pub fn finish(self) -> Network {
        let Some((stop, found)) = self.running else {
            return Network::default();
        };
        // SAFETY: writing one byte from a valid buffer to our pipe.
        unsafe { libc::write(stop.as_raw_fd(), b"x".as_ptr().cast(), 1) };
        found
            .recv_timeout(FINISHING)
            .map(Network::from)
            .unwrap_or_default()
    }
}

/// The message that sends the listener back (SCM_RIGHTS), built on the
/// child's stack so its address is known before the filter is installed.
#[repr(C)]
struct HandOver {
    byte: [u8; 1],
    iov: libc::iovec,
    control: [u64; 4],
    msg: libc::msghdr,
}

impl HandOver {
    /// # Safety
    /// Plain data; zero is valid for all of it.
    unsafe fn new() -> HandOver {
        std::mem::zeroed()
    }

    /// Points the message at its parts; the address of the message, which
    /// must not move until [`HandOver::send`].
    ///
    /// # Safety
    /// `self` must stay where it is until `send`.
    unsafe fn prepare(&mut self) -> *const libc::msghdr {
        self.iov.iov_base = self.byte.as_mut_ptr().cast();
        self.iov.iov_len = 1;
        self.msg.msg_iov = &mut self.iov;
        self.msg.msg_iovlen = 1;
        self.msg.msg_control = self.control.as_mut_ptr().cast();
        self.msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) as _;
        &self.msg
    }

    /// Sends `fd` over `sock`.
    ///
    /// # Safety
    /// `prepare` was called on this value, which hasn't moved; `msg` is what
    /// it returned; `sock` and `fd` are open. Async-signal-safe.
    unsafe fn send(&mut self, sock: RawFd, msg: *const libc::msghdr, fd: RawFd) {
        let cmsg = libc::CMSG_FIRSTHDR(&self.msg);
        if cmsg.is_null() {
            return;
        }
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd);
        libc::sendmsg(sock, msg, libc::MSG_NOSIGNAL);
    }
}

/// Receives one descriptor sent by [`HandOver::send`], without waiting.
fn recv_fd(sock: RawFd) -> Option<OwnedFd> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control = [0u64; 4];
    // SAFETY: msghdr is plain data; the pointers set below stay valid
    // through recvmsg.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    // SAFETY: `msg` describes buffers owned by this frame.
    let n = unsafe { libc::recvmsg(sock, &mut msg, libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC) };
    if n <= 0 {
        return None;
    }
    // SAFETY: the kernel filled `msg`'s control buffer; CMSG_* walk it
    // within msg_controllen.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null()
            || (*cmsg).cmsg_level != libc::SOL_SOCKET
            || (*cmsg).cmsg_type != libc::SCM_RIGHTS
        {
            return None;
        }
        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>());
        (fd >= 0).then(|| OwnedFd::from_raw_fd(fd))
    }
}
