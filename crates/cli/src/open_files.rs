//! The open-file limit: every connection and every open chat's log is a
//! file. The soft limit is often 1024 while the hard one is far higher;
//! `conch serve` raises the soft limit to the hard one (as Go's runtime
//! does), and the gateway fits its connection cap under what it got.

/// Raises this process's soft limit on open files to the hard limit, and
/// returns the limit it now has.
pub fn raise() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return 1024;
    }
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads one rlimit from a struct we own.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit = raised;
        }
    }
    limit.rlim_cur
}
