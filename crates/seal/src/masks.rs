//! What the box lets a command write, what it keeps read-only, and what it
//! hides: the mounts, worked out from the places as they are on disk now.
//!
//! Four kinds of place, most specific wins:
//!
//! - **writable**: the work folder, temp, and the caches installs and builds
//!   use (a cache that doesn't exist stays absent);
//! - **read-only**: what runs later by itself ([`crate::places::runs_later`]),
//!   wherever it sits inside a writable place, and where it doesn't exist
//!   yet but could be created, an empty read-only folder in its place; and
//!   what runs later in the work folder ([`crate::later`], the guard's
//!   list), where it exists;
//! - **hidden**: Conch's own folder and every place where keys live (the
//!   guard's one list): a folder becomes an empty read-only folder, a file an
//!   empty read-only file, one mount each. A place given as a name prefix
//!   (`~/.cargo/credentials*`) is each name in its folder that begins so,
//!   listed now; when the folder itself is writable, it is made read-only
//!   (its other entries stay writable), so no new name can be created in it.
//!   A place that doesn't exist yet is masked at its first missing component
//!   when the box could create it.
//!
//! Paths are resolved with realpath, and a hidden place is masked under
//! both spellings when they differ. Mounts go parents first, masks last, so
//! nothing mounted later uncovers them. Folders and files bubblewrap has to
//! create on the host as mount points are listed in `created`, to be removed
//! after the run. A work folder or temp that resolves into a hidden place is
//! refused; a cache there is left out.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::profile::SealError;

/// A place to hide: a path, or the names in a folder that begin with
/// `prefix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hidden {
    pub path: PathBuf,
    pub prefix: Option<String>,
    /// What is kept there, for the list `conch seal check` shows.
    pub what: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    Writable,
    ReadOnly,
}

/// One mount, in the order they are made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mount {
    /// Bound writable.
    Writable(PathBuf),
    /// Bound read-only over itself, inside a writable place.
    ReadOnly(PathBuf),
    /// An empty read-only folder over it (a hidden folder, or a place that
    /// must not be created).
    EmptyFolder(PathBuf),
    /// An empty read-only file over it.
    EmptyFile(PathBuf),
}

impl Mount {
    pub fn path(&self) -> &Path {
        match self {
            Mount::Writable(p)
            | Mount::ReadOnly(p)
            | Mount::EmptyFolder(p)
            | Mount::EmptyFile(p) => p,
        }
    }
}

/// A mask and why it is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mask {
    pub mount: Mount,
    pub what: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Masks {
    /// Writable binds and read-only ones inside them, parents first.
    pub binds: Vec<Mount>,
    /// Hidden places and placeholders, mounted after every bind.
    pub masks: Vec<Mask>,
    /// Mount points that don't exist on the host yet: bubblewrap creates
    /// them, and they are removed after the run.
    pub created: Vec<PathBuf>,
}

impl Masks {
    /// The writable places, as bound.
    pub fn writable(&self) -> impl Iterator<Item = &Path> {
        self.binds.iter().filter_map(|m| match m {
            Mount::Writable(p) => Some(p.as_path()),
            _ => None,
        })
    }
}

/// What the box is asked to do.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The work folder, temp and extras: refused if inside a hidden place.
    pub writable: &'a [PathBuf],
    /// Caches: left out if missing or inside a hidden place.
    pub caches: &'a [PathBuf],
    /// What runs later: read-only wherever it is inside a writable place.
    pub read_only: &'a [PathBuf],
    /// What runs later in the work folder ([`crate::later`]): read-only
    /// where it exists, and given no mount point where it doesn't.
    pub read_only_if_there: &'a [PathBuf],
    pub hidden: &'a [Hidden],
}

/// Whether `path` is `of` or inside it, by whole names. Both are absolute
/// and resolved, so comparing bytes is enough (and a box is worked out
/// before every command).
fn within(path: &Path, of: &Path) -> bool {
    let (p, o) = (path.as_os_str().as_bytes(), of.as_os_str().as_bytes());
    p.starts_with(o) && (p.len() == o.len() || o == b"/" || p.get(o.len()) == Some(&b'/'))
}

/// What the file system said about the paths places sit on, each folder
/// looked at once: many places share them (`~`, `~/.config`,
/// `~/.local/share`), and a box is worked out before every command.
#[derive(Default)]
struct Looked {
    /// A resolved path's type (None: it isn't there).
    kind: std::collections::HashMap<OsString, Option<std::fs::FileType>>,
    /// A path as given → its real path (None: something on the way isn't
    /// there).
    real: std::collections::HashMap<OsString, Option<PathBuf>>,
    /// A folder's entries and their types, read at once (one `getdents`
    /// instead of a `stat` for each of the dozens of places in a home);
    /// None where the folder can't be read or is too big to be worth it.
    listed: std::collections::HashMap<OsString, Option<Listing>>,
}

/// A folder's entries, by name; a type of None means the file system didn't
/// say (then the entry is looked at by itself).
type Listing = std::collections::HashMap<OsString, Option<std::fs::FileType>>;

/// Folders bigger than this are looked into entry by entry.
const MAX_LISTED: usize = 2048;

fn list(folder: &Path) -> Option<Listing> {
    let mut out = Listing::new();
    for entry in std::fs::read_dir(folder).ok()? {
        let entry = entry.ok()?;
        if out.len() == MAX_LISTED {
            return None;
        }
        // From the directory entry itself where the file system gives it.
        out.insert(entry.file_name(), entry.file_type().ok());
    }
    Some(out)
}

/// How many links one resolution follows before giving up (as the kernel's
/// ELOOP).
const MAX_LINKS: usize = 40;

impl Looked {
    fn kind(&mut self, real: &Path) -> Option<std::fs::FileType> {
        if let Some(k) = self.kind.get(real.as_os_str()) {
            return *k;
        }
        let listed = match (real.parent(), real.file_name()) {
            (Some(parent), Some(name)) => {
                let listing = self
                    .listed
                    .entry(parent.as_os_str().to_owned())
                    .or_insert_with(|| list(parent));
                listing.as_ref().map(|l| l.get(name).copied())
            }
            _ => None,
        };
        let k = match listed {
            // Listed: there with its type, or not there at all.
            Some(Some(Some(kind))) => Some(kind),
            Some(None) => None,
            // Not listed, or listed without a type.
            _ => std::fs::symlink_metadata(real).ok().map(|m| m.file_type()),
        };
        self.kind.insert(real.as_os_str().to_owned(), k);
        k
    }

    /// `path`'s real path, as realpath(3) gives it: every link followed,
    /// `.` and `..` taken, None if any part isn't there.
    fn real(&mut self, path: &Path) -> Option<PathBuf> {
        if let Some(r) = self.real.get(path.as_os_str()) {
            return r.clone();
        }
        let mut links = 0;
        let r = self.resolve(Path::new("/"), path, &mut links);
        self.real.insert(path.as_os_str().to_owned(), r.clone());
        r
    }

    fn resolve(&mut self, base: &Path, path: &Path, links: &mut usize) -> Option<PathBuf> {
        use std::path::Component;
        let mut cur = if path.is_absolute() {
            PathBuf::from("/")
        } else {
            base.to_path_buf()
        };
        for c in path.components() {
            match c {
                Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
                Component::ParentDir => {
                    cur.pop();
                }
                Component::Normal(name) => {
                    let next = cur.join(name);
                    let kind = self.kind(&next)?;
                    if kind.is_symlink() {
                        *links += 1;
                        if *links > MAX_LINKS {
                            return None;
                        }
                        let target = std::fs::read_link(&next).ok()?;
                        cur = self.resolve(&cur, &target, links)?;
                    } else {
                        cur = next;
                    }
                }
            }
        }
        Some(cur)
    }

    fn exists(&mut self, path: &Path) -> bool {
        match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => match self.real(parent) {
                Some(p) => self.kind(&p.join(name)).is_some(),
                None => false,
            },
            _ => true,
        }
    }

    fn is_dir(&mut self, real: &Path) -> bool {
        self.kind(real).is_some_and(|k| k.is_dir())
    }

    /// The first component of `path` that doesn't exist (links on the way
    /// are followed, the last one isn't).
    fn first_missing(&mut self, path: &Path) -> Option<PathBuf> {
        let mut current = PathBuf::new();
        for component in path.components() {
            current.push(component);
            if !self.exists(&current) {
                return Some(current);
            }
        }
        None
    }
}

/// The writable and read-only places so far, and what they make of a path.
#[derive(Default)]
struct Rules(Vec<(PathBuf, State)>);

impl Rules {
    /// The state of the most specific place that is `path` or holds it;
    /// read-only wins over writable at the same place; read-only when none
    /// holds it (the box's `/` is read-only).
    fn at(&self, path: &Path) -> State {
        let mut best: Option<(usize, State)> = None;
        for (p, s) in &self.0 {
            if within(path, p) {
                let depth = p.components().count();
                let better = match best {
                    None => true,
                    Some((d, bs)) => depth > d || (depth == d && *s > bs),
                };
                if better {
                    best = Some((depth, *s));
                }
            }
        }
        best.map_or(State::ReadOnly, |(_, s)| s)
    }

    /// The state of what holds `path`, not counting a place at `path`.
    fn around(&self, path: &Path) -> State {
        match path.parent() {
            Some(parent) => self.at(parent),
            None => State::ReadOnly,
        }
    }

    fn writable(&self, path: &Path) -> bool {
        self.at(path) == State::Writable
    }

    fn add(&mut self, path: PathBuf, state: State) {
        if !self
            .0
            .iter()
            .any(|(p, s)| *s == state && p.as_os_str() == path.as_os_str())
        {
            self.0.push((path, state));
        }
    }
}

struct Planner {
    rules: Rules,
    masks: Vec<Mask>,
    created: Vec<PathBuf>,
    looked: Looked,
}

impl Planner {
    fn mask(&mut self, mount: Mount, what: &str) {
        if !self
            .masks
            .iter()
            .any(|m| m.mount.path().as_os_str() == mount.path().as_os_str())
        {
            self.masks.push(Mask {
                mount,
                what: what.to_owned(),
            });
        }
    }

    /// Where `missing` (a path that isn't there) would be created: its first
    /// missing component, under its parent's real path, if the box could
    /// create it there.
    fn creatable(&mut self, missing: &Path) -> Option<PathBuf> {
        let first = self.looked.first_missing(missing)?;
        let parent = self.looked.real(first.parent()?)?;
        let at = parent.join(first.file_name()?);
        self.rules.writable(&parent).then_some(at)
    }

    /// An empty read-only folder where `path` could be created, so it can't.
    fn block(&mut self, path: &Path, what: &str) {
        if let Some(at) = self.creatable(path) {
            if !self.created.iter().any(|c| c.as_os_str() == at.as_os_str()) {
                self.created.push(at.clone());
            }
            self.mask(Mount::EmptyFolder(at), what);
        }
    }

    /// Hides one path: both spellings when it exists, where it would be
    /// created when it doesn't.
    fn hide(&mut self, path: &Path, what: &str) {
        let Some(meta) = self
            .looked
            .real(path.parent().unwrap_or(Path::new("/")))
            .and_then(|parent| {
                let name = path.file_name()?;
                self.looked.kind(&parent.join(name))
            })
        else {
            self.block(path, what);
            return;
        };
        let Some(real) = self.looked.real(path) else {
            // A dangling link: what it points to could be created through
            // it. Block that, and cover the link itself.
            if let Ok(target) = std::fs::read_link(path) {
                let target = path.parent().unwrap_or(Path::new("/")).join(target);
                self.block(&target, what);
            }
            self.mask(Mount::EmptyFile(path.to_path_buf()), what);
            return;
        };
        let folder = self.looked.is_dir(&real);
        let wrap = |p: PathBuf| {
            if folder {
                Mount::EmptyFolder(p)
            } else {
                Mount::EmptyFile(p)
            }
        };
        self.mask(wrap(real.clone()), what);
        if *path != real && !meta.is_symlink() {
            // Reached through a linked folder: the link's spelling is its own
            // mount point.
            self.mask(wrap(path.to_path_buf()), what);
        }
    }

    /// Hides every name in `folder` that begins with `prefix`, and keeps new
    /// ones from being made there.
    fn hide_prefix(&mut self, folder: &Path, prefix: &str, what: &str) {
        let Some(real) = self.looked.real(folder) else {
            // No folder yet: nothing to hide, but it could be made, names
            // and all.
            self.block(folder, what);
            return;
        };
        let entries: Vec<(std::ffi::OsString, bool)> = std::fs::read_dir(&real)
            .map(|d| {
                d.flatten()
                    .map(|e| {
                        let link = e.file_type().map(|t| t.is_symlink()).unwrap_or(true);
                        (e.file_name(), link)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let matches =
            |name: &std::ffi::OsStr| name.as_encoded_bytes().starts_with(prefix.as_bytes());
        for (name, _) in entries.iter().filter(|(n, _)| matches(n)) {
            self.hide(&real.join(name), what);
            if real != folder {
                self.hide(&folder.join(name), what);
            }
        }
        if self.rules.writable(&real) {
            self.rules.add(real.clone(), State::ReadOnly);
            for (name, link) in entries.iter().filter(|(n, _)| !matches(n)) {
                // A link would make its target writable; it stays a link in
                // a read-only folder.
                if !link {
                    self.rules.add(real.join(name), State::Writable);
                }
            }
        }
    }

    /// Keeps `path` read-only if it sits inside a writable place, and keeps
    /// it from being created there.
    fn keep(&mut self, path: &Path) {
        match self.looked.real(path) {
            Some(real) => {
                if self.rules.writable(&real) {
                    self.rules.add(real, State::ReadOnly);
                }
            }
            None => {
                let target = match std::fs::read_link(path) {
                    Ok(t) => path.parent().unwrap_or(Path::new("/")).join(t),
                    Err(_) => path.to_path_buf(),
                };
                self.block(&target, "runs later: kept from being created");
            }
        }
    }
}

/// Works out the mounts for a request (paths as given; resolved here).
pub fn plan(request: Request<'_>) -> Result<Masks, SealError> {
    let mut p = Planner {
        rules: Rules::default(),
        masks: Vec::new(),
        created: Vec::new(),
        looked: Looked::default(),
    };
    let mut asked: Vec<PathBuf> = Vec::new();
    for path in request.writable {
        if let Some(real) = p.looked.real(path).filter(|r| p.looked.is_dir(r)) {
            asked.push(real.clone());
            p.rules.add(real, State::Writable);
        }
    }
    for path in request.caches {
        if let Some(real) = p.looked.real(path).filter(|r| p.looked.is_dir(r)) {
            p.rules.add(real, State::Writable);
        }
    }
    // What runs later first: a hidden place that would be created inside
    // one of those needs no mount point (it can't be created), and
    // bubblewrap couldn't make one in a read-only place anyway. Outer
    // places first, so one inside a place already kept read-only needs
    // nothing more.
    let mut read_only: Vec<&PathBuf> = request.read_only.iter().collect();
    read_only.sort_by_cached_key(|p| p.components().count());
    for path in read_only {
        p.keep(path);
    }
    for path in request.read_only_if_there {
        if let Some(real) = p.looked.real(path) {
            if p.rules.writable(&real) {
                p.rules.add(real, State::ReadOnly);
            }
        }
    }
    for h in request.hidden {
        match &h.prefix {
            None => p.hide(&h.path, &h.what),
            Some(prefix) => p.hide_prefix(&h.path, prefix, &h.what),
        }
    }
    // A mount point is made only where the box could write, once every
    // place is known (a prefix folder kept read-only after a point inside
    // it was chosen needs none there).
    let rules = &p.rules;
    let stale: Vec<PathBuf> = p
        .created
        .iter()
        .filter(|c| c.parent().is_none_or(|parent| !rules.writable(parent)))
        .cloned()
        .collect();
    p.masks
        .retain(|m| !stale.iter().any(|s| s == m.mount.path()));
    p.created.retain(|c| !stale.contains(c));

    let folders: Vec<PathBuf> = p
        .masks
        .iter()
        .filter(|m| matches!(m.mount, Mount::EmptyFolder(_)))
        .map(|m| m.mount.path().to_path_buf())
        .collect();
    let hidden_by = |path: &Path| folders.iter().find(|f| within(path, f)).cloned();
    // A work folder or temp inside a hidden place would uncover it.
    for w in &asked {
        if let Some(h) = hidden_by(w) {
            return Err(SealError::WritableIsHidden {
                writable: w.clone(),
                hidden: h,
            });
        }
    }
    // Binds: those that change what their surroundings are, parents first;
    // none inside a hidden folder (it is empty and read-only, and they
    // would be mounted under it anyway).
    let mut rules: Vec<(PathBuf, State)> = p
        .rules
        .0
        .iter()
        .filter(|(path, _)| hidden_by(path).is_none())
        .cloned()
        .collect();
    rules.sort_by_cached_key(|(path, state)| (path.components().count(), *state));
    let mut binds = Vec::new();
    for (path, state) in &rules {
        let shadowed = *state == State::Writable
            && rules
                .iter()
                .any(|(q, s)| *s == State::ReadOnly && q.as_os_str() == path.as_os_str());
        if shadowed || p.rules.around(path) == *state {
            continue;
        }
        let mount = match state {
            State::Writable => Mount::Writable(path.clone()),
            State::ReadOnly => Mount::ReadOnly(path.clone()),
        };
        if !binds.contains(&mount) {
            binds.push(mount);
        }
    }
    // A mask inside a hidden folder can't be mounted (the folder is empty
    // and read-only) and isn't needed.
    let masks: Vec<Mask> = p
        .masks
        .into_iter()
        .filter(|m| {
            !folders
                .iter()
                .any(|f| m.mount.path() != f && within(m.mount.path(), f))
        })
        .collect();
    let created = p
        .created
        .into_iter()
        .filter(|c| masks.iter().any(|m| m.mount.path() == c))
        .collect();
    Ok(Masks {
        binds,
        masks,
        created,
    })
}

#[cfg(test)]
mod tests;
