//! The one writer of a chat's log: a thread that owns the file, gives each
//! event its `seq`, and acknowledges it only once it is on disk.
//!
//! Group commit: whatever is queued when the writer wakes goes out in one
//! `write` and one `fdatasync`, so many appenders share a flush while a lone
//! appender still pays only one. A failed write is cut back off the file so
//! no half line remains, and every event in the batch is refused.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::Arc;
use std::time::SystemTime;

use protocol::{format_rfc3339, Body, Event};
use tokio::sync::oneshot;

use super::scan::Span;
use super::{Committed, Durability, Live, LogError, Shared};

type Ack = oneshot::Sender<Result<Event, LogError>>;

pub(super) struct Request {
    pub body: Body,
    pub reply: Ack,
}

/// An event written to the file, waiting to be made visible and acknowledged.
type Written = (Committed, Span, Ack);

pub(super) struct Writer {
    pub file: File,
    pub path: PathBuf,
    pub end: u64,
    pub next_seq: u64,
    pub durability: Durability,
    pub shared: Arc<Shared>,
}

/// Most events written under one flush.
const MAX_BATCH: usize = 1024;

impl Writer {
    pub fn run(mut self, requests: Receiver<Request>) {
        while let Ok(first) = requests.recv() {
            let mut batch = vec![first];
            if self.durability == Durability::Group {
                while batch.len() < MAX_BATCH {
                    match requests.try_recv() {
                        Ok(next) => batch.push(next),
                        Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
                    }
                }
            }
            self.commit(batch);
        }
    }

    fn commit(&mut self, batch: Vec<Request>) {
        let mut buf = Vec::with_capacity(batch.len() * 256);
        let mut done = Vec::with_capacity(batch.len());
        let mut next_seq = self.next_seq;
        let at = format_rfc3339(SystemTime::now());
        let masker = self.shared.secrets.get().map(|s| s.masker());
        for request in batch {
            let event = Event {
                seq: next_seq,
                id: crate::ids::event_id(),
                at: at.clone(),
                body: request.body,
            };
            let line = event.to_line();
            let (event, line) = match &masker {
                Some(masker) => match super::masked::masked(event, line, masker) {
                    Ok(done) => done,
                    Err(e) => {
                        let _ = request.reply.send(Err(e));
                        continue;
                    }
                },
                None => (event, line),
            };
            let span = Span {
                seq: next_seq,
                start: self.end + buf.len() as u64,
                len: u32::try_from(line.len()).unwrap_or(u32::MAX),
            };
            buf.extend_from_slice(line.as_bytes());
            buf.push(b'\n');
            if self.durability == Durability::EachEvent {
                if let Err(error) = self
                    .file
                    .write_all(&buf)
                    .and_then(|()| self.file.sync_data())
                {
                    self.fail(error, done, Some(request.reply));
                    return;
                }
                self.end += buf.len() as u64;
                buf.clear();
            }
            next_seq += 1;
            done.push((Committed { event, line }, span, request.reply));
        }
        if self.durability == Durability::Group {
            if let Err(error) = self
                .file
                .write_all(&buf)
                .and_then(|()| self.file.sync_data())
            {
                self.fail(error, done, None);
                return;
            }
            self.end += buf.len() as u64;
        }
        self.next_seq = next_seq;
        self.publish(done);
    }

    /// Makes committed events visible: index, view, live stream, then the ack.
    fn publish(&mut self, done: Vec<Written>) {
        {
            let mut index = self.shared.index.write().unwrap_or_else(|p| p.into_inner());
            index.spans.extend(done.iter().map(|d| d.1));
            index.end = self.end;
        }
        {
            let mut view = self.shared.view.lock().unwrap_or_else(|p| p.into_inner());
            for (committed, _, _) in &done {
                view.apply(&committed.event);
            }
        }
        for (committed, span, reply) in done {
            let event = committed.event.clone();
            if let Some(observe) = self.shared.observer.get() {
                observe(&event, span);
            }
            // Nobody following the chat is fine.
            let _ = self.shared.live.send(Live::Event(Arc::new(committed)));
            let _ = reply.send(Ok(event));
        }
    }

    /// Refuses a batch that didn't reach the disk, and cuts any partial write
    /// back off so the next append starts on a clean line.
    fn fail(&mut self, error: std::io::Error, done: Vec<Written>, failed: Option<Ack>) {
        // In EachEvent mode the events in `done` are already on disk.
        if self.durability == Durability::EachEvent {
            self.next_seq += done.len() as u64;
            self.publish(done);
        } else {
            for (_, _, reply) in done {
                let _ = reply.send(Err(LogError::io(&self.path)(clone_io(&error))));
            }
        }
        if let Some(reply) = failed {
            let _ = reply.send(Err(LogError::io(&self.path)(clone_io(&error))));
        }
        let _ = self.file.set_len(self.end);
        let _ = self.file.sync_data();
    }
}

fn clone_io(error: &std::io::Error) -> std::io::Error {
    std::io::Error::new(error.kind(), error.to_string())
}
