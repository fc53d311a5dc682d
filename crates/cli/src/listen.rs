//! Where `conch serve` listens, and the refusal to go beyond this computer
//! unless told.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

pub const DEFAULT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 7777);

/// `127.0.0.1:7777`, `[::1]:7777`, `localhost:7777`, or a bare port.
pub fn parse(text: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::new(DEFAULT.ip(), port));
    }
    if let Some(port) = text.strip_prefix("localhost:") {
        if let Ok(port) = port.parse::<u16>() {
            return Ok(SocketAddr::new(DEFAULT.ip(), port));
        }
    }
    Err(format!(
        "\"{text}\" isn't an address to listen on. Use one like 127.0.0.1:7777."
    ))
}

/// Refuses a non-loopback address without `--public`; with it, the warning
/// to print.
pub fn check(addr: SocketAddr, public: bool) -> Result<Option<String>, String> {
    if addr.ip().is_loopback() {
        return Ok(None);
    }
    let exposure = format!(
        "Listening on {addr} lets anyone who can reach this computer over the network open Conch's sign-in page, \
         and with your password or an access key do everything Conch can do: run commands, read and change your files. \
         Conch doesn't encrypt the connection, so put it behind HTTPS."
    );
    if public {
        Ok(Some(exposure))
    } else {
        Err(format!(
            "Conch listens only on this computer unless you pass --public. {exposure} \
             To go ahead anyway, add --public."
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert_eq!(parse("127.0.0.1:7777").unwrap(), DEFAULT);
        assert_eq!(parse("7777").unwrap(), DEFAULT);
        assert_eq!(parse("localhost:7777").unwrap(), DEFAULT);
        assert!(parse("[::1]:1").unwrap().ip().is_loopback());
        assert!(parse("example.com:80").is_err());
    }

    #[test]
    fn beyond_loopback_needs_public() {
        let any = parse("0.0.0.0:7777").unwrap();
        assert!(check(DEFAULT, false).unwrap().is_none());
        let refusal = check(any, false).unwrap_err();
        assert!(refusal.contains("--public"), "{refusal}");
        assert!(check(any, true).unwrap().unwrap().contains("run commands"));
    }
}
