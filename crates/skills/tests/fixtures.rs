//! Hand-written skills shaped like the real campaigns (ClawHavoc's fake
//! Prerequisites, password-protected archives, paste-site installers,
//! reverse shells, short encoded payloads, key theft) and benign ones with
//! the known false-alarm shapes (official installers, the owner's own bots
//! and tunnels, security lessons quoting attacks, public keys, colour
//! variables). Detection and false danger are reported and held to the
//! goals: at least 97% of the malicious skills danger, at most 2% of the
//! benign ones. `conch skills scan` is held to the same in the CLI's tests.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::path::Path;

use skills::{catalog, Source, Verdict};

fn verdicts(kind: &str) -> Vec<(String, Verdict, Vec<&'static str>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(kind);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| {
            let skill = catalog::load(&e.path(), Source::Conch).unwrap();
            let rules = skill.findings.iter().map(|f| f.rule).collect();
            (
                e.file_name().to_string_lossy().into_owned(),
                skill.verdict,
                rules,
            )
        })
        .collect();
    out.sort();
    out
}

/// Benign skills that are caution by design: an official installer, the
/// owner's own bot or tunnel, a lesson quoting attacks, something run again
/// by itself or written into the assistant's memory, a .env mention, and a
/// bundled Java class that isn't opened.
const CAUTION_BY_DESIGN: &[&str] = &[
    "api-client",
    "brew-setup",
    "bun-setup",
    "clawhavoc-explainer",
    "deno-setup",
    "dev-tunnel",
    "discord-alerts",
    "foundry-setup",
    "injection-detector",
    "java-lib",
    "memory-notes",
    "nvm-setup",
    "ollama-local",
    "pentest-notes",
    "prompt-defense",
    "rust-setup",
    "security-awareness",
    "tg-notify",
    "uv-setup",
    "uv-windows",
];

#[test]
fn detection_and_false_danger_meet_the_goals() {
    let malicious = verdicts("malicious");
    let benign = verdicts("benign");
    assert!(malicious.len() >= 40, "{}", malicious.len());
    assert!(benign.len() >= 40, "{}", benign.len());
    let missed: Vec<_> = malicious
        .iter()
        .filter(|(_, v, _)| *v != Verdict::Danger)
        .collect();
    let alarms: Vec<_> = benign
        .iter()
        .filter(|(_, v, _)| *v == Verdict::Danger)
        .collect();
    let detected = 1.0 - missed.len() as f64 / malicious.len() as f64;
    let false_danger = alarms.len() as f64 / benign.len() as f64;
    println!(
        "detected {}/{} malicious ({:.1}%); benign called danger {}/{} ({:.1}%)",
        malicious.len() - missed.len(),
        malicious.len(),
        detected * 100.0,
        alarms.len(),
        benign.len(),
        false_danger * 100.0
    );
    assert!(detected >= 0.97, "missed: {missed:?}");
    assert!(false_danger <= 0.02, "false alarms: {alarms:?}");
    // These fixtures are ours: every one is held, not just the rate.
    assert!(missed.is_empty(), "not danger: {missed:?}");
    assert!(alarms.is_empty(), "false alarms: {alarms:?}");
}

#[test]
fn benign_skills_are_clean_unless_caution_by_design() {
    let all = verdicts("benign");
    let wrong: Vec<_> = all
        .iter()
        .filter(|(n, v, _)| {
            let want = if CAUTION_BY_DESIGN.contains(&n.as_str()) {
                Verdict::Caution
            } else {
                Verdict::Clean
            };
            *v != want
        })
        .collect();
    assert!(wrong.is_empty(), "unexpected verdicts: {wrong:?}");
}

#[test]
fn what_the_scanner_says_names_the_campaign_tricks() {
    let all = verdicts("malicious");
    let rules_of = |n: &str| {
        all.iter()
            .find(|(name, _, _)| name == n)
            .unwrap_or_else(|| panic!("no fixture {n}"))
            .2
            .clone()
    };
    let expect = [
        ("weather-pro", "prerequisite.fake"),
        ("weather-pro", "download.decoded-payload"),
        ("pdf-tools", "download.zip-password"),
        ("notes-helper", "invisible.tag-characters"),
        ("git-helper", "invisible.bidi"),
        ("screen-recorder", "bundled.program"),
        ("key-link", "link.outside"),
        ("env-sync", "send.collector"),
        // ClawHavoc's two prerequisites, in prose.
        ("polymarket-pro", "download.zip-password"),
        ("polymarket-pro", "prerequisite.fake"),
        ("youtube-summarize-pro", "download.zip-password"),
        ("paste-setup", "prerequisite.fake"),
        ("clawhubb", "download.pipe-to-shell"),
        ("emphasis-split", "download.pipe-to-shell"),
        // Reverse shells, in one line and over several.
        ("auto-updater", "remote.reverse-shell"),
        ("better-polymarket", "remote.reverse-shell"),
        ("nc-shell", "remote.reverse-shell"),
        ("socat-shell", "remote.reverse-shell"),
        // Payloads decoded: base64, nested base64, hex, escapes, char codes.
        ("node-helper", "download.pipe-to-shell"),
        ("nested-b64", "download.pipe-to-shell"),
        ("hex-loader", "download.pipe-to-shell"),
        ("escape-runner", "download.pipe-to-shell"),
        ("charcode-runner", "download.pipe-to-shell"),
        ("unicode-escape", "download.pipe-to-shell"),
        // Keys.
        ("ssh-backdoor", "keys.authorized-keys"),
        ("key-sync", "keys.authorized-keys"),
        ("mac-password", "keys.password-prompt"),
        ("tg-env-backup", "send.own-bot"),
        ("tunnel-env", "send.tunnel"),
    ];
    let missing: Vec<_> = expect
        .iter()
        .filter(|(skill, rule)| !rules_of(skill).contains(rule))
        .collect();
    assert!(missing.is_empty(), "{missing:?}");
}

#[test]
fn a_decoded_payload_is_reported_with_what_it_decodes_to() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/malicious/node-helper");
    let skill = catalog::load(&dir, Source::Conch).unwrap();
    let f = skill
        .findings
        .iter()
        .find(|f| f.rule == "download.pipe-to-shell")
        .unwrap();
    assert_eq!((f.file.as_str(), f.line), ("index.js", 2));
    assert!(
        f.decoded
            .as_deref()
            .is_some_and(|d| d.contains("child_process")),
        "{f:?}"
    );
}
