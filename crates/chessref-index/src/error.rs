//! The indexer's errors: each names what failed and where.

use chessref_evm::ChainError;

/// A failure of the index: its database, the chain it follows, or an invariant.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The SQLite database failed (`path`, what was being done, SQLite's message).
    #[error("index database {path}: {doing}: {source}")]
    Db {
        /// The database file.
        path: String,
        /// What the indexer was doing.
        doing: &'static str,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// A database of either backend failed (the database, what was being done, the
    /// driver's message).
    #[error(transparent)]
    Store(Box<crate::db::DbError>),
    /// Another process holds the Postgres writer lock of this role (one indexer, and
    /// one watchtower, per database).
    #[error("database {db} is held by another {role} ({holder}): one {role} writes at a time")]
    HeldPg {
        /// The database, without its password.
        db: String,
        /// Which writer: `chessref index` or `chessref watch`.
        role: String,
        /// Who holds it: its application name, client address, server pid and since when.
        holder: String,
    },
    /// The Postgres writer lock was lost (its connection died or was ended): this
    /// process must stop writing.
    #[error("database {db}: the {role} writer lock was lost ({why}): stopped writing")]
    LockLost {
        /// The database, without its password.
        db: String,
        /// Which writer.
        role: String,
        /// What happened.
        why: String,
    },
    /// No index file at `path` yet: `chessref index --db PATH` creates it (a relay or a
    /// watchtower started beside the indexer waits for it).
    #[error("{path}: no such index file (start chessref index --db {path} first)")]
    NoIndexFile {
        /// The database file.
        path: String,
    },
    /// The database was written by a newer chessref (its `user_version` is unknown).
    #[error("index database {path} has schema version {found}; this chessref knows up to {known}")]
    NewerSchema {
        /// The database file.
        path: String,
        /// Its `PRAGMA user_version`.
        found: i64,
        /// The newest migration this build has.
        known: i64,
    },
    /// The database indexes another referee or chain than the one asked for.
    #[error("index database {path} follows {stored}, not {asked}: use another --db")]
    OtherSource {
        /// The database file.
        path: String,
        /// What the database follows (`referee ADDR on chain ID`).
        stored: String,
        /// What was asked.
        asked: String,
    },
    /// Another indexer holds the file's writer lock (one indexer per file).
    #[error(
        "index database {path} is held by another chessref index ({holder}; lock file {lock}): \
         one indexer per file"
    )]
    Held {
        /// The database file.
        path: String,
        /// Its lock file (`PATH.lock`).
        lock: String,
        /// What the lock file says about the holder: `pid N, since TIME`.
        holder: String,
    },
    /// The writer lock's file could not be opened, locked or written.
    #[error("index database {path}: {doing} its lock file {lock}: {source}")]
    LockFile {
        /// The database file.
        path: String,
        /// Its lock file.
        lock: String,
        /// What was being done.
        doing: &'static str,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A relay message's number is not its game's next one in the store: another relay
    /// on the same database (or this one, before an answer it lost) stored the game up
    /// to `stored` first. Nothing of the message is stored; the relay reads the game
    /// back and checks its frame again.
    #[error(
        "database {db}: relay message {seq} of game {game} does not follow the stored {stored} \
         (the game moved on under this relay: read it back)"
    )]
    RelaySeq {
        /// The database, without its password.
        db: String,
        /// The game.
        game: String,
        /// The number the message was to be stored at.
        seq: u64,
        /// The game's latest stored number (at least).
        stored: u64,
    },
    /// A backup could not be made at `to` (`chessref index backup`): nothing is left
    /// there.
    #[error("backup to {to}: {why}")]
    Backup {
        /// The backup's file.
        to: String,
        /// What went wrong.
        why: String,
    },
    /// The chain failed or could not be reached.
    #[error(transparent)]
    Chain(#[from] ChainError),
    /// The node answered something the index cannot hold (a number beyond SQLite's
    /// integers, a log outside the range of a batch).
    #[error("the node answered inconsistently: {0}")]
    BadAnswer(String),
    /// The node contradicted itself on [`crate::indexer::CONTRADICTIONS_MAX`] steps in a
    /// row (a log's block hash that is not its block's, a block of another number than
    /// asked, a hash that changes between two calls, ...): nothing of those steps was
    /// stored.
    #[error(
        "the node at {url} answered inconsistently on {steps} steps in a row, lastly: {what}; \
         stopped (nothing of those steps was stored)"
    )]
    Contradicted {
        /// Endpoint.
        url: String,
        /// How many steps in a row.
        steps: u32,
        /// What the last one contradicted.
        what: String,
    },
    /// The referee's logs of one block make an `eth_getLogs` answer longer than the bound
    /// (`--max-log-bytes`): one block cannot be split further.
    #[error(
        "the node at {url} answers eth_getLogs of block {block} alone with more than {limit} \
         bytes: one block cannot be split; if the node is right, raise --max-log-bytes"
    )]
    LogsTooLarge {
        /// Endpoint.
        url: String,
        /// The block.
        block: u64,
        /// The bound, in bytes.
        limit: usize,
    },
    /// The database file was deleted or replaced under the running indexer: what it
    /// writes would go to a file no reader opens.
    #[error(
        "index database {path} {what} while chessref index had it open (its writes would go \
         to a file nobody reads): stopped; start chessref index again to rebuild it"
    )]
    FileGone {
        /// The database file.
        path: String,
        /// What became of it: `was deleted`, `was replaced by another file`.
        what: String,
    },
    /// The database file was deleted or replaced under the running relay: a message it
    /// stored would go to a file no reader (nor a restarted relay) opens, checked against
    /// game records the indexer no longer moves.
    #[error(
        "index database {path} {what} while chessref serve's relay had it open (a message \
         stored there would be lost, checked against records nobody updates): the relay \
         takes no more messages; restart chessref serve"
    )]
    RelayFileGone {
        /// The database file.
        path: String,
        /// What became of it: `was deleted`, `was replaced by another file`.
        what: String,
    },
    /// The chain reorganised below the confirmation depth: blocks the index holds as
    /// final were replaced.
    #[error(
        "reorg deeper than the confirmation depth: block {block} changed but the index holds \
         blocks up to {final_block} as final (raise --confirmations and re-index)"
    )]
    DeepReorg {
        /// The deepest block found changed.
        block: u64,
        /// The last final block.
        final_block: u64,
    },
    /// An invariant of the index broke (a log stored twice, a missing row): a bug, never
    /// silently repaired.
    #[error("index invariant violated: {0}")]
    Invariant(String),
}

impl From<crate::db::DbError> for IndexError {
    fn from(e: crate::db::DbError) -> IndexError {
        IndexError::Store(Box::new(e))
    }
}

/// `Result` of the index.
pub type Result<T, E = IndexError> = std::result::Result<T, E>;

/// Attaches the database path and the operation to SQLite errors.
pub(crate) trait DbContext<T> {
    /// The error as an [`IndexError::Db`] of `path` while `doing`.
    fn db(self, path: &str, doing: &'static str) -> Result<T>;
}

impl<T> DbContext<T> for rusqlite::Result<T> {
    fn db(self, path: &str, doing: &'static str) -> Result<T> {
        self.map_err(|source| IndexError::Db {
            path: path.to_owned(),
            doing,
            source,
        })
    }
}
