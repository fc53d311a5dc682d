//! The one typed line that sets sealing up: the fixed install for this
//! system's package manager and, where the kernel restricts user namespaces,
//! an AppArmor profile for the system's bubblewrap written with `tee` on the
//! same line.
//!
//! Nothing that runs as root is read from a file in Conch's folder: the
//! assistant can write there, and a script it had changed would run as root.
//! Every word of the line is fixed here. The profile loosens the restriction
//! for /usr/bin/bwrap only, never a bubblewrap found on PATH.

use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageManager {
    Apt,
    Dnf,
    Pacman,
    Zypper,
    Apk,
}

impl PackageManager {
    /// The first package manager found on this computer.
    pub fn detect() -> Option<PackageManager> {
        let has = |name: &str| {
            ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
                .iter()
                .any(|d| Path::new(d).join(name).is_file())
        };
        [
            ("apt-get", PackageManager::Apt),
            ("dnf", PackageManager::Dnf),
            ("pacman", PackageManager::Pacman),
            ("zypper", PackageManager::Zypper),
            ("apk", PackageManager::Apk),
        ]
        .into_iter()
        .find(|(bin, _)| has(bin))
        .map(|(_, pm)| pm)
    }

    fn install(self) -> &'static str {
        match self {
            PackageManager::Apt => "sudo apt-get install -y bubblewrap socat ripgrep",
            PackageManager::Dnf => "sudo dnf install -y bubblewrap socat ripgrep",
            PackageManager::Pacman => {
                "sudo pacman -S --needed --noconfirm bubblewrap socat ripgrep"
            }
            PackageManager::Zypper => {
                "sudo zypper --non-interactive install bubblewrap socat ripgrep"
            }
            PackageManager::Apk => "sudo apk add bubblewrap socat ripgrep",
        }
    }
}

/// The AppArmor profile that lets the system's bubblewrap make user
/// namespaces, and its loading, as one piece of the line.
const APPARMOR: &str = "printf '%s\\n' 'abi <abi/4.0>,' 'include <tunables/global>' 'profile bwrap /usr/bin/bwrap flags=(unconfined) {' '  userns,' '  include if exists <local/bwrap>' '}' | sudo tee /etc/apparmor.d/bwrap > /dev/null && sudo apparmor_parser -r /etc/apparmor.d/bwrap";

/// The line a person types to make sealing work here.
pub fn seal_command(pm: PackageManager, apparmor: bool) -> String {
    if apparmor {
        format!("{} && {APPARMOR}", pm.install())
    } else {
        pm.install().to_owned()
    }
}

/// The fix for what's wrong, when a typed line can help.
pub fn fix_line(support: &crate::Support) -> Option<String> {
    match support {
        crate::Support::Unavailable { problem } if problem.fixable() => {
            let apparmor =
                matches!(problem, crate::SupportProblem::AppArmor { .. }) || seal_apparmor();
            PackageManager::detect().map(|pm| seal_command(pm, apparmor))
        }
        _ => None,
    }
}

fn seal_apparmor() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
        .map(|v| v.trim() == "1")
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_package_manager() {
        assert_eq!(
            seal_command(PackageManager::Apt, false),
            "sudo apt-get install -y bubblewrap socat ripgrep"
        );
        assert_eq!(
            seal_command(PackageManager::Dnf, false),
            "sudo dnf install -y bubblewrap socat ripgrep"
        );
        assert_eq!(
            seal_command(PackageManager::Pacman, false),
            "sudo pacman -S --needed --noconfirm bubblewrap socat ripgrep"
        );
        assert_eq!(
            seal_command(PackageManager::Zypper, false),
            "sudo zypper --non-interactive install bubblewrap socat ripgrep"
        );
        assert_eq!(
            seal_command(PackageManager::Apk, false),
            "sudo apk add bubblewrap socat ripgrep"
        );
    }

    #[test]
    fn the_apparmor_line() {
        assert_eq!(
            seal_command(PackageManager::Apt, true),
            "sudo apt-get install -y bubblewrap socat ripgrep && printf '%s\\n' 'abi <abi/4.0>,' 'include <tunables/global>' 'profile bwrap /usr/bin/bwrap flags=(unconfined) {' '  userns,' '  include if exists <local/bwrap>' '}' | sudo tee /etc/apparmor.d/bwrap > /dev/null && sudo apparmor_parser -r /etc/apparmor.d/bwrap"
        );
        let line = seal_command(PackageManager::Apt, true);
        assert!(
            !line.contains(".conch"),
            "nothing run as root comes from Conch's folder"
        );
        assert!(
            line.contains("profile bwrap /usr/bin/bwrap"),
            "the system's bubblewrap only"
        );
    }
}
