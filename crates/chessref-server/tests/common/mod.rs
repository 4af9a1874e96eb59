//! A server on 127.0.0.1:0 and a minimal HTTP/1.1 client for the tests.
#![allow(dead_code)]

use std::net::SocketAddr;

use chessref_server::Config;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A running server; dropping `stop` (or sending on it) shuts it down.
pub struct TestServer {
    pub addr: SocketAddr,
    pub stop: Option<oneshot::Sender<()>>,
    pub task: JoinHandle<std::io::Result<()>>,
}

impl TestServer {
    pub async fn start(config: Config) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(chessref_server::serve(listener, config, async move {
            let _ = stopped.await;
        }));
        TestServer {
            addr,
            stop: Some(stop),
            task,
        }
    }

    /// Sends one request on a fresh connection; returns the status, content type and body.
    pub async fn raw(
        &self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> (StatusCode, String, Vec<u8>) {
        let stream = TcpStream::connect(self.addr).await.expect("connect");
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("handshake");
        tokio::spawn(conn);
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .header("host", self.addr.to_string());
        if let Some(ct) = content_type {
            req = req.header("content-type", ct);
        }
        let resp = sender
            .send_request(req.body(Full::new(Bytes::from(body))).expect("request"))
            .await
            .expect("response");
        let status = resp.status();
        let ct = resp
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap_or("").to_owned())
            .unwrap_or_default();
        let bytes = resp
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes()
            .to_vec();
        (status, ct, bytes)
    }

    /// The response headers of a bodiless request.
    pub async fn headers(&self, method: &str, path: &str) -> hyper::HeaderMap {
        let stream = TcpStream::connect(self.addr).await.expect("connect");
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("handshake");
        tokio::spawn(conn);
        let req = Request::builder()
            .method(method)
            .uri(path)
            .header("host", self.addr.to_string());
        let req = req
            .header("content-type", "application/json")
            .body(Full::new(Bytes::new()))
            .expect("request");
        sender
            .send_request(req)
            .await
            .expect("response")
            .headers()
            .clone()
    }

    /// POSTs JSON and parses the JSON answer (every answer of the service is JSON).
    pub async fn post_json(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        self.post_raw_json(path, body.to_string().into_bytes())
            .await
    }

    /// POSTs arbitrary bytes as `application/json`.
    pub async fn post_raw_json(&self, path: &str, body: Vec<u8>) -> (StatusCode, Value) {
        let (status, ct, bytes) = self.raw("POST", path, Some("application/json"), body).await;
        assert!(
            ct.starts_with("application/json"),
            "{path}: content type {ct:?}"
        );
        let value = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            panic!(
                "{path}: answer is not JSON ({e}): {}",
                String::from_utf8_lossy(&bytes)
            )
        });
        (status, value)
    }

    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.task
            .await
            .expect("server task")
            .expect("server result");
    }
}
