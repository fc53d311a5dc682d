//! The one reviewed list of official installers: a tool's own documented
//! `curl … | sh` (or `irm … | iex`) address. A download-and-run from one of
//! these, over https, is caution with the tool named; from anywhere else it
//! stays danger. A host matches exactly (a subdomain is another host: on
//! shared hosting such as vercel.app it is someone else's), and where a host
//! serves more than installers, the path must start as listed.
//!
//! To add one: the address must be the one the tool's own documentation
//! gives, on a domain the project controls.

pub struct Installer {
    pub host: &'static str,
    /// The path must start with this ("" for any path on the host).
    pub path: &'static str,
    pub tool: &'static str,
}

const fn at(host: &'static str, path: &'static str, tool: &'static str) -> Installer {
    Installer { host, path, tool }
}

pub const INSTALLERS: &[Installer] = &[
    at("sh.rustup.rs", "", "Rust (rustup)"),
    at("win.rustup.rs", "", "Rust (rustup)"),
    at("astral.sh", "/uv/", "uv"),
    at("astral.sh", "/ruff/", "Ruff"),
    at("astral.sh", "/ty/", "ty"),
    at("bun.sh", "/install", "Bun"),
    at("bun.com", "/install", "Bun"),
    at("deno.land", "/install", "Deno"),
    at("deno.land", "/x/install/", "Deno"),
    at("get.docker.com", "", "Docker"),
    at("install.python-poetry.org", "", "Poetry"),
    at("get.pnpm.io", "/install", "pnpm"),
    at("fnm.vercel.app", "/install", "fnm"),
    at("sh.vector.dev", "", "Vector"),
    at("tailscale.com", "/install.sh", "Tailscale"),
    at("ollama.com", "/install.sh", "Ollama"),
    at("starship.rs", "/install.sh", "Starship"),
    at("foundry.paradigm.xyz", "", "Foundry"),
    at(
        "raw.githubusercontent.com",
        "/Homebrew/install/",
        "Homebrew",
    ),
    at("raw.githubusercontent.com", "/nvm-sh/nvm/", "nvm"),
    at(
        "raw.githubusercontent.com",
        "/ohmyzsh/ohmyzsh/",
        "Oh My Zsh",
    ),
    at("raw.githubusercontent.com", "/helm/helm/", "Helm"),
    at("get.volta.sh", "", "Volta"),
    at("install.determinate.systems", "/nix", "Nix (Determinate)"),
    at("nixos.org", "/nix/install", "Nix"),
    at("get.k3s.io", "", "k3s"),
    at("get.sdkman.io", "", "SDKMAN!"),
    at("pyenv.run", "", "pyenv"),
    at("mise.run", "", "mise"),
    at("get.scoop.sh", "", "Scoop"),
    at("dot.net", "/v1/dotnet-install", ".NET"),
    at("bootstrap.pypa.io", "/get-pip.py", "pip"),
    at("claude.ai", "/install.", "Claude Code"),
    at("openclaw.ai", "/install.", "OpenClaw"),
    at("opencode.ai", "/install", "opencode"),
    at("fly.io", "/install.", "flyctl"),
    at("get.pulumi.com", "", "Pulumi"),
    at("rclone.org", "/install.sh", "rclone"),
    at("sdk.cloud.google.com", "", "Google Cloud SDK"),
];

/// An address a command downloads from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address<'a> {
    pub https: bool,
    pub host: &'a str,
    pub path: &'a str,
}

/// Every `scheme://host/path` in `text`.
pub fn addresses(text: &str) -> Vec<Address<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let scheme_start = rest[..at]
            .rfind(|c: char| !c.is_ascii_alphanumeric())
            .map_or(0, |i| i + 1);
        let scheme = &rest[scheme_start..at];
        let after = &rest[at + 3..];
        let end = after
            .find(|c: char| {
                c.is_whitespace()
                    || matches!(
                        c,
                        '"' | '\'' | ')' | '(' | '<' | '>' | '|' | ';' | '`' | '\t'
                    )
            })
            .unwrap_or(after.len());
        let whole = &after[..end];
        let host_end = whole.find(['/', '?', '#']).unwrap_or(whole.len());
        let host = whole[..host_end].rsplit('@').next().unwrap_or("");
        let host = host.split(':').next().unwrap_or("");
        if !scheme.is_empty() && !host.is_empty() {
            out.push(Address {
                https: scheme.eq_ignore_ascii_case("https"),
                host,
                path: &whole[host_end..],
            });
        }
        rest = &after[end..];
    }
    out
}

/// The reviewed installer `a` is, if it is one.
pub fn official(a: &Address) -> Option<&'static Installer> {
    if !a.https {
        return None;
    }
    INSTALLERS.iter().find(|i| {
        a.host.eq_ignore_ascii_case(i.host)
            && (i.path.is_empty()
                || a.path
                    .to_ascii_lowercase()
                    .starts_with(&i.path.to_ascii_lowercase()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(url: &str) -> Option<&'static str> {
        addresses(url).first().and_then(official).map(|i| i.tool)
    }

    #[test]
    fn official_installers_by_exact_host_and_path() {
        assert_eq!(tool("https://sh.rustup.rs"), Some("Rust (rustup)"));
        assert_eq!(tool("https://astral.sh/uv/install.sh"), Some("uv"));
        assert_eq!(tool("https://astral.sh/uv/install.ps1"), Some("uv"));
        assert_eq!(
            tool("https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh"),
            Some("Homebrew")
        );
        assert_eq!(tool("https://foundry.paradigm.xyz"), Some("Foundry"));
        // Not the tool's own address.
        assert_eq!(tool("http://sh.rustup.rs"), None);
        assert_eq!(tool("https://sh.rustup.rs.evil.example/x"), None);
        assert_eq!(tool("https://evil.example/astral.sh"), None);
        assert_eq!(tool("https://evil.vercel.app/install"), None);
        assert_eq!(
            tool("https://raw.githubusercontent.com/evil/install/main/i.sh"),
            None
        );
        assert_eq!(tool("https://user@astral.sh.evil.example/uv/"), None);
    }

    #[test]
    fn addresses_in_a_command() {
        let a = addresses(
            "curl -fsSL 'https://x.example:8443/a/b.sh?x=1' | bash; wget http://1.2.3.4/y",
        );
        assert_eq!(a.len(), 2);
        assert_eq!(
            (a[0].host, a[0].path, a[0].https),
            ("x.example", "/a/b.sh?x=1", true)
        );
        assert_eq!((a[1].host, a[1].https), ("1.2.3.4", false));
    }
}
