//! Keys found in the clear (an older Conch, a restored backup) are locked
//! with this computer's own key; a key that can't be opened needs you.

use skills::signing_key::{self, key_fingerprint, KeyStatus};
use vault::{Locked, Vault};

use super::{Item, State};
use crate::secrets::{Secrets, SECRETS_FILE};

pub fn provider_keys(vault: &Vault, repair: bool) -> Option<Item> {
    match vault.is_clear(SECRETS_FILE) {
        Ok(false) => None,
        Ok(true) if repair => Some(
            match vault.lock_if_clear(SECRETS_FILE, |b| {
                serde_json::from_slice::<Secrets>(b)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }) {
                Ok(_) => Item::new(
                    "provider-keys",
                    State::Fixed,
                    "Provider keys were in the clear; now locked with this computer's own key.",
                ),
                Err(e) => Item::new("provider-keys", State::NeedsYou, format!("Provider keys: {e}")),
            },
        ),
        Ok(true) => Some(Item::new(
            "provider-keys",
            State::Found,
            "Provider keys are in the clear in secrets.json. Repair locks them with this computer's own key.",
        )),
        Err(e) => Some(Item::new("provider-keys", State::NeedsYou, format!("Provider keys: {e}"))),
    }
}

pub fn signing_key(vault: &Vault, repair: bool) -> Option<Item> {
    const NEW: &str = "conch skills key --new";
    match signing_key::status(vault) {
        // Silent when you've never signed a skill.
        KeyStatus::None => None,
        KeyStatus::Sealed(_) => Some(Item::new(
            "signing-key",
            State::Fine,
            "Key for signing skills: Locked with this computer's own key.",
        )),
        KeyStatus::Clear if repair => Some(match signing_key::lock_if_clear(vault) {
            Ok(Locked::Locked) | Ok(Locked::AlreadySealed) => match signing_key::status(vault) {
                KeyStatus::Sealed(key) => Item::new(
                    "signing-key",
                    State::Fixed,
                    format!(
                        "Key for signing skills ({}): was in the clear; now Locked with this computer's own key.",
                        key_fingerprint(&key)
                    ),
                ),
                _ => Item::new(
                    "signing-key",
                    State::NeedsYou,
                    "Key for signing skills: it was locked but doesn't open now. Run the repair again.",
                ),
            },
            Ok(Locked::Missing) => return None,
            Err(e) => Item::new("signing-key", State::NeedsYou, format!("Key for signing skills: {e}")),
        }),
        KeyStatus::Clear => Some(Item::new(
            "signing-key",
            State::Found,
            "Key for signing skills is in the clear. Repair locks it with this computer's own key.",
        )),
        KeyStatus::CantOpen(e) => Some(Item {
            id: "signing-key",
            state: State::NeedsYou,
            says: format!(
                "Key for signing skills: {e} To make a new one (the old stays trusted as yours), copy the line below, or restore the key from a backup."
            ),
            line: Some(NEW.to_owned()),
        }),
    }
}
