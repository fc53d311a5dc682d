//! What sealing costs per command: median of 200 runs each of `true` and
//! `bash -c true`, plain, in bare minimal bubblewrap, with the exact argument
//! vector Conch builds (run by hand), and through `conch seal run`, all
//! interleaved in one run; plus Conch's own cost of building that argument
//! vector. Anthropic's srt costs 191 ms per command from its CLI (32 ms as a
//! library) on this kind of machine; the ratio is printed.
//!
//! cargo bench -p conch --bench sealing

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const RUNS: usize = 200;
const SRT_CLI_MS: f64 = 191.0;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
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
    let home = dir.path().join("conch");
    let sealed = seal::Sealed::new(&home).unwrap();
    let conch = env!("CARGO_BIN_EXE_conch");
    let root = unsafe { libc::geteuid() } == 0;

    for (name, program, args, shell_form) in [
        ("true", "true", vec![], "true"),
        ("bash -c true", "bash", vec!["-c", "true"], "bash -c true"),
    ] {
        let (mut plain, mut bare, mut exact, mut cli, mut build) =
            (vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..RUNS {
            let mut c = Command::new(program);
            c.args(&args);
            plain.push(time(c));

            let mut b = Command::new(seal::BWRAP);
            b.args([
                "--ro-bind",
                "/",
                "/",
                "--dev",
                "/dev",
                "--proc",
                "/proc",
                "--unshare-pid",
                "--unshare-user",
                "--cap-drop",
                "ALL",
                program,
            ]);
            b.args(&args);
            bare.push(time(b));

            let t = Instant::now();
            let cmd = sealed.command(&work, shell_form).unwrap();
            let (process, pipe) = cmd.std_command().unwrap();
            build.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            let mut process = process;
            let child = process
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            pipe.close();
            let status = child.wait_with_output().unwrap().status;
            assert!(status.success());
            exact.push(t.elapsed().as_secs_f64() * 1000.0);
            cmd.cleanup();

            let mut s = Command::new(conch);
            s.arg("--home")
                .arg(&home)
                .args(["seal", "run", "--work"])
                .arg(&work)
                .arg("--")
                .arg(shell_form);
            cli.push(time(s));
        }
        let (p, b, e, c, k) = (
            median(plain),
            median(bare),
            median(exact),
            median(cli),
            median(build),
        );
        println!("`{name}` (median of {RUNS}, ms): plain {p:.2} · bare bwrap {b:.2} · Conch's argv by hand {e:.2} · conch seal run {c:.2}");
        println!(
            "  Conch's own cost (building the argv, masks and filter): {:.3} ms; sealed vs bare bwrap: +{:.2} ms; conch seal run vs srt's CLI (191 ms): {:.0}× faster{}",
            k,
            e - b,
            SRT_CLI_MS / c,
            if root { " (as root: --unshare-user --cap-drop ALL)" } else { "" }
        );
    }
}
