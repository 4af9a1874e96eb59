//! A node that accepts connections and never answers, for tests of the RPC timeout
//! ([`crate::RpcChain::with_timeout`]): on 127.0.0.1 on a free port, stopped when dropped.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    thread::JoinHandle,
    time::Duration,
};

/// How often the node's threads look whether it was dropped.
pub(crate) const TICK: Duration = Duration::from_millis(50);

/// A TCP listener posing as a JSON-RPC node that hangs: it accepts every connection
/// and keeps it open, answering nothing (or, [`StalledNode::answering_chain_id`], only
/// `eth_chainId` over HTTP, so that connecting succeeds and the next request hangs).
#[derive(Debug)]
pub struct StalledNode {
    port: u16,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl StalledNode {
    /// A node that answers nothing at all, not even a WebSocket handshake.
    pub fn silent() -> std::io::Result<StalledNode> {
        StalledNode::start(None)
    }

    /// A node that answers `eth_chainId` (HTTP JSON-RPC) with `chain_id` and leaves every
    /// other request unanswered, its connection open.
    pub fn answering_chain_id(chain_id: u64) -> std::io::Result<StalledNode> {
        StalledNode::start(Some(chain_id))
    }

    fn start(chain_id: Option<u64>) -> std::io::Result<StalledNode> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let acceptor = std::thread::spawn(move || {
            let mut workers = Vec::new();
            while !flag.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let flag = Arc::clone(&flag);
                        workers.push(std::thread::spawn(move || serve(stream, chain_id, &flag)));
                    }
                    Err(_) => std::thread::sleep(TICK),
                }
            }
            for worker in workers {
                let _ = worker.join();
            }
        });
        Ok(StalledNode {
            port,
            stop,
            acceptor: Some(acceptor),
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `ws://127.0.0.1:PORT`.
    pub fn ws_url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }
}

impl Drop for StalledNode {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// One connection: answers `eth_chainId` if `chain_id` is given, then holds the
/// connection without a word until the node is dropped.
fn serve(stream: TcpStream, chain_id: Option<u64>, stop: &AtomicBool) {
    if let Some(chain_id) = chain_id {
        let reader = stream.try_clone().and_then(|clone| {
            clone.set_read_timeout(Some(TICK))?;
            Ok(BufReader::new(clone))
        });
        let Ok(mut reader) = reader else {
            return;
        };
        let mut writer = &stream;
        while let Some((id, method)) = read_request(&mut reader, stop) {
            if method != "eth_chainId" {
                break;
            }
            let body =
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": format!("{chain_id:#x}")})
                    .to_string();
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            if writer.write_all(answer.as_bytes()).is_err() {
                return;
            }
        }
    }
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(TICK);
    }
    drop(stream);
}

/// `read` retried while it times out, until it reads (`Some(n)`, 0 at the end of the
/// connection), fails, or the node is dropped (`None`).
fn patiently(stop: &AtomicBool, mut read: impl FnMut() -> std::io::Result<usize>) -> Option<usize> {
    loop {
        match read() {
            Ok(n) => return Some(n),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) && !stop.load(Ordering::Relaxed) => {}
            Err(_) => return None,
        }
    }
}

/// The next HTTP request's JSON-RPC id and method; `None` at the end of the connection,
/// once the node is dropped, or for anything else.
fn read_request(
    reader: &mut BufReader<TcpStream>,
    stop: &AtomicBool,
) -> Option<(serde_json::Value, String)> {
    let body = read_body(reader, stop)?;
    let request: serde_json::Value = serde_json::from_slice(&body).ok()?;
    let method = request.get("method")?.as_str()?.to_string();
    Some((request.get("id").cloned().unwrap_or_default(), method))
}

/// The next HTTP request's body (by its `content-length`); `None` at the end of the
/// connection or once the node is dropped. The reader's stream has a read timeout, so
/// that `stop` is looked at while the client is quiet.
pub(crate) fn read_body(reader: &mut BufReader<TcpStream>, stop: &AtomicBool) -> Option<Vec<u8>> {
    let mut length = 0usize;
    loop {
        // `read_until` keeps what it read before a timeout: the retry goes on from there.
        let mut line = Vec::new();
        while !line.ends_with(b"\n") {
            if patiently(stop, || reader.read_until(b'\n', &mut line))? == 0 {
                return None;
            }
        }
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    let mut filled = 0;
    while filled < length {
        match patiently(stop, || reader.read(&mut body[filled..]))? {
            0 => return None,
            n => filled += n,
        }
    }
    Some(body)
}
