//! The connection layer's limits, each met at its bound on a real socket (issue 20):
//! connections at once, the header-read time (a slowloris client), the idle time (also
//! between keep-alive requests) and the request time; past each the server closes or
//! answers 503 and goes on serving everyone else.

mod common;

use std::time::{Duration, Instant};

use chessref_server::Config;
use chessref_server::listen::ConnectionLimits;
use common::TestServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn server(limits: ConnectionLimits) -> TestServer {
    TestServer::start(Config {
        connections: limits,
        ..Config::default()
    })
    .await
}

/// Reads until the server closes the connection (or 10 s pass): what it sent, and when.
async fn until_closed(stream: &mut TcpStream) -> (String, Duration) {
    let started = Instant::now();
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => received.extend_from_slice(&buf[..n]),
            Err(_) => panic!("still open after 10 s"),
        }
    }
    (
        String::from_utf8_lossy(&received).into_owned(),
        started.elapsed(),
    )
}

const GET: &[u8] = b"GET /openapi.json HTTP/1.1\r\nhost: x\r\n\r\n";

#[tokio::test]
async fn past_the_connection_limit_a_connection_gets_503_and_the_others_are_served() {
    let s = server(ConnectionLimits {
        connections: 2,
        ..ConnectionLimits::default()
    })
    .await;
    let mut first = TcpStream::connect(s.addr).await.unwrap();
    let second = TcpStream::connect(s.addr).await.unwrap();
    // Both are accepted before the third comes.
    first.write_all(GET).await.unwrap();
    let mut buf = [0u8; 64];
    let n = first.read(&mut buf).await.unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
    let mut third = TcpStream::connect(s.addr).await.unwrap();
    let (answer, _) = until_closed(&mut third).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("\"error\":\"busy\""), "{answer}");
    // A slot given back serves the next one.
    drop(second);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (status, _, _) = s.raw("GET", "/openapi.json", None, vec![]).await;
    assert_eq!(status, 200);
    drop(first);
    s.shutdown().await;
}

#[tokio::test]
async fn an_idle_connection_is_closed_also_between_keep_alive_requests() {
    let s = server(ConnectionLimits {
        idle: Duration::from_secs(1),
        ..ConnectionLimits::default()
    })
    .await;
    // Never a byte.
    let mut silent = TcpStream::connect(s.addr).await.unwrap();
    let (_, after) = until_closed(&mut silent).await;
    assert!(after < Duration::from_millis(2_500), "{after:?}");
    // One request, then silence on the kept-alive connection.
    let mut kept = TcpStream::connect(s.addr).await.unwrap();
    kept.write_all(GET).await.unwrap();
    let (answer, after) = until_closed(&mut kept).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(after < Duration::from_millis(2_500), "{after:?}");
    s.shutdown().await;
}

#[tokio::test]
async fn a_slowloris_client_is_closed_at_the_header_read_time() {
    let s = server(ConnectionLimits {
        header_read: Duration::from_secs(1),
        idle: Duration::from_secs(30),
        ..ConnectionLimits::default()
    })
    .await;
    let stream = TcpStream::connect(s.addr).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let started = Instant::now();
    // One header byte every 200 ms: never idle, never done.
    let drip = tokio::spawn(async move {
        writer.write_all(b"GET / HTTP/1.1\r\n").await.ok();
        for _ in 0..100 {
            if writer.write_all(b"x").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    let mut buf = [0u8; 1024];
    loop {
        match tokio::time::timeout(Duration::from_secs(10), reader.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(_)) => continue,
            Err(_) => panic!("the slowloris client is still connected after 10 s"),
        }
    }
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    drip.abort();
    let (status, _, _) = s.raw("GET", "/openapi.json", None, vec![]).await;
    assert_eq!(status, 200, "the server serves everyone else");
    s.shutdown().await;
}

#[tokio::test]
async fn a_request_longer_than_the_request_time_gets_503() {
    let s = server(ConnectionLimits {
        request: Duration::from_millis(1),
        ..ConnectionLimits::default()
    })
    .await;
    let game = "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n";
    let pgn = game.repeat(5_000);
    let (status, ct, body) = s
        .raw(
            "POST",
            "/v1/replay",
            Some("application/x-chess-pgn"),
            pgn.into_bytes(),
        )
        .await;
    assert_eq!(status, 503, "{}", String::from_utf8_lossy(&body));
    assert!(ct.starts_with("application/json"));
    assert!(String::from_utf8_lossy(&body).contains("\"error\":\"busy\""));
    s.shutdown().await;
}
