use super::*;
use std::os::unix::fs::symlink;

fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (dir, root)
}

fn hidden(path: PathBuf) -> Hidden {
    Hidden {
        path,
        prefix: None,
        what: "keys".into(),
    }
}

fn prefixed(folder: PathBuf, prefix: &str) -> Hidden {
    Hidden {
        path: folder,
        prefix: Some(prefix.into()),
        what: "tokens".into(),
    }
}

fn plan_of(
    writable: &[PathBuf],
    caches: &[PathBuf],
    read_only: &[PathBuf],
    hide: &[Hidden],
) -> Masks {
    plan(Request {
        writable,
        caches,
        read_only,
        read_only_if_there: &[],
        hidden: hide,
    })
    .unwrap()
}

fn mounts(m: &Masks) -> Vec<Mount> {
    m.masks.iter().map(|m| m.mount.clone()).collect()
}

#[test]
fn folders_and_files_that_exist() {
    let (_d, root) = setup();
    std::fs::create_dir_all(root.join("home/.ssh")).unwrap();
    std::fs::write(root.join("home/.netrc"), "x").unwrap();
    std::fs::create_dir_all(root.join("home/work")).unwrap();
    let m = plan_of(
        &[root.join("home/work")],
        &[],
        &[],
        &[
            hidden(root.join("home/.ssh")),
            hidden(root.join("home/.netrc")),
        ],
    );
    assert_eq!(m.binds, [Mount::Writable(root.join("home/work"))]);
    assert_eq!(
        mounts(&m),
        [
            Mount::EmptyFolder(root.join("home/.ssh")),
            Mount::EmptyFile(root.join("home/.netrc"))
        ]
    );
    assert!(m.created.is_empty());
}

#[test]
fn both_spellings_of_a_hidden_path() {
    let (_d, root) = setup();
    std::fs::create_dir_all(root.join("vault/ssh")).unwrap();
    std::fs::create_dir_all(root.join("real-home")).unwrap();
    symlink(root.join("real-home"), root.join("home")).unwrap();
    symlink(root.join("vault/ssh"), root.join("real-home/.ssh")).unwrap();
    let m = plan_of(&[], &[], &[], &[hidden(root.join("home/.ssh"))]);
    assert!(
        mounts(&m).contains(&Mount::EmptyFolder(root.join("vault/ssh"))),
        "{m:?}"
    );
}

#[test]
fn missing_paths_are_masked_where_they_could_be_created() {
    let (_d, root) = setup();
    std::fs::create_dir_all(root.join("home")).unwrap();
    // The work folder is the whole home: ~/.aws could be created in it.
    let m = plan_of(
        &[root.join("home")],
        &[],
        &[],
        &[hidden(root.join("home/.aws/credentials"))],
    );
    assert_eq!(mounts(&m), [Mount::EmptyFolder(root.join("home/.aws"))]);
    assert_eq!(m.created, [root.join("home/.aws")]);
    // Read-only there: nothing could create it, so no mount.
    let m = plan_of(&[], &[], &[], &[hidden(root.join("home/.aws/credentials"))]);
    assert!(m.masks.is_empty());
}

#[test]
fn a_writable_path_inside_a_hidden_one_is_refused() {
    let (_d, root) = setup();
    std::fs::create_dir_all(root.join("home/.ssh/work")).unwrap();
    let err = plan(Request {
        writable: &[root.join("home/.ssh/work")],
        caches: &[],
        read_only: &[],
        read_only_if_there: &[],
        hidden: &[hidden(root.join("home/.ssh"))],
    })
    .unwrap_err();
    assert!(matches!(err, SealError::WritableIsHidden { .. }));
    // Through a link too.
    symlink(root.join("home/.ssh"), root.join("innocent")).unwrap();
    assert!(plan(Request {
        writable: &[root.join("innocent")],
        caches: &[],
        read_only: &[],
        read_only_if_there: &[],
        hidden: &[hidden(root.join("home/.ssh"))],
    })
    .is_err());
    // A cache there is only left out.
    let m = plan_of(
        &[],
        &[root.join("home/.ssh/work")],
        &[],
        &[hidden(root.join("home/.ssh"))],
    );
    assert!(m.binds.is_empty());
}

#[test]
fn nested_masks_keep_only_the_outer_one() {
    let (_d, root) = setup();
    std::fs::create_dir_all(root.join("conch/browser")).unwrap();
    let m = plan_of(
        &[],
        &[],
        &[],
        &[
            hidden(root.join("conch")),
            hidden(root.join("conch/browser")),
        ],
    );
    assert_eq!(mounts(&m), [Mount::EmptyFolder(root.join("conch"))]);
}

#[test]
fn a_prefix_hides_each_name_that_begins_so_and_no_other() {
    let (_d, root) = setup();
    let cargo = root.join("home/.cargo");
    std::fs::create_dir_all(cargo.join("registry")).unwrap();
    std::fs::write(cargo.join("credentials"), "t").unwrap();
    std::fs::write(cargo.join("credentials.toml"), "t").unwrap();
    std::fs::write(cargo.join("config.toml"), "c").unwrap();
    let m = plan_of(
        &[],
        &[cargo.join("registry")],
        &[],
        &[prefixed(cargo.clone(), "credentials")],
    );
    let got = mounts(&m);
    assert!(got.contains(&Mount::EmptyFile(cargo.join("credentials"))));
    assert!(got.contains(&Mount::EmptyFile(cargo.join("credentials.toml"))));
    assert_eq!(got.len(), 2, "{got:?}");
    // ~/.cargo isn't writable, so nothing new can be made in it anyway.
    assert_eq!(m.binds, [Mount::Writable(cargo.join("registry"))]);
}

#[test]
fn a_prefix_folder_inside_a_writable_place_takes_no_new_names() {
    let (_d, root) = setup();
    let home = root.join("home");
    let cargo = home.join(".cargo");
    std::fs::create_dir_all(cargo.join("registry")).unwrap();
    std::fs::create_dir_all(cargo.join("bin")).unwrap();
    std::fs::write(cargo.join("config.toml"), "c").unwrap();
    symlink("/etc", cargo.join("elsewhere")).unwrap();
    let m = plan_of(
        std::slice::from_ref(&home),
        &[cargo.join("registry")],
        &[cargo.join("bin"), cargo.join("config.toml")],
        &[prefixed(cargo.clone(), "credentials")],
    );
    assert_eq!(m.binds[0], Mount::Writable(home.clone()));
    assert_eq!(m.binds[1], Mount::ReadOnly(cargo.clone()));
    assert!(m.binds.contains(&Mount::Writable(cargo.join("registry"))));
    for not in ["bin", "config.toml", "elsewhere"] {
        assert!(
            !m.binds.contains(&Mount::Writable(cargo.join(not))),
            "{not} was opened: {:?}",
            m.binds
        );
    }
}

#[test]
fn what_runs_later_is_read_only_inside_a_writable_place() {
    let (_d, root) = setup();
    let home = root.join("home");
    std::fs::create_dir_all(home.join(".config/autostart")).unwrap();
    std::fs::create_dir_all(home.join(".local/share/pnpm/store")).unwrap();
    std::fs::write(home.join(".bashrc"), "x").unwrap();
    let later = [
        home.join(".bashrc"),
        home.join(".config"),
        home.join(".config/autostart"),
        home.join(".local"),
        home.join(".bash_profile"),
        home.join(".local/bin"),
    ];
    let m = plan_of(
        std::slice::from_ref(&home),
        &[home.join(".local/share/pnpm/store")],
        &later,
        &[],
    );
    assert_eq!(
        m.binds,
        [
            Mount::Writable(home.clone()),
            Mount::ReadOnly(home.join(".bashrc")),
            Mount::ReadOnly(home.join(".config")),
            Mount::ReadOnly(home.join(".local")),
            Mount::Writable(home.join(".local/share/pnpm/store")),
        ]
    );
    // One that isn't there yet can't be made; one inside a read-only place
    // needs nothing.
    assert_eq!(mounts(&m), [Mount::EmptyFolder(home.join(".bash_profile"))]);
    assert_eq!(m.created, [home.join(".bash_profile")]);
    // Outside any writable place, nothing is needed at all.
    let m = plan_of(&[home.join(".local/share/pnpm/store")], &[], &later, &[]);
    assert_eq!(
        m.binds,
        [Mount::Writable(home.join(".local/share/pnpm/store"))]
    );
    assert!(m.masks.is_empty());
}

#[test]
fn paths_resolve_as_realpath_does_through_links_of_every_kind() {
    let (_d, root) = setup();
    for d in ["a/b/c", "x/y", "home/ada/.config"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::write(root.join("a/b/c/file"), "f").unwrap();
    symlink("../x", root.join("a/up")).unwrap(); // relative, with ..
    symlink(root.join("a/b"), root.join("x/y/abs")).unwrap(); // absolute
    symlink("abs/c", root.join("x/y/chain")).unwrap(); // a link through a link
    symlink("missing/thing", root.join("x/dangling")).unwrap();
    symlink("loop2", root.join("x/loop1")).unwrap();
    symlink("loop1", root.join("x/loop2")).unwrap();
    symlink(root.join("a"), root.join("home/ada/.config/gh")).unwrap();
    let mut looked = Looked::default();
    let names = [
        "a",
        "a/up",
        "a/up/y",
        "a/up/y/abs",
        "a/up/y/abs/c/file",
        "x/y/chain/file",
        "x/y/chain/../c",
        "x/dangling",
        "x/loop1",
        "x/y/abs/../up/y",
        "home/ada/.config/gh/b",
        "home/ada/.config/gh/nope",
        "a/./b/../b/c",
        "nowhere/at/all",
    ];
    for name in names {
        let path = root.join(name);
        assert_eq!(
            looked.real(&path),
            std::fs::canonicalize(&path).ok(),
            "{name}"
        );
        // Asked again, from memory: the same.
        assert_eq!(
            looked.real(&path),
            std::fs::canonicalize(&path).ok(),
            "{name}"
        );
    }
}

#[test]
fn what_runs_later_in_the_work_folder_is_read_only_where_it_is_and_unmounted_where_it_isnt() {
    let (_d, root) = setup();
    let work = root.join("work");
    std::fs::create_dir_all(work.join(".git/hooks")).unwrap();
    std::fs::write(work.join(".git/config"), "[core]\n").unwrap();
    let m = plan(Request {
        writable: std::slice::from_ref(&work),
        caches: &[],
        read_only: &[],
        read_only_if_there: &[
            work.join(".git/hooks"),
            work.join(".git/config"),
            work.join(".envrc"),
        ],
        hidden: &[],
    })
    .unwrap();
    let mut all = m.binds.clone();
    all.extend(mounts(&m));
    assert!(
        all.contains(&Mount::ReadOnly(work.join(".git/hooks"))),
        "{all:?}"
    );
    assert!(
        all.contains(&Mount::ReadOnly(work.join(".git/config"))),
        "{all:?}"
    );
    assert!(
        !all.iter().any(|m| format!("{m:?}").contains(".envrc")),
        "no mount point for what isn't there: {all:?}"
    );
    assert!(m.created.is_empty(), "{:?}", m.created);
}
