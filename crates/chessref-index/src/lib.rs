//! Follows a `ChessReferee`'s events into a SQLite file, replays every move through
//! chessref-core, and keeps what a front end serves: the lobby, every game's moves,
//! its result, and any divergence between the chain and the rules (docs/INDEX.md).
//!
//! The write side ([`Store`]) belongs to one indexer process, which holds the file's
//! writer lock (`PATH.lock`, [`lock`]) while it runs; readers
//! ([`crate::read`]) open the same file read-only. [`ratings`] derives the players'
//! Glicko-2 ratings from the final ended games and keeps them in a table the indexer's
//! writes update.
//! [`tournament`] keeps the knockout events of the referee's tournament, its second log
//! source, derived from their logs in the same transactions.

pub mod backup;
pub mod db;
pub mod derive;
mod error;
pub mod indexer;
pub mod lock;
pub mod migrations;
pub mod ratings;
pub mod raw;
pub mod read;
pub mod relay;
pub mod store;
pub mod tournament;
pub mod watch;

pub use derive::{NewDivergence, Refolded};
pub use error::{IndexError, Result};
pub use indexer::{Indexer, Options, Step};
pub use raw::{BlockRef, RawLog};
pub use relay::{
    NewMessage, NotRelayed, RELAY_CHANNEL, Record, RecordStamp, RelayGame, RelayListener,
    RelayNotice, RelayStore, StoredMessage, Written,
};
pub use store::{Batch, Committed, Cursor, Source, Store};
pub use watch::{Action, Watchtower};
