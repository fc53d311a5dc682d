//! Server-sent events as providers stream them: blocks separated by a blank
//! line, `event:` and `data:` fields. Bytes arrive in arbitrary pieces.

#[derive(Debug, Default, Clone, PartialEq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

#[derive(Default)]
pub struct SseParser {
    buffer: String,
}

impl SseParser {
    /// Feeds bytes; returns the events they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.buffer.push_str(&String::from_utf8_lossy(bytes));
        if self.buffer.contains('\r') {
            self.buffer = self.buffer.replace("\r\n", "\n").replace('\r', "\n");
        }
        let mut out = Vec::new();
        while let Some(end) = self.buffer.find("\n\n") {
            let block: String = self.buffer.drain(..end + 2).collect();
            let mut event = SseEvent::default();
            let mut any = false;
            for line in block.lines() {
                if line.starts_with(':') {
                    continue;
                }
                let (field, value) = line.split_once(':').unwrap_or((line, ""));
                let value = value.strip_prefix(' ').unwrap_or(value);
                match field {
                    "event" => {
                        event.event = Some(value.to_owned());
                        any = true;
                    }
                    "data" => {
                        if any && !event.data.is_empty() {
                            event.data.push('\n');
                        }
                        event.data.push_str(value);
                        any = true;
                    }
                    _ => {}
                }
            }
            if any {
                out.push(event);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_and_line_endings() {
        let mut p = SseParser::default();
        assert!(p.feed(b"event: ping\r\nda").is_empty());
        let got = p.feed(b"ta: {\"a\":1}\r\n\r\n: comment\n\ndata: x\ndata: y\n\n");
        assert_eq!(
            got,
            vec![
                SseEvent {
                    event: Some("ping".into()),
                    data: "{\"a\":1}".into()
                },
                SseEvent {
                    event: None,
                    data: "x\ny".into()
                }
            ]
        );
    }
}
