//! Addresses a box's calls name, read from their raw `sockaddr` bytes, and
//! which of them reach the network. Pure.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// An internet address and port from a `sockaddr_in`/`sockaddr_in6` as it
/// sits in memory; `None` for every other family (unix sockets are refused
/// by the box anyway, netlink talks to the kernel).
pub fn parse(bytes: &[u8]) -> Option<SocketAddr> {
    let family = u16::from_ne_bytes(bytes.get(0..2)?.try_into().ok()?);
    let port = u16::from_be_bytes(bytes.get(2..4)?.try_into().ok()?);
    match i32::from(family) {
        libc::AF_INET => {
            let ip: [u8; 4] = bytes.get(4..8)?.try_into().ok()?;
            Some(SocketAddr::new(IpAddr::V4(Ipv4Addr::from(ip)), port))
        }
        libc::AF_INET6 => {
            let ip: [u8; 16] = bytes.get(8..24)?.try_into().ok()?;
            Some(SocketAddr::new(IpAddr::V6(Ipv6Addr::from(ip)), port))
        }
        _ => None,
    }
}

/// The address as IPv4 when it is an IPv4 address mapped into IPv6.
pub fn plain(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// Whether reaching `ip` stays on this computer or this link's own chatter:
/// loopback, the unspecified address (which connects to this computer),
/// multicast and broadcast.
pub fn stays_here(ip: IpAddr) -> bool {
    match plain(ip) {
        IpAddr::V4(v4) => {
            v4.is_loopback() || v4.is_unspecified() || v4.is_multicast() || v4.is_broadcast()
        }
        IpAddr::V6(v6) => v6.is_loopback() || v6.is_unspecified() || v6.is_multicast(),
    }
}

/// DNS: asking a name server isn't a download.
pub const DNS_PORT: u16 = 53;

/// Whether a call to `to` is the command reaching the network: anywhere
/// but this computer, and not a name lookup.
pub fn reaches_out(to: SocketAddr) -> bool {
    to.port() != DNS_PORT && !stays_here(to.ip())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(ip: [u8; 4], port: u16) -> Vec<u8> {
        let mut b = vec![0u8; 16];
        b[0..2].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
        b[2..4].copy_from_slice(&port.to_be_bytes());
        b[4..8].copy_from_slice(&ip);
        b
    }

    fn v6(ip: Ipv6Addr, port: u16) -> Vec<u8> {
        let mut b = vec![0u8; 28];
        b[0..2].copy_from_slice(&(libc::AF_INET6 as u16).to_ne_bytes());
        b[2..4].copy_from_slice(&port.to_be_bytes());
        b[8..24].copy_from_slice(&ip.octets());
        b
    }

    #[test]
    fn what_reaches_out() {
        let out = |b: Vec<u8>| parse(&b).map(reaches_out);
        assert_eq!(out(v4([93, 184, 216, 34], 443)), Some(true));
        assert_eq!(out(v4([192, 0, 2, 7], 80)), Some(true));
        assert_eq!(
            out(v4([10, 0, 0, 2], 8080)),
            Some(true),
            "another machine here is the network"
        );
        assert_eq!(out(v4([127, 0, 0, 1], 8080)), Some(false));
        assert_eq!(out(v4([127, 9, 9, 9], 80)), Some(false));
        assert_eq!(out(v4([0, 0, 0, 0], 80)), Some(false));
        assert_eq!(out(v4([8, 8, 8, 8], 53)), Some(false), "a lookup");
        assert_eq!(out(v4([224, 0, 0, 251], 5353)), Some(false));
        assert_eq!(out(v6(Ipv6Addr::LOCALHOST, 80)), Some(false));
        assert_eq!(
            out(v6(Ipv4Addr::new(127, 0, 0, 1).to_ipv6_mapped(), 80)),
            Some(false)
        );
        assert_eq!(
            out(v6(Ipv4Addr::new(192, 0, 2, 1).to_ipv6_mapped(), 80)),
            Some(true)
        );
        assert_eq!(out(v6("2001:db8::1".parse().unwrap(), 443)), Some(true));
        // Other families and short reads are nobody's address.
        let mut unix = vec![0u8; 110];
        unix[0..2].copy_from_slice(&(libc::AF_UNIX as u16).to_ne_bytes());
        assert_eq!(parse(&unix), None);
        assert_eq!(parse(&v4([1, 2, 3, 4], 80)[..6]), None);
        assert_eq!(parse(&[]), None);
    }
}
