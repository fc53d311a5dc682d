//! What sealing costs per command, against bare bubblewrap with the same
//! mounts, all interleaved in one run (median of RUNS each):
//!
//! - plain: the command with no box at all;
//! - bare bwrap: `/usr/bin/bwrap` with exactly the mounts Conch makes for
//!   this home (no seccomp filters, no observation, the environment as is);
//! - the gateway's path: `run_command` through the tools crate, as a chat
//!   runs it (masks worked out, filters, the allowlisted environment, the
//!   network watched, output captured);
//! - `conch seal run`: the whole CLI process, support remembered.
//!
//! Then what watching the network costs a command that makes 1,000
//! connections (to a server on 127.0.0.1), watched against unwatched, and
//! Conch's own cost of working out a command's box.
//!
//! cargo bench -p conch --bench sealing
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use tools::{Cancel, RunContext, ToolBox, ToolCall, Tools, ToolsConfig};

const RUNS: usize = 300;
const CONNECTION_RUNS: usize = 31;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// The median of the differences run by run: each pair ran back to back, so
/// what the rest of a busy machine did in between cancels out.
fn paired(a: &[f64], b: &[f64]) -> f64 {
    median(a.iter().zip(b).map(|(x, y)| x - y).collect())
}

fn time(mut cmd: Command) -> f64 {
    let t = Instant::now();
    let status = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{cmd:?}");
    t.elapsed().as_secs_f64() * 1000.0
}

/// Runs a sealed command by hand (spawn, watch, wait) and times it.
fn time_sealed(sealed: &seal::Sealed, work: &Path, command: &str) -> f64 {
    let t = Instant::now();
    let cmd = sealed.command(work, command).unwrap();
    let (mut process, pending) = cmd.std_command().unwrap();
    let child = process
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = pending.started();
    let status = child.wait_with_output().unwrap().status;
    started.finish();
    cmd.cleanup();
    assert!(status.success());
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    if !Path::new(seal::BWRAP).is_file() {
        println!("bubblewrap isn't installed: nothing to measure.");
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let work = work.canonicalize().unwrap();
    let home = dir.path().join("conch");
    let sealed = Arc::new(seal::Sealed::new(&home, tools::protected::here(&home)).unwrap());
    let conch = env!("CARGO_BIN_EXE_conch");
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    // Probed once, before the timing starts, as it is on a real computer.
    let probed = seal::remembered(&home);
    assert_eq!(probed.support, seal::Support::Ready);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let tools = Tools::new(ToolsConfig {
        seal: Some(sealed.clone()),
        ..ToolsConfig::default()
    });
    let ctx = RunContext {
        work: work.clone(),
        cancel: Cancel::default(),
        protected: Default::default(),
        masker: None,
    };

    let example = sealed.command(&work, "true").unwrap();
    println!(
        "The box for this home: {} binds, {} masks, {} variables.",
        example.masks.binds.len(),
        example.masks.masks.len(),
        example.env.len()
    );

    let mut unwatched_sealed = (*sealed).clone();
    unwatched_sealed.observe = false;
    for (name, shell_form) in [("true", "true"), ("bash -c true", "bash -c true")] {
        let (mut plain, mut bare, mut gateway, mut cli, mut plan, mut build) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        let (mut by_hand, mut by_hand_watched) = (vec![], vec![]);
        // The same mounts, bare: Conch's argument vector without its filters.
        let cmd = sealed.command(&work, shell_form).unwrap();
        let mut bare_args = cmd.argv(0);
        if let Some(at) = bare_args.iter().position(|a| a == "--seccomp") {
            bare_args.drain(at..at + 2);
        }
        let call = ToolCall {
            id: "b".into(),
            name: "run_command".into(),
            input: serde_json::json!({ "command": shell_form }),
        };
        let action = tools.classify(&call, &work).unwrap();
        for _ in 0..RUNS {
            let mut c = Command::new("bash");
            c.args(["-c", shell_form]);
            plain.push(time(c));

            let mut b = Command::new(seal::BWRAP);
            b.args(&bare_args);
            bare.push(time(b));

            let t = Instant::now();
            let outcome = runtime.block_on(tools.run(&call, &action, &ctx));
            gateway.push(t.elapsed().as_secs_f64() * 1000.0);
            assert!(outcome.ok, "{}", outcome.output);

            let mut s = Command::new(conch);
            s.arg("--home")
                .arg(&home)
                .args(["seal", "run", "--work"])
                .arg(&work)
                .arg("--")
                .arg(shell_form);
            cli.push(time(s));

            let t = Instant::now();
            let c = sealed.command(&work, shell_form).unwrap();
            plan.push(t.elapsed().as_secs_f64() * 1000.0);
            let built = c.std_command().unwrap();
            build.push(t.elapsed().as_secs_f64() * 1000.0);
            drop(built);

            by_hand.push(time_sealed(&unwatched_sealed, &work, shell_form));
            by_hand_watched.push(time_sealed(&sealed, &work, shell_form));
        }
        let (dg, dc, dh, dhw) = (
            paired(&gateway, &bare),
            paired(&cli, &bare),
            paired(&by_hand, &bare),
            paired(&by_hand_watched, &bare),
        );
        let (p, b, g, c, k, q) = (
            median(plain),
            median(bare),
            median(gateway),
            median(cli),
            median(build),
            median(plan),
        );
        let (h, hw) = (median(by_hand), median(by_hand_watched));
        println!(
            "`{name}` (median of {RUNS}, ms): plain {p:.2} · bare bwrap, same mounts {b:.2} · the gateway's path {g:.2} (+{:.2}; paired +{dg:.2}) · conch seal run {c:.2} (+{:.2}; paired +{dc:.2}){}",
            g - b,
            c - b,
            if root { " (as root: --unshare-user --cap-drop ALL)" } else { "" }
        );
        println!("  Conch's own cost of a command's box: {k:.3} ms ({q:.3} working out its places, the rest its filters, environment and argv)");
        println!("  by hand (spawn and wait, no async runtime): unwatched {h:.2} (paired +{dh:.2}) · watched {hw:.2} (paired +{dhw:.2})");
    }

    // 1,000 connections, watched and not.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Room for every connection of a run in the queue, so a slow accept on
    // a busy machine never drops one (a dropped SYN costs a second).
    // SAFETY: listen on a listening socket only resizes its queue.
    unsafe { libc::listen(std::os::fd::AsRawFd::as_raw_fd(&listener), 4096) };
    std::thread::spawn(move || {
        for s in listener.incoming() {
            drop(s);
        }
    });
    let connect = format!(
        "python3 -c 'import socket\nfor _ in range(1000):\n    socket.create_connection((\"127.0.0.1\", {port})).close()'"
    );
    let mut unwatched_sealed = (*sealed).clone();
    unwatched_sealed.observe = false;
    let (mut watched, mut unwatched, mut none) = (vec![], vec![], vec![]);
    for _ in 0..CONNECTION_RUNS {
        watched.push(time_sealed(&sealed, &work, &connect));
        unwatched.push(time_sealed(&unwatched_sealed, &work, &connect));
        let mut c = Command::new("bash");
        c.args(["-c", &connect]);
        none.push(time(c));
    }
    let d = paired(&watched, &unwatched);
    let (w, u, n) = (median(watched), median(unwatched), median(none));
    println!(
        "1,000 connections from one command (median of {CONNECTION_RUNS}, ms): unsealed {n:.1} · sealed, unwatched {u:.1} · sealed and watched {w:.1}: watching costs {:.1} ms (paired {d:.1} ms, {:.1} µs a connection)",
        w - u,
        d
    );
}
