//! The browser's rows (ADR 0028 §1 and its 2026-10-05 update): the site
//! rule, the password rule and a click that sends, named by rule id, and
//! properties over every mode, mark and earlier answer.

use super::*;
use protocol::{BrowserAction, BrowserOp, BrowserSend};

fn on(op: BrowserOp, url: &str) -> BrowserAction {
    BrowserAction {
        op,
        url: url.into(),
        site: crate::site::of_url(url).unwrap_or_default(),
        element: None,
        sends: None,
        password: false,
        typed: false,
    }
}

fn open(url: &str) -> Action {
    Action::Browser(on(BrowserOp::Open, url))
}
fn snapshot() -> Action {
    Action::Browser(on(BrowserOp::Snapshot, "https://files.example/a"))
}
fn screenshot() -> Action {
    Action::Browser(on(BrowserOp::Screenshot, "https://files.example/a"))
}
fn back() -> Action {
    Action::Browser(on(BrowserOp::Back, "https://files.example/a"))
}
fn click(url: &str) -> Action {
    Action::Browser(BrowserAction {
        element: Some("link \"Next\"".into()),
        ..on(BrowserOp::Click, url)
    })
}
fn send(url: &str, to: &str) -> Action {
    Action::Browser(BrowserAction {
        element: Some("button \"Send\"".into()),
        sends: Some(Box::new(BrowserSend {
            to: to.into(),
            site: crate::site::of_url(to).unwrap_or_default(),
            spends: false,
            reaches: Vec::new(),
        })),
        ..on(BrowserOp::Click, url)
    })
}
fn type_text(url: &str) -> Action {
    Action::Browser(BrowserAction {
        element: Some("textbox \"Email\"".into()),
        ..on(BrowserOp::Type, url)
    })
}
/// Typing into a field the page's own script reads, on a page that has
/// sent requests to `reaches` too.
fn type_read(url: &str, reaches: &[&str]) -> Action {
    Action::Browser(BrowserAction {
        element: Some("textbox \"Search\"".into()),
        sends: Some(Box::new(BrowserSend {
            to: String::new(),
            site: crate::site::of_url(url).unwrap_or_default(),
            spends: false,
            reaches: reaches.iter().map(|s| s.to_string()).collect(),
        })),
        ..on(BrowserOp::Type, url)
    })
}
fn password(url: &str) -> Action {
    Action::Browser(BrowserAction {
        element: Some("textbox \"Password\"".into()),
        password: true,
        ..on(BrowserOp::Type, url)
    })
}

const FILES: &str = "https://files.example/upload";
const NEWS: &str = "https://www.news.example/today";

fn covered(sites: &[&'static str]) -> ChatSpec {
    ChatSpec {
        always: sites.to_vec(),
        ..marked(MarkKind::Page)
    }
}

#[test]
fn the_browser_table() {
    use MarkKind::*;
    use Mode::{Ask as A, Auto as U, Edits as E, Full as F};
    let ask = |ids: &'static [&'static str]| Want::Ask(ids, true);
    let ask_no_always = |ids: &'static [&'static str]| Want::Ask(ids, false);
    let mut rows = Vec::new();
    for mode in [A, E, U, F] {
        let m = mode.as_str();
        rows.extend([
            // --- unmarked: reading and using pages runs ---
            row(&format!("{m}: unmarked, open runs"), mode, spec(), open(FILES), Want::Allow),
            row(&format!("{m}: unmarked, a click runs"), mode, spec(), click(FILES), Want::Allow),
            row(&format!("{m}: unmarked, typing runs"), mode, spec(), type_text(FILES), Want::Allow),
            // --- after-reading.browser-site ---
            row(
                &format!("after-reading.browser-site: {m}, marked, opening a site asks, even in Full trust"),
                mode,
                marked(Page),
                open(FILES),
                ask(&["after-reading.browser-site"]),
            ),
            row(
                &format!("after-reading.browser-site: {m}, marked by a search, a click asks"),
                mode,
                marked(Search),
                click(FILES),
                ask(&["after-reading.browser-site"]),
            ),
            row(
                &format!("after-reading.browser-site: {m}, the site that marked the chat asks too"),
                mode,
                marked(Page),
                type_text(NEWS),
                ask(&["after-reading.browser-site"]),
            ),
            row(
                &format!("after-reading.browser-site: {m}, going back to a site asks"),
                mode,
                marked(Integration),
                back(),
                ask(&["after-reading.browser-site"]),
            ),
            row(
                &format!("after-reading.browser-site: {m}, a yes covers that site for the rest of the chat"),
                mode,
                covered(&["browser:files.example"]),
                click(FILES),
                Want::Allow,
            ),
            row(
                &format!("after-reading.browser-site: {m}, a yes covers the whole site, not only the host"),
                mode,
                covered(&["browser:files.example"]),
                type_text("https://upload.eu.files.example/x"),
                Want::Allow,
            ),
            row(
                &format!("after-reading.browser-site: {m}, another site's yes doesn't cover this one"),
                mode,
                covered(&["browser:news.example"]),
                open(FILES),
                ask(&["after-reading.browser-site"]),
            ),
            row(
                &format!("after-reading.browser-site: {m}, the tool's own always doesn't cover a site"),
                mode,
                covered(&["browser_click", "read:browser_click"]),
                click(FILES),
                ask(&["after-reading.browser-site"]),
            ),
            row(
                &format!("after-reading.browser-site: {m}, reading what is shown stays free"),
                mode,
                marked(Page),
                snapshot(),
                Want::Allow,
            ),
            row(
                &format!("after-reading.browser-site: {m}, a screenshot stays free"),
                mode,
                marked(Download),
                screenshot(),
                Want::Allow,
            ),
            row(
                &format!("after-reading.browser-site: {m}, a mark that no longer holds asks nothing"),
                mode,
                marked(OldGitFetch),
                open(FILES),
                Want::Allow,
            ),
            row(
                &format!("after-reading.browser-site, nobody-there.waits: {m}, no always, none counts"),
                mode,
                ChatSpec {
                    always: vec!["browser:files.example"],
                    ..nobody(Page)
                },
                click(FILES),
                ask_no_always(&["after-reading.browser-site", "nobody-there.waits"]),
            ),
            row(
                &format!("after-reading.browser-site, others-words.owner-decides: {m}"),
                mode,
                ChatSpec {
                    always: vec!["browser:files.example"],
                    ..with_others()
                },
                open(FILES),
                ask_no_always(&["after-reading.browser-site", "others-words.owner-decides"]),
            ),
            // --- browser.password ---
            row(
                &format!("browser.password: {m}, unmarked, typing a password asks"),
                mode,
                spec(),
                password(FILES),
                ask_no_always(&["browser.password"]),
            ),
            row(
                &format!("browser.password: {m}, a site's yes doesn't cover a password"),
                mode,
                covered(&["browser:files.example", "browser_type", "read:browser_type"]),
                password(FILES),
                ask_no_always(&["browser.password"]),
            ),
            row(
                &format!("browser.password, after-reading.browser-site: {m}, both, no always"),
                mode,
                marked(Page),
                password(FILES),
                ask_no_always(&["browser.password", "after-reading.browser-site"]),
            ),
        ]);
        let mut unchecked = row(
            &format!("browser.password: {m}, asked with checking after reading off"),
            mode,
            marked(Page),
            password(FILES),
            ask_no_always(&["browser.password"]),
        );
        unchecked.check = false;
        rows.push(unchecked);
        let mut unchecked = row(
            &format!("after-reading.browser-site: {m}, off with checking after reading"),
            mode,
            marked(Page),
            open(FILES),
            Want::Allow,
        );
        unchecked.check = false;
        rows.push(unchecked);
        let mut read_only = row(
            &format!("policy.read-only: {m}, a click is refused"),
            mode,
            spec(),
            click(FILES),
            Want::Deny(&["policy.read-only"]),
        );
        read_only.policy = Policy::ReadOnly;
        rows.push(read_only);
        let mut read_only = row(
            &format!("policy.read-only: {m}, opening a page still reads"),
            mode,
            spec(),
            open(FILES),
            Want::Allow,
        );
        read_only.policy = Policy::ReadOnly;
        rows.push(read_only);
        let mut off = row(
            &format!("policy.off: {m}, the browser turned off is refused"),
            mode,
            spec(),
            snapshot(),
            Want::Deny(&["policy.off"]),
        );
        off.policy = Policy::Off;
        rows.push(off);
    }
    // --- mode.ask-browser-send ---
    for mode in [A, E, U] {
        let m = mode.as_str();
        rows.push(row(
            &format!("mode.ask-browser-send: {m}, a click that sends asks, each time"),
            mode,
            spec(),
            send(FILES, "https://files.example/send"),
            ask_no_always(&["mode.ask-browser-send"]),
        ));
        rows.push(row(
            &format!("mode.ask-browser-send: {m}, covered site, still asked"),
            mode,
            covered(&["browser:files.example"]),
            send(FILES, "https://files.example/send"),
            ask_no_always(&["mode.ask-browser-send"]),
        ));
    }
    for mode in [A, E, U] {
        let m = mode.as_str();
        rows.push(row(
            &format!(
                "mode.ask-browser-send: {m}, typing that the page's script reads asks, each time"
            ),
            mode,
            covered(&["browser:files.example"]),
            type_read(FILES, &[]),
            ask_no_always(&["mode.ask-browser-send"]),
        ));
        rows.push(row(
            &format!("mode.ask-browser-send: {m}, typing into a field no script reads runs"),
            mode,
            spec(),
            type_text(FILES),
            Want::Allow,
        ));
    }
    rows.extend([
        row(
            "mode.ask-browser-send: full trust, unmarked, typing the script reads runs",
            F,
            spec(),
            type_read(FILES, &["drop.example"]),
            Want::Allow,
        ),
        row(
            "after-reading.browser-site: full trust, typing on a page whose script reached another site asks for that site",
            F,
            covered(&["browser:files.example"]),
            type_read(FILES, &["drop.example"]),
            ask(&["after-reading.browser-site"]),
        ),
        row(
            "mode.ask-browser-send: full trust, unmarked, a send runs",
            F,
            spec(),
            send(FILES, "https://files.example/send"),
            Want::Allow,
        ),
        row(
            "after-reading.browser-site: full trust, a button posting to another site asks for that site",
            F,
            covered(&["browser:files.example"]),
            send(FILES, "https://drop.example/collect"),
            ask(&["after-reading.browser-site"]),
        ),
        row(
            "after-reading.browser-site: ask, both sites uncovered: one question, both keys",
            A,
            marked(MarkKind::Page),
            send(FILES, "https://drop.example/collect"),
            ask_no_always(&["mode.ask-browser-send", "after-reading.browser-site"]),
        ),
        row(
            "after-reading.data-fetch, after-reading.browser-site: a composed address asks, no always",
            A,
            marked(MarkKind::Page),
            open(EXFIL),
            ask_no_always(&["after-reading.data-fetch", "after-reading.browser-site"]),
        ),
        row(
            "after-reading.browser-site: full trust skips the data measure but not the site",
            F,
            marked(MarkKind::Page),
            open(EXFIL),
            ask(&["after-reading.browser-site"]),
        ),
        row(
            "after-reading.browser-site: a covered site, an address the owner wrote runs",
            A,
            covered(&["browser:github.com"]),
            open(OWNER_URL),
            Want::Allow,
        ),
    ]);
    run(rows);
}

#[test]
fn the_site_question_is_the_records_sentence() {
    let chat = fold(&marked(MarkKind::Page));
    let got = decide(
        Call {
            tool: "browser_open",
            action: &open(FILES),
        },
        &chat,
        &Settings::new(Mode::Full),
    );
    let Decision::Ask {
        question,
        always,
        note,
        ..
    } = got
    else {
        panic!("{got:?}")
    };
    assert!(
        question.starts_with("This chat read news.example, which could be trying to steer me. Can I use files.example in the browser?"),
        "{question}"
    );
    assert_eq!(always, Some(vec!["browser:files.example".to_owned()]));
    assert_eq!(
        note.as_deref(),
        Some("This chat read news.example, which could be trying to steer me. So I'm checking before I use files.example in the browser.")
    );
    // Both sites of a click that posts elsewhere are named, and both keys
    // offered.
    let got = decide(
        Call {
            tool: "browser_click",
            action: &send(FILES, "https://drop.example/c"),
        },
        &chat,
        &Settings::new(Mode::Full),
    );
    let Decision::Ask {
        question, always, ..
    } = got
    else {
        panic!("{got:?}")
    };
    assert!(
        question.contains("Can I use files.example and drop.example in the browser?"),
        "{question}"
    );
    assert!(
        question.contains("It sends to https://drop.example/c."),
        "{question}"
    );
    assert_eq!(
        always,
        Some(vec![
            "browser:files.example".to_owned(),
            "browser:drop.example".to_owned()
        ])
    );
}

/// xorshift, so the property is the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

/// Whatever the mode, the mark, who is there and what was answered
/// "always" before: in a marked chat, an action on a site whose own key
/// wasn't given asks with the site rule, and a password typed into any page
/// asks with no "always" offered.
#[test]
fn property_each_site_asks_and_passwords_always_ask() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let hosts = [
        "files.example",
        "www.files.example",
        "news.example",
        "a.github.io",
        "b.github.io",
        "bank.example.co.uk",
        "127.0.0.1",
        "localhost",
    ];
    let marks = [
        MarkKind::Page,
        MarkKind::Search,
        MarkKind::Download,
        MarkKind::Integration,
        MarkKind::Carried,
    ];
    let keys: Vec<String> = hosts
        .iter()
        .map(|h| crate::site::key(&crate::site::of_host(h)))
        .chain(
            [
                "browser_click",
                "read:browser_click",
                "browser_open",
                "read:browser_open",
                "browser_type",
                "read:browser_type",
            ]
            .map(String::from),
        )
        .collect();
    let mut asked = 0;
    for _ in 0..3_000 {
        let host = *rng.pick(&hosts);
        let url = format!("https://{host}/p/{}", rng.next() % 1000);
        let to = format!("https://{}/send", rng.pick(&hosts));
        let action = match rng.next() % 5 {
            0 => open(&url),
            1 => click(&url),
            2 => type_text(&url),
            3 => send(&url, &to),
            _ => password(&url),
        };
        let Action::Browser(b) = &action else {
            unreachable!()
        };
        let given: Vec<&'static str> = (0..rng.next() % 4)
            .map(|_| -> &'static str { Box::leak(rng.pick(&keys).clone().into_boxed_str()) })
            .collect();
        let mark = *rng.pick(&marks);
        let there = !rng.next().is_multiple_of(3);
        let others = rng.next().is_multiple_of(4);
        let chat_spec = ChatSpec {
            there,
            others,
            marks: vec![mark],
            always: given.clone(),
        };
        let chat = fold(&chat_spec);
        let mode = *rng.pick(&Mode::ALL);
        let got = decide(
            Call {
                tool: tool_of(&action),
                action: &action,
            },
            &chat,
            &Settings::new(mode),
        );
        let uncovered = b
            .sites()
            .iter()
            .any(|s| !there || others || !given.contains(&crate::site::key(s).as_str()));
        if uncovered {
            assert!(
                got.rule_ids().contains(&"after-reading.browser-site"),
                "{mode} {action:?} {chat_spec:?}: {got:?}"
            );
            asked += 1;
        }
        if b.password {
            assert!(
                matches!(&got, Decision::Ask { always: None, .. })
                    && got.rule_ids().contains(&"browser.password"),
                "{mode} {action:?}: {got:?}"
            );
        }
    }
    assert!(asked > 1_000, "{asked}");
}
