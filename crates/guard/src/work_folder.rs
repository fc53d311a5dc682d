//! Where a chat may work. A chat's work folder is where Accept edits lets
//! changes through and where commands start, so it must never be a folder
//! whose contents are Conch's own powers or the person's keys, nor one that
//! holds the whole computer.
//!
//! One rule, over a resolved path (links and `..` already followed by the
//! caller): a folder is refused when it is `/`, when it holds the person's
//! whole home folder and more (any folder above it), or when it is a
//! protected place or inside one (Conch's folder, a place where keys live:
//! [`crate::Protected::why`]). The person's home itself stays allowed; the
//! key folders inside it are still protected call by call.
//!
//! Pure: the caller resolves the path and says where the person's home is.

use crate::protect::{Protected, Why};

/// Why a folder can't be a chat's work folder, as the sentence the person
/// reads; `None` when it can be. `folder` and `owner_home` are absolute and
/// resolved.
pub fn refusal(folder: &str, protected: &Protected, owner_home: Option<&str>) -> Option<String> {
    let folder = trim(folder);
    let shown = if folder.is_empty() { "/" } else { folder };
    if folder.is_empty() {
        return Some(
            "The work folder / is the whole computer: a chat there could change anything on it. Pick a project folder."
                .to_owned(),
        );
    }
    if let Some(home) = owner_home.map(trim).filter(|h| !h.is_empty()) {
        if home
            .strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with('/'))
        {
            return Some(format!(
                "The work folder {shown} holds your whole home folder and more. Pick a project folder."
            ));
        }
    }
    match protected.why(folder)? {
        Why::Conch => Some(format!(
            "The work folder {shown} is Conch's own folder (or inside it), where your password, keys and chats are kept. Pick a project folder."
        )),
        Why::Keys(what) => Some(format!(
            "The work folder {shown} is a place where keys live ({what}). Pick a project folder."
        )),
    }
}

fn trim(path: &str) -> &str {
    path.trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::{Root, KEY_PLACES};

    const HOME: &str = "/home/ada";
    const CONCH: &str = "/home/ada/.conch";

    fn usual() -> Protected {
        Protected::usual(Some(HOME), CONCH)
    }

    fn refused(folder: &str) -> bool {
        refusal(folder, &usual(), Some(HOME)).is_some()
    }

    #[test]
    fn the_whole_computer() {
        for root in ["/", "//", "///"] {
            let says = refusal(root, &usual(), Some(HOME)).unwrap();
            assert!(
                says.starts_with("The work folder / is the whole computer"),
                "{says}"
            );
        }
        // Without a home folder known, `/` is still refused.
        assert!(refusal("/", &Protected::default(), None).is_some());
    }

    #[test]
    fn above_the_home_folder() {
        assert!(refused("/home"));
        assert!(refused("/home/"));
        assert!(!refused("/home/adam"), "a neighbour's name isn't above");
        assert!(!refused("/srv"));
    }

    #[test]
    fn conchs_own_folder_and_inside_it() {
        for folder in [
            CONCH,
            "/home/ada/.conch/",
            "/home/ada/.conch/chats",
            "/home/ada/.conch/chats/abc",
            "/home/ada/.conch/skills/x",
        ] {
            let says = refusal(folder, &usual(), Some(HOME)).unwrap();
            assert!(says.contains("Conch's own folder"), "{folder}: {says}");
        }
        assert!(
            !refused("/home/ada/.conch-notes"),
            "a longer name is another folder"
        );
    }

    #[test]
    fn every_key_folder_and_inside_it() {
        // Every place of the shared list that is a folder under the home,
        // and a folder inside each.
        for place in KEY_PLACES {
            if place.path.is_empty() || place.path.contains('*') || place.path.ends_with(".json") {
                continue;
            }
            let base = match place.root {
                Root::Home => format!("{HOME}/{}", place.path),
                Root::Config => format!("{HOME}/.config/{}", place.path),
                Root::Data => format!("{HOME}/.local/share/{}", place.path),
                Root::Runtime | Root::Var(_) => continue,
            };
            for folder in [
                base.clone(),
                format!("{base}/"),
                format!("{base}/inner/deeper"),
            ] {
                let says = refusal(&folder, &usual(), Some(HOME))
                    .unwrap_or_else(|| panic!("{folder} should be refused"));
                assert!(says.contains(place.what), "{folder}: {says}");
            }
        }
    }

    #[test]
    fn a_variable_that_moves_a_key_place() {
        let p = Protected::usual_with(Some(HOME), CONCH, &|name| {
            (name == "GNUPGHOME").then(|| "/srv/keys/gpg".to_owned())
        });
        assert!(refusal("/srv/keys/gpg", &p, Some(HOME)).is_some());
        assert!(refusal("/srv/keys/gpg/private-keys-v1.d", &p, Some(HOME)).is_some());
        assert!(refusal("/srv/keys", &p, Some(HOME)).is_none());
    }

    #[test]
    fn the_home_folder_and_projects_stay_allowed() {
        for folder in [
            HOME,
            "/home/ada/",
            "/home/ada/projects/conch",
            "/home/ada/.sshfs-mounts",
            "/home/ada/Müll/プロジェクト",
            "/tmp/work",
        ] {
            assert_eq!(refusal(folder, &usual(), Some(HOME)), None, "{folder}");
        }
    }

    #[test]
    fn a_home_folder_that_is_the_root_refuses_only_the_root() {
        assert!(refusal("/", &Protected::default(), Some("/")).is_some());
        assert!(refusal("/srv", &Protected::default(), Some("/")).is_none());
    }
}
