use super::*;

/// A small deterministic generator: the same cases on every run, many more
/// than rows could list.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
    fn string(&mut self, alphabet: &[u8], len: usize) -> String {
        (0..len)
            .map(|_| alphabet[self.below(alphabet.len())] as char)
            .collect()
    }
}

const BASE62: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const HEX: &[u8] = b"0123456789abcdef";
const PLAIN_WORDS: &[&str] = &[
    "my", "app", "service", "db", "github", "gh", "openai", "stripe", "bw", "op", "client", "aws",
    "prod", "staging", "deploy", "vercel", "slack", "bot", "user", "admin", "main", "sentry",
    "npm", "pypi", "docker", "hub", "x", "corp", "internal",
];
const MARKS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "pass",
    "pw",
    "pwd",
    "key",
    "session",
    "auth",
    "credential",
    "credentials",
    "cred",
    "cookie",
    "pat",
    "dsn",
    "apikey",
    "passphrase",
];

/// A name with a credential's word in it, spelled as people spell names.
fn secret_name_case(g: &mut Gen) -> String {
    let mut words: Vec<String> = Vec::new();
    for _ in 0..g.below(3) {
        words.push(g.pick(PLAIN_WORDS).to_owned());
    }
    let at = g.below(words.len() + 1);
    words.insert(at, g.pick(MARKS).to_owned());
    for _ in 0..g.below(2) {
        words.push(g.pick(PLAIN_WORDS).to_owned());
    }
    if g.below(5) == 0 {
        words.push(format!("{}", g.below(10)));
    }
    match g.below(4) {
        0 => words.join("_").to_ascii_uppercase(),
        1 => words.join("_"),
        2 => words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i == 0 {
                    w.clone()
                } else {
                    let mut c = w.chars();
                    c.next()
                        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                        .unwrap_or_default()
                }
            })
            .collect(),
        _ => {
            // Glued, for the marks that are distinctive anywhere.
            let glued = words.join("").to_ascii_uppercase();
            let has_part = SECRET_PARTS.iter().any(|p| glued.contains(p));
            if has_part {
                glued
            } else {
                words.join("_").to_ascii_uppercase()
            }
        }
    }
}

#[test]
fn every_ordinary_name_passes_the_name_rule() {
    for name in ORDINARY {
        assert!(
            !secret_name(name),
            "{name} is on the list but named like a secret"
        );
    }
}

#[test]
fn the_issues_secrets_stay_out_even_when_a_setting_names_them() {
    let rows = [
        ("BW_SESSION", "eTNsb1ZQbU9xWnJzS3BtM1d2cXh5ZUxBN2w5dHQ4Zz09"),
        (
            "OP_SESSION_my",
            "q0YZLSGv4eZi1mz2bGvQ3J8n3Zw2dA7kC9fQYp1xHQ4",
        ),
        ("OP_SESSION_abc123", "abc"),
        (
            "DATABASE_URL",
            "postgres://app:hunter2@db.internal:5432/app",
        ),
        (
            "GITHUB_PAT",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        ),
        ("GH_TOKEN", "ghp_0123456789abcdefABCDEF0123456789abcd"),
        ("NPM_TOKEN", "npm_abcdefghijklmnopqrstuvwxyzABCDEF0123"),
        ("npm_config__authToken", "x"),
        (
            "AWS_SECRET_ACCESS_KEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        ("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE"),
        ("SENTRY_DSN", "https://abc@o1.ingest.sentry.io/1"),
        ("MYSQL_PWD", "hunter2"),
        ("PGPASSWORD", "hunter2"),
        ("OPENAI_API_KEY", "sk-proj-abc"),
        ("SLACK_COOKIE", "d=xoxd-abc"),
        ("VAULT_ADDR_CREDS", "x"),
        ("REDIS_DSN", "redis://:pw@cache:6379"),
        ("SESSION_ID", "1"),
        ("GHPAT", "x"),
        ("OAUTH_CLIENT", "x"),
    ];
    for (name, value) in rows {
        let extra = vec![name.to_owned()];
        assert!(
            judge(name, value, &extra).is_err(),
            "{name}={value} went in"
        );
        assert!(judge(name, value, &[]).is_err());
    }
}

#[test]
fn names_with_a_credentials_word_stay_out_however_spelled() {
    let mut g = Gen(0x5eed_0001);
    for _ in 0..5000 {
        let name = secret_name_case(&mut g);
        assert!(secret_name(&name), "{name} passed the name rule");
        let extra = vec![name.clone(), "*".into(), format!("{}*", &name[..1])];
        assert!(judge(&name, "plain", &extra).is_err(), "{name} went in");
    }
}

#[test]
fn tokens_and_passwords_in_values_stay_out_whatever_the_name() {
    let mut g = Gen(0x5eed_0002);
    let prefixes = [
        "",
        "ghp_",
        "sk-",
        "sk-proj-",
        "xoxb-123-",
        "glpat-",
        "npm_",
        "eyJ",
        "pypi-",
    ];
    for _ in 0..5000 {
        let len = 24 + g.below(80);
        let body = match g.below(3) {
            0 => g.string(BASE62, len),
            // Sessions in base64url (`OP_SESSION_*` is 43 characters).
            1 => g.string(BASE64URL, len + 8),
            _ => {
                let n = 32 + g.below(40);
                g.string(HEX, n)
            }
        };
        let token = format!("{}{body}", g.pick(&prefixes));
        assert!(secret_value(&token), "{token} looked ordinary");
        // Inside a list or after a key, too.
        let wrapped = format!("a=1,b={token};c");
        assert!(secret_value(&wrapped), "{wrapped} looked ordinary");
        // In an ordinary name, even one the owner added.
        assert_eq!(
            judge("LANG", &token, &[]),
            Err(Withheld::SecretValue),
            "{token}"
        );
    }
    for _ in 0..2000 {
        let scheme = g.pick(&[
            "postgres",
            "mysql",
            "https",
            "http",
            "redis",
            "amqp",
            "mongodb+srv",
        ]);
        let user = g.pick(PLAIN_WORDS);
        let n = 1 + g.below(20);
        let password = g.string(BASE62, n);
        let host = format!("{}.example", g.pick(PLAIN_WORDS));
        let url = format!(
            "{scheme}://{user}:{password}@{host}:5432/{}",
            g.pick(PLAIN_WORDS)
        );
        assert!(secret_value(&url), "{url} looked ordinary");
        assert_eq!(judge("HTTPS_PROXY", &url, &[]), Err(Withheld::SecretValue));
    }
}

#[test]
fn ordinary_values_go_in() {
    let rows = [
        ("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/home/ada/.cargo/bin:/home/ada/.local/bin"),
        ("PATH", "/run/current-system/sw/bin:/nix/store/0c4f8sxgqffmh7z0ph6nbk2y2l8pv2a8-bash-5.2/bin"),
        ("PATH", "/Users/Ada/Library/Application Support/JetBrains/Toolbox/scripts:/opt/homebrew/bin"),
        ("LANG", "en_US.UTF-8"),
        ("LC_ALL", "de_DE.UTF-8"),
        ("TERM", "xterm-256color"),
        ("RUSTUP_TOOLCHAIN", "stable-x86_64-unknown-linux-gnu"),
        ("RUSTUP_TOOLCHAIN", "nightly-2024-11-28-x86_64-unknown-linux-gnu"),
        ("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64"),
        ("VIRTUAL_ENV", "/home/ada/.cache/pypoetry/virtualenvs/my-project-AbC12dEf-py3.11"),
        ("HTTPS_PROXY", "http://proxy.corp.example:3128"),
        ("NO_PROXY", "localhost,127.0.0.1,.corp.example"),
        ("GOFLAGS", "-mod=mod -trimpath"),
        ("GOPROXY", "https://proxy.golang.org,direct"),
        ("TZ", "Europe/Berlin"),
        ("SHELL", "/bin/bash"),
        ("HOME", "/home/ådå"),
        ("USER", "jürgen"),
        ("EDITOR", "code --wait"),
        ("CFLAGS", "-O2 -g -fstack-protector-strong -Wformat -Werror=format-security"),
    ];
    for (name, value) in rows {
        assert_eq!(judge(name, value, &[]), Ok(()), "{name}={value}");
    }
    // Generated paths of words, versions and names.
    let mut g = Gen(0x5eed_0003);
    let parts = [
        "usr",
        "local",
        "bin",
        "home",
        "ada",
        "Projects",
        "IntelliJIdea2024.2",
        "node_modules",
        ".bin",
        "go",
        "pkg",
        "mod",
        "jdk-21.0.2+13",
        "Python3.12",
        "site-packages",
        "share",
        "Android",
        "Sdk",
        "platform-tools",
        "x86_64-linux-gnu",
        "1.82.0",
        "MyCompanyTools",
    ];
    for _ in 0..3000 {
        let entries: Vec<String> = (0..1 + g.below(8))
            .map(|_| {
                let depth = 1 + g.below(5);
                (0..depth).map(|_| format!("/{}", g.pick(&parts))).collect()
            })
            .collect();
        let value = entries.join(":");
        assert_eq!(judge("PATH", &value, &[]), Ok(()), "{value}");
    }
}

#[test]
fn only_listed_names_go_in_and_a_setting_adds_names() {
    assert_eq!(judge("KEEP_ME", "yes", &[]), Err(Withheld::NotListed));
    assert_eq!(judge("KEEP_ME", "yes", &["KEEP_ME".into()]), Ok(()));
    assert_eq!(judge("MYAPP_MODE", "dev", &["MYAPP_*".into()]), Ok(()));
    assert_eq!(
        judge("MYAPP_MODE", "dev", &["*".into()]),
        Err(Withheld::NotListed)
    );
    assert_eq!(judge("DISPLAY", ":0", &[]), Err(Withheld::NotListed));
    assert_eq!(
        judge("SSH_AUTH_SOCK", "/run/a", &["SSH_AUTH_SOCK".into()]),
        Err(Withheld::SecretName)
    );
    assert_eq!(
        judge(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/x",
            &["DBUS_SESSION_BUS_ADDRESS".into()]
        ),
        Err(Withheld::SecretName)
    );
}

#[test]
fn the_box_gets_the_persons_home() {
    let vars: Vec<(OsString, OsString)> = [
        ("HOME", "/root"),
        ("PATH", "/usr/bin"),
        ("GITHUB_TOKEN", "ghp_x"),
        ("KEEP_ME", "yes"),
    ]
    .iter()
    .map(|(n, v)| (OsString::from(n), OsString::from(v)))
    .collect();
    let env = environment(&vars, &[], Some(std::path::Path::new("/home/ada")));
    let names: Vec<&str> = env.iter().map(|(n, _)| n.to_str().unwrap()).collect();
    assert_eq!(names, ["PATH", "HOME"]);
    assert_eq!(env[1].1, "/home/ada");
}
