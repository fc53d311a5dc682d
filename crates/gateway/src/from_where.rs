//! Where a request came from, as a browser says it, and whether that may
//! read the API or change anything. Pure: the middleware in `checks.rs`
//! hands it the headers.
//!
//! A browser names the sending site in two headers it sets itself, which a
//! page's script can't write: `Sec-Fetch-Site` and `Origin`.
//!
//! - `Sec-Fetch-Site` other than `same-origin` or `none` (a typed address)
//!   is another site, an unknown value included. It may not read the API or
//!   change anything. "Same-site" isn't good enough: another port on
//!   localhost is the same site.
//! - A state change must carry this gateway's own `Origin`, or none at all
//!   (scripts and `curl` send none).
//! - `Origin: null` is what the Fetch standard sends for a form posted from
//!   a page whose referrer policy is `no-referrer`, which every page Conch
//!   serves has: the setup form's `null` is Conch's own. It is also what a
//!   sandboxed frame, a `data:` page or a redirect from elsewhere sends, so
//!   `null` alone says nothing. It passes only beside `Sec-Fetch-Site:
//!   same-origin`, which a browser sends only when the page that sent it has
//!   this very origin (an opaque origin is `cross-site` by the Fetch
//!   Metadata standard). A `null` with no `Sec-Fetch-Site` (an old browser)
//!   is refused: that browser can't tell us which it is.

use crate::checks::AllowedHosts;

/// What a request said about where it came from.
#[derive(Debug, Clone, Copy)]
pub struct Sent<'a> {
    /// Not GET, HEAD or OPTIONS.
    pub changes: bool,
    /// Under `/api/`.
    pub api: bool,
    pub fetch_site: Option<&'a str>,
    pub origin: Option<&'a str>,
    /// The Host header, as sent.
    pub host: &'a str,
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Another site tried to read or use the API.
    AnotherSite,
    /// Another site tried to change something outside the API (a form).
    ChangeFromElsewhere,
    /// A change whose `Origin` isn't this gateway's.
    ForeignOrigin,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refusal::AnotherSite => {
                "Another site can't use Conch's API. Open Conch itself to do this."
            }
            Refusal::ChangeFromElsewhere => {
                "A page on another site tried to change something in Conch, and was refused. Nothing was changed. Open Conch itself to do this."
            }
            Refusal::ForeignOrigin => "A request from another site can't change anything here.",
        })
    }
}

/// `Ok` when the request may go on.
pub fn judge(hosts: &AllowedHosts, sent: &Sent<'_>) -> Result<(), Refusal> {
    let same_origin = sent.fetch_site == Some("same-origin");
    let elsewhere = sent
        .fetch_site
        .is_some_and(|s| s != "same-origin" && s != "none");
    if elsewhere && sent.api {
        return Err(Refusal::AnotherSite);
    }
    if elsewhere && sent.changes {
        return Err(Refusal::ChangeFromElsewhere);
    }
    if !sent.changes {
        return Ok(());
    }
    match sent.origin {
        None => Ok(()),
        Some("null") if same_origin => Ok(()),
        Some(origin) if hosts.is_own_origin(origin, sent.host) => Ok(()),
        Some(_) => Err(Refusal::ForeignOrigin),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: &str = "127.0.0.1:7777";

    fn hosts() -> AllowedHosts {
        AllowedHosts::new(["conch.lan".to_string()])
    }

    const SITES: [Option<&str>; 7] = [
        None,
        Some("same-origin"),
        Some("none"),
        Some("same-site"),
        Some("cross-site"),
        Some("Same-Origin"),
        Some(""),
    ];
    const ORIGINS: [Option<&str>; 9] = [
        None,
        Some("http://127.0.0.1:7777"),
        Some("null"),
        Some("NULL"),
        Some("http://127.0.0.1:7778"),
        Some("https://127.0.0.1:7777"),
        Some("http://localhost:7777"),
        Some("http://evil.example"),
        Some(""),
    ];

    /// Every combination of what a browser (or anyone) might send: the
    /// rule, said again in other words, must agree on each.
    #[test]
    fn every_combination_of_site_and_origin() {
        let hosts = hosts();
        for changes in [false, true] {
            for api in [false, true] {
                for fetch_site in SITES {
                    for origin in ORIGINS {
                        let sent = Sent {
                            changes,
                            api,
                            fetch_site,
                            origin,
                            host: HOST,
                        };
                        let verdict = judge(&hosts, &sent);
                        let browser_says_elsewhere =
                            !matches!(fetch_site, None | Some("same-origin") | Some("none"));
                        let origin_ok = match origin {
                            None => true,
                            Some("http://127.0.0.1:7777") => true,
                            Some("null") => fetch_site == Some("same-origin"),
                            Some(_) => false,
                        };
                        let expected = if browser_says_elsewhere && api {
                            Err(Refusal::AnotherSite)
                        } else if browser_says_elsewhere && changes {
                            Err(Refusal::ChangeFromElsewhere)
                        } else if changes && !origin_ok {
                            Err(Refusal::ForeignOrigin)
                        } else {
                            Ok(())
                        };
                        assert_eq!(verdict, expected, "{sent:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_null_origin_from_another_site_is_refused_whatever_else_it_says() {
        let hosts = hosts();
        for fetch_site in [None, Some("cross-site"), Some("same-site"), Some("none")] {
            for api in [false, true] {
                let sent = Sent {
                    changes: true,
                    api,
                    fetch_site,
                    origin: Some("null"),
                    host: HOST,
                };
                assert!(judge(&hosts, &sent).is_err(), "{sent:?}");
            }
        }
    }

    /// The bug: the setup page's form, posted by Chromium under the page's
    /// `no-referrer` policy, sends `Origin: null` with `same-origin`.
    #[test]
    fn the_setup_form_posted_from_conchs_own_page_is_let_in() {
        let sent = Sent {
            changes: true,
            api: false,
            fetch_site: Some("same-origin"),
            origin: Some("null"),
            host: HOST,
        };
        assert_eq!(judge(&hosts(), &sent), Ok(()));
    }
}
