//! Serving the router: HTTP/1.1 over hyper, with the stack's own limits on
//! slow and idle clients, and a cap on open connections.
//!
//! - **Headers**: hyper's `header_read_timeout`. A request's head must
//!   arrive whole within it, and hyper starts the same timer when a
//!   keep-alive connection goes idle, so it also bounds how long an idle
//!   connection is kept waiting for its next request.
//! - **Bodies**: tower-http's `RequestBodyTimeout`, the longest pause between
//!   two pieces of a body, and its `Timeout` (in [`crate::router`]) for the
//!   whole request up to the response's head, so a body dripped in one byte
//!   at a time still ends.
//! - **Open connections**: at most `max_connections`; the last
//!   `loopback_reserve` of them are kept for this computer (the owner's own
//!   pages), so a crowd from the network can't take them all. A connection
//!   over the cap is closed at once, which keeps the listener's queue moving
//!   and the process below its open-file limit (the caller fits the cap to
//!   it: [`Limits::fit_open_files`]).
//!
//! What this doesn't do: it can't tell the owner's own loopback connection
//! from another local program's, so on a gateway that listens on loopback
//! only, a local program that opens `max_connections` connections fills the
//! cap until the header timeout closes them.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{watch, Notify};
use tower_http::add_extension::AddExtension;
use tower_http::timeout::RequestBodyTimeout;

use crate::state::AppState;

/// How long and how many: see the module's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A request's head must arrive within this; an idle keep-alive
    /// connection waits this long for its next request.
    pub header: Duration,
    /// The longest pause between two pieces of a request's body.
    pub body: Duration,
    /// A whole request, body included, until its response's head.
    pub request: Duration,
    /// Connections open at once.
    pub max_connections: usize,
    /// Of those, how many only loopback peers may take.
    pub loopback_reserve: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header: Duration::from_secs(10),
            body: Duration::from_secs(10),
            request: Duration::from_secs(30),
            max_connections: 4096,
            loopback_reserve: 256,
        }
    }
}

/// Open files kept for everything but connections: chat logs, artifacts,
/// the settings, the box's pipes.
pub const FILES_KEPT: usize = 256;

impl Limits {
    /// The cap lowered to fit under `open_files` (the process's limit), with
    /// [`FILES_KEPT`] left for the rest of Conch, so accepting a connection
    /// never takes the last file a chat's log needs.
    pub fn fit_open_files(mut self, open_files: u64) -> Limits {
        let room = usize::try_from(open_files)
            .unwrap_or(usize::MAX)
            .saturating_sub(FILES_KEPT)
            .max(16);
        self.max_connections = self.max_connections.min(room);
        self.loopback_reserve = self.loopback_reserve.min(self.max_connections / 4);
        self
    }

    /// How many connections a peer at `peer` may find open and still get in.
    fn room_for(&self, peer: &SocketAddr) -> usize {
        if peer.ip().to_canonical().is_loopback() {
            self.max_connections
        } else {
            self.max_connections.saturating_sub(self.loopback_reserve)
        }
    }
}

/// Counts open connections; the last one out says so.
struct Open {
    count: AtomicUsize,
    none_left: Notify,
}

struct Slot(Arc<Open>);

impl Drop for Slot {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.none_left.notify_waiters();
        }
    }
}

/// Serves `state`'s router on `listener` until `stop` resolves, then lets
/// open connections finish what they're doing (keep-alive connections close
/// at once) and returns when none are left. Live streams never finish by
/// themselves: the caller decides how long to wait for them.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    stop: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let limits = state.limits;
    let router = crate::router(state);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header)
        .keep_alive(true);
    let open = Arc::new(Open {
        count: AtomicUsize::new(0),
        none_left: Notify::new(),
    });
    let (stopping, stopped) = watch::channel(false);
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                // A peer that gave up while queued is nothing; running out
                // of files is waited out rather than spun on.
                if !matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
                ) {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                continue;
            }
        };
        if open.count.load(Ordering::Acquire) >= limits.room_for(&peer) {
            drop(stream);
            continue;
        }
        open.count.fetch_add(1, Ordering::AcqRel);
        let slot = Slot(open.clone());
        // Events on a live stream are small writes; don't hold them back.
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(RequestBodyTimeout::new(
            AddExtension::new(router.clone(), ConnectInfo(peer)),
            limits.body,
        ));
        let connection = http.serve_connection(TokioIo::new(stream), service);
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let _slot = slot;
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stopped.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    drop(listener);
    let _ = stopping.send(true);
    loop {
        let none_left = open.none_left.notified();
        if open.count.load(Ordering::Acquire) == 0 {
            return Ok(());
        }
        none_left.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_fits_under_the_open_file_limit() {
        let fitted = Limits::default().fit_open_files(1024);
        assert_eq!(fitted.max_connections, 1024 - FILES_KEPT);
        assert!(fitted.loopback_reserve <= fitted.max_connections / 4);
        let roomy = Limits::default().fit_open_files(1 << 20);
        assert_eq!(roomy, Limits::default());
        assert_eq!(Limits::default().fit_open_files(10).max_connections, 16);
    }

    #[test]
    fn loopback_gets_the_reserve() {
        let limits = Limits::default();
        let here: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let mapped: SocketAddr = "[::ffff:127.0.0.1]:1".parse().unwrap();
        let away: SocketAddr = "192.0.2.7:1".parse().unwrap();
        assert_eq!(limits.room_for(&here), limits.max_connections);
        assert_eq!(limits.room_for(&mapped), limits.max_connections);
        assert_eq!(
            limits.room_for(&away),
            limits.max_connections - limits.loopback_reserve
        );
    }
}
