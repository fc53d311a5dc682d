//! The open-file limit: every connection and every open chat's log is a
//! file. The soft limit is often 1024 while the hard one is far higher;
//! `conch serve` raises the soft limit as far as its connection cap needs
//! (never past the hard one), and the gateway fits the cap under what it
//! got. Only as far as needed: commands the assistant runs inherit it, and
//! some programs still walk every possible file number.

/// Raises this process's soft limit on open files to `want` (or the hard
/// limit, if lower), and returns the limit it now has.
pub fn raise(want: u64) -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return 1024;
    }
    let target = want.min(limit.rlim_max);
    if limit.rlim_cur < target {
        let raised = libc::rlimit {
            rlim_cur: target,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads one rlimit from a struct we own.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit = raised;
        }
    }
    limit.rlim_cur
}
