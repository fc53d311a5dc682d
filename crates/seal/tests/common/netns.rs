//! A network of the test's own, for tests that need a download to reach
//! somewhere that isn't this computer while reaching nothing but it: this
//! test binary re-run in its own user, network and mount namespace
//! (`unshare`), where `192.0.2.10` (a documentation address) sits on the
//! namespace's own loopback device, a name server on 127.0.0.1:53 answers
//! `files.example` with it, `/etc/resolv.conf` names that server (bound
//! over it in the namespace's own mounts), and a web server on port 80
//! answers every request with [`BODY`]. Nothing leaves the namespace.
//!
//! Shared by the seal and tools tests (`#[path]`).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, UdpSocket};
use std::path::Path;
use std::process::Command;

pub const INSIDE: &str = "CONCH_TEST_OWN_NETWORK";
pub const FILES: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 10);
pub const BODY: &str = "downloaded-body-\u{e9}\n";

/// Whether this process is the re-run inside.
pub fn inside() -> bool {
    std::env::var_os(INSIDE).is_some()
}

/// Re-runs `test` inside a fresh user, network and mount namespace; fails
/// with what it printed if it fails there.
pub fn in_own_network(test: &str) {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--net", "--mount", "--"])
        .arg(&exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(INSIDE, "1")
        .output()
        .expect("unshare (util-linux) runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "inside its own network:\n{said}");
    assert!(
        said.contains("1 passed"),
        "the test didn't run inside:\n{said}"
    );
}

/// Inside the namespace: loopback up, the documentation address on it, a
/// name server on 127.0.0.1:53 and resolv.conf naming it (written in
/// `scratch`), a web server on the address.
pub fn network_of_our_own(scratch: &Path) {
    for args in [
        vec!["link", "set", "lo", "up"],
        vec!["addr", "add", "192.0.2.10/32", "dev", "lo"],
    ] {
        // `ip` is in /usr/sbin, which a person's PATH may not have.
        let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .unwrap_or("ip");
        let st = Command::new(ip)
            .args(&args)
            .status()
            .expect("ip (iproute2) runs");
        assert!(st.success(), "ip {args:?}");
    }
    let resolv = scratch.join("resolv.conf");
    std::fs::write(
        &resolv,
        "nameserver 127.0.0.1\noptions attempts:1 timeout:2\n",
    )
    .unwrap();
    let src = std::ffi::CString::new(resolv.to_str().unwrap()).unwrap();
    let target = std::fs::canonicalize("/etc/resolv.conf").unwrap_or("/etc/resolv.conf".into());
    let dst = std::ffi::CString::new(target.to_str().unwrap()).unwrap();
    // SAFETY: both paths are valid C strings; a bind mount in this test's
    // own mount namespace.
    let mounted = unsafe {
        libc::mount(
            src.as_ptr(),
            dst.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND,
            std::ptr::null(),
        )
    };
    assert_eq!(
        mounted,
        0,
        "bind resolv.conf: {}",
        std::io::Error::last_os_error()
    );

    let dns = UdpSocket::bind("127.0.0.1:53").unwrap();
    std::thread::spawn(move || {
        let mut buf = [0u8; 512];
        while let Ok((n, from)) = dns.recv_from(&mut buf) {
            let query = &buf[..n];
            let Some((id, name, kind)) = seal::observe::dns::question(query) else {
                continue;
            };
            let ips: Vec<IpAddr> = if name == "files.example" && kind == 1 {
                vec![IpAddr::V4(FILES)]
            } else {
                vec![]
            };
            let _ = dns.send_to(&answer(query, id, &ips), from);
        }
    });
    let web = TcpListener::bind(SocketAddr::new(IpAddr::V4(FILES), 80)).unwrap();
    std::thread::spawn(move || {
        for stream in web.incoming() {
            let Ok(mut s) = stream else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 2048];
                let _ = s.read(&mut buf);
                let reply = format!(
                    "HTTP/1.0 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\r\n{BODY}",
                    BODY.len()
                );
                let _ = s.write_all(reply.as_bytes());
            });
        }
    });
}

/// A response to `query` (its question copied) with `ips` as A records.
fn answer(query: &[u8], id: u16, ips: &[IpAddr]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&id.to_be_bytes());
    b.extend_from_slice(&0x8180u16.to_be_bytes());
    b.extend_from_slice(&1u16.to_be_bytes());
    b.extend_from_slice(&(ips.len() as u16).to_be_bytes());
    b.extend_from_slice(&[0, 0, 0, 0]);
    // The question: from byte 12 to the end of its name, then type and class.
    let mut end = 12;
    while end < query.len() && query[end] != 0 {
        end += 1 + query[end] as usize;
    }
    b.extend_from_slice(&query[12..(end + 5).min(query.len())]);
    for ip in ips {
        if let IpAddr::V4(v4) = ip {
            b.extend_from_slice(&[0xC0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4]);
            b.extend_from_slice(&v4.octets());
        }
    }
    b
}
