//! Hand-written skills shaped like the real campaigns (every one must be
//! danger) and benign ones with the known false-alarm shapes (none may be
//! danger; most must be clean).

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

#[test]
fn every_malicious_skill_is_danger() {
    let all = verdicts("malicious");
    assert!(all.len() >= 25, "{}", all.len());
    let missed: Vec<_> = all
        .iter()
        .filter(|(_, v, _)| *v != Verdict::Danger)
        .collect();
    assert!(missed.is_empty(), "not danger: {missed:?}");
}

#[test]
fn no_benign_skill_is_danger_and_most_are_clean() {
    let all = verdicts("benign");
    assert!(all.len() >= 25, "{}", all.len());
    let alarms: Vec<_> = all
        .iter()
        .filter(|(_, v, _)| *v == Verdict::Danger)
        .collect();
    assert!(alarms.is_empty(), "false alarms: {alarms:?}");
    // Only these may be caution: well-known installers piped to a shell, a
    // security skill quoting an injection, and a bundled Java class (not
    // opened).
    let may_caution = [
        "rust-setup",
        "uv-setup",
        "brew-setup",
        "deno-setup",
        "prompt-defense",
        "java-lib",
    ];
    let cautions: Vec<_> = all
        .iter()
        .filter(|(n, v, _)| *v == Verdict::Caution && !may_caution.contains(&n.as_str()))
        .collect();
    assert!(cautions.is_empty(), "unexpected cautions: {cautions:?}");
    for (name, verdict, _) in &all {
        if ["rust-setup", "uv-setup", "deno-setup", "prompt-defense"].contains(&name.as_str()) {
            assert_eq!(*verdict, Verdict::Caution, "{name}");
        }
    }
}

#[test]
fn what_the_scanner_says_names_the_campaign_tricks() {
    let all = verdicts("malicious");
    let rules_of = |n: &str| all.iter().find(|(name, _, _)| name == n).unwrap().2.clone();
    assert!(rules_of("weather-pro").contains(&"prerequisite.fake"));
    assert!(rules_of("weather-pro").contains(&"download.decoded-payload"));
    assert!(rules_of("pdf-tools").contains(&"download.zip-password"));
    assert!(rules_of("notes-helper").contains(&"invisible.tag-characters"));
    assert!(rules_of("git-helper").contains(&"invisible.bidi"));
    assert!(rules_of("screen-recorder").contains(&"bundled.program"));
    assert!(rules_of("key-link").contains(&"link.outside"));
    assert!(rules_of("env-sync").contains(&"send.collector"));
}
