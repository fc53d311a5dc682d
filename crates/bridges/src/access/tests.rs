use super::*;
use crate::app::Person;
use crate::state::Allowed;

fn person(id: &str, name: &str, handle: Option<&str>) -> Person {
    Person {
        id: id.into(),
        name: name.into(),
        handle: handle.map(str::to_owned),
    }
}

fn said(from: Person, place: Place, text: &str, mentions_bot: bool) -> Said {
    Said {
        origin: None,
        chat: format!("c{}", from.id),
        place,
        from,
        text: text.into(),
        mentions_bot,
    }
}

fn state() -> BridgeState {
    BridgeState {
        owner: Some(Owner {
            id: "1".into(),
            chat: "1".into(),
            name: "Ada".into(),
        }),
        allowed: vec![
            Allowed {
                id: Some("2".into()),
                handle: None,
                name: None,
            },
            Allowed {
                id: None,
                handle: Some("eve_x".into()),
                name: None,
            },
        ],
        ..BridgeState::default()
    }
}

#[test]
fn the_owner_is_known_by_id_only() {
    let s = state();
    let ada = person("1", "Ada", Some("ada"));
    assert_eq!(
        route(&s, &said(ada, Place::Direct, "hi", false), "Ada"),
        Route::Owner
    );
    // Someone calling themselves Ada, with the owner's handle, is a stranger.
    let fake = person("9", "Ada", Some("ada"));
    assert!(matches!(
        route(&s, &said(fake, Place::Direct, "hi", false), "Ada"),
        Route::Refuse(_)
    ));
}

#[test]
fn a_stranger_is_refused_with_their_id_and_the_owners_name() {
    let s = state();
    let r = route(
        &s,
        &said(
            person("77", "Mallory", None),
            Place::Direct,
            "run ls",
            false,
        ),
        "Ada",
    );
    assert_eq!(
        r,
        Route::Refuse("Sorry, I only talk with people Ada has allowed. If you know Ada, ask them to add you: your id is 77.".into())
    );
}

#[test]
fn before_the_owner_links_a_stranger_is_told_how_to_link() {
    let s = BridgeState::default();
    let r = route(
        &s,
        &said(person("1", "Ada", None), Place::Direct, "/start", false),
        "the owner",
    );
    assert_eq!(r, Route::Refuse(NOT_LINKED.into()));
}

#[test]
fn a_handle_lets_in_once_then_the_id_is_pinned() {
    let s = state();
    let eve = person("5", "Eve", Some("Eve_X"));
    assert_eq!(
        route(&s, &said(eve.clone(), Place::Direct, "hi", false), "Ada"),
        Route::Person { pin: Some(1) }
    );
    let mut pinned = s.clone();
    pinned.allowed[1].id = Some("5".into());
    assert_eq!(
        route(&pinned, &said(eve, Place::Direct, "hi", false), "Ada"),
        Route::Person { pin: None }
    );
    // The handle passes to someone else: they're a stranger.
    let other = person("6", "Not Eve", Some("eve_x"));
    assert!(matches!(
        route(&pinned, &said(other, Place::Direct, "hi", false), "Ada"),
        Route::Refuse(_)
    ));
}

#[test]
fn in_a_group_only_messages_naming_the_bot_are_read() {
    let s = state();
    for from in [
        person("1", "Ada", None),
        person("2", "Bob", None),
        person("8", "X", None),
    ] {
        assert_eq!(
            route(&s, &said(from, Place::Group, "hello all", false), "Ada"),
            Route::Ignore
        );
    }
    assert_eq!(
        route(
            &s,
            &said(
                person("2", "Bob", None),
                Place::Group,
                "@conch_bot hi",
                true
            ),
            "Ada"
        ),
        Route::Person { pin: None }
    );
    assert_eq!(
        route(
            &s,
            &said(
                person("1", "Ada", None),
                Place::Group,
                "@conch_bot hi",
                true
            ),
            "Ada"
        ),
        Route::Owner
    );
}

#[test]
fn a_link_in_a_group_spends_only_the_right_code() {
    let s = state();
    for text in [
        "/link ABCD2345",
        "/link@conch_bot ABCD2345",
        "/start ABCD2345",
    ] {
        assert_eq!(
            route(
                &s,
                &said(person("8", "X", None), Place::Group, text, false),
                "Ada"
            ),
            Route::LinkInGroup("ABCD2345".into())
        );
    }
    let (code, kept) = new_code([5; CODE_CHARS], 0);
    let mut s = BridgeState {
        link: Some(kept),
        ..BridgeState::default()
    };
    // A stranger's `/link` in a group: the owner's code still links.
    for wrong in ["", "WRONG234", "/link"] {
        link_in_group(&mut s, wrong);
        assert!(s.link.is_some(), "{wrong:?} spent the code");
    }
    // The right code said in a group was seen by everyone: spent.
    link_in_group(&mut s, &code.to_lowercase());
    assert_eq!(s.link, None);
}

#[test]
fn a_code_links_once_in_any_spelling_and_expires() {
    let (code, kept) = new_code([3, 40, 77, 1, 200, 9, 31, 64], 1000);
    assert_eq!(code.len(), CODE_CHARS);
    let mut s = BridgeState {
        link: Some(kept.clone()),
        ..BridgeState::default()
    };
    let ada = said(person("1", "Ada", None), Place::Direct, "", false);
    let spaced = format!(" {}-{} ", code[..4].to_lowercase(), &code[4..]);
    let owner = link(&mut s, &ada, &spaced, 1001).unwrap();
    assert_eq!(owner.id, "1");
    assert_eq!(s.link, None);
    // Spent: the same code again links nobody.
    let mallory = said(person("9", "M", None), Place::Direct, "", false);
    assert_eq!(link(&mut s, &mallory, &code, 1002), Err(WRONG_CODE));
    assert_eq!(s.owner.as_ref().unwrap().id, "1");
    // Run out.
    let mut late = BridgeState {
        link: Some(kept),
        ..BridgeState::default()
    };
    assert_eq!(
        link(&mut late, &ada, &code, 1000 + CODE_SECONDS + 1),
        Err(WRONG_CODE)
    );
    assert_eq!(late.link, None);
}

#[test]
fn a_strangers_wrong_codes_leave_the_owners_code_usable() {
    let (code, kept) = new_code([1; CODE_CHARS], 0);
    let mut s = BridgeState {
        link: Some(kept),
        ..BridgeState::default()
    };
    let m = said(person("9", "M", None), Place::Direct, "", false);
    for _ in 0..CODE_TRIES {
        assert!(link(&mut s, &m, "WRONG234", 1).is_err());
    }
    // Mallory ran out: even the right code doesn't link them now.
    assert!(s.link.is_some());
    assert!(link(&mut s, &m, &code, 1).is_err());
    assert_eq!(s.owner, None);
    // The owner's code still links the owner.
    let ada = said(person("1", "Ada", None), Place::Direct, "", false);
    assert_eq!(link(&mut s, &ada, &code, 2).unwrap().id, "1");
}

#[test]
fn a_crowd_guessing_spends_the_code_at_last() {
    let (code, kept) = new_code([2; CODE_CHARS], 0);
    let mut s = BridgeState {
        link: Some(kept),
        ..BridgeState::default()
    };
    for i in 0..CODE_TRIES_ALL {
        let m = said(
            person(&format!("9{i}"), "M", None),
            Place::Direct,
            "",
            false,
        );
        assert!(link(&mut s, &m, "WRONG234", 1).is_err());
    }
    assert_eq!(s.link, None);
    let ada = said(person("1", "Ada", None), Place::Direct, "", false);
    assert!(link(&mut s, &ada, &code, 2).is_err());
}

#[test]
fn allow_reads_ids_and_handles_and_refuses_the_rest() {
    assert_eq!(parse_user("12345").unwrap().id.as_deref(), Some("12345"));
    assert_eq!(
        parse_user("@Eve_X").unwrap().handle.as_deref(),
        Some("eve_x")
    );
    assert_eq!(
        parse_user("eve_x").unwrap().handle.as_deref(),
        Some("eve_x")
    );
    for bad in ["", "@", "e v e", "ев", "eve;rm", "-5"] {
        assert!(parse_user(bad).is_err(), "{bad}");
    }
}

/// xorshift64*, seeded per example so a failure is reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[(self.next() % from.len() as u64) as usize]
    }
}

/// Whatever the names, handles, places and words: the owner is exactly
/// the linked id; someone gets in only by an allowed id, or by an allowed
/// handle with no id kept yet; a group message that doesn't name the bot
/// is never read; everything else is refused.
#[test]
fn who_is_writing_is_decided_by_id_whatever_else_they_send() {
    let ids = ["1", "2", "3", "5", "10", "01", " 1", "1 "];
    let names = ["Ada", "ada", "Ádá", "Owner", "Bob", "", "eve_x"];
    let handles = [
        None,
        Some("ada"),
        Some("Eve_X"),
        Some("@eve_x"),
        Some("EVE_X "),
        Some("bob"),
    ];
    let texts = [
        "hi",
        "yes",
        "/start",
        "/link",
        "/linked x",
        "/Link ABC",
        "@conch_bot yes",
        "/start@conch_bot",
    ];
    for seed in 1..4000u64 {
        let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut s = state();
        if r.next() % 3 < 1 {
            s.owner = None;
        }
        if r.next() & 1 == 0 {
            s.allowed[1].id = Some((*r.pick(&ids)).to_owned());
        }
        let from = person(
            ids[(r.next() % 8) as usize],
            names[(r.next() % 7) as usize],
            handles[(r.next() % 6) as usize],
        );
        let place = if r.next() & 1 == 0 {
            Place::Direct
        } else {
            Place::Group
        };
        let text = *r.pick(&texts);
        let w = said(from.clone(), place, text, r.next() & 1 == 0);
        let got = route(&s, &w, "Ada");
        let linking = matches!(got, Route::Link(_) | Route::LinkInGroup(_));
        if linking {
            let t = text.to_lowercase();
            assert!(
                t.starts_with("/link") || t.starts_with("/start "),
                "{seed}: {w:?}"
            );
            continue;
        }
        if place == Place::Group && !w.mentions_bot {
            assert_eq!(got, Route::Ignore, "{seed}");
            continue;
        }
        let is_owner = s.owner.as_ref().is_some_and(|o| o.id == from.id);
        assert_eq!(got == Route::Owner, is_owner, "{seed}: {w:?} {got:?}");
        if let Route::Person { pin } = &got {
            let by_id = s
                .allowed
                .iter()
                .any(|a| a.id.as_deref() == Some(from.id.as_str()));
            let by_handle = pin.is_some_and(|i| {
                s.allowed[i].id.is_none()
                    && from.handle.as_deref().map(handle) == s.allowed[i].handle
            });
            assert!(by_id || by_handle, "{seed}: {w:?} {got:?}");
        }
        if s.owner.is_none() && !matches!(got, Route::Person { .. }) {
            assert_eq!(got, Route::Refuse(NOT_LINKED.to_owned()), "{seed}");
        }
        if matches!(got, Route::Refuse(_)) {
            assert!(
                !is_owner
                    && !s
                        .allowed
                        .iter()
                        .any(|a| a.id.as_deref() == Some(from.id.as_str()))
            );
        }
    }
}
