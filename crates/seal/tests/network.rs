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

/// A tiny HTTP proxy on this computer: answers every request with `body`,
/// and counts the connections it got.
fn local_proxy(body: &'static str) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = write!(
                stream,
                "HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, seen)
}

/// The bug: with `HTTP_PROXY` pointing at a proxy on this computer, every
/// download is a connection to 127.0.0.1, which stays here, so nothing was
/// marked. A connection to a proxy the box's variables name is a download
/// "through the proxy"; the control, a server on this computer that isn't
/// the proxy, is still nothing.
#[test]
fn a_download_through_a_local_proxy_is_a_download() {
    let (port, seen) = local_proxy("through the proxy ünï");
    let (other, _) = local_proxy("just a local server");
    let mut w = World::new();
    w.set_vars(&[("HTTP_PROXY", &format!("http://127.0.0.1:{port}"))]);
    let fetch = |url: &str| {
        format!(
            r#"python3 -c 'import urllib.request as u; print(u.urlopen("{url}").read().decode())'"#
        )
    };
    let (out, net) = w.run_seen(&w.work, &fetch("http://files.example/a.txt"));
    assert!(
        text(&out.stdout).contains("through the proxy ünï"),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(seen.load(std::sync::atomic::Ordering::SeqCst) >= 1);
    assert!(net.observed);
    assert_eq!(
        net.hosts,
        [format!("a site through the proxy at 127.0.0.1:{port}")]
    );
    // The control: python skips the proxy for 127.0.0.1 itself.
    let (out, net) = w.run_seen(
        &w.work,
        &format!(
            "NO_PROXY=127.0.0.1 {}",
            fetch(&format!("http://127.0.0.1:{other}/"))
        ),
    );
    assert!(
        text(&out.stdout).contains("just a local server"),
        "{}",
        text(&out.stderr)
    );
    assert!(net.hosts.is_empty(), "{:?}", net.hosts);
}
