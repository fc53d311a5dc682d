//! What a sealed command's environment holds: an allowlist of ordinary
//! variables, and never one whose name or value looks like a secret.
//!
//! Two rules, in this order (docs/seal.md lists both):
//!
//! 1. **Listed.** A variable goes in only if its name is on [`ORDINARY`]
//!    (locale, terminal, the usual paths, the toolchains' own homes…), starts
//!    with one of [`ORDINARY_PREFIXES`], or is named by the owner in the
//!    `sealEnv` setting (an exact name, or `PREFIX_*`).
//! 2. **Not a secret, whoever named it.** A listed variable still stays out
//!    when its name has a word that marks a credential (see
//!    [`secret_name`]) or its value carries one (see [`secret_value`]). A
//!    setting can't let one through.
//!
//! A deny-list of names can't hold: the secrets people keep in variables
//! are named anything (`BW_SESSION`, `OP_SESSION_my`, `DATABASE_URL`,
//! `GHPAT`). An allowlist fails closed, and the shape checks catch the
//! secret that hides in an ordinary name (a proxy address with a password).
//!
//! Pure: the caller hands in the variables.

use std::ffi::OsString;

/// Ordinary variables a command expects to find.
pub const ORDINARY: &[&str] = &[
    // The person and their shell.
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TMPDIR",
    "TEMP",
    "TMP",
    "TZ",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "MANPATH",
    "INFOPATH",
    // Locale and terminal.
    "LANG",
    "LANGUAGE",
    "TERM",
    "COLORTERM",
    "TERM_PROGRAM",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    // Where things are.
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_DATA_DIRS",
    "XDG_CONFIG_DIRS",
    "XDG_RUNTIME_DIR",
    // Toolchains' own homes and switches.
    "CARGO_HOME",
    "CARGO_TARGET_DIR",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "GOPATH",
    "GOROOT",
    "GOBIN",
    "GOMODCACHE",
    "GOCACHE",
    "GOFLAGS",
    "GOPROXY",
    "GOPRIVATE",
    "GONOSUMDB",
    "GOTOOLCHAIN",
    "GO111MODULE",
    "CGO_ENABLED",
    "JAVA_HOME",
    "JDK_HOME",
    "GRADLE_USER_HOME",
    "GRADLE_HOME",
    "MAVEN_HOME",
    "M2_HOME",
    "ANDROID_HOME",
    "ANDROID_SDK_ROOT",
    "ANDROID_NDK_HOME",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "CONDA_EXE",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONUNBUFFERED",
    "PIPX_HOME",
    "POETRY_HOME",
    "NVM_DIR",
    "NVM_BIN",
    "NODE_PATH",
    "NODE_ENV",
    "VOLTA_HOME",
    "BUN_INSTALL",
    "DENO_DIR",
    "DENO_INSTALL",
    "PNPM_HOME",
    "NPM_CONFIG_PREFIX",
    "NPM_CONFIG_CACHE",
    "npm_config_cache",
    "YARN_CACHE_FOLDER",
    "DOTNET_ROOT",
    "NUGET_PACKAGES",
    "DOTNET_CLI_TELEMETRY_OPTOUT",
    "GEM_HOME",
    "GEM_PATH",
    "RBENV_ROOT",
    "RBENV_VERSION",
    "SDKMAN_DIR",
    "CC",
    "CXX",
    "CFLAGS",
    "CXXFLAGS",
    "LDFLAGS",
    "CPATH",
    "LIBRARY_PATH",
    "LD_LIBRARY_PATH",
    "PKG_CONFIG_PATH",
    "CMAKE_PREFIX_PATH",
    // The way out to the network, and whom it trusts (a proxy address with
    // a password in it is caught by the value rule).
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "GIT_SSL_CAINFO",
    // Running unattended.
    "CI",
    "DEBIAN_FRONTEND",
];

/// Families of ordinary variables (the locale's categories).
pub const ORDINARY_PREFIXES: &[&str] = &["LC_"];

/// Words that make a name a credential's, whole.
const SECRET_WORDS: &[&str] = &[
    "TOKEN",
    "TOKENS",
    "SECRET",
    "SECRETS",
    "PASSWORD",
    "PASSWORDS",
    "PASSWD",
    "PASS",
    "PASSPHRASE",
    "PWD",
    "PW",
    "KEY",
    "KEYS",
    "SESSION",
    "SESSIONS",
    "AUTH",
    "CREDENTIAL",
    "CREDENTIALS",
    "CRED",
    "CREDS",
    "COOKIE",
    "COOKIES",
    "PAT",
    "DSN",
    "APIKEY",
    "OTP",
];

/// Parts that make a name a credential's wherever they sit in a word
/// (`GITHUBTOKEN`, `MYSECRETS`, `CLIENTCREDENTIAL`).
const SECRET_PARTS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "COOKIE",
    "SESSION",
    "APIKEY",
];

/// Endings that make a word a credential's (`GHPAT`, `OAUTH`, `SSHKEY`,
/// `DBPASS`, `SENTRYDSN`).
const SECRET_ENDINGS: &[&str] = &["KEY", "PAT", "PW", "PWD", "PASS", "AUTH", "DSN"];

/// Beginnings that make a word a credential's (`KEYFILE`, `PASSFILE`,
/// `AUTHZ`).
const SECRET_BEGINNINGS: &[&str] = &["KEY", "PASS", "AUTH"];

/// Why a variable stays out of the box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withheld {
    /// Not on the allowlist, nor named by the owner.
    NotListed,
    /// Its name has a word that marks a credential.
    SecretName,
    /// Its value carries a credential: an address with a password, or a long
    /// opaque string.
    SecretValue,
    /// Its name or value isn't text.
    NotText,
}

impl Withheld {
    pub fn reason(self) -> &'static str {
        match self {
            Withheld::NotListed => "not an ordinary variable",
            Withheld::SecretName => "named like a secret",
            Withheld::SecretValue => "holds something shaped like a secret",
            Withheld::NotText => "not text",
        }
    }
}

/// The words of a name: split at `_`, `-`, `.`, where lower case turns to
/// upper (`authToken`), and between letters and digits; upper-cased.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut last: Option<char> = None;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            last = None;
            continue;
        }
        let split = match last {
            Some(p) => {
                (p.is_ascii_lowercase() && c.is_ascii_uppercase())
                    || (p.is_ascii_alphabetic() != c.is_ascii_alphabetic())
            }
            None => false,
        };
        if split && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        word.push(c.to_ascii_uppercase());
        last = Some(c);
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Whether a variable's name marks it as a credential's.
pub fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if SECRET_PARTS.iter().any(|p| upper.contains(p)) {
        return true;
    }
    words(name).iter().any(|w| {
        SECRET_WORDS.contains(&w.as_str())
            || SECRET_ENDINGS.iter().any(|e| w.ends_with(e))
            || SECRET_BEGINNINGS.iter().any(|b| w.starts_with(b))
    })
}

/// Whether a value carries a credential: an address with a password in it
/// (`postgres://app:hunter2@db/x`), or a long opaque string (a token, a
/// session, a key) anywhere in it.
pub fn secret_value(value: &str) -> bool {
    has_url_password(value) || value.split(is_separator).any(opaque)
}

/// `scheme://user:password@host`: user information with a password, or
/// user information that is itself opaque (`https://ghp_…@github.com`).
fn has_url_password(value: &str) -> bool {
    let mut rest = value;
    while let Some(at) = rest.find("://") {
        let after = &rest[at + 3..];
        let authority_end = after
            .find(|c: char| matches!(c, '/' | '?' | '#') || c.is_whitespace())
            .unwrap_or(after.len());
        let authority = &after[..authority_end];
        if let Some((userinfo, _host)) = authority.rsplit_once('@') {
            let password = userinfo.split_once(':').map(|(_, p)| p).unwrap_or("");
            if !password.is_empty() || opaque(userinfo) {
                return true;
            }
        }
        rest = after;
    }
    false
}

/// Where a value splits into pieces to judge one by one: paths, lists and
/// `key=value` pairs split, tokens' own alphabets (`A-Za-z0-9+=_-`) don't.
fn is_separator(c: char) -> bool {
    !(c.is_ascii_alphanumeric() || matches!(c, '+' | '=' | '_' | '-'))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Upper,
    Lower,
    Digit,
    Other,
}

fn class(c: char) -> Class {
    if c.is_ascii_uppercase() {
        Class::Upper
    } else if c.is_ascii_lowercase() {
        Class::Lower
    } else if c.is_ascii_digit() {
        Class::Digit
    } else {
        Class::Other
    }
}

/// How often neighbouring letters and digits change class (upper, lower,
/// digit): about 0.6 in random base62, once a word (0.1–0.25) in names.
fn switch_rate(run: &[char]) -> f64 {
    let switches = run
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count();
    switches as f64 / run.len().max(1) as f64
}

/// Whether a run of letters and digits looks random: mixed case changing
/// class as often as random text does, or capitals and digits (AWS key ids).
fn random_run(run: &[char]) -> bool {
    let has = |k: Class| run.iter().any(|c| class(*c) == k);
    let (upper, lower, digit) = (has(Class::Upper), has(Class::Lower), has(Class::Digit));
    let rate = switch_rate(run);
    (upper && lower && rate >= 0.3) || (upper && digit && !lower && rate >= 0.1)
}

/// Whether one piece looks like a token rather than words: 32 or more hex
/// digits (keys, session ids, UUIDs), or at least 16 characters in random
/// runs of 5 or more between its `-` and `_` (a Poetry environment's
/// `my-app-AbC12dEf-py3` has one run of 8; a token is random nearly
/// throughout). Lower case and
/// digits alone count only as hex: a Nix store path's hash is that shape,
/// and it is no secret.
fn opaque(piece: &str) -> bool {
    let chars: Vec<char> = piece.chars().collect();
    if chars.len() < 16 {
        return false;
    }
    let alnum: Vec<char> = chars
        .iter()
        .copied()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let hex = |run: &[char]| {
        run.len() >= 32
            && run.iter().any(char::is_ascii_digit)
            && run.iter().any(char::is_ascii_alphabetic)
            && run.iter().all(char::is_ascii_hexdigit)
    };
    let runs: Vec<&[char]> = chars.split(|c| matches!(c, '-' | '_')).collect();
    if hex(&alnum) || runs.iter().any(|r| hex(r)) {
        return true;
    }
    let random: usize = runs
        .iter()
        .filter(|run| run.len() >= 5 && random_run(run))
        .map(|run| run.len())
        .sum();
    random >= 16
}

/// Whether `name` is on the allowlist or named by the owner (`extra`: exact
/// names, or `PREFIX_*`).
pub fn listed(name: &str, extra: &[String]) -> bool {
    ORDINARY.contains(&name)
        || ORDINARY_PREFIXES.iter().any(|p| name.starts_with(p))
        || extra.iter().any(|e| match e.strip_suffix('*') {
            Some(prefix) => !prefix.is_empty() && name.starts_with(prefix),
            None => e == name,
        })
}

/// Whether one variable goes into the box, and if not, why.
pub fn judge(name: &str, value: &str, extra: &[String]) -> Result<(), Withheld> {
    if !listed(name, extra) {
        return Err(Withheld::NotListed);
    }
    if secret_name(name) {
        return Err(Withheld::SecretName);
    }
    if secret_value(value) {
        return Err(Withheld::SecretValue);
    }
    Ok(())
}

/// The box's environment from `vars` (the process's own, as captured):
/// what the two rules let through, with `HOME` set to the person's home.
pub fn environment(
    vars: &[(OsString, OsString)],
    extra: &[String],
    home: Option<&std::path::Path>,
) -> Vec<(OsString, OsString)> {
    let mut out: Vec<(OsString, OsString)> = vars
        .iter()
        .filter(|(n, v)| match (n.to_str(), v.to_str()) {
            (Some(n), Some(v)) => n != "HOME" && judge(n, v, extra).is_ok(),
            _ => false,
        })
        .cloned()
        .collect();
    match home {
        Some(h) => out.push(("HOME".into(), h.as_os_str().to_owned())),
        None => {
            if let Some(h) = vars.iter().find(|(n, _)| n == "HOME") {
                if h.1
                    .to_str()
                    .is_some_and(|v| judge("HOME", v, extra).is_ok())
                {
                    out.push(h.clone());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
