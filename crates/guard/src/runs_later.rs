//! Places where what is written runs later by itself: a git hook runs at
//! the next commit, CI at the next push, a shell's start-up file at the
//! next terminal, an autostart entry at the next sign-in, a program in a
//! bin folder the next time its name is typed. A change there is a change a
//! person should see, so it asks in every mode (`runs-later.file`), inside
//! the work folder too: Codex keeps `.git` read-only in its writable roots
//! for the same reason. Auto's persistence category reads the same list.
//!
//! Pure: paths in (absolute, resolved), a reason out. `package.json` runs
//! later only through its scripts, which only the classifier (which reads
//! the file) can compare; see `tools`.

/// Where a file is, relative to something, and what runs it.
struct Place {
    /// A path ending matched at a folder boundary: `.git/hooks/` (a folder:
    /// anything inside), `.envrc` (that name).
    tail: &'static str,
    why: &'static str,
}

const fn p(tail: &'static str, why: &'static str) -> Place {
    Place { tail, why }
}

/// Anywhere on the computer (in any project, any home).
const ANYWHERE: &[Place] = &[
    p(
        ".git/hooks/",
        "a git hook, which runs at the next commit, merge or push",
    ),
    p(
        ".git/config",
        "git's settings, which can name programs git runs",
    ),
    p(
        ".git/info/attributes",
        "git's attributes, which can name filters git runs",
    ),
    p(
        ".gitattributes",
        "git's attributes, which can name filters git runs",
    ),
    p(
        ".gitmodules",
        "git's submodules, which name what git fetches",
    ),
    p(
        ".gitconfig",
        "git's settings, which can name programs git runs",
    ),
    p(
        ".config/git/config",
        "git's settings, which can name programs git runs",
    ),
    p(
        ".config/git/attributes",
        "git's attributes, which can name filters git runs",
    ),
    p(
        ".husky/",
        "a git hook (husky), which runs at the next commit",
    ),
    p(
        ".pre-commit-config.yaml",
        "the pre-commit hooks, which run at the next commit",
    ),
    p(
        ".envrc",
        "direnv's file, which runs when a shell enters the folder",
    ),
    p(
        ".vscode/tasks.json",
        "VS Code's tasks, which can run when the folder opens",
    ),
    p(
        ".vscode/settings.json",
        "VS Code's settings, which can name programs it runs",
    ),
    p(
        ".vscode/launch.json",
        "VS Code's launch settings, which run programs",
    ),
    p(
        ".idea/workspace.xml",
        "the JetBrains workspace, which can run programs",
    ),
    p(
        ".github/workflows/",
        "a CI workflow, which runs at the next push",
    ),
    p(
        ".github/actions/",
        "a CI action, which runs at the next push",
    ),
    p(
        ".gitlab-ci.yml",
        "the GitLab CI file, which runs at the next push",
    ),
    p(
        ".circleci/",
        "the CircleCI settings, which run at the next push",
    ),
    p(
        ".travis.yml",
        "the Travis CI file, which runs at the next push",
    ),
    p(
        "azure-pipelines.yml",
        "the Azure Pipelines file, which runs at the next push",
    ),
    p(
        "bitbucket-pipelines.yml",
        "the Bitbucket Pipelines file, which runs at the next push",
    ),
    p(
        "Jenkinsfile",
        "the Jenkins pipeline, which runs at the next push",
    ),
    p(
        ".buildkite/",
        "the Buildkite pipeline, which runs at the next push",
    ),
    p(
        ".drone.yml",
        "the Drone CI file, which runs at the next push",
    ),
    p(".bashrc", "a shell's start-up file"),
    p(".bash_profile", "a shell's start-up file"),
    p(".bash_login", "a shell's start-up file"),
    p(".bash_logout", "a shell's sign-out file"),
    p(".profile", "a shell's start-up file"),
    p(".zshrc", "a shell's start-up file"),
    p(".zprofile", "a shell's start-up file"),
    p(".zshenv", "a shell's start-up file"),
    p(".zlogin", "a shell's start-up file"),
    p(".zlogout", "a shell's sign-out file"),
    p(".kshrc", "a shell's start-up file"),
    p(".cshrc", "a shell's start-up file"),
    p(".tcshrc", "a shell's start-up file"),
    p(".inputrc", "readline's start-up file"),
    p(".config/fish/", "the fish shell's start-up files"),
    p(".xinitrc", "the desktop's start-up file"),
    p(".xprofile", "the desktop's start-up file"),
    p(".xsession", "the desktop's start-up file"),
    p(".xsessionrc", "the desktop's start-up file"),
    p(".pam_environment", "the sign-in environment"),
    p(
        ".config/autostart/",
        "a program the desktop starts at sign-in",
    ),
    p(".config/systemd/", "a service systemd starts by itself"),
    p(".config/environment.d/", "the sign-in environment"),
    p(
        ".config/plasma-workspace/env/",
        "the desktop's start-up scripts",
    ),
    p("Library/LaunchAgents/", "a program macOS starts at sign-in"),
    p(".ssh/rc", "a script SSH runs at every sign-in"),
    p(
        ".gradle/init.d/",
        "a Gradle init script, which runs at every build",
    ),
    p(
        ".gradle/init.gradle",
        "a Gradle init script, which runs at every build",
    ),
    p(
        ".gradle/gradle.properties",
        "Gradle's settings, which run at every build",
    ),
    p(
        ".m2/settings.xml",
        "Maven's settings, which run at every build",
    ),
    p(
        ".cargo/config.toml",
        "cargo's settings, which can name programs it runs",
    ),
    p(
        ".cargo/config",
        "cargo's settings, which can name programs it runs",
    ),
    p(".npmrc", "npm's settings, which can name scripts it runs"),
    p(
        ".yarnrc.yml",
        "yarn's settings, which can name a program yarn runs",
    ),
    p(
        ".yarnrc",
        "yarn's settings, which can name a program yarn runs",
    ),
    p(
        ".pnpmfile.cjs",
        "pnpm's hooks, which run at the next install",
    ),
    p(
        "conftest.py",
        "pytest's conftest, which runs at the next test run",
    ),
    p(
        "sitecustomize.py",
        "Python's sitecustomize, which runs at every Python start",
    ),
    p(
        "usercustomize.py",
        "Python's usercustomize, which runs at every Python start",
    ),
    p(
        ".config/direnv/",
        "direnv's own settings, which run when a shell enters a folder",
    ),
    p(
        ".direnvrc",
        "direnv's own settings, which run when a shell enters a folder",
    ),
    p(
        ".local/bin/",
        "a bin folder, whose programs run when their name is typed",
    ),
    p(
        ".cargo/bin/",
        "a bin folder, whose programs run when their name is typed",
    ),
    p(
        "go/bin/",
        "a bin folder, whose programs run when their name is typed",
    ),
    p(
        ".bun/bin/",
        "a bin folder, whose programs run when their name is typed",
    ),
    p(
        ".deno/bin/",
        "a bin folder, whose programs run when their name is typed",
    ),
    p(
        ".npm-global/bin/",
        "a bin folder, whose programs run when their name is typed",
    ),
];

/// Only from the root of the file system.
const SYSTEM: &[Place] = &[
    p("/etc/cron", "a scheduled job"),
    p("/var/spool/cron/", "a scheduled job"),
    p("/etc/systemd/", "a service systemd starts by itself"),
    p("/etc/init.d/", "a service started at boot"),
    p("/etc/rc.local", "a script run at boot"),
    p("/etc/profile", "every shell's start-up file"),
    p("/etc/bash.bashrc", "every shell's start-up file"),
    p("/etc/zsh/", "every shell's start-up file"),
    p("/etc/environment", "every sign-in's environment"),
    p(
        "/etc/xdg/autostart/",
        "a program the desktop starts at sign-in",
    ),
    p("/etc/ld.so.preload", "a library loaded into every program"),
    p(
        "/Library/LaunchAgents/",
        "a program macOS starts at sign-in",
    ),
    p("/Library/LaunchDaemons/", "a service macOS starts at boot"),
    p(
        "/usr/local/bin/",
        "a bin folder, whose programs run when their name is typed",
    ),
    p(
        "/usr/bin/",
        "a bin folder, whose programs run when their name is typed",
    ),
    p(
        "/bin/",
        "a bin folder, whose programs run when their name is typed",
    ),
];

/// A Python path file: each `import` line in it runs at every Python start.
const PTH: &str = "a Python path file, whose import lines run at every Python start";

/// Why what is written at `path` (absolute, resolved, or a word of a
/// command made absolute) runs later by itself, if it does.
pub fn runs_later(path: &str) -> Option<&'static str> {
    if path.ends_with(".pth") && !path.ends_with("/.pth") {
        return Some(PTH);
    }
    for place in SYSTEM {
        let tail = place.tail;
        if tail.ends_with('/') {
            if path.starts_with(tail) || path == tail.trim_end_matches('/') {
                return Some(place.why);
            }
        } else if path == tail
            || path.starts_with(&format!("{tail}/"))
            || path.starts_with(tail) && tail.ends_with("cron")
        {
            return Some(place.why);
        }
    }
    for place in ANYWHERE {
        let tail = place.tail;
        let at_boundary = |at: usize| at == 0 || path.as_bytes()[at - 1] == b'/';
        if let Some(folder) = tail.strip_suffix('/') {
            // Anything inside the folder, wherever it is; or the folder itself.
            let mut from = 0;
            while let Some(i) = path[from..].find(folder) {
                let at = from + i;
                let end = at + folder.len();
                if at_boundary(at) && (end == path.len() || path.as_bytes()[end] == b'/') {
                    return Some(place.why);
                }
                from = at + 1;
            }
        } else if let Some(at) = path.len().checked_sub(tail.len()) {
            if path.ends_with(tail) && at_boundary(at) {
                return Some(place.why);
            }
        }
    }
    None
}

/// Every name and folder on the list, for the docs and the box.
pub fn places() -> impl Iterator<Item = (&'static str, &'static str)> {
    ANYWHERE.iter().chain(SYSTEM).map(|p| (p.tail, p.why))
}

/// The places that run later wherever they sit, as paths under `root` (a
/// work folder, a repository in it, a home): the box keeps each read-only,
/// from this same list, so what the file tools ask about and what a sealed
/// command can't write are one list. A folder place (`.git/hooks/`) keeps
/// its trailing `/`.
pub fn under(root: &str) -> impl Iterator<Item = (String, &'static str)> + '_ {
    let root = root.trim_end_matches('/');
    ANYWHERE
        .iter()
        .map(move |p| (format!("{root}/{}", p.tail), p.why))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every place the box keeps read-only under a folder is one the file
    /// tools ask about there, and the other way round: one list.
    #[test]
    fn the_box_and_the_guard_read_one_list() {
        for root in ["/w", "/home/ada", "/w/sub/", "/tmp/ünï code"] {
            let listed: Vec<_> = under(root).collect();
            assert_eq!(listed.len(), ANYWHERE.len());
            for (path, why) in listed {
                let file = path.trim_end_matches('/');
                assert_eq!(runs_later(file), Some(why), "{path}");
                assert!(path.starts_with(root.trim_end_matches('/')), "{path}");
                if path.ends_with('/') {
                    assert_eq!(runs_later(&format!("{path}x")), Some(why), "{path}");
                }
            }
        }
    }

    #[test]
    fn what_runs_later() {
        for yes in [
            "/w/.git/hooks/pre-commit",
            "/w/.git/hooks",
            "/w/sub/.git/config",
            "/w/.envrc",
            "/w/.vscode/tasks.json",
            "/w/.github/workflows/ci.yml",
            "/w/.gitlab-ci.yml",
            "/home/ada/.bashrc",
            "/home/ada/.config/autostart/x.desktop",
            "/home/ada/.config/systemd/user/x.service",
            "/home/ada/.local/bin/git",
            "/home/ada/.gradle/init.d/x.gradle",
            "/home/ada/.gitconfig",
            "/home/ada/.config/git/config",
            "/w/conftest.py",
            "/w/tests/conftest.py",
            "/home/ada/.local/lib/python3.12/site-packages/evil.pth",
            "/w/.venv/lib/python3.11/site-packages/sitecustomize.py",
            "/w/.yarnrc.yml",
            "/home/ada/.config/direnv/direnvrc",
            "/etc/cron.d/job",
            "/etc/crontab",
            "/etc/systemd/system/x.service",
            "/usr/local/bin/ls",
        ] {
            assert!(runs_later(yes).is_some(), "{yes}");
        }
        for no in [
            "/w/src/main.rs",
            "/w/.gitignore",
            "/w/git/hooks.md",
            "/w/my.bashrc.example",
            "/w/.github/README.md",
            "/home/ada/notes.md",
            "/home/ada/.gradle/caches/x",
            "/home/ada/.cargo/registry/x",
            "/w/docs/.envrc.md",
            "/w/not_conftest.py",
            "/w/conftest.py.bak",
            "/w/depth.pth.txt",
            "/w/src/pathlib.py",
        ] {
            assert!(runs_later(no).is_none(), "{no}");
        }
    }
}
