//! An alarm that sleeps until a wall-clock time, a poke, or a change to a
//! few named files in a folder, and does nothing at all meanwhile.
//!
//! On Linux one thread blocks in `poll` on three descriptors:
//!
//! - a `timerfd` on `CLOCK_REALTIME` set to an absolute time, so a
//!   computer that slept past it fires as it wakes (a monotonic timer, like
//!   tokio's, doesn't count the time asleep), and with
//!   `TFD_TIMER_CANCEL_ON_SET`, so a clock set by hand wakes it to look
//!   again;
//! - an `eventfd` the process pokes (a routine added from the web pages);
//! - an `inotify` watch on Conch's folder, so `conch routines add` in a
//!   terminal counts at once; only the named files wake it.
//!
//! Elsewhere it sleeps at most a minute at a time and looks again (the
//! known limit: a change from the terminal can take a minute to count).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::Notify;

/// Wakes [`Alarm::wait`]: at the time set, on a poke, or when a watched
/// file changes. Wake-ups are never lost: one that comes while nobody is
/// waiting is kept for the next wait.
pub struct Alarm {
    shared: Arc<Shared>,
    #[cfg(target_os = "linux")]
    fds: Arc<linux::Fds>,
    #[cfg(not(target_os = "linux"))]
    deadline: std::sync::Mutex<Option<i64>>,
}

struct Shared {
    notify: Notify,
    stop: AtomicBool,
}

impl Alarm {
    /// An alarm watching `names` in `dir` (when given).
    pub fn new(dir: Option<&Path>, names: &[&str]) -> std::io::Result<Alarm> {
        let shared = Arc::new(Shared {
            notify: Notify::new(),
            stop: AtomicBool::new(false),
        });
        #[cfg(target_os = "linux")]
        {
            let fds = Arc::new(linux::Fds::new(dir, names)?);
            let (f, s) = (fds.clone(), shared.clone());
            std::thread::Builder::new()
                .name("conch-alarm".into())
                .spawn(move || linux::watch(&f, &s))?;
            Ok(Alarm { shared, fds })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (dir, names);
            Ok(Alarm {
                shared,
                deadline: std::sync::Mutex::new(None),
            })
        }
    }

    /// Rings at `at` (Unix seconds; at once when it has passed), or never.
    pub fn set(&self, at: Option<i64>) {
        #[cfg(target_os = "linux")]
        self.fds.set(at);
        #[cfg(not(target_os = "linux"))]
        {
            *self.deadline.lock().unwrap_or_else(|p| p.into_inner()) = at;
        }
    }

    /// Rings now.
    pub fn poke(&self) {
        self.shared.notify.notify_one();
    }

    /// Waits for the next ring.
    pub async fn wait(&self) {
        #[cfg(target_os = "linux")]
        self.shared.notify.notified().await;
        #[cfg(not(target_os = "linux"))]
        {
            let at = *self.deadline.lock().unwrap_or_else(|p| p.into_inner());
            let now = crate::now();
            let secs = at.map_or(60, |at| (at - now).clamp(0, 60)) as u64;
            tokio::select! {
                () = self.shared.notify.notified() => {}
                () = tokio::time::sleep(std::time::Duration::from_secs(secs)) => {}
            }
        }
    }
}

impl Drop for Alarm {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        #[cfg(target_os = "linux")]
        self.fds.kick();
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::CString;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::atomic::Ordering;

    use super::Shared;

    pub struct Fds {
        timer: OwnedFd,
        kick: OwnedFd,
        watch: Option<OwnedFd>,
        names: Vec<Vec<u8>>,
    }

    fn check(r: libc::c_int) -> std::io::Result<libc::c_int> {
        if r < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(r)
        }
    }

    impl Fds {
        pub fn new(dir: Option<&Path>, names: &[&str]) -> std::io::Result<Fds> {
            // SAFETY: timerfd_create takes no pointers; a valid descriptor is owned below.
            let timer = check(unsafe {
                libc::timerfd_create(libc::CLOCK_REALTIME, libc::TFD_CLOEXEC | libc::TFD_NONBLOCK)
            })?;
            // SAFETY: the descriptor was just made and nothing else owns it.
            let timer = unsafe { OwnedFd::from_raw_fd(timer) };
            // SAFETY: eventfd takes no pointers.
            let kick = check(unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) })?;
            // SAFETY: the descriptor was just made and nothing else owns it.
            let kick = unsafe { OwnedFd::from_raw_fd(kick) };
            let watch = match dir {
                Some(dir) => {
                    // SAFETY: inotify_init1 takes no pointers.
                    let fd = check(unsafe {
                        libc::inotify_init1(libc::IN_CLOEXEC | libc::IN_NONBLOCK)
                    })?;
                    // SAFETY: the descriptor was just made and nothing else owns it.
                    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
                    let path = CString::new(dir.as_os_str().as_bytes())
                        .map_err(|_| std::io::Error::other("a folder name with a NUL"))?;
                    // SAFETY: path is a NUL-terminated string that outlives the call.
                    check(unsafe {
                        libc::inotify_add_watch(
                            fd.as_raw_fd(),
                            path.as_ptr(),
                            libc::IN_CLOSE_WRITE | libc::IN_MOVED_TO | libc::IN_DELETE,
                        )
                    })?;
                    Some(fd)
                }
                None => None,
            };
            Ok(Fds {
                timer,
                kick,
                watch,
                names: names.iter().map(|n| n.as_bytes().to_vec()).collect(),
            })
        }

        pub fn set(&self, at: Option<i64>) {
            let value = libc::timespec {
                // Zero disarms; a time that has passed fires at once.
                tv_sec: at.map_or(0, |t| t.max(1)) as libc::time_t,
                tv_nsec: 0,
            };
            let spec = libc::itimerspec {
                it_interval: libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                },
                it_value: value,
            };
            // SAFETY: spec is a valid itimerspec on the stack; the old value isn't asked for.
            unsafe {
                libc::timerfd_settime(
                    self.timer.as_raw_fd(),
                    libc::TFD_TIMER_ABSTIME | libc::TFD_TIMER_CANCEL_ON_SET,
                    &spec,
                    std::ptr::null_mut(),
                );
            }
        }

        pub fn kick(&self) {
            let one: u64 = 1;
            // SAFETY: writes 8 bytes from a u64 on the stack, as eventfd wants.
            unsafe {
                libc::write(
                    self.kick.as_raw_fd(),
                    (&one as *const u64).cast(),
                    std::mem::size_of::<u64>(),
                );
            }
        }

        /// Empties a descriptor that became readable.
        fn drain(fd: &OwnedFd, buf: &mut [u8]) -> usize {
            let mut total = 0;
            loop {
                // SAFETY: reads at most buf.len() bytes into buf, which is ours.
                let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
                // A timer whose clock was set says ECANCELED: that's a ring.
                if n <= 0 {
                    return total;
                }
                total += n as usize;
                if (n as usize) < buf.len() {
                    return total;
                }
            }
        }

        /// Whether an inotify buffer names one of the watched files.
        fn names_one(&self, buf: &[u8]) -> bool {
            let header = std::mem::size_of::<libc::inotify_event>();
            let mut at = 0;
            while at + header <= buf.len() {
                // SAFETY: at least a header's bytes remain; read_unaligned copes with any alignment.
                let event: libc::inotify_event =
                    unsafe { std::ptr::read_unaligned(buf[at..].as_ptr().cast()) };
                let len = event.len as usize;
                let end = (at + header + len).min(buf.len());
                let name = &buf[at + header..end];
                let name = &name[..name.iter().position(|b| *b == 0).unwrap_or(name.len())];
                if self.names.iter().any(|n| n == name) {
                    return true;
                }
                at += header + len;
            }
            false
        }
    }

    /// The alarm's thread: blocks until something rings, then wakes the
    /// waiter; ends when the alarm is dropped.
    pub fn watch(fds: &Fds, shared: &Shared) {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let mut polls = vec![
                libc::pollfd {
                    fd: fds.timer.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: fds.kick.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            if let Some(w) = &fds.watch {
                polls.push(libc::pollfd {
                    fd: w.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                });
            }
            // SAFETY: polls is a valid array of pollfd, its length passed with it.
            let r = unsafe { libc::poll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, -1) };
            if shared.stop.load(Ordering::Acquire) {
                return;
            }
            if r < 0 {
                // EINTR: a signal; poll again.
                continue;
            }
            let mut ring = false;
            if polls[0].revents != 0 {
                Fds::drain(&fds.timer, &mut buf);
                ring = true;
            }
            if polls[1].revents != 0 {
                Fds::drain(&fds.kick, &mut buf);
                ring = true;
            }
            if let (Some(w), Some(p)) = (&fds.watch, polls.get(2)) {
                if p.revents != 0 {
                    loop {
                        // SAFETY: reads into buf, which is ours, at most its length.
                        let n = unsafe {
                            libc::read(w.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len())
                        };
                        if n <= 0 {
                            break;
                        }
                        ring |= fds.names_one(&buf[..n as usize]);
                    }
                }
            }
            if ring {
                shared.notify.notify_one();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[tokio::test]
    async fn rings_at_the_time_on_a_poke_and_on_a_watched_file() {
        let dir = tempfile::tempdir().unwrap();
        let alarm = Alarm::new(Some(dir.path()), &["routines.json"]).unwrap();
        let started = Instant::now();
        alarm.set(Some(crate::now() + 1));
        tokio::time::timeout(Duration::from_secs(5), alarm.wait())
            .await
            .unwrap();
        assert!(started.elapsed() >= Duration::from_millis(1));
        alarm.set(None);
        alarm.poke();
        tokio::time::timeout(Duration::from_secs(5), alarm.wait())
            .await
            .unwrap();
        // Another file in the folder doesn't ring it; the watched one does.
        std::fs::write(dir.path().join("other.json"), "{}").unwrap();
        assert!(
            tokio::time::timeout(Duration::from_millis(300), alarm.wait())
                .await
                .is_err()
        );
        vault::write_atomic(&dir.path().join("routines.json"), b"{}").unwrap();
        tokio::time::timeout(Duration::from_secs(5), alarm.wait())
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_time_that_has_passed_rings_at_once() {
        let alarm = Alarm::new(None, &[]).unwrap();
        alarm.set(Some(crate::now() - 3600));
        tokio::time::timeout(Duration::from_secs(5), alarm.wait())
            .await
            .unwrap();
    }
}
