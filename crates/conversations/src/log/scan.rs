//! Reading a whole log file when a chat opens: which lines are events, where
//! each one is, and what a crash may have left at the end.
//!
//! Pure over the bytes, so every shape of damage is a table test.

use protocol::Event;

/// Where one event's line sits in the file (without its newline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub seq: u64,
    pub start: u64,
    pub len: u32,
}

impl Span {
    pub fn end(&self) -> u64 {
        self.start + u64::from(self.len)
    }
}

/// What the scan found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// Every good event, in file order, with strictly rising `seq`.
    pub spans: Vec<Span>,
    /// The end of the last good line, newline included: where appends go.
    pub good_len: u64,
    /// Bad lines followed by good ones: left in place and skipped. A crash
    /// can't make these (appends are whole lines); damage on disk can.
    pub skipped: Vec<(u64, u64)>,
    /// What follows the last good line, when anything does: a line cut off
    /// by a crash, or the zeros a filesystem can leave after one.
    pub torn: Option<(u64, u64)>,
}

impl Scan {
    pub fn last_seq(&self) -> u64 {
        self.spans.last().map_or(0, |s| s.seq)
    }
}

/// Scans `bytes`, calling `each` with every good event in order.
pub fn scan(bytes: &[u8], mut each: impl FnMut(&Event)) -> Scan {
    scan_spans(bytes, |e, _| each(e))
}

/// `scan`, telling `each` where the event's line is too.
pub fn scan_spans(bytes: &[u8], mut each: impl FnMut(&Event, Span)) -> Scan {
    let mut out = Scan::default();
    let mut bad: Vec<(u64, u64)> = Vec::new();
    let mut pos = 0usize;
    while pos < bytes.len() {
        let Some(nl) = memchr(b'\n', &bytes[pos..]).map(|i| pos + i) else {
            bad.push((pos as u64, bytes.len() as u64));
            break;
        };
        let line = &bytes[pos..nl];
        let good = u32::try_from(line.len()).ok().and_then(|len| {
            let event = Event::from_line(line).ok()?;
            (event.seq > out.last_seq()).then_some((event, len))
        });
        match good {
            Some((event, len)) => {
                let span = Span {
                    seq: event.seq,
                    start: pos as u64,
                    len,
                };
                each(&event, span);
                out.spans.push(span);
                out.good_len = nl as u64 + 1;
            }
            None => bad.push((pos as u64, nl as u64 + 1)),
        }
        pos = nl + 1;
    }
    let good_len = out.good_len;
    out.skipped = bad.iter().copied().filter(|b| b.0 < good_len).collect();
    if (good_len as usize) < bytes.len() {
        out.torn = Some((good_len, bytes.len() as u64));
    }
    out
}

fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&b| b == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(seq: u64) -> String {
        format!(r#"{{"seq":{seq},"id":"e{seq}","at":"t","type":"note","n":{seq}}}"#) + "\n"
    }

    fn scan_text(text: &str) -> Scan {
        scan(text.as_bytes(), |_| {})
    }

    #[test]
    fn a_clean_log() {
        let text = line(1) + &line(2) + &line(3);
        let s = scan_text(&text);
        assert_eq!(s.spans.iter().map(|s| s.seq).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(s.good_len, text.len() as u64);
        assert_eq!((s.torn, s.skipped.len()), (None, 0));
        assert_eq!(
            &text[s.spans[1].start as usize..s.spans[1].end() as usize] as &str,
            line(2).trim_end()
        );
    }

    #[test]
    fn an_empty_log() {
        assert_eq!(scan_text(""), Scan::default());
    }

    #[test]
    fn a_line_cut_off_is_torn() {
        let good = line(1) + &line(2);
        let text = good.clone() + r#"{"seq":3,"id":"e3","at":"#;
        let s = scan_text(&text);
        assert_eq!(s.last_seq(), 2);
        assert_eq!(s.torn, Some((good.len() as u64, text.len() as u64)));
    }

    #[test]
    fn zeros_after_a_crash_are_torn() {
        let good = line(1);
        let text = good.clone() + "\0\0\0\0\n\0\0";
        let s = scan_text(&text);
        assert_eq!(s.torn, Some((good.len() as u64, text.len() as u64)));
        assert!(s.skipped.is_empty());
    }

    #[test]
    fn a_bad_line_in_the_middle_is_skipped_not_torn() {
        let text = line(1) + "garbage\n" + &line(2);
        let s = scan_text(&text);
        assert_eq!(s.spans.len(), 2);
        assert_eq!(
            s.skipped,
            vec![(line(1).len() as u64, (line(1).len() + 8) as u64)]
        );
        assert_eq!(s.torn, None);
    }

    #[test]
    fn a_repeated_seq_is_not_an_event() {
        let text = line(1) + &line(2) + &line(2);
        let s = scan_text(&text);
        assert_eq!(s.spans.len(), 2);
        assert!(s.torn.is_some());
    }

    #[test]
    fn events_are_handed_over_in_order() {
        let text = line(1) + &line(2);
        let mut seen = Vec::new();
        scan(text.as_bytes(), |e| seen.push(e.seq));
        assert_eq!(seen, [1, 2]);
    }
}
