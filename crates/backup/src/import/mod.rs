//! Moving in from other apps (see openclaw.rs, hermes.rs).
