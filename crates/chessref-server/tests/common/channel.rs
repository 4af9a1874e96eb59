//! What the relay's tests and benchmark share: anvil with channel games joined, the
//! indexer following it, and WebSocket clients of the relay.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use alloy_primitives::{U256, keccak256};
use alloy_signer_local::PrivateKeySigner;
use chessref_channel::client::{OffChainGame, Seat};
use chessref_channel::{Frame, RelayFrame};
use chessref_evm::{Chain as _, GameSetup, Referee, RpcChain, anvil::Anvil};
use chessref_index::db::DbTarget;
use chessref_index::{Indexer, Options, Store};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async_with_config};

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// An index database path in a scratch directory, removed when the directory (the
/// first value) is dropped.
pub fn temp_db(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("chessref-relay-{name}-"))
        .tempdir()
        .unwrap();
    let db = dir.path().join("index.sqlite");
    (dir, db)
}

/// The indexer following the referee at `address` on `url` into `db` (one
/// confirmation, a 20 ms poll), in a thread, until `stop` is set.
pub fn index_in_thread(
    url: &str,
    db: &std::path::Path,
    address: alloy_primitives::Address,
    stop: &Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    index_polling(url, db, address, stop, Duration::from_millis(20))
}

/// [`index_in_thread`] polling the chain every `poll` once caught up.
pub fn index_polling(
    url: &str,
    db: &std::path::Path,
    address: alloy_primitives::Address,
    stop: &Arc<AtomicBool>,
    poll: Duration,
) -> std::thread::JoinHandle<()> {
    index_into(url, &DbTarget::Sqlite(db.to_owned()), address, stop, poll)
}

/// [`index_polling`] into the database `target`.
pub fn index_into(
    url: &str,
    target: &DbTarget,
    address: alloy_primitives::Address,
    stop: &Arc<AtomicBool>,
    poll: Duration,
) -> std::thread::JoinHandle<()> {
    let (url, db, stop) = (url.to_owned(), target.clone(), stop.clone());
    std::thread::spawn(move || {
        let chain = RpcChain::connect_read_only(&url).unwrap();
        let options = Options {
            confirmations: 1,
            batch_blocks: 100,
            poll,
        };
        let mut indexer =
            Indexer::new(chain, Store::open_target(&db).unwrap(), address, 0, options).unwrap();
        indexer
            .run(|| stop.load(Ordering::Relaxed), |_| Ok(()))
            .unwrap();
    })
}

/// Anvil with the referee, `games` channel games between accounts 1 and 2 (joined), and
/// the indexer following it into a fresh database until the returned flag is set.
pub struct Chain {
    pub anvil: Anvil,
    pub referee: Referee<RpcChain>,
    pub ids: Vec<U256>,
    /// The index's SQLite file (unused when the chain is indexed into `target`).
    pub db: PathBuf,
    /// The index the indexer writes: `db`, or the Postgres database given.
    pub target: DbTarget,
    pub stop: Arc<AtomicBool>,
    indexer: Option<std::thread::JoinHandle<()>>,
    /// Holds `db`'s directory until the indexer has stopped (see `Drop`).
    _scratch: tempfile::TempDir,
}

impl Chain {
    /// [`Chain::start_polling`] with the tests' 20 ms poll.
    pub fn start(name: &str, games: usize) -> Chain {
        Chain::start_polling(name, games, Duration::from_millis(20))
    }

    /// Anvil, the referee, `games` joined channel games and the indexer, polling the
    /// chain every `poll` once caught up.
    pub fn start_polling(name: &str, games: usize, poll: Duration) -> Chain {
        Chain::start_on(name, games, poll, None)
    }

    /// [`Chain::start_polling`] indexed into `target` (`None`: a fresh SQLite file).
    pub fn start_on(name: &str, games: usize, poll: Duration, target: Option<DbTarget>) -> Chain {
        let anvil = Anvil::spawn().expect("anvil (the npm-installed node) must be available");
        let mut referee = Referee::deploy(RpcChain::connect(anvil.url()).unwrap()).unwrap();
        let (white, black) = {
            let accounts = referee.chain().accounts();
            (accounts[1], accounts[2])
        };
        let stake = U256::from(10u64.pow(15));
        let mut ids = Vec::new();
        for _ in 0..games {
            let created = referee
                .create_channel_game(white, &GameSetup::eth(black, stake), 600)
                .unwrap();
            referee.join_game(black, created.id, stake).unwrap();
            ids.push(created.id);
        }
        let (scratch, db) = temp_db(name);
        let target = target.unwrap_or_else(|| DbTarget::Sqlite(db.clone()));
        let stop = Arc::new(AtomicBool::new(false));
        let indexer = index_into(anvil.url(), &target, referee.address(), &stop, poll);
        Chain {
            anvil,
            referee,
            ids,
            db,
            target,
            stop,
            indexer: Some(indexer),
            _scratch: scratch,
        }
    }

    /// Both players' seats of game `i`, black on a session key, as their clients hold
    /// them.
    pub fn off_chain(&mut self, i: usize) -> OffChainGame {
        off_chain(&mut self.referee, self.ids[i])
    }
}

/// Both players' seats of the joined channel game `id` (players are anvil's default
/// accounts), black on a session key, as their clients hold them.
pub fn off_chain(referee: &mut Referee<RpcChain>, id: U256) -> OffChainGame {
    let domain = referee.channel_domain().unwrap();
    let terms = referee.channel_game(id, None).unwrap();
    let white = chessref_evm::anvil::default_signer(terms.white).unwrap();
    let black = chessref_evm::anvil::default_signer(terms.black).unwrap();
    let session = PrivateKeySigner::from_bytes(&keccak256(format!("session {id}"))).unwrap();
    let expires = terms.key_expiry(now(), 200);
    let black = Seat::with_session(black, session, &domain, &terms, expires).unwrap();
    OffChainGame::new(domain, terms, Seat::wallet(white), black).unwrap()
}

impl Drop for Chain {
    fn drop(&mut self) {
        // The indexer stops within a poll, before anvil and its database go.
        self.stop.store(true, Ordering::Relaxed);
        if let Some(indexer) = self.indexer.take() {
            let _ = indexer.join();
        }
    }
}

pub async fn connect(addr: SocketAddr, id: U256, query: &str) -> (Socket, RelayFrame) {
    let url = format!("ws://{addr}/v1/games/{id}/channel{query}");
    let started = Instant::now();
    loop {
        // A small read buffer, as the relay's: tungstenite zero-fills it before every read.
        let config = WebSocketConfig::default().read_buffer_size(4 * 1024);
        match connect_async_with_config(&url, Some(config), false).await {
            Ok((mut socket, _)) => {
                let welcome = next(&mut socket).await;
                return (socket, welcome);
            }
            // The indexer may not have seen the join yet.
            Err(e) if started.elapsed() < Duration::from_secs(30) => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("connecting to {url}: {e}"),
        }
    }
}

/// White and black of game `g` connected to the relay at `addr`, black's delegation
/// (its first frame) sent and forwarded to both as message 1.
pub async fn seated(addr: SocketAddr, g: &OffChainGame) -> (Socket, Socket) {
    let id = g.game.game_id;
    let (mut white, _) = connect(addr, id, "").await;
    let (mut black, _) = connect(addr, id, "").await;
    let delegation = chessref_channel::book::frames_of(&g.transcript()).remove(0);
    send(&mut black, &delegation).await;
    for socket in [&mut white, &mut black] {
        match next(socket).await {
            RelayFrame::Message { seq: 1, .. } => {}
            other => panic!("the delegation as message 1, got {other:?}"),
        }
    }
    (white, black)
}

/// The next relay frame (pings are answered by the client library while reading).
pub async fn next(socket: &mut Socket) -> RelayFrame {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("a frame within 10 s")
            .expect("the connection is open")
            .expect("a frame");
        match message {
            Message::Text(text) => return serde_json::from_str(text.as_str()).unwrap(),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// Reads until the connection closes; the close frame's code and reason.
pub async fn closed(socket: &mut Socket) -> (u16, String) {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("closed within 10 s");
        match message {
            Some(Ok(Message::Close(Some(frame)))) => {
                return (u16::from(frame.code), frame.reason.to_string());
            }
            Some(Ok(Message::Close(None))) | None | Some(Err(_)) => return (0, String::new()),
            Some(Ok(_)) => continue,
        }
    }
}

pub async fn send(socket: &mut Socket, frame: &Frame) {
    socket
        .send(Message::text(serde_json::to_string(frame).unwrap()))
        .await
        .unwrap();
}

/// The frame as the relay forwards it: its number.
pub fn message_of(frame: &RelayFrame) -> (u64, &Frame) {
    match frame {
        RelayFrame::Message { seq, message, .. } => (*seq, message),
        other => panic!("expected a message, got {other:?}"),
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}
