//! Where keys live: the one list every protection reads. The file tools
//! refuse these (and skip them in every walk), the box hides them, Auto's
//! credentials category reads them, and a chat can't work inside one.
//!
//! Each entry is a place under a root (the person's home, their XDG config,
//! data or runtime folder, or a variable that moves the place), and says
//! what is kept there, so `docs/guard.md` can give the reason for each row.
//! An entry ending in `*` covers every name in its folder that begins so
//! (`.cargo/credentials*` is `credentials` and `credentials.toml`).
//!
//! Pure: the caller hands in the home folder and a way to read variables.
//! Places are absolute but not resolved; the edge adds each place's real
//! path (see [`crate::Protected::with_real_paths`]), so a key folder that is
//! itself a link is protected under both spellings.

/// What a place is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// The person's home folder.
    Home,
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    Config,
    /// `$XDG_DATA_HOME`, else `~/.local/share`.
    Data,
    /// `$XDG_RUNTIME_DIR`, when set.
    Runtime,
    /// A variable that moves the place (`GNUPGHOME`); a list of paths when
    /// it holds several separated by `:` (`KUBECONFIG`).
    Var(&'static str),
}

/// One place where keys live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyPlace {
    pub root: Root,
    /// Relative to the root; empty for the root itself (a variable naming the
    /// place). A last part ending in `*` is a name prefix.
    pub path: &'static str,
    /// What is kept there, in the words the docs and refusals use.
    pub what: &'static str,
}

const fn home(path: &'static str, what: &'static str) -> KeyPlace {
    KeyPlace {
        root: Root::Home,
        path,
        what,
    }
}
const fn config(path: &'static str, what: &'static str) -> KeyPlace {
    KeyPlace {
        root: Root::Config,
        path,
        what,
    }
}
const fn data(path: &'static str, what: &'static str) -> KeyPlace {
    KeyPlace {
        root: Root::Data,
        path,
        what,
    }
}
const fn var(name: &'static str, path: &'static str, what: &'static str) -> KeyPlace {
    KeyPlace {
        root: Root::Var(name),
        path,
        what,
    }
}

/// Every place where keys live (ADR 0028 §2), plus what a developer's home
/// also holds.
pub const KEY_PLACES: &[KeyPlace] = &[
    home(".ssh", "SSH private keys and the hosts you trust"),
    home(".gnupg", "GPG private keys"),
    var("GNUPGHOME", "", "GPG private keys (moved by GNUPGHOME)"),
    home(".aws", "AWS access keys and sign-in caches"),
    var(
        "AWS_SHARED_CREDENTIALS_FILE",
        "",
        "AWS access keys (moved by AWS_SHARED_CREDENTIALS_FILE)",
    ),
    var(
        "AWS_CONFIG_FILE",
        "",
        "AWS profiles and SSO (moved by AWS_CONFIG_FILE)",
    ),
    home(".azure", "Azure CLI sign-ins"),
    var(
        "AZURE_CONFIG_DIR",
        "",
        "Azure CLI sign-ins (moved by AZURE_CONFIG_DIR)",
    ),
    config("gcloud", "Google Cloud sign-ins and service-account keys"),
    var(
        "CLOUDSDK_CONFIG",
        "",
        "Google Cloud sign-ins (moved by CLOUDSDK_CONFIG)",
    ),
    home(".kube", "Kubernetes cluster credentials"),
    var(
        "KUBECONFIG",
        "",
        "Kubernetes cluster credentials (named by KUBECONFIG)",
    ),
    home(".docker", "Docker registry logins"),
    var(
        "DOCKER_CONFIG",
        "",
        "Docker registry logins (moved by DOCKER_CONFIG)",
    ),
    config("containers/auth.json", "Podman and Buildah registry logins"),
    KeyPlace {
        root: Root::Runtime,
        path: "containers/auth.json",
        what: "Podman registry logins (the default place)",
    },
    var(
        "REGISTRY_AUTH_FILE",
        "",
        "container registry logins (named by REGISTRY_AUTH_FILE)",
    ),
    home(".netrc", "passwords curl, ftp and git send to servers"),
    home("_netrc", "passwords curl, ftp and git send to servers"),
    home(".git-credentials", "passwords git stores for remotes"),
    config("git/credentials", "passwords git stores for remotes"),
    config("gh", "GitHub CLI tokens"),
    var(
        "GH_CONFIG_DIR",
        "",
        "GitHub CLI tokens (moved by GH_CONFIG_DIR)",
    ),
    config("hub", "GitHub tokens of the hub tool"),
    home(".password-store", "pass, the password store"),
    var(
        "PASSWORD_STORE_DIR",
        "",
        "pass, the password store (moved by PASSWORD_STORE_DIR)",
    ),
    data("keyrings", "the desktop keyring (GNOME)"),
    data("kwalletd", "the desktop keyring (KDE)"),
    home("Library/Keychains", "the macOS keychains"),
    home(".npmrc", "npm registry tokens"),
    var(
        "NPM_CONFIG_USERCONFIG",
        "",
        "npm registry tokens (moved by NPM_CONFIG_USERCONFIG)",
    ),
    home(".yarnrc.yml", "Yarn registry tokens"),
    home(".pypirc", "PyPI upload tokens"),
    home(".cargo/credentials*", "crates.io tokens"),
    var(
        "CARGO_HOME",
        "credentials*",
        "crates.io tokens (under CARGO_HOME)",
    ),
    home(".gem/credentials", "RubyGems API keys"),
    home(".vault-token", "the HashiCorp Vault token"),
    home(".terraform.d/credentials*", "Terraform Cloud tokens"),
    home(".mozilla", "Firefox profiles: cookies and saved passwords"),
    home(
        "snap/firefox",
        "Firefox profiles (snap): cookies and saved passwords",
    ),
    home(
        ".var/app/org.mozilla.firefox",
        "Firefox profiles (Flatpak): cookies and saved passwords",
    ),
    config(
        "google-chrome",
        "Chrome profiles: cookies and saved passwords",
    ),
    config("chromium", "Chromium profiles: cookies and saved passwords"),
    home(
        "snap/chromium",
        "Chromium profiles (snap): cookies and saved passwords",
    ),
    home(
        ".var/app/com.google.Chrome",
        "Chrome profiles (Flatpak): cookies and saved passwords",
    ),
    home(
        ".var/app/org.chromium.Chromium",
        "Chromium profiles (Flatpak): cookies and saved passwords",
    ),
    config(
        "BraveSoftware",
        "Brave profiles: cookies and saved passwords",
    ),
    config(
        "microsoft-edge",
        "Edge profiles: cookies and saved passwords",
    ),
    config("vivaldi", "Vivaldi profiles: cookies and saved passwords"),
    config("opera", "Opera profiles: cookies and saved passwords"),
    home(
        "Library/Application Support/Google/Chrome",
        "Chrome profiles on macOS",
    ),
    home(
        "Library/Application Support/Chromium",
        "Chromium profiles on macOS",
    ),
    home(
        "Library/Application Support/BraveSoftware",
        "Brave profiles on macOS",
    ),
    home(
        "Library/Application Support/Microsoft Edge",
        "Edge profiles on macOS",
    ),
    home(
        "Library/Application Support/Firefox",
        "Firefox profiles on macOS",
    ),
    home("Library/Cookies", "Safari's and the system's cookies"),
    home("Library/Safari", "Safari's history and data"),
    home(
        "Library/Containers/com.apple.Safari",
        "Safari's sandboxed data",
    ),
    home("Library/Mail", "Mail's messages and accounts"),
    home(".thunderbird", "Thunderbird's mail and saved passwords"),
    home("Library/Messages", "Messages' history"),
    config("op", "the 1Password CLI's sessions"),
    home(".op", "the 1Password CLI's sessions (older place)"),
    config("1Password", "1Password's data"),
    home(
        "Library/Group Containers/2BUA8C4S2C.com.1password",
        "1Password's data on macOS",
    ),
    config("Bitwarden", "Bitwarden's data"),
    config("Bitwarden CLI", "the Bitwarden CLI's session"),
    home(
        "Library/Application Support/Bitwarden",
        "Bitwarden's data on macOS",
    ),
    config("KeePassXC", "KeePassXC's settings and key files"),
    home(".m2/settings.xml", "Maven's repository passwords"),
    home(".m2/settings-security.xml", "Maven's master password"),
    home(
        ".gradle/gradle.properties",
        "Gradle's signing and repository passwords",
    ),
    home(".nuget/NuGet/NuGet.Config", "NuGet's feed passwords"),
    config("pip/pip.conf", "pip's index passwords"),
    home(".pip/pip.conf", "pip's index passwords (older place)"),
    home(".pgpass", "PostgreSQL passwords"),
    home(".my.cnf", "MySQL passwords"),
    config("rclone", "rclone's cloud storage tokens"),
    home(".s3cfg", "s3cmd's access keys"),
    config("composer/auth.json", "Composer's registry tokens"),
    home(
        ".composer/auth.json",
        "Composer's registry tokens (older place)",
    ),
    home(".bundle/config", "Bundler's gem source passwords"),
    home(".terraformrc", "Terraform's registry tokens"),
    var(
        "TF_CLI_CONFIG_FILE",
        "",
        "Terraform's registry tokens (named by TF_CLI_CONFIG_FILE)",
    ),
    config("sops", "sops' age and PGP keys"),
    config("age", "age's private keys"),
    home(
        ".bash_history",
        "shell history, where typed passwords and tokens end up",
    ),
    home(
        ".zsh_history",
        "shell history, where typed passwords and tokens end up",
    ),
    data(
        "fish/fish_history",
        "shell history, where typed passwords and tokens end up",
    ),
    home(
        ".python_history",
        "Python's history, where typed secrets end up",
    ),
    home(
        ".psql_history",
        "psql's history, where typed passwords end up",
    ),
    home(
        ".mysql_history",
        "MySQL's history, where typed passwords end up",
    ),
    home(
        ".node_repl_history",
        "Node's history, where typed secrets end up",
    ),
];

/// A place, made absolute for one person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// Absolute, without a trailing `/`. With `prefix`, the folder the
    /// names are in.
    pub path: String,
    /// Names in `path` that begin with this are the place (the `*` entries).
    pub prefix: Option<String>,
    pub what: &'static str,
}

impl Place {
    pub fn exact(path: &str, what: &'static str) -> Place {
        Place {
            path: trim(path).to_owned(),
            prefix: None,
            what,
        }
    }

    /// Whether `path` (absolute, resolved) is this place or inside it.
    pub fn covers(&self, path: &str) -> bool {
        let Some(rest) = path.strip_prefix(self.path.as_str()) else {
            return false;
        };
        // The root folder `/` as a place covers everything.
        if self.path.is_empty() {
            return self.prefix.is_none() && path.starts_with('/');
        }
        match &self.prefix {
            None => rest.is_empty() || rest.starts_with('/'),
            Some(prefix) => rest
                .strip_prefix('/')
                .and_then(|name| name.split('/').next())
                .is_some_and(|name| name.starts_with(prefix.as_str())),
        }
    }

    /// Whether this place is inside `folder` (so a walk of `folder` could
    /// meet it).
    pub fn is_under(&self, folder: &str) -> bool {
        let folder = trim(folder);
        folder.is_empty()
            || self
                .path
                .strip_prefix(folder)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }
}

fn trim(path: &str) -> &str {
    if path == "/" {
        ""
    } else {
        path.trim_end_matches('/')
    }
}

fn join(base: &str, rel: &str) -> String {
    if rel.is_empty() {
        trim(base).to_owned()
    } else {
        format!("{}/{rel}", trim(base))
    }
}

/// Every key place for a person whose home folder is `home`, with variables
/// read through `var` (absent and empty values count as unset). A variable
/// holding a relative path is ignored: the place it names depends on where a
/// program starts, so it can't be named here.
pub fn places(home: Option<&str>, var: &dyn Fn(&str) -> Option<String>) -> Vec<Place> {
    let var = |name: &str| var(name).filter(|v| !v.is_empty());
    let absolute = |v: String| v.starts_with('/').then_some(v);
    let home = home.filter(|h| h.starts_with('/'));
    let config = var("XDG_CONFIG_HOME")
        .and_then(absolute)
        .or_else(|| home.map(|h| join(h, ".config")));
    let data = var("XDG_DATA_HOME")
        .and_then(absolute)
        .or_else(|| home.map(|h| join(h, ".local/share")));
    let runtime = var("XDG_RUNTIME_DIR").and_then(absolute);
    let mut out: Vec<Place> = Vec::new();
    let mut push = |base: &str, rel: &str, what: &'static str| {
        let (rel, prefix) = match rel.rsplit_once('/') {
            Some((folder, last)) if last.ends_with('*') => {
                (folder, Some(last.trim_end_matches('*').to_owned()))
            }
            None if rel.ends_with('*') => ("", Some(rel.trim_end_matches('*').to_owned())),
            _ => (rel, None),
        };
        let place = Place {
            path: join(base, rel),
            prefix,
            what,
        };
        if !out.contains(&place) {
            out.push(place);
        }
    };
    for entry in KEY_PLACES {
        match entry.root {
            Root::Home => {
                if let Some(h) = home {
                    push(h, entry.path, entry.what);
                }
            }
            Root::Config => {
                if let Some(c) = &config {
                    push(c, entry.path, entry.what);
                }
                // Programs that ignore XDG_CONFIG_HOME still read ~/.config.
                if let Some(h) = home {
                    push(&join(h, ".config"), entry.path, entry.what);
                }
            }
            Root::Data => {
                if let Some(d) = &data {
                    push(d, entry.path, entry.what);
                }
                if let Some(h) = home {
                    push(&join(h, ".local/share"), entry.path, entry.what);
                }
            }
            Root::Runtime => {
                if let Some(r) = &runtime {
                    push(r, entry.path, entry.what);
                }
            }
            Root::Var(name) => {
                if let Some(value) = var(name) {
                    for one in value.split(':').filter(|v| v.starts_with('/')) {
                        push(one, entry.path, entry.what);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn every_place_in_a_plain_home() {
        let got = places(Some("/home/ada"), &none);
        let has = |p: &str| got.iter().any(|g| g.covers(p));
        for protected in [
            "/home/ada/.ssh/id_ed25519",
            "/home/ada/.ssh",
            "/home/ada/.config/op/config",
            "/home/ada/.config/git/credentials",
            "/home/ada/.git-credentials",
            "/home/ada/.npmrc",
            "/home/ada/.pypirc",
            "/home/ada/.cargo/credentials",
            "/home/ada/.cargo/credentials.toml",
            "/home/ada/.gem/credentials",
            "/home/ada/.config/containers/auth.json",
            "/home/ada/.docker/config.json",
            "/home/ada/.vault-token",
            "/home/ada/.config/gcloud/application_default_credentials.json",
            "/home/ada/.terraform.d/credentials.tfrc.json",
            "/home/ada/.local/share/keyrings/login.keyring",
            "/home/ada/.mozilla/firefox/x.default/cookies.sqlite",
            "/home/ada/.config/google-chrome/Default/Cookies",
            "/home/ada/Library/Messages/chat.db",
        ] {
            assert!(has(protected), "{protected}");
        }
        for free in [
            "/home/ada/.cargo/config.toml",
            "/home/ada/.cargo/registry/index",
            "/home/ada/.sshrc-notes",
            "/home/ada/notes/.ssh-backup.txt",
            "/home/ada/.config/git/config",
            "/home/ada/.npmrc-example",
            "/home/ada/project/.npmrc",
            "/home/ada/.config/opera-notes",
        ] {
            assert!(!has(free), "{free}");
        }
    }

    #[test]
    fn variables_move_places_and_relative_ones_are_ignored() {
        let env = |name: &str| match name {
            "XDG_CONFIG_HOME" => Some("/srv/cfg".to_owned()),
            "GNUPGHOME" => Some("/keys/gpg".to_owned()),
            "KUBECONFIG" => Some("/a/kube.yaml:/b/other.yaml:rel.yaml".to_owned()),
            "CARGO_HOME" => Some("/opt/cargo".to_owned()),
            "DOCKER_CONFIG" => Some("relative/docker".to_owned()),
            "XDG_RUNTIME_DIR" => Some("/run/user/1000".to_owned()),
            _ => None,
        };
        let got = places(Some("/home/ada"), &env);
        let has = |p: &str| got.iter().any(|g| g.covers(p));
        assert!(has("/srv/cfg/gh/hosts.yml"));
        assert!(has("/home/ada/.config/gh/hosts.yml"));
        assert!(has("/keys/gpg/private-keys-v1.d/x.key"));
        assert!(has("/a/kube.yaml") && has("/b/other.yaml"));
        assert!(has("/opt/cargo/credentials.toml"));
        assert!(!has("/opt/cargo/registry"));
        assert!(has("/run/user/1000/containers/auth.json"));
        assert!(!got.iter().any(|p| p.path.contains("relative")));
    }

    #[test]
    fn no_home_no_home_places() {
        assert!(places(None, &none).is_empty());
        assert!(places(Some("relative"), &none).is_empty());
    }

    #[test]
    fn is_under_is_by_whole_names() {
        let p = Place::exact("/home/ada/.ssh", "x");
        assert!(p.is_under("/home/ada"));
        assert!(p.is_under("/home/ada/"));
        assert!(p.is_under("/"));
        assert!(p.is_under("/home/ada/.ssh"));
        assert!(!p.is_under("/home/ad"));
        assert!(!p.is_under("/home/ada/.ssh/x"));
    }
}

#[cfg(test)]
mod documented {
    /// `docs/guard.md` gives every place on the list with what is kept there.
    #[test]
    fn every_key_place_is_in_the_docs_with_its_reason() {
        let docs = include_str!("../../../docs/guard.md");
        for place in super::KEY_PLACES {
            assert!(docs.contains(place.what), "{}: {}", place.path, place.what);
            assert!(docs.contains(place.path), "{}", place.path);
        }
    }
}
