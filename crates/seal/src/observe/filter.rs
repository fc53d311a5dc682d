//! The seccomp filter that hands a box's network calls to Conch to look at:
//! `connect`, `sendmsg`, `sendmmsg`, and `sendto`/`recvfrom` when they carry
//! an address (a plain `send` or `recv` on a connected socket is
//! `sendto`/`recvfrom` with none, and passes untouched, so a download's
//! reads cost nothing). Everything else is allowed at once.
//!
//! Built by hand: seccompiler has no user-notification action. x32 system
//! calls (a second numbering on x86-64 that no distribution's programs
//! use) fail, so neither this filter nor the unix-socket one can be walked
//! around through them.

/// `AUDIT_ARCH_*` for this computer, as the kernel reports it in
/// `seccomp_data.arch`; `None` where observation isn't built.
pub fn arch() -> Option<u32> {
    match std::env::consts::ARCH {
        "x86_64" => Some(0xC000_003E),
        "aarch64" => Some(0xC000_00B7),
        _ => None,
    }
}

const LD_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET: u16 = 0x06; // BPF_RET | BPF_K

const NR: u32 = 0;
const ARCH: u32 = 4;
/// `args[4]`, low and high halves (little-endian machines only).
const ARG4_LO: u32 = 16 + 4 * 8;
const ARG4_HI: u32 = ARG4_LO + 4;
const X32_BIT: u32 = 0x4000_0000;

fn ins(code: u16, jt: u8, jf: u8, k: u32) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// The program, or `None` on a machine it isn't built for.
pub fn program() -> Option<Vec<libc::sock_filter>> {
    let arch = arch()?;
    let allow = libc::SECCOMP_RET_ALLOW;
    let notify = libc::SECCOMP_RET_USER_NOTIF;
    let no_x32 = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
    let nr = |n: libc::c_long| n as u32;
    // Jumps count instructions from the next one; the indexes are in the
    // comments.
    Some(vec![
        /* 0 */ ins(LD_ABS, 0, 0, ARCH),
        /* 1 */ ins(JEQ, 1, 0, arch),
        /* 2 */ ins(RET, 0, 0, allow),
        /* 3 */ ins(LD_ABS, 0, 0, NR),
        /* 4 */ ins(JGE, 12, 0, X32_BIT), // → 17
        /* 5 */ ins(JEQ, 10, 0, nr(libc::SYS_connect)), // → 16
        /* 6 */ ins(JEQ, 9, 0, nr(libc::SYS_sendmsg)),
        /* 7 */ ins(JEQ, 8, 0, nr(libc::SYS_sendmmsg)),
        /* 8 */ ins(JEQ, 2, 0, nr(libc::SYS_sendto)), // → 11
        /* 9 */ ins(JEQ, 1, 0, nr(libc::SYS_recvfrom)), // → 11
        /* 10 */ ins(RET, 0, 0, allow),
        /* 11 */ ins(LD_ABS, 0, 0, ARG4_LO),
        /* 12 */ ins(JEQ, 0, 3, 0), // address low half set → 16
        /* 13 */ ins(LD_ABS, 0, 0, ARG4_HI),
        /* 14 */ ins(JEQ, 0, 1, 0), // high half set → 16
        /* 15 */ ins(RET, 0, 0, allow),
        /* 16 */ ins(RET, 0, 0, notify),
        /* 17 */ ins(RET, 0, 0, no_x32),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the program over one call, as the kernel would.
    fn run(prog: &[libc::sock_filter], data: &[u8; 64]) -> u32 {
        let word = |at: u32| u32::from_ne_bytes(data[at as usize..at as usize + 4].try_into().unwrap());
        let mut acc = 0u32;
        let mut pc = 0usize;
        loop {
            let i = prog[pc];
            match i.code {
                LD_ABS => {
                    acc = word(i.k);
                    pc += 1;
                }
                JEQ => pc += 1 + if acc == i.k { i.jt } else { i.jf } as usize,
                JGE => pc += 1 + if acc >= i.k { i.jt } else { i.jf } as usize,
                RET => return i.k,
                other => panic!("unknown instruction {other:#x}"),
            }
        }
    }

    fn call(nr: libc::c_long, arg4: u64, arch: u32) -> [u8; 64] {
        let mut d = [0u8; 64];
        d[0..4].copy_from_slice(&(nr as u32).to_ne_bytes());
        d[4..8].copy_from_slice(&arch.to_ne_bytes());
        d[48..56].copy_from_slice(&arg4.to_ne_bytes());
        d
    }

    #[test]
    fn network_calls_with_an_address_are_handed_over_and_nothing_else() {
        let Some(prog) = program() else { return };
        let a = arch().unwrap();
        let notify = libc::SECCOMP_RET_USER_NOTIF;
        let allow = libc::SECCOMP_RET_ALLOW;
        assert_eq!(run(&prog, &call(libc::SYS_connect, 0, a)), notify);
        assert_eq!(run(&prog, &call(libc::SYS_sendmsg, 0, a)), notify);
        assert_eq!(run(&prog, &call(libc::SYS_sendmmsg, 0, a)), notify);
        assert_eq!(run(&prog, &call(libc::SYS_sendto, 0x7fff_0000_1000, a)), notify);
        assert_eq!(run(&prog, &call(libc::SYS_sendto, 0x1000, a)), notify);
        assert_eq!(run(&prog, &call(libc::SYS_sendto, 0x7f00_0000_0000, a)), notify);
        assert_eq!(run(&prog, &call(libc::SYS_recvfrom, 0x1000, a)), notify);
        assert_eq!(run(&prog, &call(libc::SYS_sendto, 0, a)), allow);
        assert_eq!(run(&prog, &call(libc::SYS_recvfrom, 0, a)), allow);
        assert_eq!(run(&prog, &call(libc::SYS_read, 0x1000, a)), allow);
        assert_eq!(run(&prog, &call(libc::SYS_write, 0, a)), allow);
        assert_eq!(
            run(&prog, &call(0x4000_0000 + 42, 0, a)),
            libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32
        );
        // Another architecture's calls aren't this filter's to judge.
        assert_eq!(run(&prog, &call(libc::SYS_connect, 0, 0x4000_0003)), allow);
    }
}
