//! What a site is, for the browser's rule (ADR 0028 §1): the registrable
//! domain of a host, by the Public Suffix List. `news.example.co.uk` and
//! `www.example.co.uk` are one site; `a.github.io` and `b.github.io` are
//! two, because anyone can own a name under `github.io`. An address
//! (`127.0.0.1`, `[::1]`) and a name with no registrable part
//! (`localhost`, `github.io` itself) are their own site.
//!
//! Pure: the list is compiled in.

/// The site of `host`, lowercased, without a trailing dot or a port.
pub fn of_host(host: &str) -> String {
    let host = host.trim().trim_end_matches('.').to_ascii_lowercase();
    if host.starts_with('[') || host.parse::<std::net::IpAddr>().is_ok() {
        return host;
    }
    match psl::domain_str(&host) {
        Some(domain) => domain.to_owned(),
        None => host,
    }
}

/// The site of an http(s) address; None for anything else.
pub fn of_url(url: &str) -> Option<String> {
    let lower = url.trim_start().to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return None;
    }
    let host = crate::address::host(url)?;
    (!host.is_empty()).then(|| of_host(&host))
}

/// The Always-allow key that covers `site` in the browser for the rest of
/// the chat.
pub fn key(site: &str) -> String {
    format!("browser:{site}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_are_registrable_domains() {
        for (host, site) in [
            ("news.example", "news.example"),
            ("www.news.example", "news.example"),
            ("WWW.Example.COM.", "example.com"),
            ("a.b.example.co.uk", "example.co.uk"),
            ("a.github.io", "a.github.io"),
            ("b.github.io", "b.github.io"),
            ("github.io", "github.io"),
            ("127.0.0.1", "127.0.0.1"),
            ("[::1]", "[::1]"),
            ("localhost", "localhost"),
            ("xn--bcher-kva.example", "xn--bcher-kva.example"),
            ("shop.xn--bcher-kva.example", "xn--bcher-kva.example"),
        ] {
            assert_eq!(of_host(host), site, "{host}");
        }
        assert_eq!(
            of_url("https://user:pw@Files.Example:8443/a?b#c").as_deref(),
            Some("files.example")
        );
        assert_eq!(
            of_url("http://127.0.0.1:9000/x").as_deref(),
            Some("127.0.0.1")
        );
        assert_eq!(of_url("file:///etc/passwd"), None);
        assert_eq!(of_url("javascript:alert(1)"), None);
        assert_eq!(of_url("data:text/html,hi"), None);
    }

    /// Two hosts are one site exactly when their registrable domains are
    /// the same, whatever labels come before them.
    #[test]
    fn property_labels_before_the_domain_never_change_the_site() {
        let mut seed = 0x2545_f491_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let domains = [
            "example.com",
            "example.co.uk",
            "user.github.io",
            "news.example",
        ];
        for _ in 0..2_000 {
            let domain = domains[(next() % domains.len() as u64) as usize];
            let labels = next() % 4;
            let mut host = domain.to_owned();
            for _ in 0..labels {
                let len = 1 + next() % 10;
                let label: String = (0..len)
                    .map(|_| (b'a' + (next() % 26) as u8) as char)
                    .collect();
                host = format!("{label}.{host}");
            }
            assert_eq!(of_host(&host), domain, "{host}");
        }
    }
}
