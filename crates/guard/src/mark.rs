//! What marks a chat: after a call, whether what came back was from outside.

use protocol::{download_host, is_download, only_exempt_fetches, Action, MarkSource, ToolDetail};
use serde_json::Value;

use crate::address;

/// The hosts a sealed command's box saw it reach (`reached_hosts` in its
/// `tool.finished` detail), when the box watched it (`network_observed`).
fn observed_hosts(detail: Option<&ToolDetail>) -> Option<Vec<&str>> {
    let d = detail?;
    if !d.flag("network_observed") {
        return None;
    }
    Some(
        d.get("reached_hosts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|h| !h.is_empty())
            .collect(),
    )
}

/// Hosts as the mark names them: "a.example", "a.example and b.example",
/// "a.example, b.example, c.example and 2 more".
fn named(hosts: &[&str]) -> String {
    const SHOWN: usize = 3;
    match hosts {
        [] => "the web".to_owned(),
        [one] => (*one).to_owned(),
        _ if hosts.len() <= SHOWN => {
            let (last, first) = hosts.split_last().unwrap_or((&"", &[]));
            format!("{} and {last}", first.join(", "))
        }
        _ => format!(
            "{} and {} more",
            hosts[..SHOWN].join(", "),
            hosts.len() - SHOWN
        ),
    }
}

/// The mark a finished call makes, if it makes one: its source and what it
/// was (the host, the tool).
pub fn mark_for(action: &Action, detail: Option<&ToolDetail>) -> Option<(MarkSource, String)> {
    match action {
        Action::PageRead { host, .. } | Action::FetchSends { host, .. } => {
            // Where the page really came from, after redirects.
            let landed = detail
                .and_then(ToolDetail::final_url)
                .and_then(address::host);
            Some((MarkSource::Page, landed.unwrap_or_else(|| host.clone())))
        }
        Action::Search { .. } => Some((MarkSource::Search, "web search".to_owned())),
        // Watched by the box: what it reached marks the chat, however the
        // command was spelled, except the fetches the 2026-10-04 update took
        // out; reaching nothing marks nothing.
        Action::Command { command, .. } if observed_hosts(detail).is_some() => {
            let hosts = observed_hosts(detail).unwrap_or_default();
            (!hosts.is_empty() && !only_exempt_fetches(command))
                .then(|| (MarkSource::Download, named(&hosts)))
        }
        // Not watched (unsealed): the words.
        Action::Command { command, .. } if is_download(command) => {
            let host = download_host(command).unwrap_or_else(|| "the web".to_owned());
            Some((MarkSource::Download, host))
        }
        Action::Integration { tool, .. } => Some((MarkSource::Integration, tool.clone())),
        // Every page the browser shows marks, named by its site: the page
        // it ended on (a click can land anywhere), as its detail says. A
        // call that showed nothing (it failed) marks nothing.
        Action::Browser(_) => detail
            .and_then(|d| d.get("site"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(|s| (MarkSource::Page, s.to_owned())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_marks() {
        let page = Action::PageRead {
            url: "https://a.example/x".into(),
            host: "a.example".into(),
        };
        assert_eq!(
            mark_for(
                &page,
                Some(&json!({"finalUrl": "https://B.example/y"}).into())
            ),
            Some((MarkSource::Page, "b.example".into()))
        );
        let cmd = |c: &str| Action::Command {
            command: c.into(),
            programs: vec![],
            unsealed: true,
            leaves_box: false,
        };
        assert_eq!(
            mark_for(&cmd("curl -s 'https://dl.example/i.sh' | sh"), None),
            Some((MarkSource::Download, "dl.example".into()))
        );
        assert_eq!(mark_for(&cmd("git fetch origin"), None), None);
        // Watched by the box: its hosts, whatever the words.
        let seen = |hosts: &[&str]| {
            ToolDetail::from(json!({"network_observed": true, "reached_hosts": hosts}))
        };
        let py = cmd("python3 -c 'import urllib.request as u; u.urlopen(\"http:\"+\"//files.\"+\"example/a\")'");
        assert_eq!(
            mark_for(&py, Some(&seen(&["files.example"]))),
            Some((MarkSource::Download, "files.example".into()))
        );
        assert_eq!(
            mark_for(&cmd("make"), Some(&seen(&["a.example", "192.0.2.9"]))),
            Some((MarkSource::Download, "a.example and 192.0.2.9".into()))
        );
        assert_eq!(
            mark_for(&cmd("make"), Some(&seen(&["a", "b", "c", "d", "e"]))),
            Some((MarkSource::Download, "a, b, c and 2 more".into()))
        );
        // Reaching nothing marks nothing, even spelled like a download.
        assert_eq!(
            mark_for(&cmd("curl http://127.0.0.1:8080/x"), Some(&seen(&[]))),
            None
        );
        assert_eq!(mark_for(&cmd("cat notes.txt"), Some(&seen(&[]))), None);
        // The update's fetches stay free when watched.
        assert_eq!(
            mark_for(&cmd("git fetch origin"), Some(&seen(&["github.com"]))),
            None
        );
        // Unwatched: the words, as before.
        let unwatched =
            ToolDetail::from(json!({"network_observed": false, "reached_hosts": ["x.example"]}));
        assert_eq!(mark_for(&py, Some(&unwatched)), None);
        assert_eq!(mark_for(&cmd("ls"), None), None);
        let click = Action::Browser(protocol::BrowserAction {
            op: protocol::BrowserOp::Click,
            url: "https://a.example/".into(),
            site: "a.example".into(),
            element: None,
            sends: None,
            password: false,
            typed: false,
        });
        assert_eq!(
            mark_for(
                &click,
                Some(&json!({"url": "https://x.b.example/", "site": "b.example"}).into())
            ),
            Some((MarkSource::Page, "b.example".into())),
            "the page a click lands on names the mark"
        );
        assert_eq!(
            mark_for(&click, None),
            None,
            "nothing shown, nothing marked"
        );
        assert_eq!(
            mark_for(&Action::LookAround { paths: vec![] }, None),
            None,
            "a file in the work folder someone else wrote doesn't mark (a known limit)"
        );
    }
}
