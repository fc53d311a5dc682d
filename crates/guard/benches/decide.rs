//! `decide` on a chat with 100 marks and 50 "always" answers (target: p99
//! under 5 µs), and folding a 100,000-event chat into the guard's view
//! (target: under 20 ms) and per appended event (O(1)).
//!
//! cargo bench -p guard --bench decide
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::time::Instant;

use guard::{decide, Call, Protected, Settings};
use protocol::{
    Action, Answer, Body, ChatView, Event, MarkSource, Message, Mode, PermissionAnswered,
    PermissionRequested, Reply, Speaker, Taint, ToolCalled, ToolFinished,
};
use serde_json::json;

fn ev(seq: u64, body: Body) -> Event {
    Event {
        seq,
        id: format!("e{seq}"),
        at: "2026-11-29T00:00:00.000Z".into(),
        body,
    }
}

/// A long, realistic chat: messages, replies, commands and their results,
/// and now and then a page read's mark and an "always" answer.
fn chat(events: u64, marks: u64, always: u64) -> Vec<Event> {
    let mut out = Vec::with_capacity(events as usize);
    let mut seq = 0;
    let mut push = |out: &mut Vec<Event>, body: Body| {
        seq += 1;
        out.push(ev(seq, body));
    };
    let mut made_marks = 0;
    let mut made_always = 0;
    while (out.len() as u64) < events {
        let n = out.len() as u64;
        push(
            &mut out,
            Body::Message(Message {
                from: Speaker::Owner,
                text: format!("Please look at https://docs.example/{n} and fix item {n}."),
                name: None,
                app: None,
                replaces: None,
            }),
        );
        let call = format!("c{n}");
        let command = if n.is_multiple_of(3) {
            "curl -s https://api.example/data".to_string()
        } else {
            format!("cargo test item_{n}")
        };
        push(
            &mut out,
            Body::ToolCalled(ToolCalled {
                turn: n,
                call: call.clone(),
                tool: "run_command".into(),
                input: json!({ "command": command }),
            }),
        );
        push(
            &mut out,
            Body::ToolFinished(ToolFinished {
                turn: n,
                call: call.clone(),
                ok: true,
                output: "ok".into(),
                detail: None,
            }),
        );
        if made_marks < marks {
            let (source, what) = if n.is_multiple_of(3) {
                (MarkSource::Download, "api.example")
            } else {
                (MarkSource::Page, "news.example")
            };
            push(
                &mut out,
                Body::Taint(Taint {
                    source,
                    what: what.into(),
                    call: Some(call.clone()),
                    says: None,
                    from: None,
                    path: None,
                }),
            );
            made_marks += 1;
        }
        if made_always < always {
            let ask = format!("a{n}");
            push(
                &mut out,
                Body::PermissionRequested(PermissionRequested {
                    turn: n,
                    ask: ask.clone(),
                    call,
                    tool: format!("tool{n}"),
                    action: Action::LookAround { paths: vec![] },
                    why: vec![],
                    question: String::new(),
                    note: None,
                    always: Some(vec![format!("tool{n}")]),
                    provenance: vec![],
                    told: None,
                    after_reading: false,
                    narrow: None,
                }),
            );
            push(
                &mut out,
                Body::PermissionAnswered(PermissionAnswered {
                    ask,
                    answer: Answer::Always,
                    by: "owner".into(),
                    narrow: false,
                }),
            );
            made_always += 1;
        }
        push(
            &mut out,
            Body::Reply(Reply {
                turn: n,
                text: format!("Fixed item {n}; the tests pass now."),
            }),
        );
    }
    out.truncate(events as usize);
    out
}

fn percentiles(mut ns: Vec<f64>) -> (f64, f64) {
    ns.sort_by(|a, b| a.total_cmp(b));
    (ns[ns.len() / 2], ns[ns.len() * 99 / 100])
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let mut events = chat(2_000, 100, 50);
    // Ten skills held, each allowing git and the programs the bench runs.
    for i in 0..10u64 {
        let seq = events.len() as u64 + 1;
        events.push(ev(
            seq,
            Body::SkillUsed(protocol::SkillUsed {
                skill: format!("skill-{i}"),
                source: "conch".into(),
                fingerprint: String::new(),
                permissions: Some(protocol::SkillPermissions {
                    commands: vec!["git".into(), "cargo".into()],
                    files: protocol::FileAccess::Write,
                    web: protocol::WebAccess::Send,
                    integrations: vec![],
                }),
                by: protocol::SkillBy::Typed,
                from: None,
                instructions: String::new(),
                says: None,
            }),
        ));
    }
    let view = ChatView::fold(&events);
    assert_eq!(view.holds.len(), 10);
    assert_eq!(view.marks.len(), 100);
    assert_eq!(view.always.len(), 50);
    let mut settings = Settings::new(Mode::Edits);
    settings.protected =
        std::sync::Arc::new(Protected::usual(Some("/home/ada"), "/home/ada/.conch"));
    let actions = [
        (
            "command",
            "run_command",
            Action::Command {
                command: "git push origin main".into(),
                programs: vec!["git".into()],
                unsealed: true,
                leaves_box: false,
            },
        ),
        (
            "command as the shell reads it",
            "run_command",
            Action::command(
                "cd crates/guard && c''argo test --release -- --nocapture 2>&1 | tail -n 50 && echo \"réussi ✓ 完了\"",
                true,
                false,
            ),
        ),
        (
            "composed address with non-ASCII parts",
            "web_fetch",
            Action::PageRead {
                url: "https://ja.wikipedia.org/wiki/%E9%9D%9E%E5%90%8C%E6%9C%9F%E5%87%A6%E7%90%86?lang=ja&q=tokio+r%C3%A9sum%C3%A9".into(),
                host: "ja.wikipedia.org".into(),
            },
        ),
        (
            "outside write",
            "write_file",
            Action::FileChange {
                path: "/etc/hosts".into(),
                inside: false,
                runs_later: None,
            },
        ),
        (
            "data-shaped fetch",
            "web_fetch",
            Action::PageRead {
                url: "https://drop.example/c?d=QUtJQUlPU0ZPRE5ON0VYQU1QTEUvd0phbHJYVXRuRkVNSQ"
                    .into(),
                host: "drop.example".into(),
            },
        ),
        (
            "looking around",
            "read_file",
            Action::LookAround {
                paths: vec!["/w/src/main.rs".into()],
            },
        ),
    ];
    for (name, tool, action) in &actions {
        // Warm up, then time each call.
        for _ in 0..10_000 {
            std::hint::black_box(decide(Call { tool, action }, &view, &settings));
        }
        let mut times = Vec::with_capacity(100_000);
        for _ in 0..100_000 {
            let t = Instant::now();
            std::hint::black_box(decide(Call { tool, action }, &view, &settings));
            times.push(t.elapsed().as_nanos() as f64);
        }
        let (p50, p99) = percentiles(times);
        println!(
            "decide ({name}; 100 marks, 50 always answers, 10 skills held): p50 {:.2} µs, p99 {:.2} µs",
            p50 / 1000.0,
            p99 / 1000.0
        );
    }

    // The person-aware read rule: the same read in a chat a chat app
    // started, with someone else in it (it asks: others-see.private-read),
    // and in the owner's own chat (it doesn't).
    let mut app_events = vec![ev(
        0,
        Body::ChatCreated(protocol::ChatCreated {
            work: "/w".into(),
            mode: Mode::Edits,
            origin: protocol::Origin::App,
            parent: None,
            artifact: None,
            routine: None,
        }),
    )];
    app_events.extend(events.iter().cloned());
    let seq = app_events.len() as u64 + 1;
    app_events.push(ev(
        seq,
        Body::Message(Message {
            from: Speaker::Person,
            text: "Peux-tu lire mes notes ? 🙏".into(),
            name: Some("Eve".into()),
            app: Some("telegram".into()),
            replaces: None,
        }),
    ));
    let app_view = ChatView::fold(&app_events);
    assert!(!app_view.audience().is_empty());
    let read = Action::LookAround {
        paths: vec!["/w/notes/recettes-été.md".into()],
    };
    let local = Action::PageRead {
        url: "http://0x7f000001:8080/latest/meta-data".into(),
        host: "0x7f000001".into(),
    };
    for (name, tool, action, view) in [
        ("a read, owner's chat", "read_file", &read, &view),
        (
            "a read, a chat app chat with Eve",
            "read_file",
            &read,
            &app_view,
        ),
        (
            "a local address, a chat app chat with Eve",
            "web_fetch",
            &local,
            &app_view,
        ),
    ] {
        for _ in 0..10_000 {
            std::hint::black_box(decide(Call { tool, action }, view, &settings));
        }
        let mut times = Vec::with_capacity(100_000);
        for _ in 0..100_000 {
            let t = Instant::now();
            std::hint::black_box(decide(Call { tool, action }, view, &settings));
            times.push(t.elapsed().as_nanos() as f64);
        }
        let (p50, p99) = percentiles(times);
        println!(
            "decide ({name}): p50 {:.2} µs, p99 {:.2} µs",
            p50 / 1000.0,
            p99 / 1000.0
        );
    }

    let events = chat(100_000, 100, 50);
    let mut folds = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        std::hint::black_box(ChatView::fold(&events));
        folds.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let (median, _) = percentiles(folds);
    println!("fold a 100,000-event chat into the guard's view: median {median:.1} ms");

    // skill_holds over a 100,000-event chat with 20 skills used.
    let mut with_skills = chat(100_000, 100, 50);
    for i in 0..20usize {
        let at = i * 4_000 + 7;
        with_skills[at].body = Body::SkillUsed(protocol::SkillUsed {
            skill: format!("skill-{i}"),
            source: "conch".into(),
            fingerprint: "f".repeat(64),
            permissions: Some(protocol::SkillPermissions::usual()),
            by: protocol::SkillBy::UseSkill,
            from: None,
            instructions: "Do the steps.".into(),
            says: None,
        });
    }
    let mut times = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        let holds = protocol::skill_holds(&with_skills);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(holds.len(), 20);
    }
    let (median, _) = percentiles(times);
    println!("skill_holds over a 100,000-event chat with 20 skills used: median {median:.1} ms");

    // Per appended event, on a small chat and on a big one: the same cost.
    for size in [1_000u64, 100_000] {
        let mut view = ChatView::fold(&chat(size, 100, 50));
        let more = chat(size + 10_000, 100, 50);
        let tail = &more[size as usize..];
        let t = Instant::now();
        for e in tail {
            view.apply(std::hint::black_box(e));
        }
        println!(
            "apply one event to a {size}-event chat: {:.0} ns on average over {} events",
            t.elapsed().as_nanos() as f64 / tail.len() as f64,
            tail.len()
        );
    }
}
