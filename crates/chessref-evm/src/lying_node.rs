//! A node that lies, for tests of what a follower of the chain checks of its node: an
//! HTTP JSON-RPC proxy on 127.0.0.1 (a free port) in front of a real node (anvil), which
//! hands every answer to a tampering function before sending it on. Stopped when
//! dropped.

use std::{
    collections::HashMap,
    io::{BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    thread::JoinHandle,
    time::Duration,
};

use serde_json::Value;

use crate::stalled_node::{TICK, read_body};

/// How long writing an answer to the client, or talking to the real node, may take.
const IO_TIMEOUT: Duration = Duration::from_secs(30);

/// What the lying node does to an answer: called with the request's method and params
/// and the real node's whole answer (`{"jsonrpc", "id", "result"}` or its `error`),
/// returns the answer to send instead.
pub type Tamper = dyn Fn(&str, &Value, Value) -> Value + Send + Sync;

/// An HTTP JSON-RPC proxy that forwards every request to a real node and passes the
/// answer through a [`Tamper`] first (batches answer by answer).
pub struct LyingNode {
    port: u16,
    stop: Arc<AtomicBool>,
    calls: Arc<Mutex<HashMap<String, usize>>>,
    acceptor: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for LyingNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LyingNode")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

/// Where the real node listens: `host:port` and the path to post to.
#[derive(Clone, Debug)]
struct Upstream {
    address: String,
    path: String,
}

impl LyingNode {
    /// A proxy of the node at `upstream` (`http://HOST:PORT[/PATH]`) whose answers go
    /// through `tamper`.
    pub fn start(
        upstream: &str,
        tamper: impl Fn(&str, &Value, Value) -> Value + Send + Sync + 'static,
    ) -> std::io::Result<LyingNode> {
        let rest = upstream.strip_prefix("http://").ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("the lying node proxies http:// only, not {upstream}"),
            )
        })?;
        let (address, path) = match rest.find('/') {
            Some(slash) => (&rest[..slash], &rest[slash..]),
            None => (rest, "/"),
        };
        let upstream = Upstream {
            address: address.to_string(),
            path: path.to_string(),
        };
        let tamper: Arc<Tamper> = Arc::new(tamper);
        let listener = TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let stop = Arc::new(AtomicBool::new(false));
        let calls = Arc::new(Mutex::new(HashMap::new()));
        let (flag, counted) = (Arc::clone(&stop), Arc::clone(&calls));
        let acceptor = std::thread::spawn(move || {
            let mut workers = Vec::new();
            while !flag.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (flag, counted) = (Arc::clone(&flag), Arc::clone(&counted));
                        let (upstream, tamper) = (upstream.clone(), Arc::clone(&tamper));
                        workers.push(std::thread::spawn(move || {
                            serve(stream, &upstream, &*tamper, &counted, &flag)
                        }));
                    }
                    Err(_) => std::thread::sleep(TICK),
                }
            }
            for worker in workers {
                let _ = worker.join();
            }
        });
        Ok(LyingNode {
            port,
            stop,
            calls,
            acceptor: Some(acceptor),
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// How many requests of `method` were answered so far.
    pub fn calls(&self, method: &str) -> usize {
        self.calls
            .lock()
            .map_or(0, |calls| calls.get(method).copied().unwrap_or(0))
    }
}

impl Drop for LyingNode {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// One client connection: each request forwarded, its answer tampered with and sent
/// back, until the client closes or the node is dropped.
fn serve(
    stream: TcpStream,
    upstream: &Upstream,
    tamper: &Tamper,
    calls: &Mutex<HashMap<String, usize>>,
    stop: &AtomicBool,
) {
    let reader = stream.try_clone().and_then(|clone| {
        clone.set_read_timeout(Some(TICK))?;
        Ok(BufReader::new(clone))
    });
    let Ok(mut reader) = reader else {
        return;
    };
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let mut writer = &stream;
    while let Some(body) = read_body(&mut reader, stop) {
        let Ok(request) = serde_json::from_slice::<Value>(&body) else {
            return;
        };
        let Ok(answer) = forward(upstream, &body) else {
            return;
        };
        let answer = match (&request, answer) {
            (Value::Array(requests), Value::Array(answers)) => Value::Array(
                answers
                    .into_iter()
                    .map(|answer| {
                        let asked = requests.iter().find(|r| r.get("id") == answer.get("id"));
                        lie(asked, answer, tamper, calls)
                    })
                    .collect(),
            ),
            (request, answer) => lie(Some(request), answer, tamper, calls),
        };
        let body = answer.to_string();
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        if writer.write_all(head.as_bytes()).is_err() || writer.write_all(body.as_bytes()).is_err()
        {
            return;
        }
    }
}

/// `answer` to `request` after `tamper`, counted.
fn lie(
    request: Option<&Value>,
    answer: Value,
    tamper: &Tamper,
    calls: &Mutex<HashMap<String, usize>>,
) -> Value {
    let method = request
        .and_then(|r| r.get("method"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if let Ok(mut calls) = calls.lock() {
        *calls.entry(method.to_string()).or_default() += 1;
    }
    let params = request
        .and_then(|r| r.get("params"))
        .cloned()
        .unwrap_or(Value::Null);
    tamper(method, &params, answer)
}

/// Posts `body` to the real node (one connection, closed after) and returns its answer.
fn forward(upstream: &Upstream, body: &[u8]) -> std::io::Result<Value> {
    let mut stream = TcpStream::connect(&upstream.address)?;
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    let head = format!(
        "POST {} HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        upstream.path,
        upstream.address,
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| bad("no end of the headers"))?;
    let headers = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
    let mut body = answer[split + 4..].to_vec();
    if headers.contains("transfer-encoding: chunked") {
        body = unchunk(&body).ok_or_else(|| bad("a broken chunked body"))?;
    }
    serde_json::from_slice(&body).map_err(|e| bad(&e.to_string()))
}

/// A chunked HTTP body, joined.
fn unchunk(mut chunked: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line = chunked.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&chunked[..line]).ok()?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        chunked = &chunked[line + 2..];
        if size == 0 {
            return Some(body);
        }
        body.extend_from_slice(chunked.get(..size)?);
        chunked = chunked.get(size + 2..)?;
    }
}
