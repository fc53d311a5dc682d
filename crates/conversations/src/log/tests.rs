use super::*;
use protocol::{Message, Speaker};

fn msg(text: &str) -> Body {
    Body::Message(Message {
        from: Speaker::Owner,
        text: text.into(),
        name: None,
        app: None,
        replaces: None,
    })
}

fn open(dir: &Path) -> (ChatLog, OpenReport) {
    ChatLog::open(dir, Durability::Group).unwrap()
}

#[test]
fn appends_are_dense_and_read_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (log, report) = open(dir.path());
    assert!(report.warnings("c").is_empty());
    for i in 0..5 {
        let e = log.append_blocking(msg(&format!("m{i}"))).unwrap();
        assert_eq!(e.seq, i + 1);
    }
    let lines = log.lines_after(2, 10).unwrap();
    assert_eq!(lines.iter().map(|l| l.0).collect::<Vec<_>>(), [3, 4, 5]);
    let file = std::fs::read_to_string(dir.path().join(LOG_FILE)).unwrap();
    let stored: Vec<&str> = file.lines().collect();
    assert_eq!(lines[0].1, stored[2], "lines are served exactly as stored");
    let json: serde_json::Value = serde_json::from_str(&log.json_after(0, 2).unwrap()).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 2);
    assert_eq!(json[1]["seq"], 2);
    assert_eq!(log.json_after(5, 10).unwrap(), "[]");
    assert_eq!(log.view().messages, 5);
}

#[test]
fn reopening_continues_the_sequence() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (log, _) = open(dir.path());
        log.append_blocking(msg("a")).unwrap();
        log.append_blocking(msg("b")).unwrap();
    }
    let (log, _) = open(dir.path());
    assert_eq!(log.last_seq(), 2);
    assert_eq!(log.append_blocking(msg("c")).unwrap().seq, 3);
    assert_eq!(log.events_after(0).unwrap().len(), 3);
}

#[test]
fn a_torn_tail_is_set_aside_and_the_chat_opens() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (log, _) = open(dir.path());
        log.append_blocking(msg("kept")).unwrap();
    }
    let path = dir.path().join(LOG_FILE);
    let torn = br#"{"seq":2,"id":"x","at":"2026-"#;
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(torn)
        .unwrap();
    let (log, report) = open(dir.path());
    let warnings = report.warnings("c1");
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("set aside"), "{}", warnings[0]);
    let side = std::fs::read(dir.path().join(TORN_FILE)).unwrap();
    assert_eq!(&side[..torn.len()], torn, "nothing is dropped");
    assert_eq!(log.last_seq(), 1);
    assert_eq!(log.append_blocking(msg("next")).unwrap().seq, 2);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.lines().all(|l| Event::from_line(l.as_bytes()).is_ok()),
        "{text}"
    );
}

#[test]
fn unknown_events_are_kept_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let line = r#"{"seq":1,"id":"f","at":"2030-01-01T00:00:00.000Z","type":"hologram","beam":1}"#;
    std::fs::write(dir.path().join(LOG_FILE), format!("{line}\n")).unwrap();
    let (log, report) = open(dir.path());
    assert!(report.warnings("c").is_empty());
    assert_eq!(log.append_blocking(msg("after")).unwrap().seq, 2);
    assert_eq!(log.lines_after(0, 1).unwrap()[0].1, line);
    assert_eq!(log.view().messages, 1);
}

#[test]
fn a_second_writer_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_log, _) = open(dir.path());
    match ChatLog::open(dir.path(), Durability::Group) {
        Err(LogError::Busy(_)) => {}
        Err(other) => panic!("expected Busy, got {other}"),
        Ok(_) => panic!("expected Busy, got a second writer"),
    }
}

#[test]
fn concurrent_appenders_get_distinct_dense_seqs() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = open(dir.path());
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let log = log.clone();
            std::thread::spawn(move || {
                (0..50)
                    .map(|i| log.append_blocking(msg(&format!("{t}-{i}"))).unwrap().seq)
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut seqs: Vec<u64> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    seqs.sort();
    assert_eq!(seqs, (1..=400).collect::<Vec<_>>());
}

#[test]
fn followers_see_committed_events_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = open(dir.path());
    let mut follower = log.follow();
    log.append_blocking(msg("a")).unwrap();
    log.send_delta(1, "par");
    log.append_blocking(msg("b")).unwrap();
    let mut seen = Vec::new();
    while let Ok(item) = follower.try_recv() {
        seen.push(match item {
            Live::Event(c) => format!("event {}", c.event.seq),
            Live::Delta { text, .. } => format!("delta {text}"),
        });
    }
    assert_eq!(seen, ["event 1", "delta par", "event 2"]);
}
