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
use crate::store::{BUSY_TIMEOUT, Source, game_logs, sql_int};

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

/// The index file opened by the relay: its own tables read and written, the indexer's
/// read.
#[derive(Debug)]
pub struct RelayStore {
    conn: Connection,
    path: String,
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
        Ok(RelayStore { conn, path: name })
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
        let row: Option<(i64, String, i64)> = self
            .conn
            .query_row(
                "SELECT chain_id, referee, from_block FROM source WHERE id = 1",
                [],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )
            .optional()
            .db(&self.path, "reading the source")?;
        row.map(|(chain_id, referee, from_block)| {
            Ok(Source {
                chain_id: chain_id as u64,
                referee: referee.parse().map_err(|e| {
                    IndexError::Invariant(format!("stored referee {referee:?}: {e}"))
                })?,
                from_block: from_block as u64,
            })
        })
        .transpose()
    }

    /// The channel game `id` as the index knows it.
    pub fn game(&self, id: U256) -> Result<std::result::Result<RelayGame, NotRelayed>> {
        let Some(Source {
            chain_id, referee, ..
        }) = self.source()?
        else {
            return Ok(Err(NotRelayed::Unknown));
        };
        let mut logs = Vec::new();
        for raw in game_logs(&mut SqliteRef::new(&self.path, &self.conn), id)? {
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

    /// Stores message `seq` of game `id`: it must be the next number (a relay that lost
    /// track of the file's contents is refused rather than let overwrite or skip one).
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
        let key = id.to_string();
        let latest: i64 = tx
            .query_row(
                "SELECT coalesce(max(seq), 0) FROM relay_messages WHERE game_id = ?1",
                [&key],
                |row| row.get(0),
            )
            .db(&self.path, "reading the latest relay message")?;
        if latest as u64 + 1 != seq {
            return Err(IndexError::Invariant(format!(
                "{}: relay message {seq} of game {id} does not follow the stored {latest}",
                self.path
            )));
        }
        tx.execute(
            "INSERT INTO relay_messages (game_id, seq, kind, ply, received_at, body)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                key,
                sql_int(seq, "seq")?,
                kind,
                ply,
                sql_int(received_at, "time")?,
                body
            ],
        )
        .db(&self.path, "storing a relay message")?;
        tx.commit().db(&self.path, "committing a relay message")
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
