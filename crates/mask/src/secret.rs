//! What a secret is to the masker, and which of the environment's values
//! count as secrets.

/// Values shorter than this aren't looked for: they would match ordinary
/// text (a four-digit code is in every other log).
pub const MIN_SECRET: usize = 8;

/// A secret Conch holds in the clear: what to call it and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    /// Shown in its place, as `[secret: NAME]`. Kept to letters, digits and
    /// `_ - . :` and spaces, so the mark can't be mistaken for text.
    pub name: String,
    pub value: String,
}

impl Secret {
    pub fn new(name: &str, value: &str) -> Secret {
        Secret {
            name: clean_name(name),
            value: value.to_owned(),
        }
    }
}

/// A secret Conch keeps only as a hash (an access key): found by its shape,
/// `prefix` then `body` letters and digits, then hashed with SHA-256.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hashed {
    pub name: String,
    pub prefix: String,
    pub body: usize,
    /// SHA-256 of the whole key, lowercase hex.
    pub sha256: String,
}

impl Hashed {
    pub fn new(name: &str, prefix: &str, body: usize, sha256: &str) -> Hashed {
        Hashed {
            name: clean_name(name),
            prefix: prefix.to_owned(),
            body,
            sha256: sha256.to_ascii_lowercase(),
        }
    }
}

fn clean_name(name: &str) -> String {
    let kept: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | ' ') {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    match kept.trim() {
        "" => "unnamed".to_owned(),
        t => t.to_owned(),
    }
}

/// Words in a variable's name that say its value is a secret.
const SECRET_WORDS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASS",
    "PWD",
    "CREDENTIAL",
    "CREDENTIALS",
    "AUTH",
    "PRIVATE",
    "SESSION",
    "COOKIE",
    "SIGNATURE",
    "DSN",
];

/// How well-known tokens begin, whatever their variable is called.
const TOKEN_STARTS: &[&str] = &[
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "AKIA",
    "AIza",
    "npm_",
    "pypi-",
    "hf_",
];

/// The secrets among the environment Conch was started with: a value of
/// [`MIN_SECRET`] bytes or more whose name has a secret's word in it
/// (`OPENAI_API_KEY`, `GH_TOKEN`, `DB_PASSWORD`; the words are whole parts
/// of the name, so `KEYBOARD` isn't one), or which starts like a known token
/// whatever its name. A path, a number or a yes/no is never a secret.
pub fn env_secrets<I, K, V>(vars: I) -> Vec<Secret>
where
    I: IntoIterator<Item = (K, V)>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    vars.into_iter()
        .filter(|(name, value)| env_is_secret(name.as_ref(), value.as_ref()))
        .map(|(name, value)| Secret::new(name.as_ref(), value.as_ref()))
        .collect()
}

fn env_is_secret(name: &str, value: &str) -> bool {
    let value = value.trim();
    if value.len() < MIN_SECRET || plain_value(value) {
        return false;
    }
    let upper = name.to_ascii_uppercase();
    let named = upper
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|part| SECRET_WORDS.contains(&part) || part.ends_with("KEY") && part.len() <= 6);
    named
        || (value.len() >= 16 && TOKEN_STARTS.iter().any(|t| value.starts_with(t)))
        || url_with_password(value)
}

/// `scheme://user:password@host…`: whatever the variable is called.
fn url_with_password(value: &str) -> bool {
    let Some((_, rest)) = value.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.split_once(':').is_some_and(|(_, p)| !p.is_empty()))
}

/// A value that is a path, a number, a yes/no, or a list of paths.
fn plain_value(value: &str) -> bool {
    value.starts_with('/')
        || value.starts_with("unix:")
        || value.starts_with("./")
        || value.starts_with("~/")
        || value.chars().all(|c| c.is_ascii_digit() || c == '.')
        || matches!(
            value.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "enabled" | "disabled"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_and_shapes_count_and_paths_dont() {
        let found = env_secrets([
            ("OPENAI_API_KEY", "sk-proj-abcdefgh12345678"),
            ("GH_TOKEN", "ghp_0123456789abcdefghij"),
            ("DB_PASSWORD", "correct horse battery"),
            ("MY_THING", "ghp_0123456789abcdefghijklmn"),
            ("APIKEY", "0a1b2c3d4e5f6a7b"),
            ("SSH_AUTH_SOCK", "/run/user/1000/keyring/ssh"),
            ("KEYBOARD_LAYOUT", "us-international"),
            ("SESSION_TIMEOUT", "3600000000"),
            ("HOME", "/root"),
            ("API_KEY", "short"),
            ("GREETING", "hello there everyone"),
            ("DATABASE_URL", "postgres://app:s3cr3t-pw@db.local:5432/app"),
            ("HOMEPAGE_URL", "https://example.org/a@b"),
            ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"),
        ]);
        let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "OPENAI_API_KEY",
                "GH_TOKEN",
                "DB_PASSWORD",
                "MY_THING",
                "APIKEY",
                "DATABASE_URL"
            ]
        );
    }

    #[test]
    fn a_name_cant_close_the_mark() {
        assert_eq!(Secret::new("a]b[c", "x").name, "a_b_c");
        assert_eq!(Secret::new("  ", "x").name, "unnamed");
    }
}
