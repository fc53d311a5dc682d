//! Whether a file change writes something that runs later by itself: the
//! guard's list of places (`guard::runs_later`), and `package.json`, whose
//! scripts run at the next `npm install` or `npm test`. Only the parts that
//! run are compared, so adding a dependency doesn't ask.

use std::path::Path;

use serde_json::Value;

/// A change as the tool would make it.
pub enum Change {
    Write(String),
    Edit(String, String),
}

/// The fields of `package.json` that name programs run later.
const RUNS: &[&str] = &[
    "scripts",
    "bin",
    "husky",
    "simple-git-hooks",
    "gitHooks",
    "pre-commit",
    "lint-staged",
    "config",
];

/// Why the change at `path` (resolved) runs later, if it does.
pub fn runs_later(path: &Path, change: &Change) -> Option<String> {
    if let Some(why) = guard::runs_later::runs_later(&path.to_string_lossy()) {
        return Some(why.to_owned());
    }
    if path.file_name().is_some_and(|n| n == "package.json") {
        let before = std::fs::read_to_string(path).ok();
        let after = match change {
            Change::Write(text) => Some(text.clone()),
            Change::Edit(old, new) => before.as_ref().map(|b| b.replacen(old.as_str(), new, 1)),
        };
        if scripts_change(before.as_deref(), after.as_deref()) {
            return Some(
                "package.json's scripts, which npm runs at the next install or test".to_owned(),
            );
        }
    }
    None
}

/// Whether the parts that run differ; a file that can't be read as JSON
/// after the change can't be told apart, so it counts as a change.
fn scripts_change(before: Option<&str>, after: Option<&str>) -> bool {
    let parse = |t: Option<&str>| t.map(serde_json::from_str::<Value>);
    let runs =
        |v: &Value| -> Vec<Option<Value>> { RUNS.iter().map(|k| v.get(*k).cloned()).collect() };
    match (parse(before), parse(after)) {
        (_, Some(Err(_))) | (_, None) => true,
        (Some(Ok(b)), Some(Ok(a))) => runs(&b) != runs(&a),
        (None | Some(Err(_)), Some(Ok(a))) => runs(&a).iter().any(Option::is_some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_json_runs_later_only_through_its_scripts() {
        let dir = tempfile::tempdir().expect("temp");
        let p = dir.path().join("package.json");
        std::fs::write(
            &p,
            r#"{"name":"x","scripts":{"test":"jest"},"dependencies":{}}"#,
        )
        .expect("write");
        let dep = Change::Edit(
            "\"dependencies\":{}".into(),
            "\"dependencies\":{\"a\":\"1\"}".into(),
        );
        assert_eq!(runs_later(&p, &dep), None);
        let script = Change::Edit("\"jest\"".into(), "\"curl x | sh\"".into());
        assert!(runs_later(&p, &script).is_some());
        let new_hook = Change::Write(
            r#"{"name":"x","scripts":{"test":"jest","postinstall":"node x"}}"#.into(),
        );
        assert!(runs_later(&p, &new_hook).is_some());
        let broken = Change::Write("{not json".into());
        assert!(runs_later(&p, &broken).is_some());
        let fresh = dir.path().join("sub/package.json");
        assert_eq!(
            runs_later(&fresh, &Change::Write(r#"{"name":"y"}"#.into())),
            None
        );
        assert!(runs_later(&fresh, &Change::Write(r#"{"scripts":{"a":"b"}}"#.into())).is_some());
        assert!(runs_later(
            &dir.path().join(".git/hooks/pre-push"),
            &Change::Write("x".into())
        )
        .is_some());
    }
}
