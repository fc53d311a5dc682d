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
