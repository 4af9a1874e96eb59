//! The index database, write side: one SQLite file in WAL mode, written by one indexer
//! process (the file's writer lock, [`crate::lock`], keeps a second one out). Every
//! change of the chain's view (a range of blocks, a rollback) is one `IMMEDIATE`
//! transaction that reads and checks the cursor, then writes it, so the file is always
//! at a block boundary.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use alloy_primitives::{Address, B256, U256};
use chessref_evm::LogPlace;
use rusqlite::Connection;

use crate::db::{Conn, Database, DbTarget, PgWriterLock, Role, Sql, Tx};
use crate::derive::{self, Refolded};
use crate::error::{DbContext, IndexError, Result};
use crate::lock::WriterLock;
use crate::raw::{BlockRef, RawLog};
use crate::{ratings, tournament};

/// How long a connection waits for a lock held by the other process.
pub(crate) const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Where the index stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// The next block to index (everything below it is stored).
    pub next_block: u64,
    /// The hash of block `next_block - 1`, once one block was indexed.
    pub last_hash: Option<B256>,
    /// The highest final block (at least `--confirmations` deep) at the last poll.
    pub final_block: u64,
    /// The chain head at the last poll.
    pub head: u64,
}

/// What a database follows: one referee on one chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    /// The chain id.
    pub chain_id: u64,
    /// The referee's address.
    pub referee: Address,
    /// The first block indexed.
    pub from_block: u64,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "referee {} on chain {} from block {}",
            self.referee, self.chain_id, self.from_block
        )
    }
}

/// Blocks `from..=to` indexed in one step: their referee logs, the hashes of those of
/// them that are not final, and the new head and final block.
#[derive(Clone, Debug)]
pub struct Batch {
    /// First block of the range: must be the cursor's next block.
    pub from: u64,
    /// Last block of the range.
    pub to: u64,
    /// Hash of block `to`.
    pub to_hash: B256,
    /// The referee's logs of the range, in chain order.
    pub logs: Vec<RawLog>,
    /// The referee's tournament's logs of the range, in chain order
    /// ([`crate::tournament`]).
    pub tournament_logs: Vec<RawLog>,
    /// The non-final blocks of the range (kept to detect reorgs).
    pub blocks: Vec<BlockRef>,
    /// The chain head seen.
    pub head: u64,
    /// The highest final block.
    pub final_block: u64,
}

/// What a commit or a rollback changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Committed {
    /// The games whose logs changed (refolded).
    pub touched: BTreeSet<U256>,
    /// What refolding them found.
    pub refolded: Refolded,
    /// The knockout events whose logs changed (refolded, [`crate::tournament`]).
    pub tournaments: BTreeSet<U256>,
    /// Logs of the referee's address its ABI does not decode (stored, about no game):
    /// the address is not a ChessReferee of this version; and logs of its tournament's
    /// address the tournament's ABI does not decode (stored, about no event).
    pub undecodable: Vec<String>,
    /// What keeping the ratings took.
    pub ratings: ratings::Kept,
}

/// The index database opened for writing, by the one indexer of the database: it holds
/// the writer lock (a SQLite file's lock file, a Postgres advisory lock) until dropped.
pub struct Store {
    path: String,
    backend: Backend,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("db", &self.path).finish()
    }
}

/// The connection, what keeps a second indexer out, and what tells this one to stop.
enum Backend {
    /// A SQLite file: the lock file, and the file as opened with which file it was
    /// (unknown if its metadata could not be read): a file deleted or replaced since is
    /// noticed before each write ([`Store::check_file`]).
    Sqlite {
        conn: Conn,
        file: std::path::PathBuf,
        identity: Option<FileIdentity>,
        /// Declared last: released after the connection is closed.
        _lock: WriterLock,
    },
    /// A Postgres database: the indexer's advisory lock, checked before each write, and
    /// its session, which every write goes through (none outlives the lock).
    Postgres(Box<PgWriterLock>),
}

/// Which file a path names: its device and inode (on Unix; elsewhere only that it exists).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FileIdentity {
    device: u64,
    inode: u64,
}

impl FileIdentity {
    /// Which file `path` names now (`None`: its metadata does not read).
    pub(crate) fn at(path: &Path) -> Option<FileIdentity> {
        std::fs::metadata(path)
            .ok()
            .map(|meta| FileIdentity::of(&meta))
    }

    /// What became of the file opened as `opened` at `path`, if `path` no longer names
    /// it (`was deleted`, `was replaced by another file`); `None` while it does.
    pub(crate) fn gone(path: &Path, opened: Option<FileIdentity>) -> Option<String> {
        match std::fs::metadata(path) {
            Ok(meta) if opened.is_none_or(|id| id == FileIdentity::of(&meta)) => None,
            Ok(_) => Some("was replaced by another file".into()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("was deleted".into()),
            Err(e) => Some(format!("cannot be looked at ({e})")),
        }
    }

    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> FileIdentity {
        use std::os::unix::fs::MetadataExt;
        FileIdentity {
            device: meta.dev(),
            inode: meta.ino(),
        }
    }

    #[cfg(not(unix))]
    fn of(_meta: &std::fs::Metadata) -> FileIdentity {
        FileIdentity {
            device: 0,
            inode: 0,
        }
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// SQLite keeps integers as i64; block numbers and indices fit unless a node lies.
pub(crate) fn sql_int(value: u64, what: &str) -> Result<i64> {
    i64::try_from(value)
        .map_err(|_| IndexError::BadAnswer(format!("{what} {value} is beyond SQLite's integers")))
}

impl Store {
    /// Opens (creating it if needed) the database at `path`: WAL journal, foreign keys
    /// on, the schema migrated to this build's version.
    ///
    /// Takes the file's writer lock first, without waiting: while another `Store` (in
    /// this process or another) has the file, this is [`IndexError::Held`], naming the
    /// file and the holder's pid and start time.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_target(&DbTarget::Sqlite(path.to_path_buf()))
    }

    /// Opens the index `target` for writing: a SQLite file as [`Store::open`] does, or a
    /// Postgres database, whose indexer lock ([`PgWriterLock`]) is taken first, without
    /// waiting: [`IndexError::HeldPg`] names the holder.
    pub fn open_target(target: &DbTarget) -> Result<Store> {
        Store::open_standby(target, None, |_| {})
    }

    /// Opens the index `target` for writing as [`Store::open_target`] does, except that
    /// on Postgres, given `standby` (a poll interval), an indexer lock another session
    /// holds is waited for ([`PgWriterLock::take`]): `on_wait` is told the holder once,
    /// and the store is opened, its schema migrated, only once the lock is this
    /// process's. A SQLite file held by another indexer is refused all the same: one
    /// file has one host, where nothing would take over.
    pub fn open_standby(
        target: &DbTarget,
        standby: Option<std::time::Duration>,
        on_wait: impl FnOnce(&IndexError),
    ) -> Result<Store> {
        let name = target.to_string();
        match target {
            DbTarget::Sqlite(path) => {
                let lock = WriterLock::acquire(path, &name)?;
                let conn = Database::open(target, 1)?.connect()?;
                // SQLite just opened (or made) the file: its metadata is there to read.
                let identity = FileIdentity::at(path);
                Ok(Store {
                    path: name,
                    backend: Backend::Sqlite {
                        conn,
                        file: path.clone(),
                        identity,
                        _lock: lock,
                    },
                })
            }
            DbTarget::Postgres(pg) => {
                let mut lock = PgWriterLock::take(pg, Role::Indexer, standby, on_wait)?;
                lock.conn().migrate()?;
                Ok(Store {
                    path: name,
                    backend: Backend::Postgres(Box::new(lock)),
                })
            }
        }
    }

    /// The connection every read and write of the store goes through.
    fn conn(&mut self) -> &mut Conn {
        match &mut self.backend {
            Backend::Sqlite { conn, .. } => conn,
            Backend::Postgres(lock) => lock.conn(),
        }
    }

    /// Whether the file at the path is still the one opened: a file deleted or replaced
    /// (another file renamed over it) under the indexer is [`IndexError::FileGone`],
    /// naming it. SQLite would go on writing to the deleted file, which no reader opens.
    /// Every write ([`Store::commit`], [`Store::rollback`], [`Store::heartbeat`]) asks
    /// first.
    /// On Postgres, whether the indexer lock is still held ([`IndexError::LockLost`]).
    pub fn check_file(&mut self) -> Result<()> {
        let (file, identity) = match &mut self.backend {
            Backend::Sqlite { file, identity, .. } => (file, *identity),
            Backend::Postgres(lock) => return lock.check(),
        };
        match FileIdentity::gone(file, identity) {
            None => Ok(()),
            Some(what) => Err(IndexError::FileGone {
                path: self.path.clone(),
                what,
            }),
        }
    }

    /// The file's path as given.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The raw SQLite connection (tests and the read side's checks).
    ///
    /// # Panics
    /// On a Postgres store, which has none: tests of both backends use [`Store::db`].
    pub fn connection(&self) -> &Connection {
        match &self.backend {
            Backend::Sqlite { conn, .. } => conn.sqlite(),
            Backend::Postgres(_) => None,
        }
        .expect("Store::connection is SQLite's; use Store::db on Postgres")
    }

    /// The connection, whichever the backend.
    pub fn db(&mut self) -> &mut Conn {
        self.conn()
    }

    /// What the database follows, if it was bound.
    pub fn source(&mut self) -> Result<Option<Source>> {
        read_source(self.conn())
    }

    /// Binds a fresh database to `source` (cursor at its first block), or checks that an
    /// existing one follows the same referee on the same chain (its own from-block wins:
    /// a restart resumes, whatever `--from-block` says). The source is read inside the
    /// transaction that writes it.
    pub fn bind(&mut self, source: Source) -> Result<Source> {
        let path = self.path.clone();
        let mut tx = self.conn().transaction()?;
        if let Some(stored) = read_source(&mut tx)? {
            if stored.chain_id != source.chain_id || stored.referee != source.referee {
                return Err(IndexError::OtherSource {
                    path,
                    stored: stored.to_string(),
                    asked: source.to_string(),
                });
            }
            return Ok(stored);
        }
        let from_block = sql_int(source.from_block, "from block")?;
        tx.execute(
            "INSERT INTO source (id, chain_id, referee, from_block) VALUES (1, ?1, ?2, ?3)",
            &[
                &sql_int(source.chain_id, "chain id")?,
                &source.referee.to_string(),
                &from_block,
            ],
            "binding the source",
        )?;
        tx.execute(
            "INSERT INTO cursor (id, block_number, block_hash, final_block, head, updated_at)
             VALUES (1, ?1, NULL, ?1, ?1, ?2)",
            &[&(from_block - 1), &unix_now()],
            "creating the cursor",
        )?;
        tx.commit()?;
        Ok(source)
    }

    /// Where the index stands (the database must be bound).
    pub fn cursor(&mut self) -> Result<Cursor> {
        read_cursor(self.conn())
    }

    /// Records that the node answered at head `head` with nothing new to index: the
    /// cursor's `updated_at` is when the indexer last heard the node, so a reader can tell
    /// a quiet chain (recent) from a stalled indexer (old).
    pub fn heartbeat(&mut self, head: u64) -> Result<()> {
        self.check_file()?;
        // CASE, not max()/greatest(): the one spelling both backends know.
        self.conn().execute(
            "UPDATE cursor SET head = CASE WHEN head > ?1 THEN head ELSE ?1 END,
             updated_at = ?2 WHERE id = 1",
            &[&sql_int(head, "head")?, &unix_now()],
            "recording the node's answer",
        )?;
        Ok(())
    }

    /// The stored non-final blocks, highest first.
    pub fn recent_blocks(&mut self) -> Result<Vec<BlockRef>> {
        let rows = self.conn().query(
            "SELECT number, hash, parent_hash, timestamp FROM blocks ORDER BY number DESC",
            &[],
            "reading blocks",
            |row| {
                Ok((
                    row.get::<i64>(0)?,
                    row.get::<Vec<u8>>(1)?,
                    row.get::<Vec<u8>>(2)?,
                    row.get::<i64>(3)?,
                ))
            },
        )?;
        Ok(rows
            .into_iter()
            .map(|(number, hash, parent, timestamp)| BlockRef {
                number: number as u64,
                hash: B256::from_slice(&hash),
                parent_hash: B256::from_slice(&parent),
                timestamp: timestamp as u64,
            })
            .collect())
    }

    /// Stores `batch` and advances the cursor past it, refolding the games it touched and
    /// marking final the games that became so, in one transaction. The cursor is read
    /// and checked inside that transaction (`BEGIN IMMEDIATE`: it holds the write lock
    /// from its start): the batch must begin at the cursor's next block and, when it
    /// carries that block, on the cursor's hash.
    pub fn commit(&mut self, batch: &Batch) -> Result<Committed> {
        self.check_file()?;
        let mut tx = self.conn().transaction()?;
        let cursor = read_cursor(&mut tx)?;
        if batch.from != cursor.next_block || batch.to < batch.from {
            return Err(IndexError::Invariant(format!(
                "batch {}..={} does not continue the cursor (next block {})",
                batch.from, batch.to, cursor.next_block
            )));
        }
        if let (Some(first), Some(last_hash)) = (batch.blocks.first(), cursor.last_hash)
            && first.number == batch.from
            && first.parent_hash != last_hash
        {
            return Err(IndexError::Invariant(format!(
                "batch {}..={} does not continue the cursor: block {}'s parent is {}, the \
                 cursor's hash {}",
                batch.from, batch.to, first.number, first.parent_hash, last_hash
            )));
        }
        let mut touched = BTreeSet::new();
        let mut undecodable = Vec::new();
        for log in &batch.logs {
            let decoded = log.decode();
            let game = decoded.as_ref().ok().and_then(|l| l.game_id());
            if let Some(id) = game {
                touched.insert(id);
            }
            if let Err(error) = decoded {
                undecodable.push(error.to_string());
            }
            store_log(&mut tx, batch, log, game, "referee", None)?;
        }
        let mut tournaments = BTreeSet::new();
        for log in &batch.tournament_logs {
            let event = match tournament::decode(log) {
                Ok(decoded) => tournament::event_of(&decoded),
                Err(error) => {
                    undecodable.push(error);
                    None
                }
            };
            if let Some(id) = event {
                tournaments.insert(id);
            }
            store_log(&mut tx, batch, log, None, "tournament", event)?;
        }
        for b in &batch.blocks {
            tx.execute(
                "INSERT INTO blocks (number, hash, parent_hash, timestamp) VALUES (?1, ?2, ?3, ?4)",
                &[
                    &sql_int(b.number, "block number")?,
                    &b.hash.as_slice(),
                    &b.parent_hash.as_slice(),
                    &sql_int(b.timestamp, "timestamp")?,
                ],
                "storing a block",
            )?;
        }
        tx.execute(
            "UPDATE cursor SET block_number = ?1, block_hash = ?2, final_block = ?3, head = ?4,
             updated_at = ?5 WHERE id = 1",
            &[
                &sql_int(batch.to, "block number")?,
                &batch.to_hash.as_slice(),
                &sql_int(batch.final_block, "block number")?,
                &sql_int(batch.head, "block number")?,
                &unix_now(),
            ],
            "advancing the cursor",
        )?;
        prune(&mut tx, batch.final_block)?;
        let refolded = derive::refold(&mut tx, &touched, batch.final_block)?;
        let finalised = derive::finalise(&mut tx, batch.final_block)?;
        let ratings = ratings::keep(&mut tx, touched.union(&finalised).copied())?;
        tournament::refold(&mut tx, &tournaments)?;
        tx.commit()?;
        Ok(Committed {
            touched,
            refolded,
            tournaments,
            undecodable,
            ratings,
        })
    }

    /// Forgets every block above `ancestor` (the last block the chain and the index
    /// agree on, one of the stored blocks) and their logs, and refolds the games they
    /// touched, in one transaction that reads the cursor and checks the ancestor first.
    pub fn rollback(&mut self, ancestor: BlockRef) -> Result<Committed> {
        self.check_file()?;
        let mut tx = self.conn().transaction()?;
        let final_block = read_cursor(&mut tx)?.final_block;
        let above = sql_int(ancestor.number, "block number")?;
        let stored = tx.query_opt(
            "SELECT hash FROM blocks WHERE number = ?1",
            &[&above],
            "reading the ancestor",
            |row| row.get::<Vec<u8>>(0),
        )?;
        if stored.as_deref() != Some(ancestor.hash.as_slice()) {
            return Err(IndexError::Invariant(format!(
                "rollback to block {} ({}), which the index does not hold",
                ancestor.number, ancestor.hash
            )));
        }
        let ids = tx.query(
            "SELECT DISTINCT game_id FROM logs WHERE block_number > ?1 AND game_id IS NOT NULL",
            &[&above],
            "finding rolled-back games",
            |row| row.get::<String>(0),
        )?;
        let mut touched = BTreeSet::new();
        for id in ids {
            touched.insert(
                id.parse::<U256>()
                    .map_err(|e| IndexError::Invariant(format!("stored game id {id:?}: {e}")))?,
            );
        }
        let events = tx.query(
            "SELECT DISTINCT tournament_id FROM logs
             WHERE block_number > ?1 AND tournament_id IS NOT NULL",
            &[&above],
            "finding rolled-back events",
            |row| row.get::<String>(0),
        )?;
        let mut tournaments = BTreeSet::new();
        for id in events {
            tournaments.insert(
                id.parse::<U256>()
                    .map_err(|e| IndexError::Invariant(format!("stored event id {id:?}: {e}")))?,
            );
        }
        tx.execute(
            "DELETE FROM logs WHERE block_number > ?1",
            &[&above],
            "deleting orphaned logs",
        )?;
        tx.execute(
            "DELETE FROM blocks WHERE number > ?1",
            &[&above],
            "deleting orphaned blocks",
        )?;
        tx.execute(
            "UPDATE cursor SET block_number = ?1, block_hash = ?2, updated_at = ?3 WHERE id = 1",
            &[&above, &ancestor.hash.as_slice(), &unix_now()],
            "rewinding the cursor",
        )?;
        let refolded = derive::refold(&mut tx, &touched, final_block)?;
        let ratings = ratings::keep(&mut tx, touched.iter().copied())?;
        tournament::refold(&mut tx, &tournaments)?;
        tx.commit()?;
        Ok(Committed {
            touched,
            refolded,
            tournaments,
            undecodable: Vec::new(),
            ratings,
        })
    }

    /// The stored logs of game `id`, in chain order.
    pub fn game_logs(&mut self, id: U256) -> Result<Vec<RawLog>> {
        game_logs(self.conn(), id)
    }
}

/// Stores one log of `batch` (of the referee, or of its tournament with the event it is
/// about): in the batch's range, and not stored before.
fn store_log(
    tx: &mut Tx<'_>,
    batch: &Batch,
    log: &RawLog,
    game: Option<U256>,
    emitter: &str,
    event: Option<U256>,
) -> Result<()> {
    if !(batch.from..=batch.to).contains(&log.place.block_number) {
        return Err(IndexError::BadAnswer(format!(
            "log {}:{} outside the range {}..={} asked",
            log.place.block_number, log.place.log_index, batch.from, batch.to
        )));
    }
    tx.execute(
        "INSERT INTO logs (block_number, log_index, block_hash, tx_hash, game_id, topics, data,
             emitter, tournament_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        &[
            &sql_int(log.place.block_number, "block number")?,
            &sql_int(log.place.log_index, "log index")?,
            &log.place.block_hash.as_slice(),
            &log.place.tx_hash.as_slice(),
            &game.map(|id| id.to_string()),
            &log.topics_blob(),
            &log.data.as_ref(),
            &emitter,
            &event.map(|id| id.to_string()),
        ],
        "storing a log",
    )
    .map_err(|e| {
        if e.is_constraint_violation() {
            IndexError::Invariant(format!(
                "log {}:{} is already stored",
                log.place.block_number, log.place.log_index
            ))
        } else {
            e.into()
        }
    })?;
    Ok(())
}

/// Puts the database in WAL mode. The switch needs the file to itself and SQLite does
/// not wait for it (no busy handler): while another opener of a fresh file (the relay,
/// the watchtower) is migrating it, it is tried again, up to [`BUSY_TIMEOUT`].
pub(crate) fn switch_to_wal(conn: &Connection, path: &str) -> Result<()> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        let mode = conn.query_row("PRAGMA journal_mode = WAL", [], |row| {
            row.get::<_, String>(0)
        });
        let busy = match &mode {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(_) => true,
            Err(rusqlite::Error::SqliteFailure(f, _)) => {
                matches!(
                    f.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                )
            }
            Err(_) => false,
        };
        if !busy || std::time::Instant::now() >= deadline {
            let mode = mode.db(path, "switching to WAL")?;
            return Err(IndexError::Invariant(format!(
                "{path}: SQLite kept journal mode {mode}, not WAL"
            )));
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// What the database follows, read on `db` (a connection or a transaction).
pub(crate) fn read_source(db: &mut impl Sql) -> Result<Option<Source>> {
    db.query_opt(
        "SELECT chain_id, referee, from_block FROM source WHERE id = 1",
        &[],
        "reading the source",
        |row| {
            Ok((
                row.get::<i64>(0)?,
                row.get::<String>(1)?,
                row.get::<i64>(2)?,
            ))
        },
    )?
    .map(|(chain_id, referee, from_block)| {
        let referee = referee
            .parse::<Address>()
            .map_err(|e| IndexError::Invariant(format!("stored referee {referee:?}: {e}")))?;
        Ok(Source {
            chain_id: chain_id as u64,
            referee,
            from_block: from_block as u64,
        })
    })
    .transpose()
}

/// The cursor, read on `db`: inside the write transaction when it is checked before a
/// write, so that nothing can move it between the check and the write.
fn read_cursor(db: &mut impl Sql) -> Result<Cursor> {
    let (last, hash, final_block, head) = db.query_one(
        "SELECT block_number, block_hash, final_block, head FROM cursor WHERE id = 1",
        &[],
        "reading the cursor",
        |row| {
            Ok((
                row.get::<i64>(0)?,
                row.get::<Option<Vec<u8>>>(1)?,
                row.get::<i64>(2)?,
                row.get::<i64>(3)?,
            ))
        },
    )?;
    let last_hash = hash
        .map(|h| {
            (h.len() == 32)
                .then(|| B256::from_slice(&h))
                .ok_or_else(|| IndexError::Invariant("cursor hash is not 32 bytes".into()))
        })
        .transpose()?;
    Ok(Cursor {
        next_block: (last + 1).max(0) as u64,
        last_hash,
        final_block: final_block.max(0) as u64,
        head: head.max(0) as u64,
    })
}

/// Keeps the blocks the reorg check needs: the final block and everything above it.
fn prune(tx: &mut Tx<'_>, final_block: u64) -> Result<()> {
    tx.execute(
        "DELETE FROM blocks WHERE number < ?1",
        &[&sql_int(final_block, "block number")?],
        "pruning final blocks",
    )?;
    Ok(())
}

/// The stored logs of a game, in chain order (`?1`: its id).
const GAME_LOGS_SQL: &str =
    "SELECT block_number, log_index, block_hash, tx_hash, topics, data FROM logs
     WHERE game_id = ?1 ORDER BY block_number, log_index";

/// A row of [`GAME_LOGS_SQL`] as the log it stores.
pub(crate) fn raw_log(
    (block, index, block_hash, tx_hash, topics, data): (
        i64,
        i64,
        Vec<u8>,
        Vec<u8>,
        Vec<u8>,
        Vec<u8>,
    ),
) -> Result<RawLog> {
    let topics = RawLog::topics_from_blob(&topics)
        .ok_or_else(|| IndexError::Invariant(format!("log {block}:{index} has torn topics")))?;
    Ok(RawLog {
        place: LogPlace {
            block_number: block as u64,
            log_index: index as u64,
            block_hash: B256::from_slice(&block_hash),
            tx_hash: B256::from_slice(&tx_hash),
        },
        topics,
        data: data.into(),
    })
}

/// The stored logs of game `id`, in chain order, read on `db`.
pub(crate) fn game_logs(db: &mut impl Sql, id: U256) -> Result<Vec<RawLog>> {
    logs_of(db, GAME_LOGS_SQL, &id.to_string(), "reading a game's logs")
}

/// The stored logs `sql` selects for `key` (its one parameter), as [`GAME_LOGS_SQL`]'s
/// columns, read on `db`.
pub(crate) fn logs_of(
    db: &mut impl Sql,
    sql: &str,
    key: &str,
    doing: &'static str,
) -> Result<Vec<RawLog>> {
    db.query(sql, &[&key], doing, |row| {
        Ok((
            row.get::<i64>(0)?,
            row.get::<i64>(1)?,
            row.get::<Vec<u8>>(2)?,
            row.get::<Vec<u8>>(3)?,
            row.get::<Vec<u8>>(4)?,
            row.get::<Vec<u8>>(5)?,
        ))
    })?
    .into_iter()
    .map(raw_log)
    .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::migrations;
    use alloy_primitives::address;

    /// A fresh database path under the target directory, removed first.
    pub(crate) fn temp_db(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("chessref-index-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.sqlite"));
        for suffix in ["", "-wal", "-shm", ".lock"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        path
    }

    pub(crate) const SOURCE: Source = Source {
        chain_id: 31337,
        referee: address!("5FbDB2315678afecb367f032d93F642f64180aa3"),
        from_block: 5,
    };

    fn hash(n: u64) -> B256 {
        B256::from(U256::from(n + 1000))
    }

    pub(crate) fn withdrawn_log(block: u64, index: u64) -> RawLog {
        // A Withdrawn(account, token, to, amount): a referee log about no game.
        let event = chessref_evm::bindings::ChessReferee::Withdrawn {
            account: Address::repeat_byte(1),
            token: Address::ZERO,
            to: Address::repeat_byte(1),
            amount: U256::from(5),
        };
        let log = alloy_sol_types::SolEvent::encode_log_data(&event);
        RawLog {
            place: LogPlace {
                block_number: block,
                log_index: index,
                block_hash: hash(block),
                tx_hash: hash(block * 100 + index),
            },
            topics: log.topics().to_vec(),
            data: log.data,
        }
    }

    fn batch(from: u64, to: u64, logs: Vec<RawLog>) -> Batch {
        Batch {
            from,
            to,
            to_hash: hash(to),
            logs,
            tournament_logs: Vec::new(),
            blocks: (from..=to)
                .map(|n| BlockRef {
                    number: n,
                    hash: hash(n),
                    parent_hash: hash(n - 1),
                    timestamp: n,
                })
                .collect(),
            head: to,
            final_block: to.saturating_sub(2),
        }
    }

    pub(crate) fn count(store: &mut Store, table: &str) -> i64 {
        store
            .db()
            .query_one(
                &format!("SELECT count(*) FROM {table}"),
                &[],
                "counting",
                |r| r.get(0),
            )
            .unwrap()
    }

    /// Runs `check` on a fresh store of each backend: a SQLite file, then a database on
    /// a throwaway Postgres server.
    pub(crate) fn on_both(name: &str, check: impl Fn(Store)) {
        check(Store::open(&temp_db(name)).unwrap());
        let pg = chessref_pgtest::TempPostgres::start().unwrap();
        check(Store::open_target(&pg.url().parse().unwrap()).unwrap());
    }

    #[test]
    fn test_a_postgres_store_whose_session_ended_stops_and_a_successor_resumes() {
        let pg = chessref_pgtest::TempPostgres::start().unwrap();
        let target: DbTarget = pg.url().parse().unwrap();
        let mut first = Store::open_target(&target).unwrap();
        first.bind(SOURCE).unwrap();
        first
            .commit(&batch(5, 9, vec![withdrawn_log(6, 0)]))
            .unwrap();
        // The session holding the lock (and writing) is ended, as a cut connection would.
        let mut admin = postgres::Client::connect(&pg.url(), postgres::NoTls).unwrap();
        let ended = admin
            .execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE application_name LIKE 'chessref index pid %'",
                &[],
            )
            .unwrap();
        assert_eq!(ended, 1);
        let err = first.heartbeat(10).unwrap_err();
        assert!(matches!(err, IndexError::LockLost { .. }), "{err}");
        let err = first.commit(&batch(10, 11, vec![])).unwrap_err();
        assert!(matches!(err, IndexError::LockLost { .. }), "{err}");
        // The successor resumes at the cursor the first one committed.
        let mut second = Store::open_target(&target).unwrap();
        assert_eq!(second.bind(SOURCE).unwrap(), SOURCE);
        assert_eq!(second.cursor().unwrap().next_block, 10);
        assert_eq!(count(&mut second, "logs"), 1);
        second.commit(&batch(10, 11, vec![])).unwrap();
        drop(first);
        assert_eq!(second.cursor().unwrap().next_block, 12);
    }

    #[test]
    fn test_a_second_store_on_a_postgres_database_is_refused_naming_the_holder() {
        let pg = chessref_pgtest::TempPostgres::start().unwrap();
        let target: DbTarget = pg.url().parse().unwrap();
        let first = Store::open_target(&target).unwrap();
        let err = Store::open_target(&target).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, IndexError::HeldPg { .. }), "{text}");
        assert!(
            text.contains(&format!(
                "chessref index pid {}, since ",
                std::process::id()
            )),
            "{text}"
        );
        drop(first);
        let mut second = Store::open_target(&target).unwrap();
        second.bind(SOURCE).unwrap();
        second.check_file().unwrap();
    }

    #[test]
    fn test_a_standby_store_waits_for_the_lock_and_migrates_only_once_it_holds_it() {
        let pg = chessref_pgtest::TempPostgres::start().unwrap();
        let target: DbTarget = pg.url().parse().unwrap();
        let DbTarget::Postgres(pg_target) = &target else {
            panic!("not a Postgres target: {target}");
        };
        // Another indexer holds the lock of a database it has not migrated yet.
        let holder =
            PgWriterLock::try_acquire(pg_target, Role::Indexer, "the first indexer").unwrap();
        let (told, heard) = std::sync::mpsc::channel();
        let standby = {
            let target = target.clone();
            std::thread::spawn(move || {
                let poll = std::time::Duration::from_millis(20);
                Store::open_standby(&target, Some(poll), |held| {
                    told.send(held.to_string()).unwrap()
                })
            })
        };
        let said = heard
            .recv_timeout(std::time::Duration::from_secs(10))
            .unwrap();
        assert!(
            said.contains("held by another chessref index (the first indexer"),
            "{said}"
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(!standby.is_finished(), "the standby opened a held store");
        let mut admin = postgres::Client::connect(&pg.url(), postgres::NoTls).unwrap();
        let tables = |admin: &mut postgres::Client| -> i64 {
            admin
                .query_one(
                    "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
                    &[],
                )
                .unwrap()
                .get(0)
        };
        assert_eq!(
            tables(&mut admin),
            0,
            "the standby migrated before holding the lock"
        );
        drop(holder);
        let mut store = standby.join().unwrap().unwrap();
        assert!(
            heard.try_recv().is_err(),
            "the holder was told more than once"
        );
        assert!(tables(&mut admin) > 0);
        assert_eq!(store.bind(SOURCE).unwrap(), SOURCE);
        store
            .commit(&batch(5, 9, vec![withdrawn_log(6, 0)]))
            .unwrap();
        // Without a standby interval, a held lock is refused, as open_target does.
        let err = Store::open_standby(&target, None, |_| panic!("told to wait")).unwrap_err();
        assert!(matches!(err, IndexError::HeldPg { .. }), "{err}");
        // A SQLite file's lock is refused even given one: nothing would take it over.
        let path = temp_db("standby");
        let _first = Store::open(&path).unwrap();
        let poll = Some(std::time::Duration::from_millis(20));
        let err = Store::open_standby(&DbTarget::Sqlite(path), poll, |_| panic!("told to wait"))
            .unwrap_err();
        assert!(matches!(err, IndexError::Held { .. }), "{err}");
    }

    #[test]
    fn test_open_migrates_once_in_wal_mode() {
        let path = temp_db("migrate");
        let store = Store::open(&path).unwrap();
        assert_eq!(
            migrations::version(store.connection(), "t").unwrap(),
            migrations::latest()
        );
        drop(store);
        let store = Store::open(&path).unwrap();
        assert_eq!(
            migrations::version(store.connection(), "t").unwrap(),
            migrations::latest()
        );
        let mode: String = store
            .connection()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let fk: i64 = store
            .connection()
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        assert_eq!(fk, 1);
    }

    #[test]
    fn test_newer_schema_is_refused() {
        let path = temp_db("newer");
        let store = Store::open(&path).unwrap();
        store
            .connection()
            .pragma_update(None, "user_version", migrations::latest() + 1)
            .unwrap();
        drop(store);
        assert!(matches!(
            Store::open(&path),
            Err(IndexError::NewerSchema { .. })
        ));
    }

    #[test]
    fn test_bind_refuses_another_referee_and_keeps_its_from_block() {
        on_both("bind", |mut store| {
            store.bind(SOURCE).unwrap();
            let cursor = store.cursor().unwrap();
            assert_eq!(cursor.next_block, 5);
            assert_eq!(cursor.last_hash, None);
            let later = Source {
                from_block: 9,
                ..SOURCE
            };
            assert_eq!(store.bind(later).unwrap(), SOURCE);
            let other = Source {
                referee: Address::ZERO,
                ..SOURCE
            };
            let err = store.bind(other).unwrap_err();
            assert!(matches!(err, IndexError::OtherSource { .. }), "{err}");
        });
    }

    #[test]
    fn test_commit_advances_and_refuses_a_log_stored_twice() {
        on_both("commit", |mut store| {
            store.bind(SOURCE).unwrap();
            store
                .commit(&batch(5, 9, vec![withdrawn_log(6, 0), withdrawn_log(9, 3)]))
                .unwrap();
            let cursor = store.cursor().unwrap();
            assert_eq!(cursor.next_block, 10);
            assert_eq!(cursor.last_hash, Some(hash(9)));
            assert_eq!(count(&mut store, "logs"), 2);
            // Blocks below the final block (7) are pruned.
            let numbers: Vec<u64> = store
                .recent_blocks()
                .unwrap()
                .iter()
                .map(|b| b.number)
                .collect();
            assert_eq!(numbers, [9, 8, 7]);
            // A batch that does not continue the cursor is refused.
            assert!(matches!(
                store.commit(&batch(9, 12, vec![])),
                Err(IndexError::Invariant(_))
            ));
            // A log already stored, even in a well-placed batch, is an invariant violation
            // and the whole batch is rolled back.
            let mut dup = batch(10, 11, vec![withdrawn_log(10, 0)]);
            dup.logs.push(withdrawn_log(10, 0));
            let err = store.commit(&dup).unwrap_err();
            assert!(err.to_string().contains("already stored"), "{err}");
            assert_eq!(store.cursor().unwrap().next_block, 10);
            assert_eq!(count(&mut store, "logs"), 2);
        });
    }

    #[test]
    fn test_rollback_forgets_the_orphaned_blocks() {
        on_both("rollback", |mut store| {
            store.bind(SOURCE).unwrap();
            store
                .commit(&batch(
                    5,
                    12,
                    vec![
                        withdrawn_log(6, 0),
                        withdrawn_log(11, 0),
                        withdrawn_log(12, 1),
                    ],
                ))
                .unwrap();
            let ancestor = store.recent_blocks().unwrap()[2];
            assert_eq!(ancestor.number, 10);
            store.rollback(ancestor).unwrap();
            assert_eq!(count(&mut store, "logs"), 1);
            let cursor = store.cursor().unwrap();
            assert_eq!(cursor.next_block, 11);
            assert_eq!(cursor.last_hash, Some(hash(10)));
            assert_eq!(store.recent_blocks().unwrap()[0].number, 10);
        });
    }

    #[test]
    fn test_a_second_store_on_the_file_is_refused_naming_the_holder() {
        let path = temp_db("held");
        let mut first = Store::open(&path).unwrap();
        first.bind(SOURCE).unwrap();
        let err = Store::open(&path).unwrap_err();
        let IndexError::Held {
            path: named,
            holder,
            lock,
        } = &err
        else {
            panic!("not Held: {err}");
        };
        assert_eq!(named, &path.display().to_string());
        assert_eq!(lock, &format!("{}.lock", path.display()));
        assert!(
            holder.starts_with(&format!("pid {}, since 20", std::process::id())),
            "{holder}"
        );
        let message = err.to_string();
        assert!(
            message.starts_with(&format!(
                "index database {} is held by another chessref index (pid {}",
                path.display(),
                std::process::id()
            )),
            "{message}"
        );
        assert!(message.ends_with("one indexer per file"), "{message}");
        // The refused opener touched nothing: the first one goes on.
        first
            .commit(&batch(5, 6, vec![withdrawn_log(6, 0)]))
            .unwrap();
        drop(first);
        let mut second = Store::open(&path).unwrap();
        assert_eq!(second.cursor().unwrap().next_block, 7);
        assert_eq!(count(&mut second, "logs"), 1);
    }

    #[test]
    fn test_the_relay_opens_and_writes_while_the_indexer_holds_the_file() {
        let path = temp_db("relay-beside");
        let mut store = Store::open(&path).unwrap();
        store.bind(SOURCE).unwrap();
        let mut relay = crate::RelayStore::open(&path).unwrap();
        relay
            .append(U256::from(7), 1, "move", 1, 100, "{}")
            .unwrap();
        store
            .commit(&batch(5, 9, vec![withdrawn_log(6, 0)]))
            .unwrap();
        relay
            .append(U256::from(7), 2, "move", 2, 101, "{}")
            .unwrap();
        assert_eq!(relay.messages(U256::from(7), 0).unwrap().len(), 2);
        assert_eq!(relay.source().unwrap(), Some(SOURCE));
        // A watchtower's opener too, beside both.
        let tower = crate::RelayStore::open(&path).unwrap();
        assert_eq!(count(&mut store, "relay_messages"), 2);
        drop((relay, tower));
        assert!(matches!(Store::open(&path), Err(IndexError::Held { .. })));
    }

    #[test]
    fn test_openers_of_a_fresh_file_at_once_all_migrate() {
        // Two processes that opened a fresh file (bare connections, migrating as the
        // relay and the watchtower do), the indexer's store and a relay's, all at once.
        for round in 0..20 {
            let path = temp_db(&format!("fresh-{round}"));
            // The relay opens an existing file only: an empty one is a fresh database.
            std::fs::File::create(&path).unwrap();
            let start = std::sync::Barrier::new(4);
            let results = std::thread::scope(|scope| {
                let bare: Vec<_> = (0..2)
                    .map(|_| {
                        let mut conn = Connection::open(&path).unwrap();
                        conn.busy_timeout(BUSY_TIMEOUT).unwrap();
                        let start = &start;
                        scope.spawn(move || {
                            start.wait();
                            migrations::migrate(&mut conn, "bare")
                        })
                    })
                    .collect();
                let store = scope.spawn(|| {
                    start.wait();
                    Store::open(&path).map(drop)
                });
                let relay = scope.spawn(|| {
                    start.wait();
                    crate::RelayStore::open(&path).map(drop)
                });
                let mut results: Vec<_> = bare.into_iter().map(|h| h.join().unwrap()).collect();
                results.push(store.join().unwrap());
                results.push(relay.join().unwrap());
                results
            });
            for result in results {
                result.unwrap_or_else(|e| panic!("round {round}: {e}"));
            }
            let store = Store::open(&path).unwrap();
            assert_eq!(
                migrations::version(store.connection(), "t").unwrap(),
                migrations::latest()
            );
            let mode: String = store
                .connection()
                .query_row("PRAGMA journal_mode", [], |r| r.get(0))
                .unwrap();
            assert_eq!(mode, "wal");
        }
    }

    #[test]
    fn test_commit_reads_the_cursor_inside_its_write_transaction() {
        // Another writer (here a bare connection standing for it) holds the write lock
        // while the store commits, and moves the cursor before letting go: the commit
        // must see the moved cursor, not the one it could read before taking the lock.
        let path = temp_db("cursor-race");
        let mut store = Store::open(&path).unwrap();
        store.bind(SOURCE).unwrap();
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let committing = std::thread::spawn(move || {
            let result = store.commit(&batch(5, 9, vec![withdrawn_log(6, 0)]));
            (store, result)
        });
        // Long enough for the commit to be waiting on the write lock.
        std::thread::sleep(std::time::Duration::from_millis(300));
        other
            .execute(
                "UPDATE cursor SET block_number = 9, block_hash = ?1 WHERE id = 1",
                [hash(9).as_slice()],
            )
            .unwrap();
        other.execute_batch("COMMIT").unwrap();
        let (mut store, result) = committing.join().unwrap();
        let err = result.unwrap_err();
        assert!(
            err.to_string()
                .contains("batch 5..=9 does not continue the cursor (next block 10)"),
            "{err}"
        );
        assert_eq!(count(&mut store, "logs"), 0);
        assert_eq!(store.cursor().unwrap().next_block, 10);
    }

    #[test]
    fn test_a_file_deleted_or_replaced_under_the_store_is_refused_by_name() {
        let path = temp_db("gone");
        let mut store = Store::open(&path).unwrap();
        store.bind(SOURCE).unwrap();
        store.check_file().unwrap();
        store
            .commit(&batch(5, 6, vec![withdrawn_log(6, 0)]))
            .unwrap();
        // Another file renamed over it (a restore from a backup, say).
        let other = temp_db("gone-other");
        std::fs::write(&other, b"another file").unwrap();
        std::fs::rename(&other, &path).unwrap();
        let err = store
            .commit(&batch(7, 8, vec![withdrawn_log(8, 0)]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "index database {} was replaced by another file while chessref index had it \
                 open (its writes would go to a file nobody reads): stopped; start chessref \
                 index again to rebuild it",
                path.display()
            )
        );
        // Deleted.
        std::fs::remove_file(&path).unwrap();
        let recent = store.recent_blocks().unwrap()[0];
        for err in [
            store.heartbeat(9).unwrap_err(),
            store.rollback(recent).unwrap_err(),
            store.check_file().unwrap_err(),
        ] {
            let IndexError::FileGone { path: named, what } = &err else {
                panic!("not FileGone: {err}");
            };
            assert_eq!(*named, path.display().to_string());
            assert_eq!(what, "was deleted");
        }
    }

    #[test]
    fn test_commit_refuses_a_batch_off_the_cursors_hash() {
        on_both("cursor-hash", |mut store| {
            store.bind(SOURCE).unwrap();
            store.commit(&batch(5, 9, vec![])).unwrap();
            let mut fork = batch(10, 11, vec![]);
            fork.blocks[0].parent_hash = B256::repeat_byte(7);
            let err = store.commit(&fork).unwrap_err();
            assert!(err.to_string().contains("block 10's parent is"), "{err}");
            assert_eq!(store.cursor().unwrap().next_block, 10);
            // A rollback to a block the index does not hold is refused too.
            let stranger = BlockRef {
                number: 8,
                hash: B256::repeat_byte(8),
                parent_hash: hash(7),
                timestamp: 8,
            };
            let err = store.rollback(stranger).unwrap_err();
            assert!(err.to_string().contains("does not hold"), "{err}");
            assert_eq!(store.cursor().unwrap().next_block, 10);
        });
    }
}
