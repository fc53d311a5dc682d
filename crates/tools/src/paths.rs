//! Where a path really points, before anything judges it.
//!
//! Resolution follows the kernel's own order: each symlink is replaced by its
//! target as it is met, so a `..` after a link climbs out of where the link
//! went, not out of the link's folder. Parts that don't exist yet are kept as
//! written (a file about to be created), after the `..` in them is applied.

use std::path::{Component, Path, PathBuf};

/// Links followed before giving up, as the kernel does (ELOOP).
const MAX_LINKS: usize = 40;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    Empty,
    TooManyLinks(String),
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathError::Empty => f.write_str("The path is empty. Give a file's path."),
            PathError::TooManyLinks(p) => write!(
                f,
                "{p} goes through too many symbolic links (or a loop of them), so it can't be used."
            ),
        }
    }
}

/// `input` as an absolute path with every link and `..` resolved. Relative
/// paths are taken from `work`.
pub fn resolve(work: &Path, input: &str) -> Result<PathBuf, PathError> {
    if input.trim().is_empty() {
        return Err(PathError::Empty);
    }
    let joined = if Path::new(input).is_absolute() {
        PathBuf::from(input)
    } else {
        work.join(input)
    };
    let mut links = 0usize;
    walk(Path::new("/"), &joined, &mut links)
        .map_err(|()| PathError::TooManyLinks(input.to_owned()))
}

fn walk(start: &Path, path: &Path, links: &mut usize) -> Result<PathBuf, ()> {
    let mut current = start.to_path_buf();
    for component in path.components() {
        match component {
            Component::RootDir => current = PathBuf::from("/"),
            Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                current.pop();
            }
            Component::Normal(name) => {
                let next = current.join(name);
                match std::fs::symlink_metadata(&next) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        *links += 1;
                        if *links > MAX_LINKS {
                            return Err(());
                        }
                        let target = std::fs::read_link(&next).map_err(|_| ())?;
                        current = walk(&current, &target, links)?;
                    }
                    _ => current = next,
                }
            }
        }
    }
    Ok(current)
}

/// Whether `path` (resolved) is inside `work` (resolved).
pub fn is_inside(path: &Path, work: &Path) -> bool {
    path.starts_with(work)
}

/// The work folder itself, resolved the same way.
pub fn resolve_work(work: &Path) -> PathBuf {
    let mut links = 0;
    walk(Path::new("/"), work, &mut links).unwrap_or_else(|()| work.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = resolve_work(dir.path());
        std::fs::create_dir_all(root.join("work/sub")).unwrap();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        (dir, root)
    }

    #[test]
    fn relative_absolute_and_dotdot() {
        let (_d, root) = setup();
        let work = root.join("work");
        assert_eq!(resolve(&work, "a.txt").unwrap(), work.join("a.txt"));
        assert_eq!(
            resolve(&work, "./sub/../a.txt").unwrap(),
            work.join("a.txt")
        );
        assert_eq!(
            resolve(&work, "../outside/x").unwrap(),
            root.join("outside/x")
        );
        assert!(!is_inside(&resolve(&work, "../outside/x").unwrap(), &work));
        assert_eq!(
            resolve(&work, "/etc/../etc/passwd").unwrap(),
            PathBuf::from("/etc/passwd")
        );
        assert!(resolve(&work, "  ").is_err());
    }

    #[test]
    fn a_symlink_out_of_the_work_folder_is_outside() {
        let (_d, root) = setup();
        let work = root.join("work");
        symlink(root.join("outside"), work.join("door")).unwrap();
        let p = resolve(&work, "door/secret.txt").unwrap();
        assert_eq!(p, root.join("outside/secret.txt"));
        assert!(!is_inside(&p, &work));
        // A link to a file outside, written through.
        symlink(root.join("outside/file"), work.join("file-link")).unwrap();
        assert!(!is_inside(&resolve(&work, "file-link").unwrap(), &work));
    }

    #[test]
    fn dotdot_after_a_link_climbs_from_where_it_went() {
        let (_d, root) = setup();
        let work = root.join("work");
        std::fs::create_dir_all(root.join("outside/deep")).unwrap();
        symlink(root.join("outside/deep"), work.join("l")).unwrap();
        // Lexically this would be work/x; really it is outside/x.
        assert_eq!(resolve(&work, "l/../x").unwrap(), root.join("outside/x"));
    }

    #[test]
    fn a_file_that_does_not_exist_yet() {
        let (_d, root) = setup();
        let work = root.join("work");
        let p = resolve(&work, "new/dir/file.txt").unwrap();
        assert_eq!(p, work.join("new/dir/file.txt"));
        assert!(is_inside(&p, &work));
    }

    #[test]
    fn a_link_loop_is_an_error_not_a_hang() {
        let (_d, root) = setup();
        let work = root.join("work");
        symlink(work.join("b"), work.join("a")).unwrap();
        symlink(work.join("a"), work.join("b")).unwrap();
        assert!(matches!(
            resolve(&work, "a/x"),
            Err(PathError::TooManyLinks(_))
        ));
    }

    #[test]
    fn a_relative_link_resolves_from_its_folder() {
        let (_d, root) = setup();
        let work = root.join("work");
        symlink("../../outside", work.join("sub/rel")).unwrap();
        assert_eq!(resolve(&work, "sub/rel/f").unwrap(), root.join("outside/f"));
    }
}
