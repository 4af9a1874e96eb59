//! The relay of channel games (docs/CHANNEL.md section 13): `GET /v1/games/{id}/channel`,
//! a WebSocket per game over which players send their signed messages and everyone
//! connected (players and spectators) receives every accepted one, and
//! `GET /v1/games/{id}/transcript`, the transcript they make.
//!
//! Every frame is checked by chessref-channel's [`Book`] (the mirror: signature and
//! authorisation, the transition and its code, the order of messages) against the
//! game's latest accepted state, held in memory per game (rebuilt from the stored
//! messages when a game's room is first opened, as after a restart), and the game must
//! still be played off-chain as the index knows it; only then is it stored in the index
//! file (`relay_messages`) and forwarded. Messages that arrive together are stored in
//! one transaction (a group commit, by one writer thread), each checked there against
//! its game's on-chain record as the index holds it at the commit; each sender is
//! answered, and its message forwarded, only once the commit is durable. The relay
//! keeps each game's record with the stamp of the index's logs it was read at, and
//! reads it again only when that stamp moved. The relay holds no
//! key: signatures are the only authentication, so it cannot move, resign or agree for
//! anyone.
//!
//! On a Postgres index several servers relay the same games: each message's number is
//! taken under the game's lock in the database, so a frame one relay judged against a
//! book another relay has since moved past is refused by the store
//! ([`IndexError::RelaySeq`]); the relay then reads the game back, sends what the other
//! stored to its own subscribers, and judges the frame again. Each relay listens for the
//! others' commits (Postgres NOTIFY, [`RelayListener`]) and brings the games it holds up
//! to date at once, so that players connected to different servers see each other's
//! messages as they are stored.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use alloy_primitives::U256;
use axum::Json;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use chessref_channel::{Accepted, Book, Frame, RelayFrame, Transcript};
use chessref_index::db::{DbTarget, PgTarget};
use chessref_index::{
    IndexError, NewMessage, NotRelayed, Record, RecordStamp, RelayListener, RelayNotice,
    RelayStore, StoredMessage, Written,
};
use tokio::sync::{broadcast, oneshot};

use crate::AppState;
use crate::error::ApiError;

/// The relay's limits (each a `chessref serve` flag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelayLimits {
    /// Largest frame a client may send, bytes.
    pub frame_bytes: usize,
    /// Frames a connection may send per second (a burst of as many is allowed).
    pub frames_per_second: u32,
    /// Connections to one game's channel at once.
    pub connections_per_game: usize,
    /// Channel connections at once, all games.
    pub connections: usize,
    /// A connection that sends nothing (not even a pong) this long is closed.
    pub idle: Duration,
}

impl Default for RelayLimits {
    fn default() -> RelayLimits {
        RelayLimits {
            frame_bytes: 16 * 1024,
            frames_per_second: 20,
            connections_per_game: 64,
            connections: 4096,
            idle: Duration::from_secs(60),
        }
    }
}

/// Close codes (RFC 6455 section 7.4.1).
const CLOSE_POLICY: u16 = 1008;
const CLOSE_TOO_BIG: u16 = 1009;
const CLOSE_UNSUPPORTED: u16 = 1003;
const CLOSE_AWAY: u16 = 1001;

/// Refusals that close the connection after their answer: a message whose signature,
/// delegation or transition does not verify is forged or illegal, never an honest
/// client's race (those are `order`, `ended`, `time`, `game`: answered, connection kept).
const HOSTILE: [&str; 3] = ["signature", "delegation", "transition"];

/// Messages queued for a slow subscriber before it is dropped (it reconnects with
/// `?after=`).
const BACKLOG: usize = 1024;

/// Bytes a connection reads at once. tungstenite zero-fills its read buffer up to this
/// before every read (128 KiB by default): with thousands of connections that fill was
/// the relay's largest cost (15 % of a 1,000-game bench's samples) and its memory. A
/// frame larger than this is read in several reads.
const READ_BUFFER: usize = 4 * 1024;

/// Most messages stored in one group commit.
const BATCH: usize = 1024;

/// A message for the group commit, and its sender's wait for what became of it (`Err`:
/// the commit failed, nothing of it is stored).
struct Job {
    message: NewMessage,
    answer: oneshot::Sender<Result<Written, String>>,
}

/// The writer thread: takes the messages queued, stores them in one transaction, and
/// answers each once the transaction is committed (durable), then takes the next ones.
/// While it commits, the next messages queue: the busier the relay, the larger its
/// batches. Ends when the relay is dropped.
fn writer(target: DbTarget) -> std::io::Result<std::sync::mpsc::Sender<Job>> {
    let (tx, rx) = std::sync::mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("relay-writer".into())
        .spawn(move || {
            let mut store: Option<RelayStore> = None;
            while let Ok(first) = rx.recv() {
                let mut messages = vec![first.message];
                let mut answers = vec![first.answer];
                while messages.len() < BATCH
                    && let Ok(job) = rx.try_recv()
                {
                    messages.push(job.message);
                    answers.push(job.answer);
                }
                let append = |store: &mut Option<RelayStore>| match store.as_mut() {
                    Some(store) => store.append_batch(&messages),
                    None => RelayStore::open_target(&target).and_then(|opened| {
                        opened.hand_checkpoints_off()?;
                        opened.tune_for_group_commit()?;
                        store.insert(opened).append_batch(&messages)
                    }),
                };
                let kept = store.is_some();
                let mut written = append(&mut store);
                // A Postgres session kept from before may have ended (a server restart):
                // the batch is written once more on a new one rather than refused. Had
                // the first commit gone through after all, the store refuses each
                // message as overtaken, and its sender's relay reads it back.
                if written.is_err() && kept && matches!(target, DbTarget::Postgres(_)) {
                    store = None;
                    written = append(&mut store);
                }
                match written {
                    Ok(written) => {
                        for (answer, written) in answers.into_iter().zip(written) {
                            // A sender that went away needs no answer.
                            let _ = answer.send(Ok(written));
                        }
                    }
                    Err(e) => {
                        // Opened again for the next batch: a connection that failed a
                        // commit is not trusted with the next. Except on a file deleted or
                        // replaced under it: the rooms hold that file's messages, so the
                        // relay refuses until restarted rather than go on in another file.
                        if !matches!(e, IndexError::RelayFileGone { .. }) {
                            store = None;
                        }
                        let why = e.to_string();
                        for answer in answers {
                            let _ = answer.send(Err(why.clone()));
                        }
                    }
                }
            }
        })?;
    Ok(tx)
}

/// How often the checkpointer copies the WAL into the index file.
const CHECKPOINT: Duration = Duration::from_secs(1);

/// The checkpointer thread: copies the WAL the writer's commits grow into the file every
/// [`CHECKPOINT`] on a connection of its own, so that the flush to disk a checkpoint
/// ends with is never inside a commit that senders wait for. Ends once `writer` (the
/// writer thread's queue) is gone: the relay was dropped.
fn checkpointer(path: std::path::PathBuf, writer: Weak<()>) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("relay-checkpoint".into())
        .spawn(move || {
            let mut store = None;
            while writer.strong_count() > 0 {
                std::thread::sleep(CHECKPOINT);
                if store.is_none() {
                    store = RelayStore::open(&path).ok();
                }
                // A failed checkpoint leaves the WAL longer, nothing lost: the next
                // one (or the indexer's) copies it.
                if let Some(s) = &store
                    && s.checkpoint().is_err()
                {
                    store = None;
                }
            }
        })
        .map(drop)
}

/// How long the listener waits for a notice before it checks its session, and whether
/// the relay still lives.
const LISTEN_WAIT: Duration = Duration::from_millis(500);

/// The listener thread of a relay on Postgres: one session listening for the other
/// relays' commits, each notice passed to `notices`; `None` after each (re)connection:
/// whatever was stored while nobody here listened, and every second while no session
/// opens. A lost session is opened again every second. Ends once `relay` (the relay's
/// life) is gone.
fn listen(
    pg: PgTarget,
    notices: tokio::sync::mpsc::UnboundedSender<Option<RelayNotice>>,
    relay: Weak<()>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("relay-listen".into())
        .spawn(move || {
            let name = format!("chessref serve pid {} relay", std::process::id());
            let mut said = false;
            while relay.strong_count() > 0 {
                let mut listener = match RelayListener::connect(&pg, &name) {
                    Ok(listener) => listener,
                    Err(e) => {
                        if !said {
                            eprintln!(
                                "chessref serve: the relay does not hear the other servers' \
                                 relays ({e}); trying again, and reading its games every second meanwhile"
                            );
                            said = true;
                        }
                        // Meanwhile every room is read each second: slower than a
                        // notice, but nothing waits for the game's next frame here.
                        if notices.send(None).is_err() {
                            return;
                        }
                        std::thread::sleep(Duration::from_secs(1));
                        continue;
                    }
                };
                said = false;
                if notices.send(None).is_err() {
                    return;
                }
                while relay.strong_count() > 0 {
                    match listener.wait(LISTEN_WAIT) {
                        Ok(heard) => {
                            for notice in heard {
                                if notices.send(Some(notice)).is_err() {
                                    return;
                                }
                            }
                        }
                        Err(e) => {
                            eprintln!(
                                "chessref serve: the relay's listener lost its session ({e}); \
                                 listening again"
                            );
                            break;
                        }
                    }
                }
            }
        })
        .map(drop)
}

/// Why game `id` has no channel, as the API says it.
fn not_relayed(id: U256, why: NotRelayed) -> ApiError {
    match why {
        NotRelayed::Unknown => ApiError::UnknownGame(id.to_string()),
        NotRelayed::NotChannel => ApiError::NotRelayed(format!(
            "game {id} is played move by move on-chain, not with signed moves"
        )),
        NotRelayed::NotJoined => ApiError::NotRelayed(format!(
            "game {id} is not joined yet: its players are not known"
        )),
    }
}

/// One accepted message, as sent to subscribers.
#[derive(Clone, Debug)]
struct Sent {
    seq: u64,
    text: Utf8Bytes,
}

impl Sent {
    /// Stored message `seq`, whose frame's JSON is `body` (as stored), as subscribers
    /// receive it: written around the stored text, the frame not serialised again.
    fn of(seq: u64, received_at: u64, body: &str) -> Sent {
        Sent {
            seq,
            text: RelayFrame::message_text(seq, received_at, body).into(),
        }
    }
}

/// A game's channel: its book, what it sent, and who listens.
struct Room {
    /// The game's latest accepted state, every frame checked against it.
    book: tokio::sync::Mutex<Book>,
    /// The game's on-chain record as last read, with the index's stamp then: frames are
    /// checked against it, and the group commit checks the stamp has not moved.
    record: Mutex<(Record, RecordStamp)>,
    /// The book holds a frame the store does not (a failed write whose read-back failed
    /// too): it is read back from the store before the next frame.
    behind: AtomicBool,
    /// The highest message number the other relays' notices named that no catch-up has
    /// read yet (`u64::MAX`: unknown, after the listener reconnected; 0: none). Not 0
    /// while a catch-up of the room is queued: each notice does not queue one more.
    noticed: AtomicU64,
    /// Every accepted message as sent (`message` frames), message 1 first.
    sent: Mutex<Vec<Sent>>,
    tx: broadcast::Sender<Sent>,
    connections: AtomicUsize,
}

impl Room {
    /// The number of the latest message sent (0: none).
    fn latest(&self) -> u64 {
        self.sent.lock().unwrap_or_else(|e| e.into_inner()).len() as u64
    }

    /// Sends the stored messages of `held` this room has not sent yet (another relay's,
    /// read back from the store) to its subscribers, in order. Called with the book
    /// locked, which holds them: the messages sent are always the book's.
    fn publish(&self, held: impl IntoIterator<Item = StoredMessage>) {
        let mut sent = self.sent.lock().unwrap_or_else(|e| e.into_inner());
        for message in held {
            if message.seq != sent.len() as u64 + 1 {
                continue;
            }
            self.forward(
                &mut sent,
                Sent::of(message.seq, message.received_at, &message.body),
            );
        }
    }

    /// Appends `one` to `sent` (the room's, locked) and sends it to the subscribers.
    fn forward(&self, sent: &mut Vec<Sent>, one: Sent) {
        sent.push(one.clone());
        // Nobody listening is no error.
        let _ = self.tx.send(one);
    }
}

/// The relay of one server.
pub struct Relay {
    target: DbTarget,
    limits: RelayLimits,
    store: Arc<Mutex<Option<RelayStore>>>,
    /// The group commit's queue (its thread started on the first message).
    writer: Mutex<Option<std::sync::mpsc::Sender<Job>>>,
    /// Held while the relay lives: the checkpointer thread stops when it is gone.
    alive: Arc<()>,
    checkpointing: std::sync::Once,
    /// Started once: the listener of the other relays' commits (Postgres).
    following: std::sync::Once,
    rooms: Mutex<HashMap<U256, Arc<Room>>>,
    connections: Arc<AtomicUsize>,
}

impl std::fmt::Debug for Relay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Relay")
            .field("db", &self.target.to_string())
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn text(frame: &RelayFrame) -> Utf8Bytes {
    serde_json::to_string(frame)
        .expect("relay frames always serialise")
        .into()
}

impl Relay {
    /// A relay keeping its messages in the index `target`: a SQLite file (this relay
    /// alone writes it) or a Postgres database (shared with other servers' relays).
    pub fn new(target: DbTarget, limits: RelayLimits) -> Relay {
        Relay {
            target,
            limits,
            store: Arc::new(Mutex::new(None)),
            writer: Mutex::new(None),
            alive: Arc::new(()),
            checkpointing: std::sync::Once::new(),
            following: std::sync::Once::new(),
            rooms: Mutex::new(HashMap::new()),
            connections: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Runs `f` (a read) on the relay's connection to the index (opened on first use),
    /// off the async threads.
    async fn with_store<T: Send + 'static>(
        &self,
        f: impl Fn(&mut RelayStore) -> chessref_index::Result<T> + Send + 'static,
    ) -> Result<T, ApiError> {
        let store = self.store.clone();
        let target = self.target.clone();
        tokio::task::spawn_blocking(move || {
            let mut guard = store.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                let fresh = guard.is_none();
                if fresh {
                    *guard = Some(RelayStore::open_target(&target)?);
                }
                let store = guard.as_mut().expect("opened above");
                // Rooms are read from, and judged against, the file first opened only.
                store.check_file()?;
                let done = f(store);
                // A SQLite connection is kept, so that one whose file was replaced goes
                // on refusing. A Postgres session that failed may have ended (a server
                // restart): it is dropped, and a read that failed on a session kept
                // from before is made again on a new one.
                if done.is_ok() || !matches!(target, DbTarget::Postgres(_)) {
                    return done;
                }
                *guard = None;
                if fresh {
                    return done;
                }
            }
        })
        .await
        .map_err(|e| ApiError::Internal(format!("relay task failed: {e}")))?
        .map_err(|e| ApiError::IndexUnavailable(e.to_string()))
    }

    /// The game `id` as the index knows it now, or why it has no channel.
    async fn game(&self, id: U256) -> Result<chessref_index::RelayGame, ApiError> {
        self.with_store(move |s| s.game(id))
            .await?
            .map_err(|why| not_relayed(id, why))
    }

    /// Stores `message` in the next group commit; what became of it, once durable.
    async fn write(&self, message: NewMessage) -> Result<Written, String> {
        let (answer, answered) = oneshot::channel();
        {
            let mut queue = self.writer.lock().unwrap_or_else(|e| e.into_inner());
            if queue.is_none() {
                // Without the checkpointer the indexer's commits checkpoint the WAL (a
                // Postgres server checkpoints by itself).
                if let DbTarget::Sqlite(path) = &self.target {
                    self.checkpointing.call_once(|| {
                        let _ = checkpointer(path.clone(), Arc::downgrade(&self.alive));
                    });
                }
                *queue = Some(
                    writer(self.target.clone())
                        .map_err(|e| format!("the relay's writer did not start: {e}"))?,
                );
            }
            let job = Job { message, answer };
            if queue.as_ref().is_some_and(|q| q.send(job).is_err()) {
                // Its thread is gone: the next message starts another.
                *queue = None;
                return Err("the relay's writer stopped".into());
            }
        }
        answered
            .await
            .map_err(|_| "the relay's writer stopped before answering".to_owned())?
    }

    /// Reads game `id`'s record and book back from the store into `room` (the book
    /// holds a frame the store does not, the record moved, or another relay stored
    /// messages, which are sent to this room's subscribers): on failure the room is
    /// marked behind, read back before anything is judged against or served from it
    /// (`Err`: why the store did not read).
    async fn read_back(&self, id: U256, room: &Room, book: &mut Book) -> Result<(), ApiError> {
        let read = self
            .with_store(move |s| {
                let (record, stamp) = s.record(id)?;
                let fresh = match &record {
                    Ok(game) => Some(s.book(game)?),
                    Err(_) => None,
                };
                Ok((record, stamp, fresh))
            })
            .await;
        match read {
            Ok((record, stamp, Some((fresh, held)))) => {
                *book = fresh;
                room.publish(held.into_iter().map(|(message, _)| message));
                *room.record.lock().unwrap_or_else(|e| e.into_inner()) = (record, stamp);
                room.behind.store(false, Ordering::SeqCst);
            }
            Ok((record, stamp, None)) => {
                *room.record.lock().unwrap_or_else(|e| e.into_inner()) = (record, stamp);
                room.behind.store(true, Ordering::SeqCst);
            }
            Err(e) => {
                room.behind.store(true, Ordering::SeqCst);
                return Err(e);
            }
        }
        Ok(())
    }

    /// The room of game `id`, loaded from the store on first use: every stored message
    /// is checked again, at the time it was accepted, into the book.
    async fn room(&self, id: U256) -> Result<Arc<Room>, ApiError> {
        if let Some(room) = self
            .rooms
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
        {
            return Ok(room.clone());
        }
        let (game, stamp, book, held) = self
            .with_store(move |s| {
                let (record, stamp) = s.record(id)?;
                Ok(match record {
                    Ok(game) => s
                        .book(&game)
                        .map(|(book, held)| Ok((game, stamp, book, held)))?,
                    Err(why) => Err(why),
                })
            })
            .await?
            .map_err(|why| not_relayed(id, why))?;
        let sent = held
            .into_iter()
            .map(|(message, _)| Sent::of(message.seq, message.received_at, &message.body))
            .collect();
        // Another connection may have loaded it meanwhile: keep the first.
        let mut loaded = false;
        let room = {
            let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
            rooms
                .entry(id)
                .or_insert_with(|| {
                    loaded = true;
                    Arc::new(Room {
                        book: tokio::sync::Mutex::new(book),
                        record: Mutex::new((Ok(game), stamp)),
                        behind: AtomicBool::new(false),
                        noticed: AtomicU64::new(0),
                        sent: Mutex::new(sent),
                        tx: broadcast::channel(BACKLOG).0,
                        connections: AtomicUsize::new(0),
                    })
                })
                .clone()
        };
        if loaded {
            // Another relay's notice that came between the read and now named no room
            // here: what it stored is read once the room is in the map.
            self.shared_tail(id, &room).await;
        }
        Ok(room)
    }

    /// Brings game `id`'s `room` up to whatever the store holds: the messages after the
    /// room's latest are read, checked into its book as the restarted relay checks
    /// them, and sent to its subscribers.
    async fn catch_up(&self, id: U256, room: &Room) {
        let mut book = room.book.lock().await;
        self.bring_up(id, room, &mut book, u64::MAX, None).await;
    }

    /// [`catch_up`](Self::catch_up) with `room`'s `book` locked, up to message `seen`
    /// (`u64::MAX`: whatever the store holds), starting from `read`, the messages read
    /// for it already if any.
    async fn bring_up(
        &self,
        id: U256,
        room: &Room,
        book: &mut Book,
        seen: u64,
        read: Option<Vec<StoredMessage>>,
    ) {
        if room.behind.load(Ordering::SeqCst) {
            let _ = self.read_back(id, room, book).await;
            return;
        }
        if let Some(messages) = read
            && !self.take_in(id, room, book, messages).await
        {
            return;
        }
        let after = book.frames().len() as u64;
        if seen <= after {
            return;
        }
        let Ok(messages) = self.with_store(move |s| s.messages(id, after)).await else {
            // Read back, with the record, before the next frame is judged.
            room.behind.store(true, Ordering::SeqCst);
            return;
        };
        self.take_in(id, room, book, messages).await;
    }

    /// Checks `messages` (the store's, of game `id`, oldest first) after the latest of
    /// `room`'s locked `book` into it, and sends them to its subscribers; those it holds
    /// already are passed over. A message that does not follow, or does not verify, means
    /// the store and the book disagree: the store decides, and the game is read back.
    async fn take_in(
        &self,
        id: U256,
        room: &Room,
        book: &mut Book,
        messages: Vec<StoredMessage>,
    ) -> bool {
        let mut held = Vec::with_capacity(messages.len());
        for message in messages {
            let latest = book.frames().len() as u64;
            if message.seq <= latest {
                continue;
            }
            let accepted = message.seq == latest + 1
                && serde_json::from_str::<Frame>(&message.body).is_ok_and(|frame| {
                    matches!(book.accept(frame, message.received_at),
                        Ok(Accepted::New(seq)) if seq == message.seq)
                });
            if !accepted {
                room.publish(held);
                let _ = self.read_back(id, room, book).await;
                return false;
            }
            held.push(message);
        }
        room.publish(held);
        true
    }

    /// Brings up to date the rooms `notices` name (one read of the store for them all:
    /// a busy database sends a notice per game per commit), each room's messages then
    /// taken in by a task of its own (a room whose book is locked by a frame in flight
    /// holds no other); a `None` (the listener was away) reads every room again. One
    /// catch-up at most is queued per room, whatever the number of notices (anyone who
    /// may connect to the database may send them).
    fn noticed(self: &Arc<Self>, notices: Vec<Option<RelayNotice>>) {
        let everything = notices.iter().any(Option::is_none);
        let mut named: HashMap<U256, u64> = HashMap::new();
        for notice in notices.into_iter().flatten() {
            let seq = named.entry(notice.game).or_insert(0);
            *seq = (*seq).max(notice.seq);
        }
        let mut wanted: Vec<(U256, u64, Arc<Room>)> = Vec::new();
        {
            let rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
            let mut consider = |id: U256, seen: u64, room: &Arc<Room>| {
                let latest = room.latest();
                // Not queued when a catch-up is: that one reads this notice's messages too.
                if seen > latest && room.noticed.fetch_max(seen, Ordering::SeqCst) == 0 {
                    wanted.push((id, latest, room.clone()));
                }
            };
            // The rooms the notices name, looked up: not a walk of every room held.
            if everything {
                for (id, room) in rooms.iter() {
                    consider(*id, u64::MAX, room);
                }
            } else {
                for (id, &seen) in &named {
                    if let Some(room) = rooms.get(id) {
                        consider(*id, seen, room);
                    }
                }
            }
        }
        if wanted.is_empty() {
            return;
        }
        let relay = self.clone();
        tokio::spawn(async move {
            let after: Vec<(U256, u64)> = wanted.iter().map(|(id, seq, _)| (*id, *seq)).collect();
            // Failed: each room reads on its own (marked behind should that fail too).
            let mut tails = relay
                .with_store(move |s| s.messages_after(&after))
                .await
                .ok();
            for (id, _, room) in wanted {
                // Nothing after the room's latest when it was read: an empty tail.
                let read = tails
                    .as_mut()
                    .map(|tails| tails.remove(&id).unwrap_or_default());
                let relay = relay.clone();
                tokio::spawn(async move {
                    let mut book = room.book.lock().await;
                    let seen = room.noticed.swap(0, Ordering::SeqCst);
                    relay.bring_up(id, &room, &mut book, seen, read).await;
                    drop(book);
                    relay.release(id, &room);
                });
            }
        });
    }

    /// On a Postgres index, brings game `id`'s `room` up to what the other relays stored
    /// (a room in memory follows their notices, which come a moment after their commits:
    /// a read of the whole game, as a transcript, must not miss the latest).
    async fn shared_tail(&self, id: U256, room: &Room) {
        if matches!(self.target, DbTarget::Postgres(_)) {
            self.catch_up(id, room).await;
        }
    }

    /// On a Postgres index, starts (once) following the other relays' commits: a thread
    /// listens for their notices, and each game whose room this relay holds is brought
    /// up to date when one names it; every room is, after each (re)connection of the
    /// listener, for the notices it may have missed. Nothing on SQLite: one relay writes
    /// the file.
    fn follow_others(self: &Arc<Self>) {
        let DbTarget::Postgres(pg) = &self.target else {
            return;
        };
        self.following.call_once(|| {
            let (notices, mut noticed) = tokio::sync::mpsc::unbounded_channel();
            let started = listen(pg.clone(), notices, Arc::downgrade(&self.alive));
            if let Err(e) = started {
                // Frames still meet the other relays' in the store (RelaySeq): only the
                // forwarding of theirs waits for this relay's next frame of the game.
                eprintln!("chessref serve: the relay's listener did not start: {e}");
                return;
            }
            let relay = Arc::downgrade(self);
            tokio::spawn(async move {
                while let Some(notice) = noticed.recv().await {
                    let Some(relay) = relay.upgrade() else {
                        return;
                    };
                    // With whatever else came meanwhile: one read for them all.
                    let mut notices = vec![notice];
                    while let Ok(more) = noticed.try_recv() {
                        notices.push(more);
                    }
                    relay.noticed(notices);
                }
            });
        });
    }

    /// The book of game `id`'s `room`, locked, as the store holds it: a book a failed
    /// write left holding a frame the store does not (its read-back failed too) is read
    /// back first, so that nothing judges against or serves a frame answered "not
    /// stored, not forwarded".
    async fn settled<'r>(
        &self,
        id: U256,
        room: &'r Room,
    ) -> Result<tokio::sync::MutexGuard<'r, Book>, ApiError> {
        let mut book = room.book.lock().await;
        if room.behind.load(Ordering::SeqCst) {
            let read = self.read_back(id, room, &mut book).await;
            if room.behind.load(Ordering::SeqCst) {
                let held = room
                    .record
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .0
                    .clone();
                return Err(match (read, held) {
                    (Err(e), _) => e,
                    (Ok(()), Err(why)) => not_relayed(id, why),
                    (Ok(()), Ok(_)) => ApiError::IndexUnavailable(format!(
                        "game {id}'s messages do not read back from the index"
                    )),
                });
            }
        }
        Ok(book)
    }

    /// Checks `frame` against game `id` and, if it verifies, stores and forwards it.
    /// The answer is for the sender alone (`None`: its own message comes back to it as
    /// a `message` frame, like to everyone).
    async fn submit(&self, id: U256, room: &Room, frame: Frame) -> Option<RelayFrame> {
        let refused = |kind: &str, reason: String| {
            Some(RelayFrame::Refused {
                kind: kind.to_owned(),
                code: None,
                reason,
            })
        };
        let mut book = match self.settled(id, room).await {
            Ok(book) => book,
            Err(e) => return refused("store", format!("the game's record does not read: {e}")),
        };
        // Judged again after each time another relay stored the game's next message
        // first (a Postgres index several servers share), against the book with it.
        let mut overtaken = 0;
        loop {
            let judged = self.judge_and_store(id, room, &mut book, &frame).await;
            match judged {
                Err(Overtaken(stored)) if overtaken < OVERTAKEN => {
                    overtaken += 1;
                    // The other relay's messages, read back and sent to this room.
                    if let Err(e) = self.read_back(id, room, &mut book).await {
                        return refused(
                            "store",
                            format!(
                                "another relay stored message {stored} first, and it does \
                                 not read back: {e}"
                            ),
                        );
                    }
                }
                Err(Overtaken(stored)) => {
                    let _ = self.read_back(id, room, &mut book).await;
                    return refused(
                        "store",
                        format!(
                            "other relays stored this game's next message first {} times \
                             (up to message {stored}): not stored, not forwarded; send it again",
                            OVERTAKEN + 1
                        ),
                    );
                }
                Ok(answer) => return answer,
            }
        }
    }

    /// [`submit`](Self::submit)'s judgement of `frame` against `book` (game `id`'s,
    /// locked) and its store: the answer, or `Err` when another relay stored the game's
    /// next message first (the book is then behind the store).
    async fn judge_and_store(
        &self,
        id: U256,
        room: &Room,
        book: &mut Book,
        frame: &Frame,
    ) -> Result<Option<RelayFrame>, Overtaken> {
        let refused = |kind: &str, reason: String| {
            Ok(Some(RelayFrame::Refused {
                kind: kind.to_owned(),
                code: None,
                reason,
            }))
        };
        // The record as last read; one that does not take messages is read again (a
        // rollback may have given the game back), so that it never refuses what the
        // index takes. One that does is checked again by the group commit.
        let held = room
            .record
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let (record, stamp) = match held {
            (Ok(game), stamp) if game.why_not.is_none() => (Ok(game), stamp),
            _ => match self.with_store(move |s| s.record(id)).await {
                Ok(fresh) => {
                    *room.record.lock().unwrap_or_else(|e| e.into_inner()) = fresh.clone();
                    fresh
                }
                Err(e) => return refused("game", e.to_string()),
            },
        };
        let game = match record {
            Ok(game) => game,
            Err(why) => return refused("game", not_relayed(id, why).to_string()),
        };
        if let Some(why) = &game.why_not {
            return refused("game", format!("{why}: the relay takes no more messages"));
        }
        let now = unix_now();
        // The book checks the frame against the latest accepted state it holds and
        // keeps it: no copy of the game per message.
        let seq = match book.accept(frame.clone(), now) {
            Ok(Accepted::Duplicate(seq)) => return Ok(Some(RelayFrame::Duplicate { seq })),
            Ok(Accepted::New(seq)) => seq,
            Err(refusal) => {
                return Ok(Some(RelayFrame::Refused {
                    kind: refusal.kind().to_owned(),
                    code: refusal.code(),
                    reason: refusal.to_string(),
                }));
            }
        };
        let body = serde_json::to_string(frame).expect("frames always serialise");
        // Its subscribers' text, written now around the stored text: sent once stored.
        let stored = Sent::of(seq, now, &body);
        let message = NewMessage {
            game: id,
            seq,
            kind: frame.kind(),
            ply: frame.ply(),
            received_at: now,
            body,
            checked: (game, stamp),
        };
        // The book lock is held until the commit answers: one message of a game in
        // flight at a time from this relay, forwarded in the order stored.
        match self.write(message).await {
            Ok(Written::Stored(fresh)) => {
                if let Some(fresh) = fresh {
                    *room.record.lock().unwrap_or_else(|e| e.into_inner()) = fresh;
                }
            }
            Ok(Written::Moved(record, _)) => {
                // The index moved past the record the frame was checked against (a
                // registration, the end, a rollback): not stored, and the book, which
                // holds it, is read back with the record as it is now.
                let why = match &record {
                    Ok(game) => game
                        .why_not
                        .clone()
                        .unwrap_or_else(|| format!("game {id}'s terms changed on-chain")),
                    Err(why) => not_relayed(id, why.clone()).to_string(),
                };
                let _ = self.read_back(id, room, book).await;
                return refused("game", format!("{why}: not stored, not forwarded"));
            }
            Ok(Written::Failed(IndexError::RelaySeq { stored, .. })) => {
                return Err(Overtaken(stored));
            }
            Ok(Written::Failed(e)) => {
                // The book holds a frame the store does not: it is read back from the
                // store, which holds exactly what was accepted and forwarded.
                let _ = self.read_back(id, room, book).await;
                return refused("store", format!("not stored, not forwarded: {e}"));
            }
            Err(e) => {
                let _ = self.read_back(id, room, book).await;
                return refused("store", format!("not stored, not forwarded: {e}"));
            }
        }
        room.forward(
            &mut room.sent.lock().unwrap_or_else(|e| e.into_inner()),
            stored,
        );
        Ok(None)
    }
}

/// Another relay stored the game's next message first: the store holds messages up to
/// this number.
struct Overtaken(u64);

/// Times a frame is judged again after another relay stored its game's next message
/// first, before its sender is told to send it again: each time, the other relay
/// stored a message this one had not seen (a game's two players and their clients send
/// a few messages at once at most).
const OVERTAKEN: u32 = 3;

impl Relay {
    /// The packed moves the relay holds of game `id`, ply 1 first (`None`: not a channel
    /// game the relay can hold).
    pub async fn off_chain_moves(&self, id: U256) -> Option<Vec<u32>> {
        let room = self.room(id).await.ok()?;
        self.shared_tail(id, &room).await;
        let moves = self
            .settled(id, &room)
            .await
            .ok()
            .map(|book| book.transcript().moves.iter().map(|m| m.mv).collect());
        self.release(id, &room);
        moves
    }
}

/// A held connection slot, given back on drop.
struct Slot {
    relay: Arc<Relay>,
    id: U256,
    room: Arc<Room>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.relay.connections.fetch_sub(1, Ordering::SeqCst);
        self.room.connections.fetch_sub(1, Ordering::SeqCst);
        self.relay.release(self.id, &self.room);
    }
}

impl Relay {
    /// Lets game `id`'s room leave memory if nobody uses it: no connection and no other
    /// holder than the map and the caller (its messages stay in the index; the next
    /// connection loads them again).
    fn release(&self, id: U256, room: &Arc<Room>) {
        let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        if room.connections.load(Ordering::SeqCst) == 0
            && Arc::strong_count(room) == 2
            && rooms.get(&id).is_some_and(|held| Arc::ptr_eq(held, room))
        {
            rooms.remove(&id);
        }
    }

    /// The games whose rooms are in memory (each has a connection, or had one being set
    /// up).
    pub fn open_rooms(&self) -> usize {
        self.rooms.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// Takes one of `limit` slots of `counter`, or says it is full.
fn take(counter: &AtomicUsize, limit: usize) -> bool {
    counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
            (n < limit).then_some(n + 1)
        })
        .is_ok()
}

/// The relay, or why this server has none: no index.
fn relay_of(state: &AppState) -> Result<Arc<Relay>, ApiError> {
    state.relay.clone().ok_or(ApiError::NoIndex)
}

fn after_query(query: Option<&str>) -> Result<u64, ApiError> {
    let mut after = 0;
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("after", value)) => {
                after = value.parse::<u64>().map_err(|_| {
                    ApiError::BadQuery(format!("after {value:?} is not a message number"))
                })?;
            }
            _ => {
                return Err(ApiError::BadQuery(format!(
                    "unknown query parameter {pair:?} (accepted: after)"
                )));
            }
        }
    }
    Ok(after)
}

/// `GET /v1/games/{id}/channel[?after=N]`: the game's relay WebSocket.
pub async fn channel(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let relay = relay_of(&state)?;
    let id = crate::games::game_id(&id)?;
    let after = after_query(query.as_deref())?;
    let upgrade = upgrade.map_err(|e| ApiError::UpgradeRequired(e.body_text()))?;
    relay.follow_others();
    let room = relay.room(id).await?;
    let game = relay.game(id).await?;
    let limits = relay.limits;
    if !take(&relay.connections, limits.connections) {
        relay.release(id, &room);
        return Err(ApiError::Busy(format!(
            "the relay holds its limit of {} connections",
            limits.connections
        )));
    }
    if !take(&room.connections, limits.connections_per_game) {
        relay.connections.fetch_sub(1, Ordering::SeqCst);
        relay.release(id, &room);
        return Err(ApiError::Busy(format!(
            "game {id} has its limit of {} connections",
            limits.connections_per_game
        )));
    }
    let slot = Slot {
        relay: relay.clone(),
        id,
        room: room.clone(),
    };
    Ok(upgrade
        .max_message_size(limits.frame_bytes)
        .max_frame_size(limits.frame_bytes)
        .read_buffer_size(READ_BUFFER)
        .on_upgrade(move |socket| async move {
            let latest = room.sent.lock().unwrap_or_else(|e| e.into_inner()).len() as u64;
            // The slot holds the room from here: its drop lets the room go.
            drop(room);
            let welcome = RelayFrame::Welcome {
                domain: game.domain,
                game: game.game,
                latest,
            };
            connection(socket, relay, id, slot, welcome, after).await;
        }))
}

/// One connection: the welcome, the messages after `after`, then every new one, while
/// the client's frames are checked one by one.
async fn connection(
    mut socket: WebSocket,
    relay: Arc<Relay>,
    id: U256,
    slot: Slot,
    welcome: RelayFrame,
    after: u64,
) {
    let room = slot.room.clone();
    let limits = relay.limits;
    // Subscribe before reading the backlog, so nothing falls between them.
    let mut rx = room.tx.subscribe();
    let backlog: Vec<Sent> = room
        .sent
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter(|s| s.seq > after)
        .cloned()
        .collect();
    let mut last_sent = after;
    if socket.send(Message::Text(text(&welcome))).await.is_err() {
        return;
    }
    for sent in backlog {
        last_sent = sent.seq;
        if socket.send(Message::Text(sent.text)).await.is_err() {
            return;
        }
    }
    let mut heard = Instant::now();
    let mut ping = tokio::time::interval(limits.idle / 2);
    ping.tick().await;
    // A token bucket: `frames_per_second` tokens, refilled continuously.
    let rate = f64::from(limits.frames_per_second.max(1));
    let mut tokens = rate;
    let mut refilled = Instant::now();
    let close = |code: u16, reason: String| {
        Message::Close(Some(CloseFrame {
            code,
            reason: reason.into(),
        }))
    };
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let message = match incoming {
                    None => return,
                    Some(Err(e)) => {
                        let reason = e.to_string();
                        let code = if reason.contains("too long") || reason.contains("too big") {
                            CLOSE_TOO_BIG
                        } else {
                            CLOSE_POLICY
                        };
                        let _ = socket.send(close(code, format!("frame refused: {reason} (limit {} bytes)", limits.frame_bytes))).await;
                        return;
                    }
                    Some(Ok(message)) => message,
                };
                heard = Instant::now();
                let body = match message {
                    Message::Text(body) => body,
                    Message::Pong(_) | Message::Ping(_) => continue,
                    Message::Close(_) => return,
                    Message::Binary(_) => {
                        let _ = socket.send(close(CLOSE_UNSUPPORTED, "binary frames are not frames of this relay: send JSON text".into())).await;
                        return;
                    }
                };
                let elapsed = refilled.elapsed().as_secs_f64();
                refilled = Instant::now();
                tokens = (tokens + elapsed * rate).min(rate);
                if tokens < 1.0 {
                    let _ = socket.send(close(CLOSE_POLICY, format!("more than {} frames per second", limits.frames_per_second))).await;
                    return;
                }
                tokens -= 1.0;
                let frame: Frame = match serde_json::from_str(body.as_str()) {
                    Ok(frame) => frame,
                    Err(e) => {
                        let _ = socket.send(close(CLOSE_POLICY, truncate(format!("not a frame: {e}")))).await;
                        return;
                    }
                };
                let Some(answer) = relay.submit(id, &room, frame).await else {
                    continue;
                };
                if socket.send(Message::Text(text(&answer))).await.is_err() {
                    return;
                }
                // A forged or illegal message is no honest client's race: after the
                // answer, the connection is closed.
                if let RelayFrame::Refused { kind, .. } = &answer
                    && HOSTILE.contains(&kind.as_str())
                {
                    let _ = socket.send(close(CLOSE_POLICY, format!("a {kind} refusal closes the connection"))).await;
                    return;
                }
            }
            sent = rx.recv() => match sent {
                Ok(sent) => {
                    if sent.seq <= last_sent {
                        continue;
                    }
                    last_sent = sent.seq;
                    if socket.send(Message::Text(sent.text)).await.is_err() {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    let _ = socket.send(close(CLOSE_POLICY, format!("too slow: reconnect with ?after={last_sent}"))).await;
                    return;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
            _ = ping.tick() => {
                if heard.elapsed() >= limits.idle {
                    let _ = socket.send(close(CLOSE_AWAY, format!("idle for {} s", limits.idle.as_secs()))).await;
                    return;
                }
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// A close reason fits 123 bytes.
fn truncate(mut reason: String) -> String {
    if reason.len() > 123 {
        let mut end = 120;
        while !reason.is_char_boundary(end) {
            end -= 1;
        }
        reason.truncate(end);
        reason.push_str("...");
    }
    reason
}

/// `GET /v1/games/{id}/transcript`: the transcript of the messages the relay holds, as
/// `chessref channel verify|settle|dispute` read it.
pub async fn transcript(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Transcript>, ApiError> {
    let relay = relay_of(&state)?;
    let id = crate::games::game_id(&id)?;
    let room = relay.room(id).await?;
    relay.shared_tail(id, &room).await;
    let transcript = relay
        .settled(id, &room)
        .await
        .map(|book| book.transcript().clone());
    relay.release(id, &room);
    Ok(Json(transcript?))
}
