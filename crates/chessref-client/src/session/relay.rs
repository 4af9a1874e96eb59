//! The connection to a relay's channel of one game (`chessref serve`'s
//! `/v1/games/{id}/channel`, docs/CHANNEL.md section 13): a WebSocket read without
//! blocking, whose errors say in words whether the relay is unreachable, has not seen the
//! game yet, or was lost.

use std::net::TcpStream;
use std::time::Duration;

use alloy_primitives::U256;
use chessref_channel::{Frame, RelayFrame, Transcript};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// An open connection to the relay's channel of a game.
pub struct Connection {
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
}

/// What one read of the connection gave.
pub enum Read {
    /// Nothing waiting now.
    Nothing,
    /// A relay frame.
    Frame(Box<RelayFrame>),
    /// A text that is not a relay frame (why).
    NotAFrame(String),
    /// The connection is lost (why).
    Lost(String),
}

impl Connection {
    /// Connects to the channel of game `id` at `relay` (its base URL, http(s):// or
    /// ws(s)://); the error says why not, in words.
    pub fn open(relay: &str, id: U256) -> Result<Connection, String> {
        let url = format!("{}/v1/games/{id}/channel", base(relay, "ws"));
        let (mut socket, _) = tungstenite::connect(&url).map_err(|e| match e {
            // The relay answers 404 for a game its index has not seen joined yet (it learns
            // the game from the chain a block or two after `channel join`): not a lost relay.
            tungstenite::Error::Http(response) if response.status() == 404 => {
                format!("the relay has not seen game {id}'s join yet ({url})")
            }
            e => format!("relay unreachable ({url}: {e})"),
        })?;
        if let MaybeTlsStream::Plain(stream) = socket.get_mut() {
            stream
                .set_read_timeout(Some(Duration::from_millis(50)))
                .map_err(|e| format!("relay unreachable ({url}: {e})"))?;
        }
        Ok(Connection { socket })
    }

    /// Sends `frame`; the error says why it could not be (the connection is lost).
    pub fn send(&mut self, frame: &Frame) -> Result<(), String> {
        let text = serde_json::to_string(frame).expect("frames serialise");
        self.socket
            .send(Message::text(text))
            .map_err(|e| e.to_string())
    }

    /// The next frame the relay sent, waiting at most the read timeout.
    pub fn read(&mut self) -> Read {
        loop {
            let message = match self.socket.read() {
                Ok(message) => message,
                // Nothing yet; or a read cut short by a signal (SIGCONT after Ctrl-Z, `fg`,
                // fails a socket read with a timeout with EINTR on Linux): not a lost relay.
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock
                            | std::io::ErrorKind::TimedOut
                            | std::io::ErrorKind::Interrupted
                    ) =>
                {
                    let _ = self.socket.flush();
                    return Read::Nothing;
                }
                Err(e) => return Read::Lost(e.to_string()),
            };
            let Message::Text(text) = message else {
                continue;
            };
            return match serde_json::from_str(text.as_str()) {
                Ok(frame) => Read::Frame(Box::new(frame)),
                Err(e) => Read::NotAFrame(e.to_string()),
            };
        }
    }
}

/// The relay's base URL `relay` (http(s):// or ws(s)://) in the scheme family `scheme`
/// (`ws` or `http`), without a trailing slash.
fn base(relay: &str, scheme: &str) -> String {
    let base = relay.trim_end_matches('/');
    let (rest, secure) = if let Some(rest) = base.strip_prefix("http://") {
        (rest, false)
    } else if let Some(rest) = base.strip_prefix("ws://") {
        (rest, false)
    } else if let Some(rest) = base.strip_prefix("https://") {
        (rest, true)
    } else if let Some(rest) = base.strip_prefix("wss://") {
        (rest, true)
    } else {
        return base.to_owned();
    };
    format!("{scheme}{}://{rest}", if secure { "s" } else { "" })
}

/// The largest transcript read from a relay: far beyond a game's (a move entry is about
/// 1 KB), so an endpoint that sends without end is cut off.
const MAX_TRANSCRIPT: usize = 64 << 20;

/// The transcript of game `id` the relay at `relay` holds (`GET /v1/games/{id}/transcript`);
/// the error says why there is none, in words.
pub fn transcript(relay: &str, id: U256) -> Result<Transcript, String> {
    let url = format!("{}/v1/games/{id}/transcript", base(relay, "http"));
    let answer = chessref_evm::http::get(&url, MAX_TRANSCRIPT, Duration::from_secs(30))?;
    match answer.status {
        200 => Transcript::from_json(&String::from_utf8_lossy(&answer.body))
            .map_err(|e| format!("{url}: {e}")),
        404 => Err(format!(
            "the relay at {relay} does not know game {id} ({url}: {})",
            answer.excerpt()
        )),
        status => Err(format!("{url}: HTTP status {status}: {}", answer.excerpt())),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read as _, Write};

    use super::*;

    /// Issue 29, item 3: the relay's 404 right after `channel join` (its index has not seen
    /// the join yet) is said as such, not as an unreachable relay.
    #[test]
    fn a_relay_that_does_not_know_the_game_yet_is_named_so() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let relay = format!("http://{}", listener.local_addr().unwrap());
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 2048];
            let _ = stream.read(&mut request);
            let body = "unknown game 7";
            write!(
                stream,
                "HTTP/1.1 404 Not Found\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
        });
        let Err(error) = Connection::open(&relay, U256::from(7)) else {
            panic!("a 404 gives no socket");
        };
        server.join().unwrap();
        assert!(
            error.starts_with("the relay has not seen game 7's join yet"),
            "{error}"
        );
    }
}
