//! Real bubblewrap: the box sees the network a command used, whatever
//! program made the connection and however its address was spelled.
//!
//! A download has to reach somewhere that isn't this computer, and a test
//! may reach nothing but this computer. So these tests run in a network of
//! their own (see common/netns.rs): `files.example` is `192.0.2.10` there,
//! on the namespace's own loopback device, which is all it has. The box
//! runs with exactly the rules it has everywhere: no setting counts
//! loopback as the network for the test's sake.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::io::{Read, Write};
use std::net::TcpListener;

mod common;
use common::netns::{in_own_network, inside, network_of_our_own, BODY};
use common::{text, World};

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
    if !inside() {
        return in_own_network("downloads_through_interpreters_name_the_host");
    }
    let w = World::new();
    network_of_our_own(&w.root);
    for (how, command) in DOWNLOADS {
        let (out, seen) = w.run_seen(&w.work, command);
        let said = text(&out.stdout);
        assert!(
            said.contains(BODY.trim()),
            "{how}: didn't download: {said}{}",
            text(&out.stderr)
        );
        assert!(seen.observed, "{how}: not observed");
        let want = if how.contains("by address") {
            "192.0.2.10"
        } else {
            "files.example"
        };
        assert_eq!(seen.hosts, [want], "{how}");
    }
}

#[test]
fn reading_local_files_and_asking_dns_reach_nothing() {
    if !inside() {
        return in_own_network("reading_local_files_and_asking_dns_reach_nothing");
    }
    let w = World::new();
    network_of_our_own(&w.root);
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
