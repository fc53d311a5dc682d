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
//!
//! One call is let through unwatched: the `sendmsg` that hands the filter's
//! own listener back to Conch, made between fork and exec, before anyone
//! is listening. It is named by its descriptor and the exact address of its
//! message on that process's stack, filled in by the child itself
//! ([`Program::exempt`]); after exec no program can name both.

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
/// `args[n]`, low and high halves (little-endian machines only).
const fn arg_lo(n: u32) -> u32 {
    16 + 8 * n
}
const fn arg_hi(n: u32) -> u32 {
    arg_lo(n) + 4
}
const X32_BIT: u32 = 0x4000_0000;

/// The most instructions the program has (it is copied onto the child's
/// stack, where nothing can be allocated).
pub const MAX: usize = 32;

/// The program, with the places the child fills in for the one `sendmsg`
/// it lets through.
#[derive(Debug, Clone, Copy)]
pub struct Program {
    pub code: [libc::sock_filter; MAX],
    pub len: usize,
    fd_at: usize,
    msg_lo_at: usize,
    msg_hi_at: usize,
}

impl Program {
    /// Lets through `sendmsg(fd, msg, …)` with exactly this descriptor and
    /// message address.
    pub fn exempt(&mut self, fd: i32, msg: u64) {
        self.code[self.fd_at].k = fd as u32;
        self.code[self.msg_lo_at].k = msg as u32;
        self.code[self.msg_hi_at].k = (msg >> 32) as u32;
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Label {
    Allow,
    Notify,
    NoX32,
    AddressArg,
    SendmsgArgs,
}

enum Ins {
    Load(u32),
    /// If the accumulator equals k, go to `yes`, else `no` (None: the next).
    Eq(u32, Option<Label>, Option<Label>),
    Ge(u32, Label),
    Ret(u32),
    Here(Label),
}

/// The program, or `None` on a machine it isn't built for.
pub fn program() -> Option<Program> {
    use Ins::*;
    use Label::*;
    let arch = arch()?;
    let nr = |n: libc::c_long| n as u32;
    let listing = [
        Load(ARCH),
        Eq(arch, None, Some(Allow)),
        Load(NR),
        Ge(X32_BIT, NoX32),
        Eq(nr(libc::SYS_connect), Some(Notify), None),
        Eq(nr(libc::SYS_sendmsg), Some(SendmsgArgs), None),
        Eq(nr(libc::SYS_sendmmsg), Some(Notify), None),
        Eq(nr(libc::SYS_sendto), Some(AddressArg), None),
        Eq(nr(libc::SYS_recvfrom), Some(AddressArg), None),
        Ret(libc::SECCOMP_RET_ALLOW),
        // sendto/recvfrom: only with an address (args[4] not null).
        Here(AddressArg),
        Load(arg_lo(4)),
        Eq(0, None, Some(Notify)),
        Load(arg_hi(4)),
        Eq(0, Some(Allow), Some(Notify)),
        // sendmsg: watched, unless it is the listener's own hand-over.
        Here(SendmsgArgs),
        Load(arg_lo(0)),
        Eq(u32::MAX, None, Some(Notify)),
        Load(arg_lo(1)),
        Eq(u32::MAX, None, Some(Notify)),
        Load(arg_hi(1)),
        Eq(u32::MAX, Some(Allow), Some(Notify)),
        Here(Allow),
        Ret(libc::SECCOMP_RET_ALLOW),
        Here(Notify),
        Ret(libc::SECCOMP_RET_USER_NOTIF),
        Here(NoX32),
        Ret(libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
    ];
    // Where each label lands, counting real instructions only.
    let mut at = Vec::new();
    let mut n = 0usize;
    for i in &listing {
        match i {
            Here(l) => at.push((*l, n)),
            _ => n += 1,
        }
    }
    let target = |l: Label| at.iter().find(|(x, _)| *x == l).map(|(_, i)| *i);
    let mut code = [libc::sock_filter {
        code: 0,
        jt: 0,
        jf: 0,
        k: 0,
    }; MAX];
    let mut len = 0usize;
    let mut patch = Vec::new();
    for i in &listing {
        let jump = |to: Option<Label>| -> Option<u8> {
            match to {
                None => Some(0),
                Some(l) => u8::try_from(target(l)?.checked_sub(len + 1)?).ok(),
            }
        };
        let ins = match i {
            Here(_) => continue,
            Load(k) => libc::sock_filter {
                code: LD_ABS,
                jt: 0,
                jf: 0,
                k: *k,
            },
            Eq(k, yes, no) => {
                if *k == u32::MAX {
                    patch.push(len);
                }
                libc::sock_filter {
                    code: JEQ,
                    jt: jump(*yes)?,
                    jf: jump(*no)?,
                    k: *k,
                }
            }
            Ge(k, to) => libc::sock_filter {
                code: JGE,
                jt: jump(Some(*to))?,
                jf: 0,
                k: *k,
            },
            Ret(k) => libc::sock_filter {
                code: RET,
                jt: 0,
                jf: 0,
                k: *k,
            },
        };
        *code.get_mut(len)? = ins;
        len += 1;
    }
    let [fd_at, msg_lo_at, msg_hi_at] = patch.as_slice() else {
        return None;
    };
    Some(Program {
        code,
        len,
        fd_at: *fd_at,
        msg_lo_at: *msg_lo_at,
        msg_hi_at: *msg_hi_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the program over one call, as the kernel would.
    fn run(prog: &Program, data: &[u8; 64]) -> u32 {
        let word =
            |at: u32| u32::from_ne_bytes(data[at as usize..at as usize + 4].try_into().unwrap());
        let mut acc = 0u32;
        let mut pc = 0usize;
        loop {
            assert!(pc < prog.len, "ran off the end");
            let i = prog.code[pc];
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

    fn call(nr: libc::c_long, args: [u64; 6], arch: u32) -> [u8; 64] {
        let mut d = [0u8; 64];
        d[0..4].copy_from_slice(&(nr as u32).to_ne_bytes());
        d[4..8].copy_from_slice(&arch.to_ne_bytes());
        for (i, a) in args.iter().enumerate() {
            d[16 + 8 * i..24 + 8 * i].copy_from_slice(&a.to_ne_bytes());
        }
        d
    }

    fn arg4(v: u64) -> [u64; 6] {
        [3, 0x1000, 10, 0, v, 16]
    }

    #[test]
    fn network_calls_with_an_address_are_handed_over_and_nothing_else() {
        let Some(mut prog) = program() else { return };
        prog.exempt(9, 0x7ffd_1234_5678);
        let a = arch().unwrap();
        let notify = libc::SECCOMP_RET_USER_NOTIF;
        let allow = libc::SECCOMP_RET_ALLOW;
        assert_eq!(run(&prog, &call(libc::SYS_connect, arg4(0), a)), notify);
        assert_eq!(run(&prog, &call(libc::SYS_sendmmsg, arg4(0), a)), notify);
        for address in [0x7fff_0000_1000, 0x1000, 0x7f00_0000_0000] {
            assert_eq!(
                run(&prog, &call(libc::SYS_sendto, arg4(address), a)),
                notify
            );
            assert_eq!(
                run(&prog, &call(libc::SYS_recvfrom, arg4(address), a)),
                notify
            );
        }
        assert_eq!(run(&prog, &call(libc::SYS_sendto, arg4(0), a)), allow);
        assert_eq!(run(&prog, &call(libc::SYS_recvfrom, arg4(0), a)), allow);
        assert_eq!(run(&prog, &call(libc::SYS_read, arg4(0x1000), a)), allow);
        assert_eq!(run(&prog, &call(libc::SYS_write, arg4(0), a)), allow);
        assert_eq!(
            run(&prog, &call(0x4000_0000 + 42, arg4(0), a)),
            libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32
        );
        // Another architecture's calls aren't this filter's to judge (the
        // unix-socket filter refuses them).
        assert_eq!(
            run(&prog, &call(libc::SYS_connect, arg4(0), 0x4000_0003)),
            allow
        );
    }

    #[test]
    fn only_the_listeners_own_hand_over_passes_unwatched() {
        let Some(mut prog) = program() else { return };
        let msg = 0x7ffd_1234_5678u64;
        prog.exempt(9, msg);
        let a = arch().unwrap();
        let sendmsg = |fd: u64, m: u64| call(libc::SYS_sendmsg, [fd, m, 0, 0, 0, 0], a);
        assert_eq!(run(&prog, &sendmsg(9, msg)), libc::SECCOMP_RET_ALLOW);
        // (The descriptor is an int: the kernel reads only its low half.)
        for (fd, m) in [
            (9, msg + 8),
            (8, msg),
            (9, msg & 0xFFFF_FFFF),
            (9, msg | 1 << 50),
        ] {
            assert_eq!(
                run(&prog, &sendmsg(fd, m)),
                libc::SECCOMP_RET_USER_NOTIF,
                "fd {fd:#x} msg {m:#x}"
            );
        }
    }
}
