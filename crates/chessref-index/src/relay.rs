//! The relay's tables in the index database (docs/CHANNEL.md section 13, docs/INDEX.md):
//! every signed message `chessref serve` accepted for a channel game, in arrival order,
//! so that a restarted relay, a reconnecting player and the watchtower all read the same
//! record. The relay writes only these tables; the indexer never touches them.
//!
//! On Postgres several relays may write one database: a message's number is taken under
//! a per-game lock, and a number another relay stored first is refused
//! ([`IndexError::RelaySeq`]), never stored twice.

use std::path::Path;

use alloy_primitives::U256;
use chessref_channel::{Accepted, Book, ChannelDomain, ChannelGame, Frame};
use chessref_client::{GameLog, Phase, game_log::fold_game};
use rusqlite::Connection;

use crate::db::{Conn, Database, DbTarget, Sql, Tx};
use crate::error::{DbContext, IndexError, Result};
use crate::store::{FileIdentity, Source, game_logs, read_source, sql_int};

/// A channel game as the relay checks its messages against it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelayGame {
    /// The signatures' domain: the indexed chain and the referee's `ChessChannel`.
    pub domain: ChannelDomain,
    /// The players and terms.
    pub game: ChannelGame,
    /// Whether it is played off-chain now: joined, not ended, no position registered.
    pub off_chain: bool,
    /// Why not, when it is not.
    pub why_not: Option<String>,
}

/// Why a game id is no relay game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotRelayed {
    /// The index holds no such game.
    Unknown,
    /// The game is played move by move on-chain.
    NotChannel,
    /// Nobody joined yet (the players are not known).
    NotJoined,
}

/// One stored message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredMessage {
    /// Its number in the game, from 1.
    pub seq: u64,
    /// Unix time the relay accepted it.
    pub received_at: u64,
    /// The frame's JSON as received and checked.
    pub body: String,
}

/// Which version of a game's on-chain record the index holds: it changes whenever the
/// indexer stores or rolls back one of the game's logs (a rolled-back block's
/// replacement has another hash, and a block's hash commits to every block before it,
/// so equal stamps mean the same logs). The relay keeps a game's record with the
/// stamp it was read at and reads it again only when the stamp moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordStamp {
    logs: i64,
    last: Option<(i64, i64, [u8; 32])>,
}

impl RecordStamp {
    /// The stamp of a game the index holds no log of.
    const NONE: RecordStamp = RecordStamp {
        logs: 0,
        last: None,
    };
}

/// The record of a game the relay holds, as read at a stamp (`Err`: why it has no
/// channel).
pub type Record = std::result::Result<RelayGame, NotRelayed>;

/// A message the relay accepted, to store in a group commit.
#[derive(Clone, Debug)]
pub struct NewMessage {
    /// The game.
    pub game: U256,
    /// Its number in the game: the next one.
    pub seq: u64,
    /// The frame's kind.
    pub kind: &'static str,
    /// The ply the frame names.
    pub ply: u32,
    /// Unix time the relay accepted it.
    pub received_at: u64,
    /// The frame's JSON.
    pub body: String,
    /// The game's record the relay checked the frame against, and its stamp: the
    /// message is stored only if the game is still played off-chain with these terms.
    pub checked: (RelayGame, RecordStamp),
}

/// What became of one message of a group commit (once the commit is durable).
#[derive(Debug)]
pub enum Written {
    /// Stored; with the game's record read again when the index's had moved since the
    /// relay read it (the relay keeps it).
    Stored(Option<(Record, RecordStamp)>),
    /// Not stored: the game's record moved and no longer takes this message (the game
    /// was registered on-chain, ended, or rolled back to other terms). The record now.
    Moved(Record, RecordStamp),
    /// Not stored: why ([`IndexError::RelaySeq`]: another relay stored the game's next
    /// number first).
    Failed(IndexError),
}

/// The first key of the relay's per-game Postgres locks
/// (`pg_advisory_xact_lock(class, game)`): "rela" in ASCII, apart from the writer locks'
/// class ([`crate::db::advisory::LOCK_CLASS`]).
pub const GAME_LOCK_CLASS: i64 = 0x7265_6c61;

/// The savepoint each message of a group commit is written under, when the batch's
/// statements failed: its start, its end, and its undoing. Constant texts, so that the
/// first two are prepared once per connection rather than parsed for every message.
const MESSAGE_BEGIN: &str = "SAVEPOINT relay_message";
const MESSAGE_RELEASE: &str = "RELEASE relay_message";
const MESSAGE_UNDO: &str = "ROLLBACK TO relay_message; RELEASE relay_message";

/// The page cache of the relay's group-commit connection, KiB (SQLite): 16,384 pages
/// of 4 KiB, the hot pages of many thousand open games.
pub const WRITER_CACHE_KIB: u32 = 64 * 1024;

/// The savepoint a group commit's batch is written under.
const BATCH_SAVEPOINT: &str = "relay_batch";

/// The index database opened by the relay: its own tables read and written, the
/// indexer's read.
pub struct RelayStore {
    conn: Conn,
    path: String,
    /// A SQLite file and which file it was as opened: one deleted or replaced since (an
    /// index rebuilt under the relay) is refused by [`check_file`](Self::check_file).
    file: Option<(std::path::PathBuf, Option<FileIdentity>)>,
}

impl std::fmt::Debug for RelayStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RelayStore")
            .field("db", &self.path)
            .finish()
    }
}

impl RelayStore {
    /// Opens the index file at `path` (which `chessref index` creates), bringing its
    /// schema to this build's version.
    pub fn open(path: &Path) -> Result<RelayStore> {
        RelayStore::open_target(&DbTarget::Sqlite(path.to_path_buf()))
    }

    /// Opens the index `target`, bringing its schema to this build's version: a SQLite
    /// file must exist ([`IndexError::NoIndexFile`]: `chessref index` creates it); a
    /// Postgres database is migrated if new, and kept to one pooled connection.
    pub fn open_target(target: &DbTarget) -> Result<RelayStore> {
        let name = target.to_string();
        if let DbTarget::Sqlite(path) = target
            && !path.is_file()
        {
            return Err(IndexError::NoIndexFile { path: name });
        }
        let conn = Database::open(target, 1)?.connect()?;
        let file = match target {
            DbTarget::Sqlite(path) => Some((path.clone(), FileIdentity::at(path))),
            DbTarget::Postgres(_) => None,
        };
        Ok(RelayStore {
            conn,
            path: name,
            file,
        })
    }

    /// Whether the path still names the file this connection opened: SQLite goes on
    /// reading and writing a deleted or replaced file, which the indexer no longer
    /// updates and no reader opens ([`IndexError::RelayFileGone`]). Stays refused for
    /// the connection's life: the relay's rooms hold that file's messages. A Postgres
    /// database has no file to lose.
    pub fn check_file(&self) -> Result<()> {
        let Some((file, identity)) = &self.file else {
            return Ok(());
        };
        match FileIdentity::gone(file, *identity) {
            None => Ok(()),
            Some(what) => Err(IndexError::RelayFileGone {
                path: self.path.clone(),
                what,
            }),
        }
    }

    /// Leaves the WAL's checkpoints to [`checkpoint`](Self::checkpoint) on another
    /// connection: a commit on this one never copies the WAL into the file, nor waits
    /// for the disk's flush that copy ends with (tens of milliseconds on a busy disk,
    /// on the relay's every sender in that commit). SQLite's alone: on Postgres the
    /// server checkpoints, and this does nothing.
    pub fn hand_checkpoints_off(&self) -> Result<()> {
        match self.conn.sqlite() {
            Some(conn) => conn
                .execute_batch("PRAGMA wal_autocheckpoint = 0;")
                .db(&self.path, "handing the checkpoints off"),
            None => Ok(()),
        }
    }

    /// Sets this connection up for the relay's group commit, which reads and writes
    /// the latest messages of many games over and over (SQLite's alone: on Postgres the
    /// server caches and plans, and this does nothing):
    /// - a page cache of [`WRITER_CACHE_KIB`], for the latest leaf of each open game's
    ///   messages and the index's pages of its logs: SQLite's default (2 MiB) held fewer
    ///   than 1,000 games' worth, and each miss was a read of the WAL by a system call
    ///   (6 % of the relay's CPU at 10,000 messages a second);
    /// - plans that do not depend on the values bound (SQLite's query planner stability
    ///   guarantee): without it, SQLite re-prepared the commit's reads of a game (its
    ///   stamp, its latest number) each time they were bound to another game, that is
    ///   for every message (10 % of the relay's CPU). The plans are the same for every
    ///   game: an index seek on the game's id.
    pub fn tune_for_group_commit(&self) -> Result<()> {
        let Some(conn) = self.conn.sqlite() else {
            return Ok(());
        };
        conn.execute_batch(&format!("PRAGMA cache_size = -{WRITER_CACHE_KIB};"))
            .db(&self.path, "sizing the page cache")?;
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )
        .db(&self.path, "keeping the query plans stable")?;
        Ok(())
    }

    /// Copies what the WAL holds into the file as far as no reader or writer is kept
    /// waiting (a passive checkpoint). SQLite's alone: on Postgres it does nothing.
    pub fn checkpoint(&self) -> Result<()> {
        match self.conn.sqlite() {
            Some(conn) => conn
                .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                .db(&self.path, "checkpointing the WAL"),
            None => Ok(()),
        }
    }

    /// The database as given: a path, or a URL without its password.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The raw SQLite connection (tests' checks).
    ///
    /// # Panics
    /// On Postgres, which has none: tests of both backends use [`RelayStore::db`].
    pub fn connection(&self) -> &Connection {
        self.conn
            .sqlite()
            .expect("RelayStore::connection is SQLite's; use RelayStore::db on Postgres")
    }

    /// The connection, whichever the backend (the watchtower's table; tests).
    pub fn db(&mut self) -> &mut Conn {
        &mut self.conn
    }

    /// What the index follows, once the indexer bound it.
    pub fn source(&mut self) -> Result<Option<Source>> {
        read_source(&mut self.conn)
    }

    /// The channel game `id` as the index knows it.
    pub fn game(&mut self, id: U256) -> Result<Record> {
        game(&mut self.conn, id)
    }

    /// The stamp of game `id`'s on-chain record (see [`RecordStamp`]).
    pub fn stamp(&mut self, id: U256) -> Result<RecordStamp> {
        stamp(&mut self.conn, id)
    }

    /// Game `id`'s record and the stamp it was read at, in one read transaction.
    pub fn record(&mut self, id: U256) -> Result<(Record, RecordStamp)> {
        let mut tx = self.conn.read_transaction()?;
        let stamp = stamp(&mut tx, id)?;
        let record = game(&mut tx, id)?;
        tx.commit()?;
        Ok((record, stamp))
    }

    /// The messages of game `id` after number `after`, oldest first.
    pub fn messages(&mut self, id: U256, after: u64) -> Result<Vec<StoredMessage>> {
        let rows = self.conn.query(
            "SELECT seq, received_at, body FROM relay_messages
             WHERE game_id = ?1 AND seq > ?2 ORDER BY seq",
            &[&id.to_string(), &sql_int(after, "seq")?],
            "reading relay messages",
            |row| {
                Ok(StoredMessage {
                    seq: row.get::<i64>(0)? as u64,
                    received_at: row.get::<i64>(1)? as u64,
                    body: row.get(2)?,
                })
            },
        )?;
        Ok(rows)
    }

    /// The messages of each game of `after` after its number, oldest first, in one
    /// read (a relay bringing many rooms up to date at once).
    pub fn messages_after(
        &mut self,
        after: &[(U256, u64)],
    ) -> Result<std::collections::HashMap<U256, Vec<StoredMessage>>> {
        let mut tails: std::collections::HashMap<U256, Vec<StoredMessage>> =
            std::collections::HashMap::new();
        let mut wanted: Vec<(String, i64)> = Vec::with_capacity(after.len());
        for &(id, seq) in after {
            wanted.push((id.to_string(), sql_int(seq, "seq")?));
        }
        // Padded to a power of two with its first pair (a few statement texts for any
        // number of games; a pair twice matches its rows once).
        let padded = wanted.len().max(1).next_power_of_two();
        if let Some(first) = wanted.first().cloned() {
            wanted.resize(padded, first);
        } else {
            return Ok(tails);
        }
        let clauses = (0..padded)
            .map(|i| format!("(game_id = ?{} AND seq > ?{})", 2 * i + 1, 2 * i + 2))
            .collect::<Vec<_>>()
            .join(" OR ");
        let mut params: Vec<&dyn crate::db::Param> = Vec::with_capacity(2 * padded);
        for (id, seq) in &wanted {
            params.push(id);
            params.push(seq);
        }
        let rows = self.conn.query(
            &format!(
                "SELECT game_id, seq, received_at, body FROM relay_messages
                 WHERE {clauses} ORDER BY game_id, seq"
            ),
            &params,
            "reading relay messages of several games",
            |row| {
                Ok((
                    row.get::<String>(0)?,
                    StoredMessage {
                        seq: row.get::<i64>(1)? as u64,
                        received_at: row.get::<i64>(2)? as u64,
                        body: row.get(3)?,
                    },
                ))
            },
        )?;
        for (id, message) in rows {
            let game = stored_id(&id)?;
            tails.entry(game).or_default().push(message);
        }
        Ok(tails)
    }

    /// Stores message `seq` of game `id`, alone and unchecked against the game's record
    /// (tools and tests; the relay stores with [`append_batch`](Self::append_batch)): it
    /// must be the next number ([`IndexError::RelaySeq`] if not).
    pub fn append(
        &mut self,
        id: U256,
        seq: u64,
        kind: &str,
        ply: u32,
        received_at: u64,
        body: &str,
    ) -> Result<()> {
        // A write transaction: the number read is the one written after, whoever else
        // writes the database (SQLite's write lock, Postgres's game lock).
        let mut tx = self.conn.transaction()?;
        lock_games(&mut tx, [id])?;
        let row = Row {
            id,
            seq,
            kind,
            ply,
            received_at,
            body,
        };
        insert(&mut tx, row)?;
        notify(&mut tx, &[(id, seq)])?;
        tx.commit()?;
        Ok(())
    }

    /// Stores `batch` in one transaction, a group commit: one write of the database for
    /// messages that arrived together. Each message is checked inside it against its
    /// game's record as the index holds it now (the indexer cannot write the logs
    /// between the check and the commit) and must be its game's next number
    /// ([`IndexError::RelaySeq`] if another relay stored it first); one that fails is
    /// left out (the others stored). `Ok` only once the commit is done, in the file the
    /// path still names: then each answer says what became of its message. `Err`:
    /// nothing of the batch is stored (in a file anyone reads).
    pub fn append_batch(&mut self, batch: &[NewMessage]) -> Result<Vec<Written>> {
        self.check_file()?;
        let path = self.path.clone();
        let mut tx = self.conn.transaction()?;
        lock_games(&mut tx, batch.iter().map(|m| m.game))?;
        let answers = if tx.is_postgres() {
            set_at_once(&mut tx, batch, &path)?
        } else {
            // In-process statements cost no round trip: a message at a time measured
            // faster on SQLite (10,785 against 7,902-8,999 messages a second, relay
            // bench, 1,000 games) than the few larger statements Postgres needs.
            one_by_one(&mut tx, batch, &path)?
        };
        let stored: Vec<(U256, u64)> = batch
            .iter()
            .zip(&answers)
            .filter(|(_, written)| matches!(written, Written::Stored(_)))
            .map(|(m, _)| (m.game, m.seq))
            .collect();
        notify(&mut tx, &stored)?;
        tx.commit()?;
        // Replaced while committing: what it committed is in the file nobody reads.
        self.check_file()?;
        Ok(answers)
    }

    /// The book of game `game` from its stored messages, each checked again at the time
    /// it was accepted: what a restarted relay and the watchtower start from. With it,
    /// every stored message in order.
    pub fn book(&mut self, game: &RelayGame) -> Result<(Book, Vec<(StoredMessage, Frame)>)> {
        let id = game.game.game_id;
        let mut book = Book::new(game.domain, game.game.clone());
        let mut held = Vec::new();
        for message in self.messages(id, 0)? {
            let frame: Frame = serde_json::from_str(&message.body).map_err(|e| {
                IndexError::Invariant(format!(
                    "{}: stored relay message {} of game {id} does not read: {e}",
                    self.path, message.seq
                ))
            })?;
            match book.accept(frame.clone(), message.received_at) {
                Ok(Accepted::New(seq)) if seq == message.seq => {}
                other => {
                    return Err(IndexError::Invariant(format!(
                        "{}: stored relay message {} of game {id} no longer verifies: {other:?}",
                        self.path, message.seq
                    )));
                }
            }
            held.push((message, frame));
        }
        Ok((book, held))
    }

    /// The ids of the games the relay holds messages of.
    pub fn games(&mut self) -> Result<Vec<U256>> {
        let ids = self.conn.query(
            "SELECT DISTINCT game_id FROM relay_messages",
            &[],
            "listing relay games",
            |row| row.get::<String>(0),
        )?;
        ids.iter().map(|id| stored_id(id)).collect()
    }
}

/// The Postgres channel on which a relay's commit tells the others which messages it
/// stored (payload `GAME:SEQ`, see [`RelayNotice`]).
pub const RELAY_CHANNEL: &str = "chessref_relay";

/// A message another relay stored: game `game` holds messages up to `seq` at least.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelayNotice {
    /// The game.
    pub game: U256,
    /// The number of the message stored.
    pub seq: u64,
}

impl RelayNotice {
    /// The notice a payload says (`None`: not one of ours; anyone who may connect can
    /// notify the channel, so a notice is only ever a reason to read the table).
    pub fn parse(payload: &str) -> Option<RelayNotice> {
        let (game, seq) = payload.split_once(':')?;
        Some(RelayNotice {
            game: U256::from_str_radix(game, 10).ok()?,
            seq: seq.parse().ok()?,
        })
    }

    fn payload(self) -> String {
        format!("{}:{}", self.game, self.seq)
    }
}

/// A session listening for the messages other relays store in a Postgres index
/// ([`RELAY_CHANNEL`]). Notices wake the relay up; the table says what is stored: after
/// its session ended and a new one began, a relay reads again every game it holds.
#[derive(Debug)]
pub struct RelayListener(crate::db::Listener);

impl RelayListener {
    /// Listens on `target`'s relay channel, the session named `name`.
    pub fn connect(target: &crate::db::PgTarget, name: &str) -> Result<RelayListener> {
        Ok(RelayListener(crate::db::Listener::connect(
            target,
            RELAY_CHANNEL,
            name,
        )?))
    }

    /// The notices that came within `timeout` (empty: none). `Err`: the session ended.
    pub fn wait(&mut self, timeout: std::time::Duration) -> Result<Vec<RelayNotice>> {
        Ok(self
            .0
            .wait(timeout)?
            .iter()
            .filter_map(|payload| RelayNotice::parse(payload))
            .collect())
    }
}

/// On Postgres, queues in `tx` one notice a stored message, for the other relays: the
/// server delivers them when `tx` commits, never if it does not. Nothing on SQLite: one
/// relay writes a file.
fn notify(tx: &mut Tx<'_>, stored: &[(U256, u64)]) -> Result<()> {
    if !tx.is_postgres() || stored.is_empty() {
        return Ok(());
    }
    // A game's latest number says all: the listener reads every message after its own.
    let mut latest: std::collections::BTreeMap<U256, u64> = std::collections::BTreeMap::new();
    for &(game, seq) in stored {
        let held = latest.entry(game).or_insert(seq);
        *held = (*held).max(seq);
    }
    let payloads = latest
        .into_iter()
        .map(|(game, seq)| RelayNotice { game, seq }.payload())
        .collect::<Vec<_>>()
        .join(",");
    tx.query(
        "SELECT pg_notify(?1, p) FROM unnest(string_to_array(?2, ',')) AS p",
        &[&RELAY_CHANNEL, &payloads],
        "telling the other relays what was stored",
        |_| Ok(()),
    )?;
    Ok(())
}

/// On Postgres, makes `tx` the one writer of `games`' messages and of nothing the index
/// says about them until it ends, as SQLite's write transaction is of the whole file:
/// the `logs` table in SHARE mode (the indexer cannot store or roll back a log between
/// the relay's check of a record and its commit; relays share it), then each game's
/// lock, in one order for every relay (two relays locking two games in opposite
/// orders would deadlock). Nothing to do on SQLite.
fn lock_games(tx: &mut Tx<'_>, games: impl IntoIterator<Item = U256>) -> Result<()> {
    if !tx.is_postgres() {
        return Ok(());
    }
    tx.batch(
        "LOCK TABLE logs IN SHARE MODE",
        "locking the index's logs for a relay write",
    )?;
    let mut keys: Vec<i32> = games.into_iter().map(game_key).collect();
    keys.sort_unstable();
    keys.dedup();
    let keys = keys
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    // unnest gives the array's elements in order: the locks are taken in that order.
    tx.query(
        "SELECT pg_advisory_xact_lock(?1::int8::int4, k)
         FROM unnest(string_to_array(?2, ',')::int4[]) AS k",
        &[&GAME_LOCK_CLASS, &keys],
        "taking the relay's game locks",
        |_| Ok(()),
    )?;
    Ok(())
}

/// Game `id`'s lock key: its 256 bits folded to 32 (two games sharing a key only wait
/// for each other).
fn game_key(id: U256) -> i32 {
    let folded = id.as_limbs().iter().fold(0u64, |acc, limb| acc ^ limb);
    ((folded >> 32) ^ folded) as u32 as i32
}

/// The channel game `id` as the index at `db` knows it.
fn game(db: &mut impl Sql, id: U256) -> Result<Record> {
    let Some(Source {
        chain_id, referee, ..
    }) = read_source(db)?
    else {
        return Ok(Err(NotRelayed::Unknown));
    };
    let mut logs = Vec::new();
    for raw in game_logs(db, id)? {
        logs.push(raw.decode().map_err(|e| {
            IndexError::Invariant(format!("a stored log of game {id} no longer decodes: {e}"))
        })?);
    }
    let Some(log) = fold_game(&logs) else {
        return Ok(Err(NotRelayed::Unknown));
    };
    if !log.is_channel() {
        return Ok(Err(NotRelayed::NotChannel));
    }
    let Some(game) = log.channel_game() else {
        return Ok(Err(NotRelayed::NotJoined));
    };
    let why_not = why_not_off_chain(&log);
    Ok(Ok(RelayGame {
        domain: ChannelDomain {
            chain_id,
            verifying_contract: chessref_evm::channel::channel_address(referee),
        },
        game,
        off_chain: why_not.is_none(),
        why_not,
    }))
}

/// The read of [`stamp`]: a game's count of logs, and its latest log (no row: none).
const STAMP: &str = "SELECT (SELECT count(*) FROM logs WHERE game_id = ?1), block_number,
   log_index, block_hash
 FROM logs WHERE game_id = ?1 ORDER BY block_number DESC, log_index DESC LIMIT 1";

/// The read of a game's latest message number (0: none).
const LATEST_SEQ: &str = "SELECT coalesce(max(seq), 0) FROM relay_messages WHERE game_id = ?1";

/// The stamp of game `id`'s record: how many logs the index holds of it and where the
/// latest is, with its block's hash (index seeks, not a read of the logs). The stamp
/// [`stamps`] reads for many games, by a query of one game's: the group commit reads
/// it for every message, and [`stamps`]' window functions cost it 14 µs a read on
/// SQLite against 3 µs for this count and the latest log's seek.
fn stamp(db: &mut impl Sql, id: U256) -> Result<RecordStamp> {
    let key = id.to_string();
    let latest = db.query_opt(STAMP, &[&key], "reading the game's latest log", |row| {
        Ok((
            row.get::<i64>(0)?,
            row.get::<i64>(1)?,
            row.get::<i64>(2)?,
            row.get::<Vec<u8>>(3)?,
        ))
    })?;
    match latest {
        Some((logs, block, index, hash)) => stamp_of(db.db_name(), logs, block, index, hash),
        None => Ok(RecordStamp::NONE),
    }
}

/// The stamp of a game with `logs` logs, the latest at `block`:`index` in the block of
/// hash `hash`, as read from the index `db`.
fn stamp_of(db: &str, logs: i64, block: i64, index: i64, hash: Vec<u8>) -> Result<RecordStamp> {
    let hash: [u8; 32] = hash.try_into().map_err(|_| {
        IndexError::Invariant(format!("{db}: log {block}:{index} has a torn block hash"))
    })?;
    Ok(RecordStamp {
        logs,
        last: Some((block, index, hash)),
    })
}

/// One row of `relay_messages`.
struct Row<'a> {
    id: U256,
    seq: u64,
    kind: &'a str,
    ply: u32,
    received_at: u64,
    body: &'a str,
}

/// Stores message `seq` of game `id` inside `tx`, which holds the game's lock: it must
/// be the next number (a relay that lost track of the store's contents, or that another
/// relay overtook, is refused rather than let overwrite or skip one).
fn insert(tx: &mut Tx<'_>, row: Row<'_>) -> Result<()> {
    let (id, seq) = (row.id, row.seq);
    let key = id.to_string();
    let refused = |stored: u64, db: &str| IndexError::RelaySeq {
        db: db.to_owned(),
        game: key.clone(),
        seq,
        stored,
    };
    let latest: i64 = tx.query_one(
        LATEST_SEQ,
        &[&key],
        "reading the latest relay message",
        |row| row.get(0),
    )?;
    if latest as u64 + 1 != seq {
        return Err(refused(latest as u64, tx.db_name()));
    }
    let stored = tx.execute(
        "INSERT INTO relay_messages (game_id, seq, kind, ply, received_at, body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        &[
            &key,
            &sql_int(seq, "seq")?,
            &row.kind,
            &i64::from(row.ply),
            &sql_int(row.received_at, "time")?,
            &row.body,
        ],
        "storing a relay message",
    );
    match stored {
        Ok(_) => Ok(()),
        // The game's lock makes this unreachable; were a writer to skip it, the primary
        // key still keeps one row per number, and the relay is told as above.
        Err(e) if e.is_unique_violation() => Err(refused(seq, &e.db)),
        Err(e) => Err(e.into()),
    }
}

/// One message of a group commit inside `tx`: its game's record checked (read again
/// if its stamp moved), then stored.
fn write_one(tx: &mut Tx<'_>, m: &NewMessage) -> Result<Written> {
    let now = stamp(tx, m.game)?;
    let fresh = match judged(tx, m, now)? {
        Ok(fresh) => fresh,
        Err(moved) => return Ok(moved),
    };
    let row = Row {
        id: m.game,
        seq: m.seq,
        kind: m.kind,
        ply: m.ply,
        received_at: m.received_at,
        body: &m.body,
    };
    insert(tx, row)?;
    Ok(Written::Stored(fresh))
}

/// `batch` judged on two reads and stored by a few statements, on Postgres: a round
/// trip a message was the Postgres relay's bound (about 3,000 messages a second).
/// Should a statement fail (a trigger, a CHECK), the batch is written again a message
/// at a time, each under its savepoint, so that it alone is left out.
fn set_at_once(tx: &mut Tx<'_>, batch: &[NewMessage], path: &str) -> Result<Vec<Written>> {
    tx.batch(
        &format!("SAVEPOINT {BATCH_SAVEPOINT}"),
        "starting a relay batch",
    )?;
    match judge_and_insert(tx, batch) {
        Ok(answers) => {
            tx.batch(
                &format!("RELEASE {BATCH_SAVEPOINT}"),
                "ending a relay batch",
            )?;
            Ok(answers)
        }
        Err(failed) => {
            if let Err(e) = tx.batch(
                &format!("ROLLBACK TO {BATCH_SAVEPOINT}; RELEASE {BATCH_SAVEPOINT}"),
                "ending a relay batch",
            ) {
                return Err(IndexError::Invariant(format!(
                    "{path}: the relay's group commit was rolled back by {failed}: nothing of \
                     it is stored ({})",
                    e.detail
                )));
            }
            one_by_one(tx, batch, path)
        }
    }
}

/// `batch` judged on its games' stamps and stored numbers as `tx` reads them, each
/// message as [`write_one`] would, and the ones it takes inserted together. `Err`: a
/// statement failed, and `tx` must be rolled back to before it.
fn judge_and_insert(tx: &mut Tx<'_>, batch: &[NewMessage]) -> Result<Vec<Written>> {
    let games: Vec<U256> = batch.iter().map(|m| m.game).collect();
    let stamps = stamps(tx, &games)?;
    let mut latest = latest_numbers(tx, &games)?;
    let mut answers = Vec::with_capacity(batch.len());
    let mut rows = Vec::with_capacity(batch.len());
    for m in batch {
        let now = stamps.get(&m.game).copied().unwrap_or(RecordStamp::NONE);
        let written = match judged(tx, m, now)? {
            Ok(fresh) => {
                let stored = latest.entry(m.game).or_insert(0);
                if *stored + 1 == m.seq {
                    *stored = m.seq;
                    rows.push(Row {
                        id: m.game,
                        seq: m.seq,
                        kind: m.kind,
                        ply: m.ply,
                        received_at: m.received_at,
                        body: &m.body,
                    });
                    Written::Stored(fresh)
                } else {
                    Written::Failed(IndexError::RelaySeq {
                        db: tx.db_name().to_owned(),
                        game: m.game.to_string(),
                        seq: m.seq,
                        stored: *stored,
                    })
                }
            }
            Err(moved) => moved,
        };
        answers.push(written);
    }
    insert_rows(tx, &rows)?;
    Ok(answers)
}

/// `batch` written a message at a time, each under its savepoint: one whose statement
/// fails is left out alone (`Written::Failed`). `Err`: the transaction itself was rolled
/// back (SQLite does on a full disk, an I/O error, and RAISE(ROLLBACK); a Postgres
/// session that died the same): none of the batch is stored, and nothing after may
/// start a transaction of its own.
fn one_by_one(tx: &mut Tx<'_>, batch: &[NewMessage], path: &str) -> Result<Vec<Written>> {
    let mut answers = Vec::with_capacity(batch.len());
    for m in batch {
        // On Postgres, where a failed statement stops the transaction, rolling back to
        // the savepoint lets the next message go on.
        tx.execute(MESSAGE_BEGIN, &[], "starting a relay message")?;
        let written = write_one(tx, m);
        let ended = if matches!(written, Ok(Written::Stored(_))) {
            tx.execute(MESSAGE_RELEASE, &[], "ending a relay message")
                .map(drop)
        } else {
            tx.batch(MESSAGE_UNDO, "ending a relay message")
        };
        if let Err(e) = ended {
            let why = match &written {
                Err(w) => w.to_string(),
                Ok(_) => "the write".to_owned(),
            };
            return Err(IndexError::Invariant(format!(
                "{path}: the relay's group commit was rolled back by {why}: nothing of it is \
                 stored ({})",
                e.detail
            )));
        }
        answers.push(written.unwrap_or_else(Written::Failed));
    }
    Ok(answers)
}

/// Whether message `m` is still taken by its game's record, whose stamp is `now`:
/// `Ok(fresh)` (with the record read again if the stamp moved), or `Err`, the answer
/// that it is not ([`Written::Moved`]).
fn judged(
    tx: &mut Tx<'_>,
    m: &NewMessage,
    now: RecordStamp,
) -> Result<std::result::Result<Option<(Record, RecordStamp)>, Written>> {
    let (checked, at) = &m.checked;
    if now != *at {
        let record = game(tx, m.game)?;
        let takes = matches!(&record, Ok(g) if g.off_chain && g.domain == checked.domain && g.game == checked.game);
        if !takes {
            return Ok(Err(Written::Moved(record, now)));
        }
        return Ok(Ok(Some((record, now))));
    }
    if !checked.off_chain {
        return Ok(Err(Written::Moved(Ok(checked.clone()), now)));
    }
    Ok(Ok(None))
}

/// Rows inserted by one statement at most, and the sizes statements are cut to (each
/// size one statement text: Postgres prepares each text once per connection).
const INSERT_SIZES: [usize; 5] = [256, 64, 16, 4, 1];

/// Inserts `rows`, a few statements of many rows each.
fn insert_rows(tx: &mut Tx<'_>, rows: &[Row<'_>]) -> Result<()> {
    let mut rest = rows;
    while !rest.is_empty() {
        let size = INSERT_SIZES
            .into_iter()
            .find(|&size| size <= rest.len())
            .expect("sizes end with 1");
        let (these, after) = rest.split_at(size);
        let values = (0..size)
            .map(|i| {
                let n = i * 6;
                format!(
                    "(?{}, ?{}, ?{}, ?{}, ?{}, ?{})",
                    n + 1,
                    n + 2,
                    n + 3,
                    n + 4,
                    n + 5,
                    n + 6
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        let mut cells = Vec::with_capacity(size);
        for row in these {
            cells.push((
                row.id.to_string(),
                sql_int(row.seq, "seq")?,
                i64::from(row.ply),
                sql_int(row.received_at, "time")?,
            ));
        }
        let mut params: Vec<&dyn crate::db::Param> = Vec::with_capacity(size * 6);
        for (row, (id, seq, ply, at)) in these.iter().zip(&cells) {
            params.extend([
                id as &dyn crate::db::Param,
                seq,
                &row.kind,
                ply,
                at,
                &row.body,
            ]);
        }
        tx.execute(
            &format!(
                "INSERT INTO relay_messages (game_id, seq, kind, ply, received_at, body) \
                 VALUES {values}"
            ),
            &params,
            "storing relay messages",
        )?;
        rest = after;
    }
    Ok(())
}

/// `games` as the parameters of an `IN (...)` list, padded with its first to a power of
/// two (a few statement texts for any batch; a repeated id matches nothing more), and
/// the list's text.
fn in_list(games: &[U256]) -> (Vec<String>, String) {
    let mut ids: Vec<String> = games.iter().map(U256::to_string).collect();
    ids.sort_unstable();
    ids.dedup();
    let padded = ids.len().max(1).next_power_of_two();
    let first = ids.first().cloned().unwrap_or_default();
    ids.resize(padded, first);
    let list = (1..=padded)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    (ids, list)
}

/// The stamps of `games`' records (see [`RecordStamp`]), one read: a game with no log
/// is left out (its stamp is [`RecordStamp::NONE`]).
fn stamps(
    db: &mut impl Sql,
    games: &[U256],
) -> Result<std::collections::HashMap<U256, RecordStamp>> {
    let (ids, list) = in_list(games);
    let params: Vec<&dyn crate::db::Param> =
        ids.iter().map(|id| id as &dyn crate::db::Param).collect();
    let rows = db.query(
        &format!(
            "SELECT game_id, logs, block_number, log_index, block_hash FROM (
               SELECT game_id, block_number, log_index, block_hash,
                 count(*) OVER (PARTITION BY game_id) AS logs,
                 row_number() OVER (PARTITION BY game_id
                   ORDER BY block_number DESC, log_index DESC) AS latest
               FROM logs WHERE game_id IN ({list})
             ) AS stamped WHERE latest = 1"
        ),
        &params,
        "reading the games' latest logs",
        |row| {
            Ok((
                row.get::<String>(0)?,
                row.get::<i64>(1)?,
                row.get::<i64>(2)?,
                row.get::<i64>(3)?,
                row.get::<Vec<u8>>(4)?,
            ))
        },
    )?;
    let mut stamps = std::collections::HashMap::with_capacity(rows.len());
    for (id, logs, block, index, hash) in rows {
        let game = stored_id(&id)?;
        stamps.insert(game, stamp_of(db.db_name(), logs, block, index, hash)?);
    }
    Ok(stamps)
}

/// A game id as the tables store it (decimal text).
fn stored_id(id: &str) -> Result<U256> {
    U256::from_str_radix(id, 10)
        .map_err(|e| IndexError::Invariant(format!("stored game id {id:?}: {e}")))
}

/// The latest stored message number of each of `games` that has any, one read.
fn latest_numbers(
    db: &mut impl Sql,
    games: &[U256],
) -> Result<std::collections::HashMap<U256, u64>> {
    let (ids, list) = in_list(games);
    let params: Vec<&dyn crate::db::Param> =
        ids.iter().map(|id| id as &dyn crate::db::Param).collect();
    let rows = db.query(
        &format!(
            "SELECT game_id, max(seq) FROM relay_messages WHERE game_id IN ({list})
             GROUP BY game_id"
        ),
        &params,
        "reading the games' latest relay messages",
        |row| Ok((row.get::<String>(0)?, row.get::<i64>(1)?)),
    )?;
    rows.into_iter()
        .map(|(id, seq)| {
            let game = stored_id(&id)?;
            Ok((game, seq as u64))
        })
        .collect()
}

/// Why a joined channel game is no longer played with signed moves.
fn why_not_off_chain(log: &GameLog) -> Option<String> {
    match log.phase {
        Phase::Ended | Phase::Cancelled => {
            Some(format!("game {} has {}", log.id, log.phase.name()))
        }
        Phase::Open => Some(format!("game {} is not joined", log.id)),
        Phase::Running => log.registrations.last().map(|r| {
            format!(
                "game {}: the position of ply {} was registered on-chain; play goes on there",
                log.id, r.ply
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::Address;

    use super::*;
    use crate::Store;
    use crate::store::tests::{temp_db, withdrawn_log};

    /// A relay store on a fresh index at `target` bound to a chain (no game logs: every
    /// game's stamp is the empty one until a test adds a log).
    fn relay_store(target: &DbTarget) -> RelayStore {
        let mut store = Store::open_target(target).unwrap();
        store
            .bind(Source {
                chain_id: 31337,
                referee: Address::repeat_byte(5),
                from_block: 1,
            })
            .unwrap();
        drop(store);
        RelayStore::open_target(target).unwrap()
    }

    /// Runs `check` on a fresh index of each backend: a SQLite file, then a database on
    /// a throwaway Postgres server.
    fn on_both(name: &str, check: impl Fn(&DbTarget)) {
        check(&DbTarget::Sqlite(temp_db(&format!("relay-{name}"))));
        let pg = chessref_pgtest::TempPostgres::start().unwrap();
        check(&pg.url().parse().unwrap());
    }

    fn record(id: u64) -> RelayGame {
        RelayGame {
            domain: ChannelDomain {
                chain_id: 31337,
                verifying_contract: Address::repeat_byte(6),
            },
            game: ChannelGame {
                game_id: U256::from(id),
                white: Address::repeat_byte(1),
                black: Address::repeat_byte(2),
                initial_time: 600,
                increment: 0,
                response_window: 600,
                start_state: None,
            },
            off_chain: true,
            why_not: None,
        }
    }

    fn message(store: &mut RelayStore, id: u64, seq: u64, body: &str) -> NewMessage {
        NewMessage {
            game: U256::from(id),
            seq,
            kind: "move",
            ply: seq as u32,
            received_at: 100 + seq,
            body: body.to_owned(),
            checked: (record(id), store.stamp(U256::from(id)).unwrap()),
        }
    }

    fn held(store: &mut RelayStore, id: u64) -> Vec<(u64, String)> {
        store
            .messages(U256::from(id), 0)
            .unwrap()
            .into_iter()
            .map(|m| (m.seq, m.body))
            .collect()
    }

    fn stored(answers: &[Written]) -> Vec<bool> {
        answers
            .iter()
            .map(|w| matches!(w, Written::Stored(None)))
            .collect()
    }

    fn taken(written: &Written) -> Option<u64> {
        match written {
            Written::Failed(IndexError::RelaySeq { stored, .. }) => Some(*stored),
            _ => None,
        }
    }

    #[test]
    fn test_a_group_commit_stores_each_message_once_and_only_those_it_answers_stored() {
        on_both("group", |target| {
            let mut store = relay_store(target);
            let batch = vec![
                message(&mut store, 1, 1, "a1"),
                message(&mut store, 2, 1, "b1"),
                message(&mut store, 1, 2, "a2"),
                // Not the next number of game 3 (it has none): left out, the rest stored.
                message(&mut store, 3, 5, "c5"),
                // Game 2's number 1 again, in the same batch: never stored twice.
                message(&mut store, 2, 1, "b1 again"),
                // A message after a refused one in the same batch still goes in (on
                // Postgres too, where a failed statement stops the transaction).
                message(&mut store, 3, 1, "c1"),
            ];
            let answers = store.append_batch(&batch).unwrap();
            assert_eq!(stored(&answers), [true, true, true, false, false, true]);
            assert!(
                matches!(&answers[3], Written::Failed(e) if e.to_string().contains("does not follow the stored 0")),
                "{:?}",
                answers[3]
            );
            assert_eq!(taken(&answers[4]), Some(1));
            assert_eq!(held(&mut store, 1), [(1, "a1".into()), (2, "a2".into())]);
            assert_eq!(held(&mut store, 2), [(1, "b1".into())]);
            assert_eq!(held(&mut store, 3), [(1, "c1".into())]);
            // A batch sent again (a relay that lost its answers): nothing stored twice,
            // each refusal typed with the number stored.
            let answers = store.append_batch(&batch).unwrap();
            let refused: Vec<_> = answers.iter().map(taken).collect();
            assert_eq!(
                refused,
                [Some(2), Some(1), Some(2), Some(1), Some(1), Some(1)]
            );
            assert_eq!(held(&mut store, 1).len(), 2);
            assert_eq!(held(&mut store, 2).len(), 1);
            assert_eq!(store.games().unwrap().len(), 3);
            // One message alone, unchecked: the next number only.
            store.append(U256::from(2), 2, "move", 2, 1, "b2").unwrap();
            let e = store
                .append(U256::from(2), 2, "move", 2, 1, "b2")
                .unwrap_err();
            assert!(matches!(e, IndexError::RelaySeq { stored: 2, .. }), "{e}");
        });
    }

    #[test]
    fn test_a_write_failing_mid_batch_stores_none_of_it_and_a_restart_resumes() {
        let path = temp_db("relay-rolled-back");
        let mut store = relay_store(&DbTarget::Sqlite(path.clone()));
        let first = message(&mut store, 1, 1, "a1");
        store.append_batch(&[first]).unwrap();
        // The file fails the third write of the next batch the way a full disk does:
        // SQLite rolls the whole transaction back.
        store
            .connection()
            .execute_batch(
                "CREATE TRIGGER fail BEFORE INSERT ON relay_messages WHEN NEW.body = 'b2'
                 BEGIN SELECT RAISE(ROLLBACK, 'disk full'); END;",
            )
            .unwrap();
        let batch = vec![
            message(&mut store, 1, 2, "a2"),
            message(&mut store, 2, 1, "b1"),
            message(&mut store, 2, 2, "b2"),
            message(&mut store, 3, 1, "c1"),
        ];
        let error = store.append_batch(&batch).expect_err("rolled back");
        assert!(error.to_string().contains("disk full"), "{error}");
        // Nothing of the batch is stored, not even what came before the failure, and
        // nothing after it went in on a transaction of its own.
        assert_eq!(held(&mut store, 1), [(1, "a1".into())]);
        assert!(held(&mut store, 2).is_empty());
        assert!(held(&mut store, 3).is_empty());
        // A restarted relay (a new connection) resumes: the same messages, sent again,
        // are stored once each after the stored one.
        drop(store);
        let mut store = RelayStore::open(&path).unwrap();
        store
            .connection()
            .execute_batch("DROP TRIGGER fail")
            .unwrap();
        let answers = store.append_batch(&batch).unwrap();
        assert_eq!(stored(&answers), [true; 4]);
        assert_eq!(held(&mut store, 1), [(1, "a1".into()), (2, "a2".into())]);
        assert_eq!(held(&mut store, 2), [(1, "b1".into()), (2, "b2".into())]);
        assert_eq!(held(&mut store, 3), [(1, "c1".into())]);
    }

    #[test]
    fn test_a_postgres_write_failing_mid_batch_leaves_out_that_message_alone() {
        let pg = chessref_pgtest::TempPostgres::start().unwrap();
        let mut store = relay_store(&pg.url().parse().unwrap());
        // A statement the server refuses mid-batch (as a CHECK or a trigger would): on
        // Postgres the transaction goes on from the message's savepoint.
        store
            .db()
            .batch(
                "CREATE FUNCTION fail() RETURNS trigger AS $$ BEGIN
                   IF NEW.body = 'b2' THEN RAISE EXCEPTION 'refused b2'; END IF;
                   RETURN NEW; END $$ LANGUAGE plpgsql;
                 CREATE TRIGGER fail BEFORE INSERT ON relay_messages
                   FOR EACH ROW EXECUTE FUNCTION fail();",
                "creating a failing trigger",
            )
            .unwrap();
        let batch = vec![
            message(&mut store, 1, 1, "a1"),
            message(&mut store, 2, 1, "b1"),
            message(&mut store, 2, 2, "b2"),
            message(&mut store, 3, 1, "c1"),
        ];
        let answers = store.append_batch(&batch).unwrap();
        assert_eq!(stored(&answers), [true, true, false, true]);
        assert!(
            matches!(&answers[2], Written::Failed(e) if e.to_string().contains("refused b2")),
            "{:?}",
            answers[2]
        );
        assert_eq!(held(&mut store, 1), [(1, "a1".into())]);
        assert_eq!(held(&mut store, 2), [(1, "b1".into())]);
        assert_eq!(held(&mut store, 3), [(1, "c1".into())]);
    }

    #[test]
    fn test_a_store_whose_session_ended_drops_on_an_async_worker_without_a_panic() {
        // Review of issue 30: a pooled client whose session ended (a server restart) is
        // closed by the pool when it goes back, with the sync client's blocking close,
        // which panics on a thread driving async tasks (a server's relay dropped there).
        let pg = chessref_pgtest::TempPostgres::start().unwrap();
        let target: DbTarget = pg.url().parse().unwrap();
        let mut store = relay_store(&target);
        pg.restart().unwrap();
        // The session ended; a read finds out.
        assert!(store.messages(U256::from(1), 0).is_err(), "a session ended");
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        rt.block_on(async move { tokio::spawn(async move { drop(store) }).await })
            .expect("the store dropped on a worker without a panic");
    }

    #[test]
    fn test_an_index_rebuilt_under_the_relay_takes_none_of_its_messages() {
        // Review of issue 30: the index deleted and built again (chessref index's own
        // advice when its file goes) under a running relay. SQLite goes on writing the
        // deleted file through the relay's connection: a message answered stored there
        // is in no file a reader or a restarted relay opens, checked against a record
        // nobody updates.
        let path = temp_db("relay-rebuilt");
        let mut store = relay_store(&DbTarget::Sqlite(path.clone()));
        let first = message(&mut store, 1, 1, "a1");
        store.append_batch(&[first]).unwrap();
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        let mut rebuilt = Store::open(&path).unwrap();
        rebuilt
            .bind(Source {
                chain_id: 31337,
                referee: Address::repeat_byte(5),
                from_block: 1,
            })
            .unwrap();
        let batch = [
            message(&mut store, 1, 2, "a2"),
            message(&mut store, 2, 1, "b1"),
        ];
        let error = store
            .append_batch(&batch)
            .expect_err("stored in a deleted file");
        assert!(
            matches!(&error, IndexError::RelayFileGone { what, .. } if what == "was replaced by another file"),
            "{error:?}"
        );
        assert!(
            error.to_string().contains("restart chessref serve"),
            "{error}"
        );
        // Refused for good on that connection, reads included.
        assert!(store.check_file().is_err());
        assert!(store.append_batch(&batch).is_err());
        // The file the path names holds none of it; a relay that opens it stores there.
        let mut fresh = RelayStore::open(&path).unwrap();
        assert!(held(&mut fresh, 1).is_empty());
        assert!(held(&mut fresh, 2).is_empty());
        let again = message(&mut fresh, 2, 1, "b1");
        let answers = fresh.append_batch(&[again]).unwrap();
        assert_eq!(stored(&answers), [true]);
        assert_eq!(held(&mut fresh, 2), [(1, "b1".into())]);
    }

    #[test]
    fn test_a_message_checked_against_a_record_the_index_has_moved_past_is_not_stored() {
        on_both("moved", |target| {
            let mut store = relay_store(target);
            let early = message(&mut store, 1, 1, "a1");
            let other = message(&mut store, 2, 1, "b1");
            // The indexer stores a log of game 1 after the relay read its record: the
            // record it checked against is no longer the index's.
            // (A log of no creation: a Withdrawn, filed under game 1.)
            let log = withdrawn_log(9, 0);
            let topics: Vec<u8> = log.topics.iter().flat_map(|t| t.0).collect();
            store
                .db()
                .execute(
                    "INSERT INTO logs (block_number, log_index, block_hash, tx_hash, game_id,
                     topics, data) VALUES (9, 0, ?1, ?1, '1', ?2, ?3)",
                    &[&vec![0u8; 32], &topics, &log.data.to_vec()],
                    "storing a log",
                )
                .unwrap();
            let moved = store.stamp(U256::from(1)).unwrap();
            same_stamps(&mut store);
            assert_ne!(moved, early.checked.1);
            assert_eq!(store.record(U256::from(1)).unwrap().1, moved);
            let answers = store.append_batch(&[early, other]).unwrap();
            // Read again, game 1 is no relay game now (its one log is no creation): its
            // message is not stored; game 2's, whose record did not move, is.
            assert!(
                matches!(&answers[0], Written::Moved(Err(NotRelayed::Unknown), at) if *at == moved),
                "{:?}",
                answers[0]
            );
            assert!(matches!(answers[1], Written::Stored(None)));
            assert!(held(&mut store, 1).is_empty());
            assert_eq!(held(&mut store, 2).len(), 1);
            // A reorg that puts another log of the game at the same place (the count and
            // the latest place unchanged, in the replacing block): the stamp moves with
            // the block's hash, and a message checked before it is not stored.
            let before = message(&mut store, 1, 1, "a1");
            store
                .db()
                .execute(
                    "UPDATE logs SET block_hash = ?1, tx_hash = ?1 WHERE block_number = 9",
                    &[&vec![7u8; 32]],
                    "replacing a log",
                )
                .unwrap();
            let replaced = store.stamp(U256::from(1)).unwrap();
            same_stamps(&mut store);
            assert_ne!(replaced, moved);
            assert_ne!(replaced, before.checked.1);
            let answers = store.append_batch(&[before]).unwrap();
            assert!(
                matches!(&answers[0], Written::Moved(_, at) if *at == replaced),
                "{:?}",
                answers[0]
            );
            assert!(held(&mut store, 1).is_empty());
            // A rolled-back log moves the stamp back: equal stamps, equal logs.
            store
                .db()
                .execute(
                    "DELETE FROM logs WHERE block_number = 9",
                    &[],
                    "rolling back",
                )
                .unwrap();
            let back = message(&mut store, 1, 1, "a1").checked.1;
            assert_eq!(store.stamp(U256::from(1)).unwrap(), back);
            same_stamps(&mut store);
        });
    }

    #[test]
    fn test_the_group_commit_reads_each_game_without_preparing_its_reads_again() {
        let target = DbTarget::Sqlite(temp_db("relay-plans"));
        let mut store = relay_store(&target);
        store.tune_for_group_commit().unwrap();
        for seq in 1..=3 {
            let batch: Vec<NewMessage> = (1..=8)
                .map(|id| message(&mut store, id, seq, "m"))
                .collect();
            let answers = store.append_batch(&batch).unwrap();
            assert_eq!(stored(&answers), vec![true; 8]);
        }
        // Bound to another game for every message: each read prepared once.
        for sql in [STAMP, LATEST_SEQ] {
            let statement = store.connection().prepare_cached(sql).unwrap();
            assert_eq!(
                statement.get_status(rusqlite::StatementStatus::RePrepare),
                0,
                "{sql}"
            );
        }
    }

    /// The one game's stamp and the set's agree on games 1 to 3 as `store` holds them
    /// (game 3: no log, no stamp).
    fn same_stamps(store: &mut RelayStore) {
        let games: Vec<U256> = (1..=3).map(U256::from).collect();
        let set = stamps(store.db(), &games).unwrap();
        for id in games {
            let one = store.stamp(id).unwrap();
            assert_eq!(
                one,
                set.get(&id).copied().unwrap_or(RecordStamp::NONE),
                "game {id}"
            );
        }
        assert_eq!(store.stamp(U256::from(3)).unwrap(), RecordStamp::NONE);
    }

    #[test]
    fn test_two_relays_on_one_postgres_database_store_each_message_once_in_dense_order() {
        const EACH: usize = 60;
        let pg = chessref_pgtest::TempPostgres::start().unwrap();
        let target: DbTarget = pg.url().parse().unwrap();
        drop(relay_store(&target));
        // Two relays, each appending to games 1 and 2 at once, in opposite orders within
        // a batch (their game locks are still taken in one order: no deadlock), each
        // message numbered from what the relay last read, so the two keep overtaking
        // each other; a refused message is read back and sent again with the next number.
        let relay = |name: &'static str, games: [u64; 2]| {
            let target = target.clone();
            std::thread::spawn(move || {
                let mut store = RelayStore::open_target(&target).unwrap();
                let mut ok = Vec::new();
                let mut refusals = 0;
                let mut next = [0usize; 2];
                while next.iter().any(|&n| n < EACH) {
                    let mut batch = Vec::new();
                    for (slot, &game) in games.iter().enumerate() {
                        if next[slot] < EACH {
                            let latest = store.messages(U256::from(game), 0).unwrap().len();
                            let body = format!("{name}-{game}-{}", next[slot]);
                            batch.push((slot, message(&mut store, game, latest as u64 + 1, &body)));
                        }
                    }
                    let messages: Vec<_> = batch.iter().map(|(_, m)| m.clone()).collect();
                    let answers = store.append_batch(&messages).unwrap();
                    for ((slot, m), answer) in batch.into_iter().zip(answers) {
                        match answer {
                            Written::Stored(None) => {
                                ok.push((m.game, m.seq, m.body));
                                next[slot] += 1;
                            }
                            Written::Failed(IndexError::RelaySeq { stored, .. }) => {
                                assert!(stored >= m.seq, "{stored} < {}", m.seq);
                                refusals += 1;
                            }
                            other => panic!("{name}: {other:?}"),
                        }
                    }
                }
                (ok, refusals)
            })
        };
        let a = relay("a", [1, 2]);
        let b = relay("b", [2, 1]);
        let (a, a_refused) = a.join().unwrap();
        let (b, b_refused) = b.join().unwrap();
        eprintln!("two relays: {a_refused} and {b_refused} messages refused as overtaken");
        let mut store = RelayStore::open_target(&target).unwrap();
        for game in [1, 2] {
            let rows = store.messages(U256::from(game), 0).unwrap();
            // Dense: 1..=N, every message of both relays once.
            let seqs: Vec<u64> = rows.iter().map(|m| m.seq).collect();
            assert_eq!(seqs, (1..=2 * EACH as u64).collect::<Vec<_>>());
            let mut bodies: Vec<&str> = rows.iter().map(|m| m.body.as_str()).collect();
            bodies.sort_unstable();
            bodies.dedup();
            assert_eq!(bodies.len(), 2 * EACH, "a message stored twice");
            // Every message answered stored is there, at the number it was given.
            for (g, seq, body) in a.iter().chain(&b).filter(|(g, ..)| *g == U256::from(game)) {
                let row = &rows[*seq as usize - 1];
                assert_eq!((U256::from(game), row.body.as_str()), (*g, body.as_str()));
            }
        }
        assert_eq!(a.len() + b.len(), 4 * EACH);
    }
}
