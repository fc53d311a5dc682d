//! Finding the Codex program. npm installs `codex` as a small Node script
//! that starts the real program from a platform package beside it; Conch
//! starts that program directly when it can find it, since the hook runs
//! once per tool call and Node's start would be most of its time.

use std::path::{Path, PathBuf};

/// The program to run for `bin` (a path, or a name looked up on PATH),
/// and a folder Codex's npm package adds to PATH (its `rg`), if any.
pub fn resolve(bin: &str) -> Option<(PathBuf, Option<PathBuf>)> {
    let found = which(bin)?;
    let real = std::fs::canonicalize(&found).unwrap_or(found);
    if real.extension().is_some_and(|e| e == "js") {
        if let Some(native) = vendored(&real) {
            return Some(native);
        }
    }
    Some((real, None))
}

/// `bin` as a path, or found on PATH.
pub fn which(bin: &str) -> Option<PathBuf> {
    let p = Path::new(bin);
    if p.components().count() > 1 {
        return p.is_file().then(|| p.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(bin))
        .find(|c| c.is_file())
}

fn triple() -> Option<(&'static str, &'static str)> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Some(("codex-linux-x64", "x86_64-unknown-linux-musl")),
        ("linux", "aarch64") => Some(("codex-linux-arm64", "aarch64-unknown-linux-musl")),
        ("macos", "x86_64") => Some(("codex-darwin-x64", "x86_64-apple-darwin")),
        ("macos", "aarch64") => Some(("codex-darwin-arm64", "aarch64-apple-darwin")),
        _ => None,
    }
}

/// `…/@openai/codex/bin/codex.js` → the platform package's program.
fn vendored(script: &Path) -> Option<(PathBuf, Option<PathBuf>)> {
    let (package, triple) = triple()?;
    let scope = script.parent()?.parent()?.parent()?; // …/@openai
    let candidates = [
        scope.join(package),
        scope.parent()?.join("@openai").join(package),
        script
            .parent()?
            .parent()?
            .join("node_modules/@openai")
            .join(package),
    ];
    candidates.iter().find_map(|root| {
        let dir = root.join("vendor").join(triple);
        let program = dir.join("bin").join("codex");
        program.is_file().then(|| {
            let path_dir = dir.join("codex-path");
            (program, path_dir.is_dir().then_some(path_dir))
        })
    })
}

/// `codex --version`'s answer (`codex-cli 0.171.0`), if it runs.
pub fn version(program: &Path) -> Option<String> {
    let out = std::process::Command::new(program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (out.status.success() && !text.is_empty()).then_some(text)
}
