//! What checking every entry a walk visits costs, on a 100,000-file tree
//! shaped like a home folder (projects, caches, dot folders with keys),
//! with non-ASCII names and text:
//!
//! - the check alone: `Protected::walk(root)` once, then `Walk::skips` for
//!   every entry of the tree (names already in memory);
//! - a whole `search_files` from the home folder, with the shared list of
//!   places where keys live and with nothing protected (medians of 7).
//!
//! Run: `cargo bench -p tools --bench walk`. The tree is made once under
//! the target folder and reused.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use guard::Protected;
use serde_json::json;
use tools::{Cancel, RunContext, ToolBox, ToolCall, Tools, ToolsConfig};

const FILES: usize = 100_000;

fn tree() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/bench-walk-home")
        .canonicalize()
        .unwrap_or_else(|_| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-walk-home")
        });
    let done = root.join(".made");
    if done.exists() {
        return root.canonicalize().unwrap_or(root);
    }
    let _ = std::fs::remove_dir_all(&root);
    let mut made = 0usize;
    'outer: for project in 0..20 {
        for module in 0..25 {
            let dir = root.join(format!("projets-{project}/src/módulo-{module}"));
            std::fs::create_dir_all(&dir).unwrap();
            for file in 0..200 {
                std::fs::write(
                    dir.join(format!("fichier-{file}-データ.rs")),
                    format!("// résumé {file} — 東京 ✓\nfn main() {{ println!(\"{project}/{module}/{file}\"); }}\n"),
                )
                .unwrap();
                made += 1;
                if made >= FILES - 100 {
                    break 'outer;
                }
            }
        }
    }
    for key in [
        ".ssh",
        ".gnupg",
        ".aws",
        ".config/gh",
        ".config/op",
        ".local/share/keyrings",
    ] {
        let dir = root.join(key);
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..10 {
            std::fs::write(dir.join(format!("secret-{i}")), "SECRET\n").unwrap();
        }
    }
    std::fs::write(
        root.join(".npmrc"),
        "//registry.npmjs.org/:_authToken=SECRET\n",
    )
    .unwrap();
    std::fs::write(&done, "").unwrap();
    root.canonicalize().unwrap()
}

/// Every folder and name in the tree, as a walk meets them.
fn entries(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let dir_text = dir.to_string_lossy().into_owned();
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                stack.push(e.path());
            }
            out.push((
                dir_text.clone(),
                e.file_name().to_string_lossy().into_owned(),
            ));
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let root = tree();
    let home = root.to_string_lossy().into_owned();
    let protected = Protected::usual(Some(&home), &format!("{home}/.conch"));
    let all = entries(&root);
    println!("tree: {} entries", all.len());

    let mut times = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        let walk = protected.walk(&home);
        let skipped = all
            .iter()
            .filter(|(dir, name)| walk.skips(dir, name).is_some())
            .count();
        std::hint::black_box(skipped);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let check = median(times);
    println!(
        "the check alone, every entry of {} ({} places): {:.2} ms ({:.1} ns an entry)",
        all.len(),
        protected.keys.len(),
        check,
        check * 1e6 / all.len() as f64
    );

    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let tools = Tools::new(ToolsConfig::default());
    let call = ToolCall {
        id: "c".into(),
        name: "search_files".into(),
        input: json!({ "pattern": "東京 ✗ never", "path": home }),
    };
    let action = tools.classify(&call, &root).unwrap();
    let run = |p: Protected| {
        let ctx = RunContext {
            work: root.clone(),
            cancel: Cancel::default(),
            protected: Arc::new(p),
            masker: None,
        };
        let mut times = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            let out = runtime.block_on(tools.run(&call, &action, &ctx));
            std::hint::black_box(out);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        median(times)
    };
    let without = run(Protected::default());
    let with = run(protected.clone());
    println!(
        "search_files from the home folder (stops at 20,000 files): unprotected {without:.1} ms, with the shared list {with:.1} ms ({:+.1}%)",
        (with / without - 1.0) * 100.0
    );
}
