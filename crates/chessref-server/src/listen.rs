//! The connection layer of `chessref serve` (issue 20): the accept loop and the limits a
//! public server needs before any request is read. Each connection holds one of
//! `connections` slots (past them a connection gets a 503 and is closed); a client
//! must send its request headers within `header_read`; a connection that neither sends
//! nor receives anything for `idle` is closed, also between keep-alive requests; and a
//! request is answered within `request` (503 otherwise; a stream's headers count, not
//! the stream). hyper does the HTTP; only what it leaves open is here.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt;

/// The connection limits (each a `chessref serve` flag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections open at once.
    pub connections: usize,
    /// Time a client has to send a request's headers.
    pub header_read: Duration,
    /// A connection silent both ways this long is closed.
    pub idle: Duration,
    /// Time a request has to be answered (a stream's headers; not the stream).
    pub request: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> ConnectionLimits {
        ConnectionLimits {
            connections: 768,
            header_read: Duration::from_secs(10),
            idle: Duration::from_secs(60),
            request: Duration::from_secs(30),
        }
    }
}

/// How long a shutdown waits for open connections (streams, WebSockets) to finish.
const DRAIN: Duration = Duration::from_secs(5);

/// The answer to a connection past the limit (then closed).
const FULL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
access-control-allow-origin: *\r\nconnection: close\r\ncontent-length: 83\r\n\r\n\
{\"error\":\"busy\",\"message\":\"the server holds its limit of connections: retry later\"}";

/// Serves `app` on `listener` with `limits` until `shutdown` completes, then lets open
/// connections finish (at most [`DRAIN`]).
pub async fn serve<F>(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: F,
) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let slots = Arc::new(Semaphore::new(limits.connections));
    let (stop, stopping) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of descriptors, a reset before accept: wait a little, go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let mut stopping = stopping.clone();
        tokio::spawn(async move {
            let service =
                app.map_request(move |mut request: hyper::Request<hyper::body::Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(peer));
                    request.map(axum::body::Body::new)
                });
            let io = TokioIo::new(Idle::new(stream, limits.idle));
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read)
                .keep_alive(true);
            let connection = builder
                .serve_connection(io, TowerToHyperService::new(service))
                .with_upgrades();
            let mut connection = std::pin::pin!(connection);
            let stop = async move {
                // Only the signal matters, not the value's guard (not Send).
                let _ = stopping.wait_for(|stop| *stop).await.is_ok();
            };
            tokio::select! {
                _ = connection.as_mut() => {}
                () = stop => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(DRAIN, connection).await;
                }
            }
            drop(slot);
        });
    }
    let _ = stop.send(true);
    // Every slot back: every connection closed (or the drain time is over).
    let total = u32::try_from(limits.connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(DRAIN, slots.acquire_many(total)).await;
    Ok(())
}

/// Answers a connection past the limit with a 503 and closes it.
async fn refuse(mut stream: TcpStream) {
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(FULL).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

/// A stream that fails with `TimedOut` once nothing was read or written for `idle`.
struct Idle {
    inner: TcpStream,
    idle: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl Idle {
    fn new(inner: TcpStream, idle: Duration) -> Idle {
        Idle {
            inner,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }

    fn touch(&mut self) {
        let next = tokio::time::Instant::now() + self.idle;
        self.deadline.as_mut().reset(next);
    }

    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        self.deadline.as_mut().poll(cx).is_ready()
    }
}

fn timed_out() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::TimedOut, "idle connection closed")
}

impl AsyncRead for Idle {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    self.touch();
                }
                Poll::Ready(result)
            }
            Poll::Pending if self.expired(cx) => Poll::Ready(Err(timed_out())),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncWrite for Idle {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, data) {
            Poll::Ready(Ok(n)) => {
                if n > 0 {
                    self.touch();
                }
                Poll::Ready(Ok(n))
            }
            Poll::Pending if self.expired(cx) => Poll::Ready(Err(timed_out())),
            other => other,
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The request timeout as a middleware: a request not answered within `limit` gets a
/// 503 `busy`.
pub async fn request_timeout(
    limit: Duration,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => crate::error::ApiError::Busy(format!(
            "the request took longer than the server's {} s: retry later",
            limit.as_secs_f64()
        ))
        .into_response(),
    }
}

/// The client's address, when the connection layer recorded it.
pub fn peer(request_extensions: &axum::http::Extensions) -> Option<SocketAddr> {
    request_extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| *addr)
}
