//! What of the owner's would go to someone else in a chat that answers
//! them: the owner's files, their memories, their apps' reads, and local
//! or private-network addresses (a router's page, a cloud machine's
//! metadata address, a service on this computer). Decided from the call
//! alone, no IO: an address by its host as a browser reads it (IPv4 in any
//! of the spellings URL parsers accept: `127.1`, `0x7f000001`,
//! `2130706433`, `0177.0.0.1`; IPv6 with IPv4 inside it).
//!
//! Known limit: a public name that resolves to a private address (DNS
//! rebinding) isn't known from the name.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use protocol::{Action, BrowserOp};

/// What a call would read of the owner's, in words for the question; None
/// when it reads nothing of theirs.
pub fn private_read(action: &Action) -> Option<&'static str> {
    match action {
        Action::LookAround { .. } => Some("your files"),
        Action::Memory {
            op: protocol::MemoryOp::Recall,
            ..
        } => Some("what you asked it to remember"),
        Action::Integration {
            read_only: true, ..
        } => Some("what your app holds"),
        // The host as the fetch tool's URL parser read it, and the address
        // as written: either one local is enough.
        Action::PageRead { url, host } | Action::FetchSends { url, host }
            if local(url) || local_host(host) =>
        {
            Some("a page on this computer or your network")
        }
        Action::Browser(b) if b.op == BrowserOp::Open && local(&b.url) => {
            Some("a page on this computer or your network")
        }
        _ => None,
    }
}

/// Whether `url`'s host is this computer or a private network.
pub fn local(url: &str) -> bool {
    host_of(url).is_some_and(|h| local_host(&h))
}

/// Whether `host` (a name or an address, IPv6 in brackets or not) is this
/// computer or a private network.
pub fn local_host(host: &str) -> bool {
    if host.is_empty() {
        return false;
    }
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return inner
            .parse::<Ipv6Addr>()
            .is_ok_and(|ip| private_ip(IpAddr::V6(ip)));
    }
    if let Some(v4) = ipv4(&host) {
        return private_ip(IpAddr::V4(v4));
    }
    if let Ok(ip) = host.parse::<IpAddr>() {
        return private_ip(ip);
    }
    // Names only a local network answers, and single-label names.
    host == "localhost"
        || !host.contains('.')
        || [
            ".localhost",
            ".local",
            ".internal",
            ".lan",
            ".home.arpa",
            ".intranet",
            ".corp",
        ]
        .iter()
        .any(|s| host.ends_with(s))
}

/// The host of an address, as a URL parser finds it (after any
/// `user:pass@`, before the port).
fn host_of(url: &str) -> Option<String> {
    // As the URL standard reads it: tabs and line breaks anywhere dropped,
    // and `\` a path's start like `/`.
    let url: String = url
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let url = url.trim_matches(|c: char| c <= ' ');
    let rest = match url.split_once(':') {
        Some((scheme, r))
            if !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                && r.starts_with(['/', '\\']) =>
        {
            r
        }
        _ => url,
    };
    let rest = rest.trim_start_matches(['/', '\\']);
    let authority = rest.split(['/', '?', '#', '\\']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if authority.starts_with('[') {
        authority.split_once(']').map(|(h, _)| format!("{h}]"))?
    } else {
        authority
            .rsplit_once(':')
            .map_or(authority, |(h, _)| h)
            .to_owned()
    };
    let host = percent_decoded(&host);
    (!host.is_empty()).then_some(host)
}

fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// IPv4 as the URL standard reads a host made of numbers: one to four
/// parts, each decimal, `0x` hex or leading-`0` octal, the last filling
/// the bytes left.
fn ipv4(host: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = host.split('.').collect();
    let parts = match parts.split_last() {
        Some((&"", rest)) => rest.to_vec(),
        _ => parts,
    };
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut nums = Vec::with_capacity(4);
    for p in &parts {
        let n = if let Some(hex) = p.strip_prefix("0x").or_else(|| p.strip_prefix("0X")) {
            if hex.is_empty() {
                0
            } else {
                u64::from_str_radix(hex, 16).ok()?
            }
        } else if p.len() > 1 && p.starts_with('0') {
            u64::from_str_radix(&p[1..], 8).ok()?
        } else {
            p.parse::<u64>().ok()?
        };
        nums.push(n);
    }
    let (last, first) = nums.split_last()?;
    if first.iter().any(|n| *n > 255) {
        return None;
    }
    let room = 8 * (4 - first.len() as u32);
    if *last >= 1u64 << room {
        return None;
    }
    let mut value: u64 = *last;
    for (i, n) in first.iter().enumerate() {
        value |= n << (8 * (3 - i as u32));
    }
    Some(Ipv4Addr::from(u32::try_from(value).ok()?))
}

fn private_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || o[0] == 0
                || (o[0] == 100 && (64..128).contains(&o[1]))
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped().or_else(|| {
                let s = v6.segments();
                (s[..6] == [0, 0, 0, 0, 0, 0] && !v6.is_loopback() && !v6.is_unspecified())
                    .then(|| v6.to_ipv4().unwrap_or(Ipv4Addr::UNSPECIFIED))
            }) {
                return private_ip(IpAddr::V4(v4));
            }
            let s0 = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || (s0 & 0xfe00) == 0xfc00
                || (s0 & 0xffc0) == 0xfe80
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_computer_and_private_networks_in_every_spelling() {
        for url in [
            "http://127.0.0.1/latest/meta-data",
            "http://169.254.169.254/latest/meta-data/",
            "http://127.1:8080/",
            "http://0x7f000001/",
            "http://2130706433/",
            "http://0177.0.0.1/",
            "http://0/",
            "http://[::1]:3000/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[fd12:3456::1]/",
            "http://[fe80::1]/",
            "http://user:pw@10.0.0.5/admin",
            "http://192.168.1.1/",
            "http://172.20.0.1/",
            "http://100.100.100.200/",
            "http://localhost/",
            "http://LOCALHOST./",
            "http://api.localhost/",
            "http://printer.local/",
            "http://router/",
            "http://metadata.google.internal/",
            "http://%31%32%37.0.0.1/",
            "127.0.0.1:9000/x",
            "http://127.0.0.1\\@evil.example/",
            "http://127.0.\t0.1/",
            "http://127.0.0.1\n/",
            "HTTP:///127.0.0.1/",
            "http:\\\\127.0.0.1\\x",
        ] {
            assert!(local(url), "{url}");
        }
        for url in [
            "https://example.com/",
            "https://8.8.8.8/",
            "http://[2001:db8::1]/",
            "https://docs.rs/tokio",
            "https://127.0.0.1.nip.example/",
            "http://172.32.0.1/",
            "https://user@example.org:8443/a?b=c",
        ] {
            assert!(!local(url), "{url}");
        }
    }

    /// Every IPv4 address, written in each of the URL standard's spellings,
    /// is judged as its dotted form is (a generator over a spread of
    /// addresses).
    #[test]
    fn every_ipv4_spelling_is_judged_as_the_address() {
        let mut x: u32 = 0x9e37_79b9;
        for _ in 0..4000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            // Lean on the ranges that matter.
            let v = match x % 4 {
                0 => 0x7f00_0000 | (x >> 8),
                1 => 0x0a00_0000 | (x >> 8),
                2 => 0xc0a8_0000 | (x >> 16),
                _ => x,
            };
            let ip = Ipv4Addr::from(v);
            let want = private_ip(IpAddr::V4(ip));
            let o = ip.octets();
            for spelled in [
                format!("{ip}"),
                format!("{v}"),
                format!("0x{v:x}"),
                format!("{}.{}", o[0], v & 0xff_ffff),
                format!("{}.{}.{}", o[0], o[1], v & 0xffff),
                format!("0{:o}.{}.{}.{}", o[0], o[1], o[2], o[3]),
                format!("0x{:x}.0x{:x}.{}.{}", o[0], o[1], o[2], o[3]),
            ] {
                assert_eq!(
                    local(&format!("http://{spelled}/x")),
                    want,
                    "{spelled} ({ip})"
                );
            }
        }
    }
}
