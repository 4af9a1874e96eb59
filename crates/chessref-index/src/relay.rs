//! The relay's tables in the index file (docs/CHANNEL.md section 13, docs/INDEX.md):
//! every signed message `chessref serve` accepted for a channel game, in arrival order,
//! so that a restarted relay, a reconnecting player and the watchtower all read the same
//! record. The relay writes only these tables; the indexer never touches them.

use std::path::Path;

use alloy_primitives::U256;
use chessref_channel::{Accepted, Book, ChannelDomain, ChannelGame, Frame};
use chessref_client::{GameLog, Phase, game_log::fold_game};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::db::SqliteRef;
use crate::error::{DbContext, IndexError, Result};
use crate::migrations;
use crate::store::{BUSY_TIMEOUT, FileIdentity, Source, game_logs, sql_int};

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
    /// Not stored: why.
    Failed(IndexError),
}

/// The index file opened by the relay: its own tables read and written, the indexer's
/// read.
#[derive(Debug)]
pub struct RelayStore {
    conn: Connection,
    path: String,
    file: std::path::PathBuf,
    /// The file as opened: one deleted or replaced since (an index rebuilt under the
    /// relay) is refused by [`check_file`](Self::check_file).
    identity: Option<FileIdentity>,
}

impl RelayStore {
    /// Opens the index at `path` (which `chessref index` creates), bringing its schema
    /// to this build's version.
    pub fn open(path: &Path) -> Result<RelayStore> {
        let name = path.display().to_string();
        if !path.is_file() {
            return Err(IndexError::NoIndexFile { path: name });
        }
        let mut conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .db(&name, "opening")?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .db(&name, "setting the busy timeout")?;
        conn.execute_batch("PRAGMA synchronous = NORMAL;")
            .db(&name, "setting pragmas")?;
        migrations::migrate(&mut conn, &name)?;
        Ok(RelayStore {
            conn,
            path: name,
            file: path.to_path_buf(),
            identity: FileIdentity::at(path),
        })
    }

    /// Whether the path still names the file this connection opened: SQLite goes on
    /// reading and writing a deleted or replaced file, which the indexer no longer
    /// updates and no reader opens ([`IndexError::RelayFileGone`]). Stays refused for
    /// the connection's life: the relay's rooms hold that file's messages.
    pub fn check_file(&self) -> Result<()> {
        match FileIdentity::gone(&self.file, self.identity) {
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
    /// on the relay's every sender in that commit).
    pub fn hand_checkpoints_off(&self) -> Result<()> {
        self.conn
            .execute_batch("PRAGMA wal_autocheckpoint = 0;")
            .db(&self.path, "handing the checkpoints off")
    }

    /// Copies what the WAL holds into the file as far as no reader or writer is kept
    /// waiting (a passive checkpoint).
    pub fn checkpoint(&self) -> Result<()> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
            .db(&self.path, "checkpointing the WAL")
    }

    /// The file's path as given.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The raw connection (the watchtower's table; tests).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// What the index follows, once the indexer bound it.
    pub fn source(&self) -> Result<Option<Source>> {
        source(&self.conn, &self.path)
    }

    /// The channel game `id` as the index knows it.
    pub fn game(&self, id: U256) -> Result<Record> {
        game(&self.conn, &self.path, id)
    }

    /// The stamp of game `id`'s on-chain record (see [`RecordStamp`]).
    pub fn stamp(&self, id: U256) -> Result<RecordStamp> {
        stamp(&self.conn, &self.path, id)
    }

    /// Game `id`'s record and the stamp it was read at, in one read transaction.
    pub fn record(&mut self, id: U256) -> Result<(Record, RecordStamp)> {
        let tx = self
            .conn
            .transaction()
            .db(&self.path, "starting a record read")?;
        let stamp = stamp(&tx, &self.path, id)?;
        let record = game(&tx, &self.path, id)?;
        tx.finish().db(&self.path, "ending a record read")?;
        Ok((record, stamp))
    }

    /// The messages of game `id` after number `after`, oldest first.
    pub fn messages(&self, id: U256, after: u64) -> Result<Vec<StoredMessage>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT seq, received_at, body FROM relay_messages
                 WHERE game_id = ?1 AND seq > ?2 ORDER BY seq",
            )
            .db(&self.path, "reading relay messages")?;
        let rows = stmt
            .query_map(params![id.to_string(), sql_int(after, "seq")?], |row| {
                Ok(StoredMessage {
                    seq: row.get::<_, i64>(0)? as u64,
                    received_at: row.get::<_, i64>(1)? as u64,
                    body: row.get(2)?,
                })
            })
            .db(&self.path, "reading relay messages")?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .db(&self.path, "reading relay messages")
    }

    /// Stores message `seq` of game `id`, alone and unchecked against the game's record
    /// (tools and tests; the relay stores with [`append_batch`](Self::append_batch)): it
    /// must be the next number.
    pub fn append(
        &mut self,
        id: U256,
        seq: u64,
        kind: &str,
        ply: u32,
        received_at: u64,
        body: &str,
    ) -> Result<()> {
        // IMMEDIATE: the number read is the one written after, whoever else writes the file.
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .db(&self.path, "starting a relay write")?;
        let row = Row {
            id,
            seq,
            kind,
            ply,
            received_at,
            body,
        };
        insert(&tx, &self.path, row)?;
        tx.commit().db(&self.path, "committing a relay message")
    }

    /// Stores `batch` in one transaction, a group commit: one write of the file for
    /// messages that arrived together. Each message is checked inside it against its
    /// game's record as the index holds it now (the indexer cannot write between the
    /// check and the commit) and must be its game's next number; one that fails is left
    /// out (the others stored). `Ok` only once the commit is done, in the file the
    /// path still names: then each answer says what became of its message. `Err`:
    /// nothing of the batch is stored (in a file anyone reads).
    pub fn append_batch(&mut self, batch: &[NewMessage]) -> Result<Vec<Written>> {
        self.check_file()?;
        let mut tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .db(&self.path, "starting a relay write")?;
        let mut answers = Vec::with_capacity(batch.len());
        for m in batch {
            // A savepoint each: a message that fails leaves nothing of itself behind.
            let point = tx.savepoint().db(&self.path, "starting a relay message")?;
            let written = write_one(&point, &self.path, m);
            // A failure that rolled the whole transaction back (SQLite does on a full
            // disk or an I/O error, and RAISE(ROLLBACK)) took every message before this
            // one with it: none of the batch is stored, whatever was answered so far,
            // and nothing after it may start a transaction of its own.
            if point.is_autocommit() {
                let why = match written {
                    Err(e) => e.to_string(),
                    Ok(_) => "the write".to_owned(),
                };
                return Err(IndexError::Invariant(format!(
                    "{}: the relay's group commit was rolled back by {why}: nothing of it is stored",
                    self.path
                )));
            }
            match written {
                Ok(Written::Stored(fresh)) => {
                    point.commit().db(&self.path, "keeping a relay message")?;
                    answers.push(Written::Stored(fresh));
                }
                Ok(other) => answers.push(other),
                Err(e) => answers.push(Written::Failed(e)),
            }
        }
        tx.commit().db(&self.path, "committing relay messages")?;
        // Replaced while committing: what it committed is in the file nobody reads.
        self.check_file()?;
        Ok(answers)
    }

    /// The book of game `game` from its stored messages, each checked again at the time
    /// it was accepted: what a restarted relay and the watchtower start from. With it,
    /// every stored message in order.
    pub fn book(&self, game: &RelayGame) -> Result<(Book, Vec<(StoredMessage, Frame)>)> {
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
    pub fn games(&self) -> Result<Vec<U256>> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT game_id FROM relay_messages")
            .db(&self.path, "listing relay games")?;
        let ids = stmt
            .query_map([], |row| row.get::<_, String>(0))
            .db(&self.path, "listing relay games")?
            .collect::<rusqlite::Result<Vec<_>>>()
            .db(&self.path, "listing relay games")?;
        ids.into_iter()
            .map(|id| {
                U256::from_str_radix(&id, 10)
                    .map_err(|e| IndexError::Invariant(format!("stored game id {id:?}: {e}")))
            })
            .collect()
    }
}

/// The channel game `id` as the index at `conn` knows it.
fn game(conn: &Connection, path: &str, id: U256) -> Result<Record> {
    let Some(Source {
        chain_id, referee, ..
    }) = source(conn, path)?
    else {
        return Ok(Err(NotRelayed::Unknown));
    };
    let mut logs = Vec::new();
    for raw in game_logs(&mut SqliteRef::new(path, conn), id)? {
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

/// What the index follows, once the indexer bound it.
fn source(conn: &Connection, path: &str) -> Result<Option<Source>> {
    let row: Option<(i64, String, i64)> = conn
        .prepare_cached("SELECT chain_id, referee, from_block FROM source WHERE id = 1")
        .db(path, "reading the source")?
        .query_row([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .optional()
        .db(path, "reading the source")?;
    row.map(|(chain_id, referee, from_block)| {
        Ok(Source {
            chain_id: chain_id as u64,
            referee: referee
                .parse()
                .map_err(|e| IndexError::Invariant(format!("stored referee {referee:?}: {e}")))?,
            from_block: from_block as u64,
        })
    })
    .transpose()
}

/// The stamp of game `id`'s record: how many logs the index holds of it and where the
/// latest is, with its block's hash (an index seek, not a read of the logs).
fn stamp(conn: &Connection, path: &str, id: U256) -> Result<RecordStamp> {
    let key = id.to_string();
    let logs: i64 = conn
        .prepare_cached("SELECT count(*) FROM logs WHERE game_id = ?1")
        .db(path, "preparing a record stamp")?
        .query_row([&key], |row| row.get(0))
        .db(path, "counting a game's logs")?;
    let last = conn
        .prepare_cached(
            "SELECT block_number, log_index, block_hash FROM logs WHERE game_id = ?1
             ORDER BY block_number DESC, log_index DESC LIMIT 1",
        )
        .db(path, "preparing a record stamp")?
        .query_row([&key], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, Vec<u8>>(2)?,
            ))
        })
        .optional()
        .db(path, "reading a game's latest log")?;
    let last = last
        .map(|(block, index, hash)| {
            let hash: [u8; 32] = hash.try_into().map_err(|_| {
                IndexError::Invariant(format!("{path}: log {block}:{index} has a torn block hash"))
            })?;
            Ok::<_, IndexError>((block, index, hash))
        })
        .transpose()?;
    Ok(RecordStamp { logs, last })
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

/// Stores message `seq` of game `id` inside `tx`: it must be the next number (a relay
/// that lost track of the file's contents is refused rather than let overwrite or skip
/// one).
fn insert(tx: &Connection, path: &str, row: Row<'_>) -> Result<()> {
    let (id, seq) = (row.id, row.seq);
    let key = id.to_string();
    let latest: i64 = tx
        .prepare_cached("SELECT coalesce(max(seq), 0) FROM relay_messages WHERE game_id = ?1")
        .db(path, "preparing a relay write")?
        .query_row([&key], |row| row.get(0))
        .db(path, "reading the latest relay message")?;
    if latest as u64 + 1 != seq {
        return Err(IndexError::Invariant(format!(
            "{path}: relay message {seq} of game {id} does not follow the stored {latest}"
        )));
    }
    tx.prepare_cached(
        "INSERT INTO relay_messages (game_id, seq, kind, ply, received_at, body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .db(path, "preparing a relay write")?
    .execute(params![
        key,
        sql_int(seq, "seq")?,
        row.kind,
        row.ply,
        sql_int(row.received_at, "time")?,
        row.body
    ])
    .db(path, "storing a relay message")?;
    Ok(())
}

/// One message of a group commit inside `tx`: its game's record checked (read again
/// if its stamp moved), then stored.
fn write_one(tx: &Connection, path: &str, m: &NewMessage) -> Result<Written> {
    let (checked, at) = &m.checked;
    let now = stamp(tx, path, m.game)?;
    let mut fresh = None;
    if now != *at {
        let record = game(tx, path, m.game)?;
        let takes = matches!(&record, Ok(g) if g.off_chain && g.domain == checked.domain && g.game == checked.game);
        if !takes {
            return Ok(Written::Moved(record, now));
        }
        fresh = Some((record, now));
    } else if !checked.off_chain {
        return Ok(Written::Moved(Ok(checked.clone()), now));
    }
    let row = Row {
        id: m.game,
        seq: m.seq,
        kind: m.kind,
        ply: m.ply,
        received_at: m.received_at,
        body: &m.body,
    };
    insert(tx, path, row)?;
    Ok(Written::Stored(fresh))
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

    /// A relay store on a fresh index bound to a chain (no game logs: every game's
    /// stamp is the empty one until a test adds a log).
    fn relay_store(name: &str) -> (std::path::PathBuf, RelayStore) {
        let path = temp_db(&format!("relay-{name}"));
        let mut store = Store::open(&path).unwrap();
        store
            .bind(Source {
                chain_id: 31337,
                referee: Address::repeat_byte(5),
                from_block: 1,
            })
            .unwrap();
        drop(store);
        let relay = RelayStore::open(&path).unwrap();
        (path, relay)
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

    fn message(store: &RelayStore, id: u64, seq: u64, body: &str) -> NewMessage {
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

    fn held(store: &RelayStore, id: u64) -> Vec<(u64, String)> {
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

    #[test]
    fn test_a_group_commit_stores_each_message_once_and_only_those_it_answers_stored() {
        let (_, mut store) = relay_store("group");
        let batch = vec![
            message(&store, 1, 1, "a1"),
            message(&store, 2, 1, "b1"),
            message(&store, 1, 2, "a2"),
            // Not the next number of game 3 (it has none): left out, the rest stored.
            message(&store, 3, 5, "c5"),
            // Game 2's number 1 again, in the same batch: never stored twice.
            message(&store, 2, 1, "b1 again"),
        ];
        let answers = store.append_batch(&batch).unwrap();
        assert_eq!(stored(&answers), [true, true, true, false, false]);
        assert!(
            matches!(&answers[3], Written::Failed(e) if e.to_string().contains("does not follow"))
        );
        assert_eq!(held(&store, 1), [(1, "a1".into()), (2, "a2".into())]);
        assert_eq!(held(&store, 2), [(1, "b1".into())]);
        assert!(held(&store, 3).is_empty());
        // A batch sent again (a relay that lost its answers): nothing stored twice.
        let answers = store.append_batch(&batch).unwrap();
        assert!(answers.iter().all(|w| matches!(w, Written::Failed(_))));
        assert_eq!(held(&store, 1).len(), 2);
        assert_eq!(held(&store, 2).len(), 1);
    }

    #[test]
    fn test_a_write_failing_mid_batch_stores_none_of_it_and_a_restart_resumes() {
        let (path, mut store) = relay_store("rolled-back");
        store.append_batch(&[message(&store, 1, 1, "a1")]).unwrap();
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
            message(&store, 1, 2, "a2"),
            message(&store, 2, 1, "b1"),
            message(&store, 2, 2, "b2"),
            message(&store, 3, 1, "c1"),
        ];
        let error = store.append_batch(&batch).expect_err("rolled back");
        assert!(error.to_string().contains("disk full"), "{error}");
        // Nothing of the batch is stored, not even what came before the failure, and
        // nothing after it went in on a transaction of its own.
        assert_eq!(held(&store, 1), [(1, "a1".into())]);
        assert!(held(&store, 2).is_empty());
        assert!(held(&store, 3).is_empty());
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
        assert_eq!(held(&store, 1), [(1, "a1".into()), (2, "a2".into())]);
        assert_eq!(held(&store, 2), [(1, "b1".into()), (2, "b2".into())]);
        assert_eq!(held(&store, 3), [(1, "c1".into())]);
    }

    #[test]
    fn test_an_index_rebuilt_under_the_relay_takes_none_of_its_messages() {
        // Review of issue 30: the index deleted and built again (chessref index's own
        // advice when its file goes) under a running relay. SQLite goes on writing the
        // deleted file through the relay's connection: a message answered stored there
        // is in no file a reader or a restarted relay opens, checked against a record
        // nobody updates.
        let (path, mut store) = relay_store("rebuilt");
        store.append_batch(&[message(&store, 1, 1, "a1")]).unwrap();
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
        let batch = [message(&store, 1, 2, "a2"), message(&store, 2, 1, "b1")];
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
        assert!(held(&fresh, 1).is_empty());
        assert!(held(&fresh, 2).is_empty());
        let answers = fresh.append_batch(&[message(&fresh, 2, 1, "b1")]).unwrap();
        assert_eq!(stored(&answers), [true]);
        assert_eq!(held(&fresh, 2), [(1, "b1".into())]);
    }

    #[test]
    fn test_a_message_checked_against_a_record_the_index_has_moved_past_is_not_stored() {
        let (_, mut store) = relay_store("moved");
        let early = message(&store, 1, 1, "a1");
        let other = message(&store, 2, 1, "b1");
        // The indexer stores a log of game 1 after the relay read its record: the
        // record it checked against is no longer the index's.
        // (A log of no creation: a Withdrawn, filed under game 1.)
        let log = withdrawn_log(9, 0);
        let topics: Vec<u8> = log.topics.iter().flat_map(|t| t.0).collect();
        store
            .connection()
            .execute(
                "INSERT INTO logs (block_number, log_index, block_hash, tx_hash, game_id, topics, data)
                 VALUES (9, 0, zeroblob(32), zeroblob(32), '1', ?1, ?2)",
                params![topics, log.data.to_vec()],
            )
            .unwrap();
        let moved = store.stamp(U256::from(1)).unwrap();
        assert_ne!(moved, early.checked.1);
        let answers = store.append_batch(&[early, other]).unwrap();
        // Read again, game 1 is no relay game now (its one log is no creation): its
        // message is not stored; game 2's, whose record did not move, is.
        assert!(
            matches!(&answers[0], Written::Moved(Err(NotRelayed::Unknown), at) if *at == moved),
            "{:?}",
            answers[0]
        );
        assert!(matches!(answers[1], Written::Stored(None)));
        assert!(held(&store, 1).is_empty());
        assert_eq!(held(&store, 2).len(), 1);
        // A reorg that puts another log of the game at the same place (the count and
        // the latest place unchanged, in the replacing block): the stamp moves with the
        // block's hash, and a message checked before it is not stored.
        let before = message(&store, 1, 1, "a1");
        store
            .connection()
            .execute(
                "UPDATE logs SET block_hash = randomblob(32), tx_hash = randomblob(32)
                 WHERE block_number = 9",
                [],
            )
            .unwrap();
        let replaced = store.stamp(U256::from(1)).unwrap();
        assert_ne!(replaced, moved);
        assert_ne!(replaced, before.checked.1);
        let answers = store.append_batch(&[before]).unwrap();
        assert!(
            matches!(&answers[0], Written::Moved(_, at) if *at == replaced),
            "{:?}",
            answers[0]
        );
        assert!(held(&store, 1).is_empty());
        // A rolled-back log moves the stamp back: equal stamps, equal logs.
        store
            .connection()
            .execute("DELETE FROM logs WHERE block_number = 9", [])
            .unwrap();
        assert_eq!(
            store.stamp(U256::from(1)).unwrap(),
            message(&store, 1, 1, "a1").checked.1
        );
    }
}
