//! Real bubblewrap: the box sees the network a command used, whatever
//! program made the connection and however its address was spelled.
//!
//! A download has to reach somewhere that isn't this computer, and a test
//! may reach nothing but this computer. So the download tests run in a
//! network namespace of their own (`unshare --user --net --mount`, this test
//! binary re-run inside it): there, `192.0.2.10` (a documentation address)
//! sits on the namespace's own loopback device, which is all the namespace
//! has, a name server on 127.0.0.1:53 answers `files.example` with it, and
//! `/etc/resolv.conf` names that server (bound over it in the namespace's
//! own mounts). Nothing leaves the namespace, and the box runs with exactly
//! the rules it has everywhere: no setting counts loopback as the network
//! for the test's sake.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, UdpSocket};
use std::process::Command;

mod common;
use common::{text, World};

const INSIDE: &str = "CONCH_SEAL_NETNS";
const FILES: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 10);
const BODY: &str = "downloaded-body-\u{e9}\n";

/// Re-runs `test` inside a fresh user, network and mount namespace; fails
/// with what it printed if it fails there.
fn in_own_network(test: &str) {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--net", "--mount", "--"])
        .arg(&exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(INSIDE, "1")
        .output()
        .expect("unshare (util-linux) runs");
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "inside its own network:\n{said}");
    assert!(said.contains("1 passed"), "the test didn't run inside:\n{said}");
}

/// Inside the namespace: loopback up, the documentation address on it, a
/// name server on 127.0.0.1:53 and resolv.conf naming it, a web server on
/// the address.
fn network_of_our_own(w: &World) {
    for args in [
        vec!["link", "set", "lo", "up"],
        vec!["addr", "add", "192.0.2.10/32", "dev", "lo"],
    ] {
        let st = Command::new("ip").args(&args).status().expect("ip (iproute2) runs");
        assert!(st.success(), "ip {args:?}");
    }
    let resolv = w.root.join("resolv.conf");
    std::fs::write(&resolv, "nameserver 127.0.0.1\noptions attempts:1 timeout:2\n").unwrap();
    let src = std::ffi::CString::new(resolv.to_str().unwrap()).unwrap();
    let target = std::fs::canonicalize("/etc/resolv.conf").unwrap_or("/etc/resolv.conf".into());
    let dst = std::ffi::CString::new(target.to_str().unwrap()).unwrap();
    // SAFETY: both paths are valid C strings; a bind mount in this test's
    // own mount namespace.
    let mounted = unsafe {
        libc::mount(src.as_ptr(), dst.as_ptr(), std::ptr::null(), libc::MS_BIND, std::ptr::null())
    };
    assert_eq!(mounted, 0, "bind resolv.conf: {}", std::io::Error::last_os_error());

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

/// Commands that download from `files.example` through an interpreter, the
/// address put together only when they run.
const DOWNLOADS: &[(&str, &str)] = &[
    (
        "python",
        r#"python3 -c 'import urllib.request as u; h = "files" + "." + "example"; print(u.urlopen("http:" + "/" + "/" + h + "/a.txt").read().decode(), end="")'"#,
    ),
    (
        "node",
        r#"node -e 'const h = ["files", "example"].join("."); require("http").get({host: h, path: "/a.txt"}, r => r.pipe(process.stdout))'"#,
    ),
    (
        "perl",
        r#"perl -MIO::Socket::INET -e '$h = join(".", "files", "example"); $s = IO::Socket::INET->new(PeerAddr => $h, PeerPort => 80) or die "no: $!"; print $s "GET /a.txt HTTP/1.0\r\nHost: $h\r\n\r\n"; local $/; $r = <$s>; $r =~ s/.*?\r\n\r\n//s; print $r'"#,
    ),
    (
        "bash's /dev/tcp, by address",
        r#"a=192; exec 3<>/dev/tcp/$a.0.2.10/80; printf 'GET / HTTP/1.0\r\n\r\n' >&3; sed '1,/^\r$/d' <&3"#,
    ),
];

#[test]
fn downloads_through_interpreters_name_the_host() {
    if std::env::var_os(INSIDE).is_none() {
        return in_own_network("downloads_through_interpreters_name_the_host");
    }
    let w = World::new();
    network_of_our_own(&w);
    for (how, command) in DOWNLOADS {
        let (out, seen) = w.run_seen(&w.work, command);
        let said = text(&out.stdout);
        assert!(said.contains(BODY.trim()), "{how}: didn't download: {said}{}", text(&out.stderr));
        assert!(seen.observed, "{how}: not observed");
        let want = if how.contains("by address") { "192.0.2.10" } else { "files.example" };
        assert_eq!(seen.hosts, [want], "{how}");
    }
}

#[test]
fn reading_local_files_and_asking_dns_reach_nothing() {
    if std::env::var_os(INSIDE).is_none() {
        return in_own_network("reading_local_files_and_asking_dns_reach_nothing");
    }
    let w = World::new();
    network_of_our_own(&w);
    std::fs::write(w.work.join("notes.txt"), "local words\n").unwrap();
    // A server on this computer's loopback: reaching it isn't a download.
    let here = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = here.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in here.incoming().flatten() {
            let mut s = s;
            let mut buf = [0u8; 2048];
            let _ = s.read(&mut buf);
            let _ = s.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 6\r\n\r\nlocal\n");
        }
    });
    for command in [
        "cat notes.txt && ls -la && head -c 100 /etc/os-release".to_owned(),
        "python3 -c 'print(open(\"notes.txt\").read())'".to_owned(),
        // A lookup alone (and the connects glibc makes to sort what it got).
        "getent hosts files.example && python3 -c 'import socket; print(socket.getaddrinfo(\"files.example\", 80))'".to_owned(),
        format!("python3 -c 'import urllib.request as u; print(u.urlopen(\"http://127.0.0.1:{port}/\").read())'"),
        format!("node -e 'require(\"http\").get(\"http://localhost:{port}/\", r => r.pipe(process.stdout))'"),
    ] {
        let (out, seen) = w.run_seen(&w.work, &command);
        assert!(out.status.success(), "{command}: {}", text(&out.stderr));
        assert!(seen.observed, "{command}: not observed");
        assert!(seen.hosts.is_empty(), "{command} reached {:?}", seen.hosts);
    }
}
