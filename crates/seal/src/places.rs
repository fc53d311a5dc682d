//! The places the box treats specially besides where keys live (those are
//! the guard's one list, `guard::keys`): the caches installs and builds
//! write to, and what runs later by itself.
//!
//! **Caches, not the folders around them.** A tool's folder holds its cache
//! beside its configuration and its programs: `~/.gradle` has `caches` and
//! `wrapper` but also `init.d` (scripts every build runs) and
//! `gradle.properties`; `~/.cargo` has `registry` and `git` but also `bin`
//! (on PATH) and `config.toml`. Only the caches are writable.
//!
//! **What runs later by itself** is read-only even inside a writable place
//! (a work folder that is the home): shells' start-up files, the desktop's
//! autostart, systemd user units and environment, every bin folder (on PATH
//! or where installers put one), Python's user site (its `.pth` files run at
//! every start), and the configuration build tools read and obey (Gradle
//! init scripts, Maven's and Cargo's settings, Git's config).
//!
//! Pure: the caller hands in the home folder and a way to read variables.
//! Paths are absolute and unresolved; a variable holding a relative path is
//! ignored, as in `guard::keys`.

use std::path::{Path, PathBuf};

/// Reads one variable; absent and empty are the same.
pub type Vars<'a> = &'a dyn Fn(&str) -> Option<String>;

fn absolute(var: Vars, name: &str) -> Option<PathBuf> {
    var(name).filter(|v| v.starts_with('/')).map(PathBuf::from)
}

/// The first absolute entry of a `:` list (`GOPATH`).
fn first_absolute(var: Vars, name: &str) -> Option<PathBuf> {
    var(name)?
        .split(':')
        .find(|p| p.starts_with('/'))
        .map(PathBuf::from)
}

struct Roots {
    home: Option<PathBuf>,
    config: Vec<PathBuf>,
    data: Vec<PathBuf>,
    cache: Vec<PathBuf>,
    cargo: Option<PathBuf>,
    gradle: Option<PathBuf>,
    gopath: Option<PathBuf>,
}

impl Roots {
    fn new(home: Option<&Path>, var: Vars) -> Roots {
        let home = home.filter(|h| h.is_absolute()).map(Path::to_path_buf);
        // The XDG folder a variable names, and the usual one too: programs
        // that ignore the variable still use it.
        let xdg = |name: &str, usual: &str| -> Vec<PathBuf> {
            let mut out: Vec<PathBuf> = absolute(var, name).into_iter().collect();
            if let Some(h) = &home {
                let usual = h.join(usual);
                if !out.contains(&usual) {
                    out.push(usual);
                }
            }
            out
        };
        Roots {
            config: xdg("XDG_CONFIG_HOME", ".config"),
            data: xdg("XDG_DATA_HOME", ".local/share"),
            cache: xdg("XDG_CACHE_HOME", ".cache"),
            cargo: absolute(var, "CARGO_HOME").or_else(|| home.as_ref().map(|h| h.join(".cargo"))),
            gradle: absolute(var, "GRADLE_USER_HOME")
                .or_else(|| home.as_ref().map(|h| h.join(".gradle"))),
            gopath: first_absolute(var, "GOPATH").or_else(|| home.as_ref().map(|h| h.join("go"))),
            home,
        }
    }
}

struct List(Vec<PathBuf>);

impl List {
    fn add(&mut self, p: PathBuf) {
        if !self.0.iter().any(|q| q.as_os_str() == p.as_os_str()) {
            self.0.push(p);
        }
    }
    fn under(&mut self, base: &Option<PathBuf>, rels: &[&str]) {
        if let Some(b) = base {
            for r in rels {
                self.add(b.join(r));
            }
        }
    }
    fn under_each(&mut self, bases: &[PathBuf], rels: &[&str]) {
        for b in bases {
            for r in rels {
                self.add(b.join(r));
            }
        }
    }
    fn var(&mut self, var: Vars, name: &str) {
        if let Some(p) = absolute(var, name) {
            self.add(p);
        }
    }
}

/// The caches installs and builds write to (ADR 0028 §2): npm, pnpm, yarn,
/// bun, cargo, go, gradle, maven, NuGet and deno, where their variables put
/// them or where they usually are.
pub fn caches(home: Option<&Path>, var: Vars) -> Vec<PathBuf> {
    let r = Roots::new(home, var);
    let mut out = List(Vec::new());
    // npm
    out.under(&r.home, &[".npm"]);
    out.var(var, "npm_config_cache");
    out.var(var, "NPM_CONFIG_CACHE");
    // pnpm: the store and its metadata cache, not PNPM_HOME (its global bin).
    out.under_each(&r.data, &["pnpm/store"]);
    out.under_each(&r.cache, &["pnpm"]);
    out.under(&r.home, &[".pnpm-store"]);
    // yarn 1 and berry's global cache, not ~/.yarn/bin.
    out.under_each(&r.cache, &["yarn"]);
    out.under(&r.home, &[".yarn/berry/cache"]);
    out.var(var, "YARN_CACHE_FOLDER");
    // bun's install cache, not ~/.bun/bin.
    out.under(&r.home, &[".bun/install/cache"]);
    out.var(var, "BUN_INSTALL_CACHE_DIR");
    // cargo: the registry and git checkouts, not bin or config.toml.
    out.under(&r.cargo, &["registry", "git"]);
    // go: modules and the build cache, not GOPATH/bin.
    match absolute(var, "GOMODCACHE") {
        Some(p) => out.add(p),
        None => out.under(&r.gopath, &["pkg/mod"]),
    }
    match absolute(var, "GOCACHE") {
        Some(p) => out.add(p),
        None => out.under_each(&r.cache, &["go-build"]),
    }
    // gradle: caches and wrapper distributions, not init.d or
    // gradle.properties.
    out.under(&r.gradle, &["caches", "wrapper"]);
    // maven: the local repository, not settings.xml.
    out.under(&r.home, &[".m2/repository"]);
    // NuGet: packages and its HTTP caches, not NuGet.Config.
    match absolute(var, "NUGET_PACKAGES") {
        Some(p) => out.add(p),
        None => out.under(&r.home, &[".nuget/packages"]),
    }
    out.under_each(
        &r.data,
        &["NuGet/v3-cache", "NuGet/http-cache", "NuGet/plugins-cache"],
    );
    out.var(var, "NUGET_HTTP_CACHE_PATH");
    // deno
    match absolute(var, "DENO_DIR") {
        Some(p) => out.add(p),
        None => out.under_each(&r.cache, &["deno"]),
    }
    out.0
}

/// Start-up files in the home folder: shells, X sessions, PAM.
const STARTUP_IN_HOME: &[&str] = &[
    ".profile",
    ".bash_profile",
    ".bash_login",
    ".bashrc",
    ".bash_logout",
    ".bash_aliases",
    ".bash_completion",
    ".bash_completion.d",
    ".zshenv",
    ".zprofile",
    ".zshrc",
    ".zlogin",
    ".zlogout",
    ".oh-my-zsh",
    ".kshrc",
    ".mkshrc",
    ".cshrc",
    ".tcshrc",
    ".login",
    ".logout",
    ".xprofile",
    ".xsession",
    ".xsessionrc",
    ".xinitrc",
    ".Xsession",
    ".pam_environment",
    ".config",
    ".local",
];

/// Start-up places under the XDG config folder: autostart, systemd user
/// units and environment, fish, KDE's scripts, window managers that run
/// commands from their config.
const STARTUP_IN_CONFIG: &[&str] = &[
    "autostart",
    "autostart-scripts",
    "systemd",
    "environment.d",
    "fish",
    "plasma-workspace",
    "upstart",
    "openbox",
    "i3",
    "sway",
    "hypr",
    "labwc",
    "git",
    "go/env",
    "pip",
    "pnpm",
];

/// Under the XDG data folder: systemd user units, and the desktop's
/// application entries (their `Exec` lines run when a file is opened).
const STARTUP_IN_DATA: &[&str] = &["systemd", "applications"];

/// Tool configuration in the home folder that builds read and obey, and
/// the folders installers put programs in.
const OBEYED_IN_HOME: &[&str] = &[
    ".gitconfig",
    ".mavenrc",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".m2/extensions.xml",
    ".nuget/NuGet",
    ".yarnrc",
    ".bunfig.toml",
    ".pydistutils.cfg",
    ".pip",
    ".condarc",
    ".local/bin",
    ".local/lib",
    "bin",
    ".bun/bin",
    ".yarn/bin",
    ".deno/bin",
    ".npm-global",
    ".dotnet/tools",
    ".node_modules",
    ".node_libraries",
];

/// What runs later by itself, or is obeyed by the next build: read-only in
/// the box wherever it sits. `path_var` is the box's PATH; each of its
/// absolute entries is a bin folder.
pub fn runs_later(home: Option<&Path>, var: Vars) -> Vec<PathBuf> {
    let r = Roots::new(home, var);
    let mut out = List(Vec::new());
    out.under(&r.home, STARTUP_IN_HOME);
    out.under(&r.home, OBEYED_IN_HOME);
    out.under_each(&r.config, STARTUP_IN_CONFIG);
    out.under_each(&r.data, STARTUP_IN_DATA);
    if let Some(z) = absolute(var, "ZDOTDIR") {
        out.add(z);
    }
    // Cargo: its programs, its environment script, its settings.
    out.under(&r.cargo, &["bin", "env", "config", "config.toml"]);
    // Gradle: init scripts and properties every build reads.
    out.under(
        &r.gradle,
        &[
            "init.d",
            "init.gradle",
            "init.gradle.kts",
            "gradle.properties",
        ],
    );
    // Go, bun, deno, pnpm, npm: their bin folders, wherever moved.
    match absolute(var, "GOBIN") {
        Some(p) => out.add(p),
        None => out.under(&r.gopath, &["bin"]),
    }
    for (name, rel) in [
        ("BUN_INSTALL", "bin"),
        ("DENO_INSTALL", "bin"),
        ("NPM_CONFIG_PREFIX", "bin"),
        ("VOLTA_HOME", "bin"),
    ] {
        if let Some(p) = absolute(var, name) {
            out.add(p.join(rel));
        }
    }
    out.var(var, "PNPM_HOME");
    // Every bin folder on PATH.
    if let Some(path) = var("PATH") {
        for entry in path.split(':').filter(|e| e.starts_with('/')) {
            out.add(
                PathBuf::from(entry.trim_end_matches('/'))
                    .components()
                    .collect(),
            );
        }
    }
    out.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn caches_not_the_folders_around_them() {
        let home = Path::new("/home/ada");
        let caches = caches(Some(home), &none);
        let later = runs_later(Some(home), &none);
        for cache in [
            ".gradle/caches",
            ".gradle/wrapper",
            ".m2/repository",
            ".cargo/registry",
            ".cargo/git",
            ".npm",
            ".cache/yarn",
            ".local/share/pnpm/store",
            ".bun/install/cache",
            "go/pkg/mod",
            ".cache/go-build",
            ".nuget/packages",
            ".cache/deno",
        ] {
            assert!(caches.contains(&home.join(cache)), "{cache} isn't a cache");
        }
        for later_place in [
            ".gradle/init.d",
            ".gradle/gradle.properties",
            ".m2/settings.xml",
            ".cargo/bin",
            ".cargo/config.toml",
            ".local/bin",
            ".bashrc",
            ".config/autostart",
            ".config/systemd",
            ".local/share/systemd",
            "go/bin",
            ".bun/bin",
        ] {
            let p = home.join(later_place);
            assert!(later.contains(&p), "{later_place} isn't read-only");
            assert!(
                !caches.iter().any(|c| p.starts_with(c)),
                "{later_place} is inside a cache"
            );
        }
        // No cache is or surrounds a place that runs later.
        for c in &caches {
            for l in &later {
                assert!(
                    !l.starts_with(c),
                    "{} is inside the cache {}",
                    l.display(),
                    c.display()
                );
            }
        }
    }

    #[test]
    fn variables_move_them() {
        let env = |name: &str| match name {
            "CARGO_HOME" => Some("/opt/cargo".to_owned()),
            "GRADLE_USER_HOME" => Some("/srv/gradle".to_owned()),
            "GOPATH" => Some("rel:/gp:/other".to_owned()),
            "XDG_CONFIG_HOME" => Some("/cfg".to_owned()),
            "PATH" => Some("/usr/bin:/home/ada/tools/bin/:relative/bin".to_owned()),
            "ZDOTDIR" => Some("/home/ada/.zsh".to_owned()),
            _ => None,
        };
        let home = Some(Path::new("/home/ada"));
        let caches = caches(home, &env);
        let later = runs_later(home, &env);
        assert!(caches.contains(&PathBuf::from("/opt/cargo/registry")));
        assert!(caches.contains(&PathBuf::from("/srv/gradle/caches")));
        assert!(caches.contains(&PathBuf::from("/gp/pkg/mod")));
        assert!(later.contains(&PathBuf::from("/opt/cargo/config.toml")));
        assert!(later.contains(&PathBuf::from("/srv/gradle/init.d")));
        assert!(later.contains(&PathBuf::from("/gp/bin")));
        assert!(later.contains(&PathBuf::from("/cfg/autostart")));
        assert!(later.contains(&PathBuf::from("/home/ada/.config/autostart")));
        assert!(later.contains(&PathBuf::from("/home/ada/tools/bin")));
        assert!(later.contains(&PathBuf::from("/home/ada/.zsh")));
        assert!(!later
            .iter()
            .any(|p| p.to_string_lossy().contains("relative")));
    }
}
