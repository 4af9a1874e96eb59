//! Follows a `ChessReferee`'s events into a SQLite file, replays every move through
//! chessref-core, and keeps what a front end serves: the lobby, every game's moves,
//! its result, and any divergence between the chain and the rules (docs/INDEX.md).
//!
//! The write side ([`Store`]) belongs to one indexer process; readers
//! ([`crate::read`]) open the same file read-only.

mod error;
pub mod migrations;
pub mod raw;
pub mod store;

pub use error::{IndexError, Result};
pub use raw::{BlockRef, RawLog};
pub use store::{Batch, Cursor, Source, Store};
