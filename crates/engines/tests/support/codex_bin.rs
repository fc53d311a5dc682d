//! The real Codex the tests drive: `CONCH_TEST_CODEX`, else the one
//! `./run-tests` installs from npm into crates/engines/tests/codex. A test
//! that needs it fails when it's missing, rather than passing without it.

#![allow(dead_code)]

use std::path::PathBuf;

pub fn codex_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("CONCH_TEST_CODEX") {
        return PathBuf::from(p);
    }
    let installed = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../engines/tests/codex/node_modules/.bin/codex");
    assert!(
        installed.exists(),
        "The real Codex isn't installed for the tests. Run ./run-tests, or: (cd crates/engines/tests/codex && npm ci)"
    );
    installed
}

/// The real Codex as an engine named `name`, against the scripted
/// Responses API at `base_url`, keeping its folders under `root`.
pub fn codex_engine(
    name: &str,
    base_url: &str,
    root: &std::path::Path,
) -> engines::codex::CodexEngine {
    use engines::providers::{Provider, ProviderKind, ProviderSettings};
    engines::codex::CodexEngine::new(
        Provider {
            settings: ProviderSettings {
                name: name.into(),
                kind: ProviderKind::Codex,
                base_url: base_url.into(),
                model: "test-model".into(),
                context_tokens: 100_000,
                max_tokens: 4096,
                bin: Some(codex_bin().to_string_lossy().into_owned()),
                prices: None,
                no_cap: false,
            },
            key: Some("sk-test".into()),
        },
        root,
    )
}
