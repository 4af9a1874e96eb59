//! The store's two backends behind one interface: SQLite (the default, a file path,
//! through rusqlite) and Postgres (a `postgres://` URL, through the sync `postgres`
//! client pooled by r2d2). SQL is written once, with SQLite's `?1..?N` placeholders
//! ([`sql`] translates them for Postgres); where the dialects differ (the schema's
//! column types) each backend has its own text.
//!
//! The Postgres client blocks: like SQLite's, it runs on the caller's thread, so async
//! callers (the server) call it from `spawn_blocking`, never on a tokio worker.

pub mod advisory;
mod conn;
mod error;
pub mod notify;
pub mod pg_schema;
pub mod sql;
mod target;

pub use advisory::{PgWriterLock, Role};
pub use conn::{Cell, Conn, DEFAULT_POOL_SIZE, Database, Param, Row, Sql, SqliteRef, Tx, WAIT};
pub use error::{DbError, DbResult};
pub use notify::Listener;
pub use target::{DbTarget, PgTarget, TargetError};
