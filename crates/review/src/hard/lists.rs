//! The words the categories are read from: programs, subcommands, places.
//! Kept apart from the reading so each list can be reviewed on its own.

pub(super) const ESCALATE: &[&str] = &[
    "sudo", "su", "doas", "pkexec", "run0", "setcap", "visudo", "passwd", "usermod", "chpasswd",
    "newgrp",
];
pub(super) const SECRET_PROGRAMS: &[&str] = &[
    "ssh-keygen",
    "ssh-add",
    "secret-tool",
    "security",
    "pass",
    "op",
    "gpg",
    "gpg2",
    "keyring",
    "printenv",
    "aws-vault",
    "vault",
];
pub(super) const SAFETY_PROGRAMS: &[&str] = &[
    "conch",
    "ufw",
    "iptables",
    "ip6tables",
    "nft",
    "setenforce",
    "aa-disable",
    "aa-complain",
    "apparmor_parser",
    "auditctl",
    "firewall-cmd",
    "csrutil",
    "spctl",
];
pub(super) const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch", "aria2c", "http", "https", "xh"];
pub(super) const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "python",
    "python2",
    "python3",
    "node",
    "perl",
    "ruby",
    "php",
    "deno",
    "bun",
    "source",
    ".",
    "eval",
    "pwsh",
    "powershell",
    "iex",
];
/// Programs that fetch packages and run their install code.
pub(super) const INSTALLERS: &[(&str, &[&str])] = &[
    ("pip", &["install"]),
    ("pip3", &["install"]),
    ("pipx", &["install", "run"]),
    ("uv", &["pip", "tool", "run"]),
    ("npm", &["install", "i", "ci", "add", "exec", "x"]),
    ("pnpm", &["install", "i", "add", "dlx", "exec"]),
    ("yarn", &["install", "add", "dlx"]),
    ("cargo", &["install"]),
    ("go", &["install", "get"]),
    ("gem", &["install"]),
    ("brew", &["install"]),
    ("apt", &["install"]),
    ("apt-get", &["install"]),
    ("dnf", &["install"]),
    ("yum", &["install"]),
    ("snap", &["install"]),
    ("flatpak", &["install"]),
    ("docker", &["run", "pull"]),
    ("podman", &["run", "pull"]),
];
pub(super) const ALWAYS_REMOTE: &[&str] = &["npx", "bunx", "uvx"];
pub(super) const SENDERS: &[&str] = &[
    "scp", "sftp", "ftp", "nc", "ncat", "netcat", "socat", "telnet", "ssh",
];
pub(super) const CLOUD: &[&str] = &[
    "stripe",
    "aws",
    "gcloud",
    "az",
    "doctl",
    "flyctl",
    "fly",
    "heroku",
    "vercel",
    "netlify",
    "linode-cli",
    "hcloud",
];
pub(super) const SCHEDULERS: &[&str] = &[
    "crontab",
    "at",
    "batch",
    "launchctl",
    "schtasks",
    "update-rc.d",
    "chkconfig",
];
pub(super) const WIPERS: &[&str] = &[
    "mkfs", "shred", "wipefs", "fdisk", "sfdisk", "parted", "mkswap",
];
/// Targets an `rm -r` may not reach for without the owner.
pub(super) const BROAD: &[&str] = &[
    "/", "/*", "~", "~/", "~/*", "$HOME", "${HOME}", ".", "./", "..", "../", "*", ".*", "./*",
];

/// Other programs a category looks at by name.
pub(super) const OTHER_PROGRAMS: &[&str] = &[
    "chmod",
    "chown",
    "chgrp",
    "gh",
    "git",
    "docker",
    "podman",
    "npm",
    "systemctl",
    "loginctl",
    "terraform",
    "tofu",
    "pulumi",
    "rm",
    "dd",
    "find",
    "kubectl",
    "rsync",
    "deno",
    "crontab",
];
