//! Slow and idle clients against the real server on real sockets: requests
//! that never finish their headers, bodies that stall or drip, idle
//! keep-alive connections, and more connections than the cap.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

mod common;

use std::time::{Duration, Instant};

use common::{start_options, Options, SseReader};
use gateway::Limits;
use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The test holds both ends of every connection: raise this process's
/// open-file limit as far as it may go.
fn raise_open_files(want: u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write one rlimit we own.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        if limit.rlim_cur < want {
            limit.rlim_cur = want.min(limit.rlim_max);
            assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &limit), 0);
        }
    }
    assert!(
        limit.rlim_cur >= want,
        "this test needs {want} open files; the hard limit is {}",
        limit.rlim_max
    );
}

/// Reads until the server closes; `None` if it hasn't by `deadline`.
async fn closed_by(socket: &mut TcpStream, deadline: tokio::time::Instant) -> Option<Vec<u8>> {
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        match tokio::time::timeout_at(deadline, socket.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(got),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

const HALF: &[u8] = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Never-Ends: ";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_half_sent_requests_are_closed_while_health_and_a_stream_answer() {
    raise_open_files(6000);
    let header = Duration::from_secs(3);
    let s = start_options(Options {
        limits: Limits {
            header,
            ..Limits::default()
        },
        ..Options::default()
    })
    .await;
    // A signed-in stream, open before the flood.
    let chat = s.new_chat().await;
    let mut stream = SseReader::new(s.get(format!("/api/chats/{chat}/stream")).await);
    stream.until("chat.created").await;

    let mut half_sent = Vec::with_capacity(2000);
    for _ in 0..2000 {
        let mut socket = TcpStream::connect(s.addr).await.unwrap();
        socket.write_all(HALF).await.unwrap();
        half_sent.push(socket);
    }
    let all_sent = tokio::time::Instant::now();

    // While they hang: health answers on a new connection, and the stream
    // carries a whole turn.
    for _ in 0..3 {
        let res = reqwest::Client::new()
            .get(format!("{}/api/health", s.url))
            .timeout(Duration::from_secs(2))
            .send()
            .await
            .expect("health answers during the flood");
        assert_eq!(res.status(), StatusCode::OK);
    }
    let res = s
        .post(
            format!("/api/chats/{chat}/messages"),
            &json!({ "text": "Still there? ünïcödé ✓" }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let (events, _) = stream.until("turn.ended").await;
    assert!(events.iter().any(|e| e["type"] == "reply"));
    assert!(
        all_sent.elapsed() < header,
        "the checks above ran while the flood was still open"
    );

    // Every half-sent request is closed within the header timeout (with
    // room for a busy machine), none of them answered as a request.
    let deadline = all_sent + header + Duration::from_secs(3);
    for (i, socket) in half_sent.iter_mut().enumerate() {
        let got = closed_by(socket, deadline)
            .await
            .unwrap_or_else(|| panic!("connection {i} was still open after the header timeout"));
        assert!(
            !String::from_utf8_lossy(&got).contains("200 OK"),
            "connection {i} was answered"
        );
    }
    // And the gateway goes on answering.
    let res = s
        .anon
        .get(format!("{}/api/health", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
}

#[tokio::test]
async fn over_the_cap_a_connection_is_closed_at_once_and_the_cap_frees_up() {
    let header = Duration::from_secs(2);
    let s = start_options(Options {
        limits: Limits {
            header,
            max_connections: 32,
            loopback_reserve: 8,
            ..Limits::default()
        },
        ..Options::default()
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..32 {
        let mut socket = TcpStream::connect(s.addr).await.unwrap();
        socket.write_all(HALF).await.unwrap();
        held.push(socket);
    }
    // Let the server take them all in.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let mut over = TcpStream::connect(s.addr).await.unwrap();
    let _ = over
        .write_all(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await;
    let got = closed_by(&mut over, tokio::time::Instant::now() + header)
        .await
        .expect("a connection over the cap is closed, not queued");
    assert!(got.is_empty(), "it isn't answered");
    assert!(started.elapsed() < header);
    // Once the header timeout has closed the others, there is room again.
    for socket in &mut held {
        closed_by(socket, tokio::time::Instant::now() + header * 2)
            .await
            .expect("closed by the header timeout");
    }
    let res = s
        .anon
        .get(format!("{}/api/health", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_stalled_body_a_dripped_body_and_an_idle_connection_are_cut_off() {
    let s = start_options(Options {
        limits: Limits {
            header: Duration::from_secs(2),
            body: Duration::from_secs(1),
            request: Duration::from_secs(3),
            ..Limits::default()
        },
        ..Options::default()
    })
    .await;
    let head = |length: usize| {
        format!(
            "POST /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
        )
    };

    // A body that stops arriving: refused after the body timeout.
    let mut stalled = TcpStream::connect(s.addr).await.unwrap();
    stalled.write_all(head(40).as_bytes()).await.unwrap();
    stalled.write_all(b"{\"password\":").await.unwrap();
    let got = closed_by(
        &mut stalled,
        tokio::time::Instant::now() + Duration::from_secs(3),
    )
    .await
    .expect("a stalled body is cut off");
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 400"), "{text}");
    assert!(
        text.contains("The request body couldn't be read."),
        "{text}"
    );

    // A body dripped a byte at a time, each within the body timeout: the
    // whole request's timeout ends it, with a sentence.
    let mut dripped = TcpStream::connect(s.addr).await.unwrap();
    dripped.write_all(head(200).as_bytes()).await.unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    while started.elapsed() < Duration::from_secs(6) {
        if dripped.write_all(b" ").await.is_err() {
            break;
        }
        match tokio::time::timeout(Duration::from_millis(400), dripped.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => answer.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
    }
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("took too long"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(5));

    // An idle keep-alive connection is closed after the header timeout.
    let mut idle = TcpStream::connect(s.addr).await.unwrap();
    idle.write_all(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut first = vec![0u8; 4096];
    let n = idle.read(&mut first).await.unwrap();
    assert!(String::from_utf8_lossy(&first[..n]).starts_with("HTTP/1.1 200"));
    let went_idle = Instant::now();
    closed_by(
        &mut idle,
        tokio::time::Instant::now() + Duration::from_secs(4),
    )
    .await
    .expect("an idle connection is closed");
    assert!(went_idle.elapsed() >= Duration::from_millis(1500));
}
