//! HTTP requests read with a bound: a JSON-RPC node's answers ([`crate::RpcChain`]) and a
//! plain `GET` (a relay's transcript), each no further than a given size and time, so an
//! endpoint that sends without end or never answers fails by name.

use std::time::Duration;

use alloy::transports::http::reqwest;

/// Why an answer was not read.
pub(crate) enum Unread {
    /// It is longer than the bound.
    TooLarge,
    /// The request or the body failed in transport.
    Transport(reqwest::Error),
}

/// Sends `request` and reads its answer's body, no further than `max_bytes`: a longer
/// body (declared so, or found so while reading) is [`Unread::TooLarge`], and the rest
/// is never read (the connection is dropped).
pub(crate) async fn read_bounded(
    request: reqwest::RequestBuilder,
    max_bytes: usize,
) -> Result<(reqwest::StatusCode, Vec<u8>), Unread> {
    let mut response = request.send().await.map_err(Unread::Transport)?;
    let status = response.status();
    let declared = response.content_length().unwrap_or(0);
    if declared > max_bytes as u64 {
        return Err(Unread::TooLarge);
    }
    let mut body = Vec::with_capacity(declared as usize);
    while let Some(chunk) = response.chunk().await.map_err(Unread::Transport)? {
        if body.len() + chunk.len() > max_bytes {
            return Err(Unread::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok((status, body))
}

/// The answer to a [`get`]: its HTTP status and body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status code.
    pub status: u16,
    /// The body, as sent.
    pub body: Vec<u8>,
}

impl Answer {
    /// The first 120 characters of the body, to say what an unexpected answer was.
    pub fn excerpt(&self) -> String {
        excerpt(&String::from_utf8_lossy(&self.body))
    }
}

/// `GET url`, its body read no further than `max_bytes`, all within `timeout`; the error
/// says in words why there is no answer (unreachable, too long, too slow).
pub fn get(url: &str, max_bytes: usize, timeout: Duration) -> Result<Answer, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let client = reqwest::Client::builder()
        .build()
        .map_err(|e| format!("cannot make an HTTP client: {}", causes(&e)))?;
    let request = client.get(url);
    let read = runtime
        .block_on(
            async move { tokio::time::timeout(timeout, read_bounded(request, max_bytes)).await },
        )
        .map_err(|_| format!("{url}: no answer within {} s", timeout.as_secs()))?;
    match read {
        Ok((status, body)) => Ok(Answer {
            status: status.as_u16(),
            body,
        }),
        Err(Unread::TooLarge) => Err(format!(
            "{url}: the answer is longer than {max_bytes} bytes"
        )),
        Err(Unread::Transport(error)) => Err(format!("{url} unreachable: {}", causes(&error))),
    }
}

/// An error and its causes, outermost first ("error sending request: ... Connection refused").
pub(crate) fn causes(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

/// The first 120 characters of an answer, enough to recognise it.
pub(crate) fn excerpt(text: &str) -> String {
    const LIMIT: usize = 120;
    match text.char_indices().nth(LIMIT) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}
