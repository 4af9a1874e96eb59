//! Bounded load benchmark of `/v1/check` and `/v1/play` on 127.0.0.1.
//!
//! Starts the server in-process on 127.0.0.1:0, then sends a fixed number of
//! requests per endpoint over `CONNECTIONS` keep-alive HTTP/1.1 connections
//! and prints requests per second and latency percentiles. It stops by
//! itself. `CHESSREF_LOAD_REQUESTS` (default 20000) sets the number of
//! requests per endpoint, `CHESSREF_LOAD_CONNECTIONS` (default 16) the
//! concurrency. Run: `cargo bench -p chessref-server --bench load`.

#[path = "common/latency.rs"]
mod latency;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One keep-alive connection sending `count` copies of `body` to `path`; returns each latency.
async fn client(addr: SocketAddr, path: &'static str, body: Bytes, count: usize) -> Vec<Duration> {
    let stream = TcpStream::connect(addr)
        .await
        .expect("connect to the bench server");
    stream.set_nodelay(true).expect("nodelay");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(conn);
    let mut latencies = Vec::with_capacity(count);
    for _ in 0..count {
        let req = Request::post(path)
            .header("host", addr.to_string())
            .header("content-type", "application/json")
            .body(Full::new(body.clone()))
            .expect("request");
        let start = Instant::now();
        // HTTP/1.1 keep-alive: wait until the connection has finished the previous exchange.
        sender.ready().await.expect("connection ready");
        let resp = sender.send_request(req).await.expect("response");
        assert!(resp.status().is_success(), "{path}: {}", resp.status());
        resp.into_body().collect().await.expect("body");
        latencies.push(start.elapsed());
    }
    latencies
}

async fn run(
    addr: SocketAddr,
    name: &str,
    path: &'static str,
    body: &str,
    requests: usize,
    connections: usize,
) {
    let body = Bytes::from(body.to_owned());
    // Warm-up: open paths, fill allocator caches.
    client(addr, path, body.clone(), 200).await;
    let per_connection = requests / connections;
    let f = latency::measure(
        (0..connections)
            .map(|_| client(addr, path, body.clone(), per_connection))
            .collect(),
    )
    .await;
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "{name:<6} {:>7} requests, {connections} connections: {:>9.0} req/s  p50 {:>7.1} us  p99 {:>7.1} us  max {:>8.1} us",
        f.requests,
        f.rate,
        us(f.p50),
        us(f.p99),
        us(f.max),
    );
}

fn main() {
    let requests = env_usize("CHESSREF_LOAD_REQUESTS", 20_000);
    let connections = env_usize("CHESSREF_LOAD_CONNECTIONS", 16).max(1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(chessref_server::serve(listener, chessref_server::Config::default(), async {
            let _ = stopped.await;
        }));
        let check = r#"{"fen":"r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4","move":"h5f7"}"#;
        let play = r#"{"fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","moves":["e4","e5","Nf3","Nc6","Bb5","a6","Ba4","Nf6","O-O","Be7"]}"#;
        println!("chessref-server load: {requests} requests per endpoint to {addr}");
        run(addr, "check", "/v1/check", check, requests, connections).await;
        run(addr, "play", "/v1/play", play, requests, connections).await;
        let _ = stop.send(());
        server.await.expect("server task").expect("server");
    });
}
