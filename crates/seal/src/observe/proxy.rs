//! A proxy on this computer that the box's environment names. A connection
//! to `127.0.0.1` stays here, so by itself it is no download; but through
//! `HTTP_PROXY=http://127.0.0.1:3128` every `curl`, `pip` and `npm`
//! download is a connection to exactly there. So a connection to a proxy
//! the box's variables name counts as reaching the network, "through the
//! proxy at 127.0.0.1:3128" (the site behind it is in the request, which
//! the box doesn't read). Pure: the variables in, the addresses out.

use std::ffi::OsString;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The variables programs read their proxy from, upper or lower case:
/// curl, wget, git, Python and Go (`*_PROXY`), npm (`npm_config_*`), pip,
/// yarn.
const NAMES: &[&str] = &[
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "FTP_PROXY",
    "NPM_CONFIG_PROXY",
    "NPM_CONFIG_HTTPS_PROXY",
    "PIP_PROXY",
    "YARN_HTTP_PROXY",
    "YARN_HTTPS_PROXY",
];

/// The addresses on this computer the variables name as proxies.
pub fn local_proxies(env: &[(OsString, OsString)]) -> Vec<SocketAddr> {
    let mut out = Vec::new();
    for (name, value) in env {
        let Some(name) = name.to_str() else { continue };
        if !NAMES.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            continue;
        }
        let Some(value) = value.to_str() else {
            continue;
        };
        for addr in parse(value) {
            if !out.contains(&addr) {
                out.push(addr);
            }
        }
    }
    out
}

/// `http://user:pass@127.0.0.1:3128/`, `socks5h://localhost:1080`,
/// `127.0.0.1:3128`, `[::1]:8080`: the loopback addresses it names.
fn parse(value: &str) -> Vec<SocketAddr> {
    let value = value.trim();
    let (scheme, rest) = match value.split_once("://") {
        Some((s, r)) => (s.to_ascii_lowercase(), r),
        None => ("http".to_owned(), value),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(rest) = host_port.strip_prefix('[') {
        let Some((host, after)) = rest.split_once(']') else {
            return Vec::new();
        };
        (host, after.strip_prefix(':'))
    } else {
        match host_port.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        }
    };
    let port = match port.map(str::parse::<u16>) {
        Some(Ok(p)) => p,
        Some(Err(_)) => return Vec::new(),
        None => match scheme.as_str() {
            "https" => 443,
            s if s.starts_with("socks") => 1080,
            _ => 80,
        },
    };
    let ips: Vec<IpAddr> = if host.eq_ignore_ascii_case("localhost") {
        vec![
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(Ipv6Addr::LOCALHOST),
        ]
    } else {
        match host.parse::<IpAddr>() {
            Ok(ip) if ip.is_loopback() || ip.is_unspecified() => vec![ip],
            _ => Vec::new(),
        }
    };
    ips.into_iter()
        .map(|ip| SocketAddr::new(ip, port))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(n, v)| ((*n).into(), (*v).into()))
            .collect()
    }

    #[test]
    fn every_spelling_of_a_local_proxy() {
        let at = |s: &str| s.parse::<SocketAddr>().unwrap();
        let cases = [
            (
                "HTTP_PROXY",
                "http://127.0.0.1:3128",
                vec![at("127.0.0.1:3128")],
            ),
            (
                "http_proxy",
                "http://127.0.0.1:3128/",
                vec![at("127.0.0.1:3128")],
            ),
            (
                "HTTPS_PROXY",
                "http://ünï:pässword@127.0.0.1:3129",
                vec![at("127.0.0.1:3129")],
            ),
            (
                "all_proxy",
                "socks5h://localhost",
                vec![at("127.0.0.1:1080"), at("[::1]:1080")],
            ),
            ("ALL_PROXY", "127.0.0.1:8888", vec![at("127.0.0.1:8888")]),
            (
                "npm_config_proxy",
                "http://[::1]:8080",
                vec![at("[::1]:8080")],
            ),
            (
                "NPM_CONFIG_HTTPS_PROXY",
                "https://127.0.0.1",
                vec![at("127.0.0.1:443")],
            ),
            (
                "PIP_PROXY",
                "http://127.0.0.2:3128",
                vec![at("127.0.0.2:3128")],
            ),
            (
                "yarn_https_proxy",
                "http://localhost:9/",
                vec![at("127.0.0.1:9"), at("[::1]:9")],
            ),
        ];
        for (name, value, want) in cases {
            assert_eq!(
                local_proxies(&env(&[(name, value)])),
                want,
                "{name}={value}"
            );
        }
        // A proxy elsewhere is already the network; other variables aren't proxies.
        for (name, value) in [
            ("HTTP_PROXY", "http://proxy.corp:3128"),
            ("HTTP_PROXY", "http://10.0.0.1:3128"),
            ("NO_PROXY", "127.0.0.1"),
            ("DATABASE_URL", "postgres://127.0.0.1:5432/db"),
            ("HTTP_PROXY", "http://127.0.0.1:notaport"),
        ] {
            assert!(
                local_proxies(&env(&[(name, value)])).is_empty(),
                "{name}={value}"
            );
        }
    }
}
