//! Real bubblewrap: what a sealed command can and can't do.
//!
//! Each test makes a person's home with a key in it, a work folder inside
//! that home, and a Conch folder, and runs commands sealed. Some checks need
//! system calls a shell can't make (a unix socket, io_uring, TIOCSTI): for
//! those this test binary runs itself inside the box as a probe.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Stdio;

mod common;
use common::{text, World};

fn world() -> World {
    World::new()
}

const PROBE: &str = "CONCH_SEAL_PROBE";

/// Runs inside the box when the probe variable is set; prints its finding.
#[test]
fn probe() {
    let Ok(what) = std::env::var(PROBE) else {
        return;
    };
    // SAFETY: each call takes plain integers and returns a descriptor or
    // -1; nothing of ours is read or written.
    let result = unsafe {
        match what.as_str() {
            "socket-unix" => libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0),
            "socketpair-unix" => {
                let mut fds = [0i32; 2];
                libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, fds.as_mut_ptr())
            }
            "socket-inet" => libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0),
            "io-uring" => {
                let mut params = [0u8; 120];
                libc::syscall(libc::SYS_io_uring_setup, 4, params.as_mut_ptr()) as i32
            }
            "tiocsti" => {
                let c = b'x';
                libc::ioctl(0, libc::TIOCSTI, &c)
            }
            _ => -2,
        }
    };
    let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
    println!(
        "PROBE {what} result={} errno={errno}",
        if result >= 0 { "ok" } else { "failed" }
    );
}

fn probe_in_box(w: &World, what: &str) -> String {
    let exe = std::env::current_exe().unwrap();
    let out = w.run(&format!(
        "{PROBE}={what} '{}' probe --exact --nocapture --test-threads=1",
        exe.display()
    ));
    let said = text(&out.stdout);
    said.lines()
        .find_map(|l| l.find("PROBE ").map(|at| l[at..].to_owned()))
        .unwrap_or_else(|| panic!("no probe output: {said} {}", text(&out.stderr)))
}

#[test]
fn keys_cant_be_read_however_they_are_reached() {
    let w = world();
    let key = w.home.join(".ssh/id_ed25519");
    std::os::unix::fs::symlink(&key, w.work.join("innocent-link")).unwrap();
    for command in [
        format!("cat '{}'", key.display()),
        "cat innocent-link".to_owned(),
        format!("cat '/proc/self/root{}'", key.display()),
        format!("cd '{}' && cat id_ed25519", key.parent().unwrap().display()),
        "cd ../.ssh && cat id_ed25519".to_owned(),
        format!("ls -la '{}'", key.parent().unwrap().display()),
        "cat ~/.ssh/id_ed25519".to_owned(),
    ] {
        let out = w.run(&command);
        assert!(
            !text(&out.stdout).contains("SECRET-KEY"),
            "{command} read the key"
        );
    }
    // Unsealed, the same command reads it: the test can tell.
    let plain = std::process::Command::new("cat")
        .arg(&key)
        .output()
        .unwrap();
    assert!(text(&plain.stdout).contains("SECRET-KEY"));
}

#[test]
fn writes_stay_in_the_work_folder_and_temp() {
    let w = world();
    let out = w.run("echo inside > inside.txt && echo temp > /tmp/conch-seal-test-$$ && cat /tmp/conch-seal-test-$$ && rm /tmp/conch-seal-test-$$");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "temp\n");
    assert_eq!(
        std::fs::read_to_string(w.work.join("inside.txt")).unwrap(),
        "inside\n"
    );
    for outside in [
        w.home.join("outside.txt"),
        PathBuf::from("/etc/conch-seal-test"),
        PathBuf::from("/usr/conch-seal-test"),
    ] {
        let out = w.run(&format!("echo x > '{}'", outside.display()));
        assert!(!out.status.success());
        assert!(!outside.exists(), "{} was written", outside.display());
    }
}

#[test]
fn the_network_is_open() {
    let w = world();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let got = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = String::new();
        s.read_to_string(&mut buf).unwrap();
        buf
    });
    let out = w.run(&format!("exec 3<>/dev/tcp/127.0.0.1/{port}; echo ping >&3"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(got.join().unwrap(), "ping\n");
    assert!(probe_in_box(&w, "socket-inet").contains("result=ok"));
}

#[test]
fn unix_sockets_and_io_uring_fail() {
    let w = world();
    for what in ["socket-unix", "io-uring"] {
        let said = probe_in_box(&w, what);
        assert!(
            said.contains("result=failed") && said.contains(&format!("errno={}", libc::EPERM)),
            "{said}"
        );
    }
    // An agent-like socket on the host can't be reached, nor an abstract one.
    let sock = std::env::temp_dir().join(format!("conch-agent-{}.sock", std::process::id()));
    let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    listener.set_nonblocking(true).unwrap();
    let out = w.run(&format!(
        "echo hi | socat - UNIX-CONNECT:'{}'",
        sock.display()
    ));
    assert!(!out.status.success());
    assert!(listener.accept().is_err(), "nothing connected");
    let out = w.run("echo hi | socat - ABSTRACT-CONNECT:conch-test-abstract");
    assert!(!out.status.success());
    let _ = std::fs::remove_file(&sock);
}

/// The bug: socketpair was refused too, so every Node program that starts
/// a child with pipes failed in the box ("spawnSync /bin/sh EPERM"). A
/// socketpair's two ends reach only each other: it is allowed, and a
/// program's children work.
#[test]
fn a_node_program_starts_a_child_with_pipes_in_the_box() {
    let w = world();
    assert!(probe_in_box(&w, "socketpair-unix").contains("result=ok"));
    let out = w.run(
        "node -e \"process.stdout.write(require('child_process').execSync('echo from-the-child ünï').toString())\"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "from-the-child ünï");
    // Its ends can't be pointed anywhere else: not at an agent-like socket
    // on the host.
    let sock = std::env::temp_dir().join(format!("conch-pair-{}.sock", std::process::id()));
    let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    listener.set_nonblocking(true).unwrap();
    let out = w.run(&format!(
        "python3 -c \"import socket; a, b = socket.socketpair(); a.connect('{}')\"",
        sock.display()
    ));
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("Errno 106"),
        "{}",
        text(&out.stderr)
    );
    assert!(listener.accept().is_err(), "nothing connected");
    let _ = std::fs::remove_file(&sock);
}

#[test]
fn no_capabilities_and_the_masks_stay_put() {
    let w = world();
    let out = w.run("grep CapEff /proc/self/status");
    assert_eq!(text(&out.stdout).trim(), "CapEff:\t0000000000000000");
    let ssh = w.home.join(".ssh");
    for attempt in [
        format!("umount '{}'", ssh.display()),
        format!("umount -l '{}'", ssh.display()),
        format!("mount -o remount,rw '{}'", ssh.display()),
        format!("mount --bind /proc '{}'", ssh.display()),
    ] {
        let out = w.run(&format!("{attempt}; cat '{}/id_ed25519'", ssh.display()));
        assert!(
            !text(&out.stdout).contains("SECRET-KEY"),
            "{attempt} uncovered the key"
        );
    }
}

#[test]
fn host_processes_are_out_of_sight() {
    let w = world();
    let me = std::process::id();
    let out = w.run(&format!(
        "test -e /proc/{me} && echo visible; ls /proc | grep -cE '^[0-9]+$'"
    ));
    let said = text(&out.stdout);
    assert!(!said.contains("visible"), "{said}");
    let count: usize = said.trim().parse().unwrap();
    assert!(count < 10, "{count} processes visible");
}

#[test]
fn tiocsti_into_the_terminal_fails() {
    let w = world();
    // A terminal that is the box's parent's controlling terminal.
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes the two descriptors into the two integers we
    // own; the name, termios and window-size pointers are null.
    let made = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(made, 0);
    let exe = std::env::current_exe().unwrap();
    let sealed = w
        .sealed
        .command(
            &w.work,
            &format!(
                "{PROBE}=tiocsti '{}' probe --exact --nocapture --test-threads=1",
                exe.display()
            ),
        )
        .unwrap();
    let (mut cmd, pending) = sealed.std_command().unwrap();
    // SAFETY: the closure runs in the child between fork and exec and only
    // calls setsid and ioctl, which are async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            libc::setsid();
            libc::ioctl(slave, libc::TIOCSCTTY, 0);
            libc::dup2(slave, 0);
            Ok(())
        });
    }
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = pending.started();
    let out = child.wait_with_output().unwrap();
    started.finish();
    let said = text(&out.stdout);
    assert!(
        said.contains("PROBE tiocsti result=failed"),
        "{said}{}",
        text(&out.stderr)
    );
    // SAFETY: both descriptors are ours, opened above, and closed once.
    unsafe {
        libc::close(master);
        libc::close(slave);
    }
    let _ = std::io::stdout().flush();
}

#[test]
fn a_hidden_path_that_doesnt_exist_yet_cant_be_made_during_the_run() {
    let w = world();
    let aws = w.home.join(".aws");
    assert!(!aws.exists());
    // Work in the whole home, so ~/.aws could otherwise be created.
    let out = w.run_in(
        &w.home,
        "mkdir -p ~/.aws; echo stolen > ~/.aws/credentials; cat ~/.aws/credentials",
    );
    assert!(!text(&out.stdout).contains("stolen"));
    assert!(!aws.exists(), "the mount point was cleaned up");
    // And the person's other files in the home stay writable.
    let out = w.run_in(&w.home, "echo ok > notes.txt");
    assert!(out.status.success());
}

#[test]
fn conch_folder_is_hidden() {
    let w = world();
    let conch = w.sealed.conch_home.clone();
    std::fs::write(
        conch.join("secrets.json"),
        "{\"providers\":{\"x\":{\"key\":\"sk-live\"}}}",
    )
    .unwrap();
    std::fs::create_dir_all(conch.join("keystore")).unwrap();
    std::fs::write(conch.join("keystore/device.key"), "DEVICE-KEY-BYTES").unwrap();
    std::fs::write(conch.join("skills.signing.json"), "SIGNING-KEY-TEXT").unwrap();
    let out = w.run(&format!(
        "cat '{0}/secrets.json' '{0}/keystore/device.key' '{0}/skills.signing.json'; ls -R '{0}'",
        conch.display()
    ));
    let seen = text(&out.stdout);
    assert!(!seen.contains("sk-live"));
    assert!(
        !seen.contains("DEVICE-KEY-BYTES"),
        "the vault stays out of the box"
    );
    assert!(!seen.contains("SIGNING-KEY-TEXT"));
    assert!(!seen.contains("device.key"));
}

#[test]
fn credentials_leave_the_environment() {
    let mut w = world();
    w.set_vars(&[
        ("SSH_AUTH_SOCK", "/tmp/agent.sock"),
        ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/0/bus"),
        ("GITHUB_TOKEN", "ghp_secret"),
        ("KEEP_ME", "yes"),
        ("TERM", "xterm-256color"),
    ]);
    w.sealed.env_names = vec!["KEEP_ME".into(), "GITHUB_TOKEN".into()];
    let out = w.run("env");
    let said = text(&out.stdout);
    assert!(said.contains("KEEP_ME=yes"), "{said}");
    assert!(said.contains("TERM=xterm-256color"), "{said}");
    assert!(
        said.contains(&format!("HOME={}", w.home.display())),
        "{said}"
    );
    for gone in ["SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "GITHUB_TOKEN"] {
        assert!(!said.contains(gone), "{gone} reached the box");
    }
}
