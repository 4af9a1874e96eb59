//! A server on 127.0.0.1:0 and a minimal HTTP/1.1 client for the tests.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
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

/// Validates `value` against the OpenAPI 3.0 schema subset the document uses.
/// Objects are closed: a property the schema does not list is an error.
pub fn validate(doc: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let target = doc
            .pointer(&r[1..])
            .ok_or_else(|| format!("{at}: unresolved {r}"))?;
        return validate(doc, target, value, at);
    }
    if let Some(options) = schema.get("oneOf").and_then(Value::as_array) {
        let matching = options
            .iter()
            .filter(|s| validate(doc, s, value, at).is_ok())
            .count();
        return if matching == 1 {
            Ok(())
        } else {
            Err(format!("{at}: {value} matches {matching} of oneOf"))
        };
    }
    if value.is_null() {
        return if schema.get("nullable") == Some(&Value::Bool(true)) {
            Ok(())
        } else {
            Err(format!("{at}: null not allowed"))
        };
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        return all.iter().try_for_each(|s| validate(doc, s, value, at));
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        return Err(format!("{at}: {value} not in {allowed:?}"));
    }
    let ty = schema.get("type").and_then(Value::as_str);
    match ty {
        Some("object") => {
            let obj = value
                .as_object()
                .ok_or_else(|| format!("{at}: expected an object, got {value}"))?;
            let props = schema.get("properties").and_then(Value::as_object);
            for req in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let key = req.as_str().unwrap_or_default();
                if !obj.contains_key(key) {
                    return Err(format!("{at}: missing required {key}"));
                }
            }
            for (key, v) in obj {
                match props.and_then(|p| p.get(key)) {
                    Some(s) => validate(doc, s, v, &format!("{at}.{key}"))?,
                    None => match schema.get("additionalProperties") {
                        Some(extra) if extra.is_object() => {
                            validate(doc, extra, v, &format!("{at}.{key}"))?
                        }
                        _ => return Err(format!("{at}: undocumented field {key}")),
                    },
                }
            }
            Ok(())
        }
        Some("array") => {
            let items = value
                .as_array()
                .ok_or_else(|| format!("{at}: expected an array"))?;
            let item_schema = schema
                .get("items")
                .ok_or_else(|| format!("{at}: array without items"))?;
            items
                .iter()
                .enumerate()
                .try_for_each(|(i, v)| validate(doc, item_schema, v, &format!("{at}[{i}]")))
        }
        Some("string") => value
            .as_str()
            .map(|_| ())
            .ok_or_else(|| format!("{at}: expected a string, got {value}")),
        Some("boolean") => value
            .as_bool()
            .map(|_| ())
            .ok_or_else(|| format!("{at}: expected a boolean, got {value}")),
        Some("integer") => {
            let n = value
                .as_i64()
                .ok_or_else(|| format!("{at}: expected an integer, got {value}"))?;
            if let Some(min) = schema.get("minimum").and_then(Value::as_i64)
                && n < min
            {
                return Err(format!("{at}: {n} < minimum {min}"));
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_i64)
                && n > max
            {
                return Err(format!("{at}: {n} > maximum {max}"));
            }
            Ok(())
        }
        Some("number") => {
            let n = value
                .as_f64()
                .ok_or_else(|| format!("{at}: expected a number, got {value}"))?;
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                && n < min
            {
                return Err(format!("{at}: {n} < minimum {min}"));
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
                && n > max
            {
                return Err(format!("{at}: {n} > maximum {max}"));
            }
            Ok(())
        }
        Some(other) => Err(format!(
            "{at}: schema type {other} not handled by this validator"
        )),
        None => Ok(()),
    }
}

/// Reads a server-sent event stream in a thread: `(event name, data)` per event.
pub fn subscribe(
    addr: std::net::SocketAddr,
    path: &str,
) -> std::sync::mpsc::Receiver<(String, Value)> {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut name = String::new();
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            if let Some(event) = line.strip_prefix("event: ") {
                name = event.to_owned();
            } else if let Some(data) = line.strip_prefix("data: ")
                && send
                    .send((name.clone(), serde_json::from_str(data).unwrap()))
                    .is_err()
            {
                return;
            }
        }
    });
    receive
}
