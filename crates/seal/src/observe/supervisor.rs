//! The supervisor: takes each network call the filter hands over, reads
//! its address out of the calling process, notes it, and lets the call go
//! on unchanged (`SECCOMP_USER_NOTIF_FLAG_CONTINUE`). It never refuses or
//! alters a call: the network stays as open as it was.
//!
//! What it reads, it reads from a process that could be changing it (a
//! second thread can rewrite an address after it is read): observation, not
//! enforcement. The first connection a command makes comes from what the
//! model wrote before it read anything from outside, and that one is seen.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::address;
use super::dns;

/// What one box did on the network.
#[derive(Debug, Default)]
pub struct Findings {
    /// Addresses reached, first time first.
    pub reached: Vec<SocketAddr>,
    /// Names DNS answers gave for addresses.
    pub names: HashMap<IpAddr, String>,
    /// Calls whose address couldn't be read.
    pub unread: usize,
    /// Calls looked at (for the record and the benchmark).
    pub calls: usize,
    /// Local proxies the box's variables name, connected to.
    pub proxied: Vec<SocketAddr>,
}

impl Findings {
    fn reach(&mut self, to: SocketAddr) {
        if address::reaches_out(to) && !self.reached.contains(&to) {
            self.reached.push(to);
        }
    }
}

/// Copies `len` bytes at `addr` in process `pid`.
fn read_memory(pid: libc::pid_t, addr: u64, len: usize) -> Option<Vec<u8>> {
    if addr == 0 || len == 0 {
        return None;
    }
    let mut buf = vec![0u8; len];
    let local = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: len,
    };
    let remote = libc::iovec {
        iov_base: addr as *mut libc::c_void,
        iov_len: len,
    };
    // SAFETY: `local` points at `buf`, which lives through the call and is
    // `len` bytes long; the remote side is only read by the kernel, which
    // checks it.
    let n = unsafe { libc::process_vm_readv(pid, &local, 1, &remote, 1, 0) };
    (n > 0).then(|| {
        buf.truncate(n as usize);
        buf
    })
}

/// A `sockaddr` of at most `len` bytes at `addr` in `pid`.
fn read_sockaddr(pid: libc::pid_t, addr: u64, len: u64) -> Option<Option<SocketAddr>> {
    let len = (len as usize).min(std::mem::size_of::<libc::sockaddr_storage>());
    read_memory(pid, addr, len).map(|b| address::parse(&b))
}

/// The `msg_name` of a `struct msghdr` at `addr`.
fn read_msg_name(pid: libc::pid_t, addr: u64) -> Option<Option<SocketAddr>> {
    let hdr = read_memory(pid, addr, std::mem::size_of::<libc::msghdr>())?;
    let name = u64::from_ne_bytes(hdr.get(0..8)?.try_into().ok()?);
    let len = u32::from_ne_bytes(hdr.get(8..12)?.try_into().ok()?);
    if name == 0 {
        return Some(None);
    }
    read_sockaddr(pid, name, u64::from(len))
}

/// A descriptor for process `pid` (a thread id works: its thread group's
/// leader is found when the kernel wants one).
fn pidfd(pid: libc::pid_t) -> Option<OwnedFd> {
    let open = |p: libc::pid_t| {
        // SAFETY: pidfd_open takes a pid and flags and returns a new
        // descriptor or -1; nothing is borrowed.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, p, 0) } as RawFd;
        // SAFETY: a non-negative result is a descriptor we now own.
        (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
    };
    open(pid).or_else(|| {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let tgid = status
            .lines()
            .find_map(|l| l.strip_prefix("Tgid:"))?
            .trim()
            .parse()
            .ok()?;
        open(tgid)
    })
}

/// The supervisor's memory for one box: what it found, and a descriptor
/// for each process it had to look into.
#[derive(Default)]
struct Watcher {
    findings: Findings,
    processes: HashMap<libc::pid_t, Option<OwnedFd>>,
    proxies: Vec<SocketAddr>,
}

impl Watcher {
    /// A copy of descriptor `fd` of process `pid`.
    fn their_fd(&mut self, pid: libc::pid_t, fd: u64) -> Option<OwnedFd> {
        let process = self
            .processes
            .entry(pid)
            .or_insert_with(|| pidfd(pid))
            .as_ref()?;
        // SAFETY: pidfd_getfd duplicates the target's descriptor `fd` into
        // this process, or fails with -1.
        let got = unsafe {
            libc::syscall(
                libc::SYS_pidfd_getfd,
                process.as_raw_fd(),
                fd as libc::c_int,
                0,
            )
        } as RawFd;
        // SAFETY: a non-negative result is a new descriptor we own.
        (got >= 0).then(|| unsafe { OwnedFd::from_raw_fd(got) })
    }

    /// The type of socket `fd` of `pid` (`SOCK_STREAM`, `SOCK_DGRAM`…).
    fn socket_type(&mut self, pid: libc::pid_t, fd: u64) -> Option<libc::c_int> {
        let sock = self.their_fd(pid, fd)?;
        let mut kind: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: `kind` and `len` are valid for the option's size.
        let ok = unsafe {
            libc::getsockopt(
                sock.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_TYPE,
                (&mut kind as *mut libc::c_int).cast(),
                &mut len,
            )
        };
        (ok == 0).then_some(kind)
    }

    /// A `connect`: a stream reaching out is the command reaching the
    /// network. A datagram socket's connect sends nothing (glibc connects
    /// one to every address a lookup returns, only to sort them), so those
    /// count when they send with an address.
    fn connect(&mut self, pid: libc::pid_t, fd: u64, to: Option<Option<SocketAddr>>) -> bool {
        match to {
            Some(Some(to)) if self.is_proxy(to) => {
                if self.socket_type(pid, fd) != Some(libc::SOCK_DGRAM)
                    && !self.findings.proxied.contains(&to)
                {
                    self.findings.proxied.push(to);
                }
                true
            }
            Some(Some(to)) if address::reaches_out(to) => {
                if self.socket_type(pid, fd) != Some(libc::SOCK_DGRAM) {
                    self.findings.reach(to);
                }
                true
            }
            Some(_) => true,
            None => false,
        }
    }

    fn is_proxy(&self, to: SocketAddr) -> bool {
        let to = SocketAddr::new(address::plain(to.ip()), to.port());
        self.proxies.contains(&to)
    }

    fn send(&mut self, to: Option<Option<SocketAddr>>) -> bool {
        match to {
            Some(Some(to)) => {
                self.findings.reach(to);
                true
            }
            Some(None) => true,
            None => false,
        }
    }

    /// A `recvfrom` with an address: if the socket holds a DNS answer, the
    /// names in it. The datagram is peeked, not taken: the program's own
    /// call reads it right after.
    fn peek_dns(&mut self, pid: libc::pid_t, fd: u64) {
        let Some(sock) = self.their_fd(pid, fd) else {
            return;
        };
        let mut buf = [0u8; 4096];
        // SAFETY: sockaddr_storage is plain data; zero is a valid value.
        let mut from: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        let mut from_len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        // SAFETY: `buf` and `from` are valid for the lengths given.
        let n = unsafe {
            libc::recvfrom(
                sock.as_raw_fd(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
                (&mut from as *mut libc::sockaddr_storage).cast(),
                &mut from_len,
            )
        };
        if n <= 0 {
            return;
        }
        let from_len = (from_len as usize).min(std::mem::size_of::<libc::sockaddr_storage>());
        // SAFETY: the kernel filled `from_len` bytes of `from`, and no more
        // than its size is read.
        let from_bytes = unsafe {
            std::slice::from_raw_parts(
                (&from as *const libc::sockaddr_storage).cast::<u8>(),
                from_len,
            )
        };
        if address::parse(from_bytes).map(|a| a.port()) != Some(address::DNS_PORT) {
            return;
        }
        for (ip, name) in dns::answers(&buf[..n as usize]) {
            self.findings.names.insert(address::plain(ip), name);
        }
    }

    /// Looks at one handed-over call; false when its address couldn't be
    /// read.
    fn look(&mut self, req: &libc::seccomp_notif) -> bool {
        let pid = req.pid as libc::pid_t;
        let args = req.data.args;
        let nr = libc::c_long::from(req.data.nr);
        if nr == libc::SYS_connect {
            let to = read_sockaddr(pid, args[1], args[2]);
            self.connect(pid, args[0], to)
        } else if nr == libc::SYS_sendto {
            let to = read_sockaddr(pid, args[4], args[5]);
            self.send(to)
        } else if nr == libc::SYS_sendmsg {
            let to = read_msg_name(pid, args[1]);
            self.send(to)
        } else if nr == libc::SYS_sendmmsg {
            // struct mmsghdr: a msghdr and an unsigned int, padded.
            let stride = std::mem::size_of::<libc::mmsghdr>() as u64;
            let count = args[2].min(16);
            (0..count).all(|i| {
                let to = read_msg_name(pid, args[1] + i * stride);
                self.send(to)
            })
        } else if nr == libc::SYS_recvfrom {
            self.peek_dns(pid, args[0]);
            true
        } else {
            true
        }
    }
}

/// Serves `listener` until `stop` is readable or nothing uses the filter
/// any more.
pub fn serve(listener: OwnedFd, stop: OwnedFd, proxies: Vec<SocketAddr>) -> Findings {
    let mut w = Watcher {
        proxies,
        ..Watcher::default()
    };
    let mut fds = [
        libc::pollfd {
            fd: listener.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: stop.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    loop {
        // SAFETY: `fds` is a valid array of two pollfd.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        if fds[0].revents & libc::POLLIN != 0 {
            // SAFETY: seccomp_notif is plain data and RECV wants it zeroed.
            let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
            // SAFETY: RECV fills `req`, a valid seccomp_notif.
            let got = unsafe {
                libc::ioctl(
                    listener.as_raw_fd(),
                    libc::SECCOMP_IOCTL_NOTIF_RECV as _,
                    &mut req,
                )
            };
            if got == 0 {
                w.findings.calls += 1;
                let read = w.look(&req);
                // What was read counts only if the caller is still the one
                // that made the call (its pid wasn't reused meanwhile).
                // SAFETY: ID_VALID reads the u64 id.
                let valid = unsafe {
                    libc::ioctl(
                        listener.as_raw_fd(),
                        libc::SECCOMP_IOCTL_NOTIF_ID_VALID as _,
                        &req.id,
                    )
                } == 0;
                if valid && !read {
                    w.findings.unread += 1;
                }
                let resp = libc::seccomp_notif_resp {
                    id: req.id,
                    val: 0,
                    error: 0,
                    flags: libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32,
                };
                // SAFETY: SEND reads `resp`, a valid seccomp_notif_resp. A
                // caller that died meanwhile makes it fail, which is fine.
                unsafe {
                    libc::ioctl(
                        listener.as_raw_fd(),
                        libc::SECCOMP_IOCTL_NOTIF_SEND as _,
                        &resp,
                    )
                };
            }
            continue;
        }
        if fds[0].revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            break;
        }
        if fds[1].revents != 0 {
            break;
        }
    }
    w.findings
}
