//! Exfiltration means sending what the owner didn't ask to send, not
//! sending. A send is reviewable in Auto when the chat has no marks, every
//! destination and every value sent is in the owner's own words, and it
//! carries neither a file's content nor a secret ("Please email the Q3
//! numbers to bob@example.com" is what task-aware review exists for). It
//! stays never-waivable when the chat is marked, when any part came from
//! reading or from nowhere, or when a file, a stream or a secret goes with
//! it.

use protocol::seen::{words, SeenIn};
use protocol::shell::Reading;
use serde_json::Value;

use super::command::{is_remote, sends, sub};
use super::lists::SENDERS;
use super::Facts;

#[derive(Debug, Default)]
pub(super) struct Sent {
    pub destinations: Vec<String>,
    pub values: Vec<String>,
    /// A file, a stream or standard input goes with it.
    pub carries_file: bool,
}

/// curl's options whose value is sent.
const CURL_SENT: &[&str] = &[
    "-d",
    "--data",
    "--data-raw",
    "--data-binary",
    "--data-ascii",
    "--data-urlencode",
    "-F",
    "--form",
    "--form-string",
    "--json",
    "-H",
    "--header",
    "-u",
    "--user",
    "-b",
    "--cookie",
];
/// curl's options that send a file.
const CURL_FILES: &[&str] = &["-T", "--upload-file"];
/// curl's options that take a value that isn't sent.
const CURL_VALUED: &[&str] = &[
    "-X",
    "--request",
    "-o",
    "--output",
    "-A",
    "--user-agent",
    "-e",
    "--referer",
    "-m",
    "--max-time",
    "-w",
    "--write-out",
    "--connect-timeout",
    "-x",
    "--proxy",
    "--retry",
];

impl Sent {
    /// What a command that sends sends, or None when it doesn't send.
    pub fn of_command(program: &str, args: &[String], reading: &Reading) -> Option<Sent> {
        let streams = SENDERS.contains(&program) || matches!(program, "rsync" | "sftp" | "ftp");
        if !sends(program, args) && !streams {
            return None;
        }
        let mut sent = Sent {
            carries_file: streams,
            ..Sent::default()
        };
        let input_redirected = reading
            .simples
            .iter()
            .any(|s| s.redirects.iter().any(|r| r.op.starts_with('<')));
        match program {
            "curl" => {
                let mut i = 0;
                while let Some(a) = args.get(i) {
                    let (option, attached) = match a.split_once('=') {
                        Some((o, v)) if a.starts_with("--") => (o, Some(v.to_owned())),
                        _ => (a.as_str(), None),
                    };
                    // `-dvalue`: a short option with its value attached.
                    let (option, attached) = if attached.is_none()
                        && a.len() > 2
                        && a.starts_with('-')
                        && !a.starts_with("--")
                        && CURL_SENT.contains(&&a[..2])
                    {
                        (&a[..2], Some(a[2..].to_owned()))
                    } else {
                        (option, attached)
                    };
                    let value = || attached.clone().or_else(|| args.get(i + 1).cloned());
                    let skip = if attached.is_some() { 1 } else { 2 };
                    if CURL_SENT.contains(&option) {
                        if let Some(v) = value() {
                            if v.starts_with('@') || v.contains("=@") || v.contains("=<") {
                                sent.carries_file = true;
                            }
                            sent.values.push(v);
                        }
                        i += skip;
                    } else if CURL_FILES.contains(&option) {
                        sent.carries_file = true;
                        i += skip;
                    } else if CURL_VALUED.contains(&option) {
                        i += skip;
                    } else if a.starts_with('-') {
                        i += 1;
                    } else {
                        sent.destinations.push(a.clone());
                        i += 1;
                    }
                }
                sent.carries_file |= input_redirected;
            }
            "wget" => {
                for a in args {
                    if let Some(v) = a
                        .strip_prefix("--post-data=")
                        .or_else(|| a.strip_prefix("--body-data="))
                    {
                        sent.values.push(v.to_owned());
                    } else if a.starts_with("--post-file") || a.starts_with("--body-file") {
                        sent.carries_file = true;
                    } else if !a.starts_with('-') {
                        sent.destinations.push(a.clone());
                    }
                }
            }
            _ => {
                sent.carries_file = true;
                sent.destinations.extend(
                    args.iter()
                        .filter(|a| !a.starts_with('-') && is_remote(a))
                        .cloned(),
                );
                let _ = sub(args);
            }
        }
        Some(sent)
    }

    /// What an integration's call sends: every value in its arguments; a
    /// file named among them goes with it.
    pub fn of_input(input: &Value) -> Sent {
        let mut sent = Sent::default();
        let mut stack = vec![(None::<&str>, input)];
        while let Some((key, v)) = stack.pop() {
            match v {
                Value::String(s) => {
                    let k = key.unwrap_or("").to_ascii_lowercase();
                    if ["attach", "file", "path", "upload"]
                        .iter()
                        .any(|f| k.contains(f))
                        && !s.is_empty()
                    {
                        sent.carries_file = true;
                    }
                    if [
                        "to",
                        "cc",
                        "bcc",
                        "recipient",
                        "channel",
                        "chat",
                        "url",
                        "address",
                        "email",
                    ]
                    .iter()
                    .any(|d| k == *d || k.ends_with(d))
                    {
                        sent.destinations.push(s.clone());
                    } else {
                        sent.values.push(s.clone());
                    }
                }
                Value::Number(n) => sent.values.push(n.to_string()),
                Value::Array(items) => stack.extend(items.iter().map(|i| (key, i))),
                Value::Object(map) => stack.extend(map.iter().map(|(k, v)| (Some(k.as_str()), v))),
                _ => {}
            }
        }
        sent
    }

    /// Whether review may judge this send (see the module's words).
    pub fn reviewable(&self, facts: &Facts<'_>) -> bool {
        !facts.marked
            && !self.carries_file
            && !self.destinations.is_empty()
            && self
                .destinations
                .iter()
                .chain(&self.values)
                .all(|text| owners(text, facts) && !secret_like(text))
    }
}

/// Whether every word of `text` is the owner's (an address's scheme and
/// top-level domain aside).
fn owners(text: &str, facts: &Facts<'_>) -> bool {
    let scheme_less = text.split_once("://").map_or(text, |(_, rest)| rest);
    let mut all: Vec<String> = words(scheme_less).collect();
    if text.contains("://") || text.contains('@') {
        // `.com` in bob@example.com is where it goes, not what it says.
        if let Some(last) = scheme_less
            .split(['/', '?', '#'])
            .next()
            .and_then(|host| host.rsplit('.').next())
        {
            let last = last.to_ascii_lowercase();
            if let Some(at) = all.iter().position(|w| *w == last) {
                all.remove(at);
            }
        }
    }
    all.iter().all(|w| facts.seen.word(w) == SeenIn::Owner)
}

/// A word that looks like a key or a token: long, opaque, mixing kinds of
/// characters.
pub(super) fn secret_like(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '/' | '=')))
        .any(|w| {
            w.len() >= 20
                && w.bytes().any(|b| b.is_ascii_digit())
                && w.bytes().any(|b| b.is_ascii_alphabetic())
        })
}
