//! Where the running Conch is: the address `conch serve` wrote into
//! `run/serve.lock` while it holds it, as a URL this computer can open.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use conversations::Home;

/// The address Conch serves on when nothing says otherwise.
pub const DEFAULT_URL: &str = "http://127.0.0.1:7777";

/// The URL of the Conch serving this folder now, if one is.
pub fn running(home: &Home) -> Option<String> {
    let written = conversations::running::address(home.root())?;
    let addr: SocketAddr = written.parse().ok()?;
    Some(url_of(addr))
}

/// `http://` and the address, with an address that means "every one" (as
/// `--listen 0.0.0.0:8080 --public` listens) reached on loopback.
pub fn url_of(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}", SocketAddr::new(ip, addr.port()))
}

/// The URL a command talks to: the one it was given (`--url` or
/// `CONCH_URL`), else the running Conch's, else the default.
pub fn choose(given: Option<String>, home: &Home) -> String {
    let url = given
        .filter(|u| !u.trim().is_empty())
        .or_else(|| running(home))
        .unwrap_or_else(|| DEFAULT_URL.to_owned());
    url.trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_address_is_reached_on_loopback() {
        let cases = [
            ("127.0.0.1:7777", "http://127.0.0.1:7777"),
            ("0.0.0.0:8080", "http://127.0.0.1:8080"),
            ("[::]:9000", "http://[::1]:9000"),
            ("[::1]:41234", "http://[::1]:41234"),
            ("192.168.1.5:7777", "http://192.168.1.5:7777"),
        ];
        for (addr, url) in cases {
            assert_eq!(url_of(addr.parse().unwrap()), url, "{addr}");
        }
    }
}
