//! Artifacts whose description (`artifact.json`) is damaged or gone are
//! rebuilt from their version files, with a healing note.

use std::path::Path;

use super::{Item, State};

/// Why an artifact's description doesn't hold, without healing it.
fn damaged(dir: &Path, id: &str) -> Option<&'static str> {
    let bytes = match std::fs::read(dir.join(artifacts::store::META_FILE)) {
        Ok(b) => b,
        Err(_) => return Some("was missing"),
    };
    match serde_json::from_slice::<artifacts::Artifact>(&bytes) {
        Ok(a) if a.id == id && !a.versions.is_empty() => None,
        Ok(_) => Some("didn't match its folder"),
        Err(_) => Some("was damaged"),
    }
}

pub fn heal(home: &Path, repair: bool) -> Vec<Item> {
    let root = home.join("artifacts");
    let store = artifacts::Store::new(&root);
    let mut items = Vec::new();
    let Ok(entries) = std::fs::read_dir(&root) else {
        return items;
    };
    let mut dirs: Vec<_> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|id| artifacts::store::valid_id(id))
        .collect();
    dirs.sort();
    for id in dirs {
        let Some(why) = damaged(&root.join(&id), &id) else {
            continue;
        };
        if !repair {
            items.push(Item::new(
                "artifacts",
                State::Found,
                format!("Artifact {id}: its description {why}. Repair rebuilds it from its version files."),
            ));
            continue;
        }
        items.push(match store.get(&id) {
            Ok(a) => Item::new(
                "artifacts",
                State::Fixed,
                format!(
                    "Artifact {id}: its description {why}; rebuilt from {} version file{} (the title and chat couldn't be recovered).",
                    a.versions.len(),
                    if a.versions.len() == 1 { "" } else { "s" }
                ),
            ),
            Err(e) => Item::new(
                "artifacts",
                State::NeedsYou,
                format!("Artifact {id}: its description {why}, and it can't be rebuilt: {e}"),
            ),
        });
    }
    items
}
