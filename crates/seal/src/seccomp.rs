//! The seccomp filter bubblewrap installs just before the command runs.
//!
//! Read-only mounts don't stop sockets: a sealed command could reach the
//! owner's ssh-agent, the D-Bus session bus (and through it the Secret
//! Service that keeps the device key), or docker.sock. So `socket(AF_UNIX,
//! …)` fails with EPERM, and so do the `io_uring_*` calls, because io_uring
//! can open and connect a unix socket without ever calling socket(2).
//! Everything else is allowed.
//!
//! `socketpair(AF_UNIX, …)` is allowed: it makes two ends already connected
//! to each other and to nothing else (a `connect` or an addressed send on
//! either fails, EISCONN), so it reaches nothing outside. Refusing it broke
//! every Node program that starts a child with pipes (libuv makes a child's
//! stdio with socketpair): `execSync`, test runners' workers, bundlers.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

fn arch() -> Result<TargetArch, String> {
    std::env::consts::ARCH.try_into().map_err(|_| {
        format!(
            "Sealing doesn't know this computer's architecture ({}).",
            std::env::consts::ARCH
        )
    })
}

fn program() -> Result<BpfProgram, String> {
    let unix_only = || -> Result<Vec<SeccompRule>, String> {
        let first_arg_is_unix = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            libc::AF_UNIX as u64,
        )
        .map_err(|e| e.to_string())?;
        Ok(vec![
            SeccompRule::new(vec![first_arg_is_unix]).map_err(|e| e.to_string())?
        ])
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, unix_only()?);
    rules.insert(libc::SYS_io_uring_setup, vec![]);
    rules.insert(libc::SYS_io_uring_enter, vec![]);
    rules.insert(libc::SYS_io_uring_register, vec![]);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch()?,
    )
    .map_err(|e| e.to_string())?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())
}

/// The compiled filter as bubblewrap reads it from `--seccomp FD`: the
/// `sock_filter` array in native byte order.
pub fn filter_bytes() -> Result<Vec<u8>, String> {
    let program = program()?;
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for f in &program {
        bytes.extend_from_slice(&f.code.to_ne_bytes());
        bytes.push(f.jt);
        bytes.push(f.jf);
        bytes.extend_from_slice(&f.k.to_ne_bytes());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    #[test]
    fn compiles_to_whole_instructions() {
        let bytes = super::filter_bytes().unwrap();
        assert!(!bytes.is_empty());
        assert_eq!(bytes.len() % 8, 0);
    }
}
