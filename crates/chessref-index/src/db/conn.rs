//! An opened database, its connections and their transactions, with one query API for
//! both backends: typed parameters ([`Param`]) in, typed cells ([`Cell`]) out.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use postgres::NoTls;
use r2d2_postgres::PostgresConnectionManager;
use rusqlite::{OpenFlags, TransactionBehavior};

use super::error::{DbError, DbErrorSource, DbResult, describe};
use super::pg_schema;
use super::sql;
use super::target::{DbTarget, PgTarget};
use crate::migrations;

/// How long a SQLite connection waits for another process's lock, and a caller for a
/// pooled Postgres connection.
pub const WAIT: Duration = Duration::from_secs(5);

/// Connections a Postgres pool keeps at most, unless told otherwise.
pub const DEFAULT_POOL_SIZE: u32 = 8;

type PgPool = r2d2::Pool<PostgresConnectionManager<NoTls>>;
type PgPooled = r2d2::PooledConnection<PostgresConnectionManager<NoTls>>;

/// The pool's last failure to connect, in full: r2d2's own timeout error keeps only the
/// driver error's `Display`, which for a server's refusal is just "db error".
#[derive(Clone, Debug, Default)]
struct LastError(Arc<Mutex<Option<String>>>);

impl r2d2::HandleError<postgres::Error> for LastError {
    fn handle_error(&self, error: postgres::Error) {
        if let Ok(mut last) = self.0.lock() {
            *last = Some(describe(&error));
        }
    }
}

/// A Postgres client: one of the pool's, or a session of its own (`None` once dropped).
enum PgClient {
    Pooled(Option<PgPooled>),
    Own(Option<postgres::Client>),
}

impl PgClient {
    fn get(&mut self) -> &mut postgres::Client {
        match self {
            PgClient::Pooled(c) => c.as_mut().expect("a client is taken only by its drop"),
            PgClient::Own(c) => c.as_mut().expect("a session is taken only by its drop"),
        }
    }
}

impl Drop for PgClient {
    fn drop(&mut self) {
        // A pooled client goes back to its pool, which never blocks, unless its session
        // ended (a server restart): the pool then closes it on the spot. A session closes.
        match self {
            PgClient::Pooled(client) => {
                if let Some(client) = client.take_if(|c| c.is_closed()) {
                    close_off_async(client);
                }
            }
            PgClient::Own(client) => {
                if let Some(client) = client.take() {
                    close_off_async(client);
                }
            }
        }
    }
}

/// A Postgres pool, closed (its connections with it) when the last [`Database`] and
/// [`Conn`] of it are dropped.
struct PoolOwner(Option<PgPool>);

impl PoolOwner {
    fn pool(&self) -> &PgPool {
        self.0.as_ref().expect("the pool is taken only by its drop")
    }
}

impl Drop for PoolOwner {
    fn drop(&mut self) {
        if let Some(pool) = self.0.take() {
            close_off_async(pool);
        }
    }
}

/// Drops `closing` (Postgres clients) where their drop may block: the sync client
/// closes its session by blocking on a runtime of its own, which tokio refuses (a
/// panic, an abort in a destructor) on a thread that drives asynchronous tasks, as the
/// server's do when its last reader or relay connection goes with a request or at
/// shutdown. Inside a tokio runtime the drop runs on a thread of its own.
fn close_off_async<T: Send + 'static>(closing: T) {
    if tokio::runtime::Handle::try_current().is_err() {
        return drop(closing);
    }
    let (give, take) = std::sync::mpsc::channel();
    let closer = std::thread::Builder::new()
        .name("chessref-pg-close".into())
        .spawn(move || drop(take.recv()));
    match closer {
        Ok(_) => {
            let _ = give.send(closing);
        }
        // No thread to close it on: the session is left to the server, which ends it
        // when the process exits (forgetting it blocks nothing).
        Err(_) => std::mem::forget(closing),
    }
}

/// A value a statement takes: what both drivers can bind (`i64`, `String`, `&str`,
/// `Vec<u8>`, `&[u8]`, and `Option`s of them). Integers are `i64`: the schema's
/// integers are SQLite's INTEGER and Postgres's BIGINT.
pub trait Param: rusqlite::ToSql + postgres::types::ToSql + Sync {
    /// As rusqlite's parameter.
    fn sqlite(&self) -> &dyn rusqlite::ToSql;
    /// As the Postgres client's parameter.
    fn pg(&self) -> &(dyn postgres::types::ToSql + Sync);
}

impl<T: rusqlite::ToSql + postgres::types::ToSql + Sync> Param for T {
    fn sqlite(&self) -> &dyn rusqlite::ToSql {
        self
    }
    fn pg(&self) -> &(dyn postgres::types::ToSql + Sync) {
        self
    }
}

/// A value a row's column gives: what both drivers can read (`i64`, `String`,
/// `Vec<u8>`, and `Option`s of them for NULL).
pub trait Cell: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a> {}

impl<T: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a>> Cell for T {}

/// An opened database: a SQLite file, or a pool of connections to a Postgres database.
/// Cloning it shares the pool.
#[derive(Clone)]
pub struct Database(DbInner);

#[derive(Clone)]
enum DbInner {
    /// A SQLite file: each connection opens it anew.
    Sqlite {
        /// The file.
        path: PathBuf,
        /// Its name in errors.
        name: String,
        /// Connections open it read-only (readers beside another process's writer):
        /// never created, migrated or switched to WAL.
        read_only: bool,
    },
    /// A Postgres database behind a pool.
    Postgres {
        /// The connections.
        pool: Arc<PoolOwner>,
        /// Where they go (the password kept out of messages).
        target: PgTarget,
        /// Why the pool last failed to connect.
        last_error: LastError,
    },
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Database").field(&self.name()).finish()
    }
}

impl Database {
    /// Opens `target` and brings its schema to this build's version: a SQLite file is
    /// created when missing; a Postgres pool of at most `pool_size` connections is made,
    /// failing if no connection can be had within [`WAIT`].
    pub fn open(target: &DbTarget, pool_size: u32) -> crate::Result<Database> {
        match target {
            DbTarget::Sqlite(path) => {
                let db = Database(DbInner::Sqlite {
                    path: path.clone(),
                    name: path.display().to_string(),
                    read_only: false,
                });
                db.connect()?.migrate()?;
                Ok(db)
            }
            DbTarget::Postgres(pg) => {
                let mut config = pg.config();
                if config.get_application_name().is_none() {
                    config.application_name(&format!("chessref pid {}", std::process::id()));
                }
                // One connection first, outside the pool: a refusal is reported at once
                // and in full, and it migrates.
                let first = config
                    .connect(NoTls)
                    .map_err(|e| DbError::new(pg.shown(), "connecting", e))?;
                Conn::postgres_session(pg.shown(), first).migrate()?;
                Ok(Database::pool(pg, config, pool_size))
            }
        }
    }

    /// `target` for reading only, without touching it yet: a SQLite file's connections
    /// open it read-only (a missing file is an error of [`Database::connect`]); a
    /// Postgres pool of at most `pool_size` connections connects on demand. Nothing is
    /// created or migrated: the schema is the writer's ([`Conn::schema_version`] says
    /// whether this build reads it).
    pub fn open_read_only(target: &DbTarget, pool_size: u32) -> Database {
        match target {
            DbTarget::Sqlite(path) => Database(DbInner::Sqlite {
                path: path.clone(),
                name: path.display().to_string(),
                read_only: true,
            }),
            DbTarget::Postgres(pg) => {
                let mut config = pg.config();
                if config.get_application_name().is_none() {
                    config.application_name(&format!("chessref reader pid {}", std::process::id()));
                }
                Database::pool(pg, config, pool_size)
            }
        }
    }

    /// A pool of at most `pool_size` connections to `pg` made with `config`, none opened
    /// yet.
    fn pool(pg: &PgTarget, config: postgres::Config, pool_size: u32) -> Database {
        let last_error = LastError::default();
        let manager = PostgresConnectionManager::new(config, NoTls);
        // Unchecked: with no idle connection to keep there is nothing to wait for, and a
        // server down now is reported by the first `connect`, in full.
        let pool = r2d2::Pool::builder()
            .max_size(pool_size.max(1))
            .min_idle(Some(0))
            .connection_timeout(WAIT)
            .error_handler(Box::new(last_error.clone()))
            .build_unchecked(manager);
        Database(DbInner::Postgres {
            pool: Arc::new(PoolOwner(Some(pool))),
            target: pg.clone(),
            last_error,
        })
    }

    /// The database in messages: a path, or a URL without its password.
    pub fn name(&self) -> &str {
        match &self.0 {
            DbInner::Sqlite { name, .. } => name,
            DbInner::Postgres { target, .. } => target.shown(),
        }
    }

    /// A connection: a new one to the SQLite file (WAL mode, foreign keys on; or
    /// read-only, as the file is), or one of the pool's.
    pub fn connect(&self) -> DbResult<Conn> {
        match &self.0 {
            DbInner::Sqlite {
                path,
                name,
                read_only,
            } => {
                let err = |doing| move |e| DbError::new(name, doing, e);
                let flags = if *read_only {
                    OpenFlags::SQLITE_OPEN_READ_ONLY
                } else {
                    OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
                };
                let conn = rusqlite::Connection::open_with_flags(
                    path,
                    flags | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .map_err(err("opening"))?;
                conn.busy_timeout(WAIT)
                    .map_err(err("setting the busy timeout"))?;
                // A reader leaves the file as its writer made it.
                if !*read_only {
                    crate::store::switch_to_wal(&conn, name).map_err(|e| {
                        DbError::new(
                            name,
                            "switching to WAL",
                            DbErrorSource::Value(e.to_string()),
                        )
                    })?;
                    conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")
                        .map_err(err("setting pragmas"))?;
                }
                Ok(Conn {
                    name: name.clone(),
                    inner: ConnInner::Sqlite(conn),
                })
            }
            DbInner::Postgres {
                pool,
                target,
                last_error,
            } => {
                let client = pool.pool().get().map_err(|e| {
                    let mut e = DbError::new(target.shown(), "taking a connection", e);
                    if let Some(last) = last_error.0.lock().ok().and_then(|l| l.clone()) {
                        e.detail = format!("{}: lastly: {last}", e.detail);
                    }
                    e
                })?;
                Ok(Conn {
                    name: target.shown().to_owned(),
                    inner: ConnInner::Postgres {
                        client: Box::new(PgClient::Pooled(Some(client))),
                        statements: HashMap::new(),
                        _pool: Some(pool.clone()),
                    },
                })
            }
        }
    }
}

/// One connection to the database.
pub struct Conn {
    name: String,
    inner: ConnInner,
}

enum ConnInner {
    Sqlite(rusqlite::Connection),
    Postgres {
        client: Box<PgClient>,
        /// Statements prepared on this connection, by their Postgres text.
        statements: HashMap<String, postgres::Statement>,
        /// The pool a pooled client goes back to, kept until it has (fields drop in
        /// order): the pool's close, should this be its last holder, is then
        /// [`PoolOwner`]'s, never the pooled client's own.
        _pool: Option<Arc<PoolOwner>>,
    },
}

/// A transaction: committed by [`Tx::commit`], rolled back when dropped without it.
pub struct Tx<'c> {
    name: &'c str,
    inner: TxInner<'c>,
}

enum TxInner<'c> {
    Sqlite(rusqlite::Transaction<'c>),
    Postgres {
        tx: postgres::Transaction<'c>,
        statements: &'c mut HashMap<String, postgres::Statement>,
    },
}

/// A row of a query's answer.
pub struct Row<'r> {
    name: &'r str,
    doing: &'static str,
    inner: RowInner<'r>,
}

enum RowInner<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    Postgres(&'r postgres::Row),
}

impl Row<'_> {
    /// Column `index` (0-based) as a `T`; a NULL is an error unless `T` is an `Option`.
    pub fn get<T: Cell>(&self, index: usize) -> DbResult<T> {
        match &self.inner {
            RowInner::Sqlite(row) => row
                .get(index)
                .map_err(|e| DbError::new(self.name, self.doing, e)),
            RowInner::Postgres(row) => row
                .try_get(index)
                .map_err(|e| DbError::new(self.name, self.doing, e)),
        }
    }

    /// Integer column `index` as a `T` (the schema's integers are 64-bit on both
    /// backends): a value out of `T`'s range is an error naming the column and value.
    pub fn int<T: TryFrom<i64>>(&self, index: usize) -> DbResult<T> {
        let value: i64 = self.get(index)?;
        T::try_from(value).map_err(|_| {
            let what = format!(
                "column {index} holds {value}, beyond a {}",
                std::any::type_name::<T>()
            );
            DbError::new(self.name, self.doing, DbErrorSource::Value(what))
        })
    }
}

/// Which backend a handle talks to, borrowed for one call (`'c`: a transaction's
/// borrow of its connection).
enum Handle<'a, 'c> {
    Sqlite(&'a rusqlite::Connection),
    Postgres {
        client: PgRef<'a, 'c>,
        statements: &'a mut HashMap<String, postgres::Statement>,
    },
}

/// A Postgres connection or a transaction on one (the driver's `GenericClient` is not
/// object-safe, so the two are told apart here).
enum PgRef<'a, 'c> {
    Client(&'a mut postgres::Client),
    Tx(&'a mut postgres::Transaction<'c>),
}

macro_rules! on_pg {
    ($client:expr, $c:ident => $call:expr) => {
        match $client {
            PgRef::Client($c) => $call,
            PgRef::Tx($c) => $call,
        }
    };
}

impl PgRef<'_, '_> {
    fn prepare(&mut self, sql: &str) -> Result<postgres::Statement, postgres::Error> {
        on_pg!(self, c => c.prepare(sql))
    }

    fn execute(
        &mut self,
        stmt: &postgres::Statement,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<u64, postgres::Error> {
        on_pg!(self, c => c.execute(stmt, params))
    }

    fn query(
        &mut self,
        stmt: &postgres::Statement,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<postgres::Row>, postgres::Error> {
        on_pg!(self, c => c.query(stmt, params))
    }

    fn batch_execute(&mut self, sql: &str) -> Result<(), postgres::Error> {
        on_pg!(self, c => c.batch_execute(sql))
    }
}

/// The statement `sql` (SQLite's spelling) prepared on a Postgres connection, once per
/// connection.
fn pg_statement(
    client: &mut PgRef<'_, '_>,
    statements: &mut HashMap<String, postgres::Statement>,
    sql: &str,
) -> Result<postgres::Statement, postgres::Error> {
    let text = sql::to_postgres(sql);
    if let Some(stmt) = statements.get(text.as_ref()) {
        return Ok(stmt.clone());
    }
    let stmt = client.prepare(&text)?;
    statements.insert(text.into_owned(), stmt.clone());
    Ok(stmt)
}

/// Runs one statement with `params`; the number of rows it changed.
fn execute(
    name: &str,
    handle: Handle<'_, '_>,
    sql: &str,
    params: &[&dyn Param],
    doing: &'static str,
) -> DbResult<u64> {
    let err = |e: DbErrorSource| DbError::new(name, doing, e);
    match handle {
        Handle::Sqlite(conn) => {
            let mut stmt = conn.prepare_cached(sql).map_err(|e| err(e.into()))?;
            let params: Vec<&dyn rusqlite::ToSql> = params.iter().map(|p| p.sqlite()).collect();
            let n = stmt.execute(params.as_slice()).map_err(|e| err(e.into()))?;
            Ok(n as u64)
        }
        Handle::Postgres {
            mut client,
            statements,
        } => {
            let stmt = pg_statement(&mut client, statements, sql).map_err(|e| err(e.into()))?;
            let params: Vec<_> = params.iter().map(|p| p.pg()).collect();
            client.execute(&stmt, &params).map_err(|e| err(e.into()))
        }
    }
}

/// Runs statements without parameters.
fn batch(name: &str, handle: Handle<'_, '_>, sql: &str, doing: &'static str) -> DbResult<()> {
    match handle {
        Handle::Sqlite(conn) => conn
            .execute_batch(sql)
            .map_err(|e| DbError::new(name, doing, e)),
        Handle::Postgres { mut client, .. } => client
            .batch_execute(sql)
            .map_err(|e| DbError::new(name, doing, e)),
    }
}

/// Every row of a query, each made a `T` by `row`.
fn query<T>(
    name: &str,
    handle: Handle<'_, '_>,
    sql: &str,
    params: &[&dyn Param],
    doing: &'static str,
    mut row: impl FnMut(&Row<'_>) -> DbResult<T>,
) -> DbResult<Vec<T>> {
    let err = |e: DbErrorSource| DbError::new(name, doing, e);
    match handle {
        Handle::Sqlite(conn) => {
            let mut stmt = conn.prepare_cached(sql).map_err(|e| err(e.into()))?;
            let params: Vec<&dyn rusqlite::ToSql> = params.iter().map(|p| p.sqlite()).collect();
            let mut rows = stmt.query(params.as_slice()).map_err(|e| err(e.into()))?;
            let mut out = Vec::new();
            while let Some(r) = rows.next().map_err(|e| err(e.into()))? {
                out.push(row(&Row {
                    name,
                    doing,
                    inner: RowInner::Sqlite(r),
                })?);
            }
            Ok(out)
        }
        Handle::Postgres {
            mut client,
            statements,
        } => {
            let stmt = pg_statement(&mut client, statements, sql).map_err(|e| err(e.into()))?;
            let params: Vec<_> = params.iter().map(|p| p.pg()).collect();
            let rows = client.query(&stmt, &params).map_err(|e| err(e.into()))?;
            rows.iter()
                .map(|r| {
                    row(&Row {
                        name,
                        doing,
                        inner: RowInner::Postgres(r),
                    })
                })
                .collect()
        }
    }
}

/// The query API, the same on a [`Conn`] and a [`Tx`]: statements in SQLite's spelling
/// (`?1..?N`), `doing` naming the operation in errors.
pub trait Sql {
    /// The database's name in messages.
    fn db_name(&self) -> &str;

    /// Runs one statement with `params`; the number of rows it changed.
    fn execute(&mut self, sql: &str, params: &[&dyn Param], doing: &'static str) -> DbResult<u64>;

    /// Runs `;`-separated statements without parameters (a schema, a pragma).
    fn batch(&mut self, sql: &str, doing: &'static str) -> DbResult<()>;

    /// Every row of a query, each made a `T` by `row`.
    fn query<T>(
        &mut self,
        sql: &str,
        params: &[&dyn Param],
        doing: &'static str,
        row: impl FnMut(&Row<'_>) -> DbResult<T>,
    ) -> DbResult<Vec<T>>;

    /// The first row of a query, if any.
    fn query_opt<T>(
        &mut self,
        sql: &str,
        params: &[&dyn Param],
        doing: &'static str,
        row: impl FnMut(&Row<'_>) -> DbResult<T>,
    ) -> DbResult<Option<T>> {
        Ok(self.query(sql, params, doing, row)?.into_iter().next())
    }

    /// The one row of a query: none is an error naming `doing`.
    fn query_one<T>(
        &mut self,
        sql: &str,
        params: &[&dyn Param],
        doing: &'static str,
        row: impl FnMut(&Row<'_>) -> DbResult<T>,
    ) -> DbResult<T> {
        let found = self.query_opt(sql, params, doing, row)?;
        found.ok_or_else(|| {
            let none = DbErrorSource::Value("the query returned no row".into());
            DbError::new(self.db_name(), doing, none)
        })
    }
}

macro_rules! sql_api {
    ($ty:ty) => {
        impl Sql for $ty {
            fn db_name(&self) -> &str {
                &self.name
            }

            fn execute(
                &mut self,
                sql: &str,
                params: &[&dyn Param],
                doing: &'static str,
            ) -> DbResult<u64> {
                let (name, handle) = self.handle();
                execute(name, handle, sql, params, doing)
            }

            fn batch(&mut self, sql: &str, doing: &'static str) -> DbResult<()> {
                let (name, handle) = self.handle();
                batch(name, handle, sql, doing)
            }

            fn query<T>(
                &mut self,
                sql: &str,
                params: &[&dyn Param],
                doing: &'static str,
                row: impl FnMut(&Row<'_>) -> DbResult<T>,
            ) -> DbResult<Vec<T>> {
                let (name, handle) = self.handle();
                query(name, handle, sql, params, doing, row)
            }
        }
    };
}

sql_api!(Conn);
sql_api!(Tx<'_>);
sql_api!(SqliteRef<'_>);

/// A SQLite connection (or transaction: it derefs to one) borrowed from code still
/// written on rusqlite (the read side, the SQLite migrations), under the query API: what
/// lets a query written once run there too.
pub struct SqliteRef<'a> {
    name: &'a str,
    conn: &'a rusqlite::Connection,
}

impl<'a> SqliteRef<'a> {
    /// `conn`, named `name` in errors.
    pub fn new(name: &'a str, conn: &'a rusqlite::Connection) -> SqliteRef<'a> {
        SqliteRef { name, conn }
    }

    fn handle(&mut self) -> (&str, Handle<'_, 'static>) {
        (self.name, Handle::Sqlite(self.conn))
    }
}

impl Conn {
    fn handle(&mut self) -> (&str, Handle<'_, 'static>) {
        match &mut self.inner {
            ConnInner::Sqlite(conn) => (&self.name, Handle::Sqlite(conn)),
            ConnInner::Postgres {
                client, statements, ..
            } => (
                &self.name,
                Handle::Postgres {
                    client: PgRef::Client(client.get()),
                    statements,
                },
            ),
        }
    }
}

impl<'c> Tx<'c> {
    fn handle(&mut self) -> (&str, Handle<'_, 'c>) {
        match &mut self.inner {
            TxInner::Sqlite(tx) => (self.name, Handle::Sqlite(tx)),
            TxInner::Postgres { tx, statements } => (
                self.name,
                Handle::Postgres {
                    client: PgRef::Tx(tx),
                    statements,
                },
            ),
        }
    }
}

impl Conn {
    /// A connection of its own to a Postgres database, outside any pool (a session that
    /// holds a session-level lock: [`super::PgWriterLock`]); `name` names it in errors.
    pub fn postgres_session(name: &str, client: postgres::Client) -> Conn {
        Conn {
            name: name.to_owned(),
            inner: ConnInner::Postgres {
                client: Box::new(PgClient::Own(Some(client))),
                statements: HashMap::new(),
                _pool: None,
            },
        }
    }

    /// The database's name in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The SQLite connection, on SQLite (what only SQLite has: tests' raw checks).
    pub fn sqlite(&self) -> Option<&rusqlite::Connection> {
        match &self.inner {
            ConnInner::Sqlite(conn) => Some(conn),
            ConnInner::Postgres { .. } => None,
        }
    }

    /// Whether this is a Postgres connection (where the dialects differ).
    pub fn is_postgres(&self) -> bool {
        matches!(self.inner, ConnInner::Postgres { .. })
    }

    /// Starts a write transaction: SQLite's takes the write lock at once (`BEGIN
    /// IMMEDIATE`), so a read-then-write inside it never meets another writer.
    pub fn transaction(&mut self) -> DbResult<Tx<'_>> {
        self.begin(true)
    }

    /// Starts a read transaction whose reads all see one state of the database: SQLite's
    /// deferred one (no write lock: the indexer's writes are not held up), Postgres's
    /// read-only `REPEATABLE READ` (one snapshot, where `READ COMMITTED` would give each
    /// statement its own).
    pub fn read_transaction(&mut self) -> DbResult<Tx<'_>> {
        self.begin(false)
    }

    fn begin(&mut self, write: bool) -> DbResult<Tx<'_>> {
        let name = &self.name;
        let doing = if write {
            "starting a transaction"
        } else {
            "starting a read transaction"
        };
        let inner = match &mut self.inner {
            ConnInner::Sqlite(conn) => {
                let behavior = if write {
                    TransactionBehavior::Immediate
                } else {
                    TransactionBehavior::Deferred
                };
                TxInner::Sqlite(
                    conn.transaction_with_behavior(behavior)
                        .map_err(|e| DbError::new(name, doing, e))?,
                )
            }
            ConnInner::Postgres {
                client, statements, ..
            } => {
                let mut builder = client.get().build_transaction();
                if !write {
                    builder = builder
                        .isolation_level(postgres::IsolationLevel::RepeatableRead)
                        .read_only(true);
                }
                TxInner::Postgres {
                    tx: builder.start().map_err(|e| DbError::new(name, doing, e))?,
                    statements,
                }
            }
        };
        Ok(Tx { name, inner })
    }

    /// The database's schema version and the one this build reads and writes (SQLite:
    /// `PRAGMA user_version`; Postgres: `chessref_schema`, 0 before the first migration).
    pub fn schema_version(&mut self) -> crate::Result<(i64, i64)> {
        match &mut self.inner {
            ConnInner::Sqlite(conn) => {
                Ok((migrations::version(conn, &self.name)?, migrations::latest()))
            }
            ConnInner::Postgres { .. } => Ok((pg_schema::version(self)?, pg_schema::latest())),
        }
    }

    /// Brings the schema to this build's version (SQLite: [`migrations::migrate`];
    /// Postgres: [`pg_schema::migrate`]); a database newer than this build is
    /// [`crate::IndexError::NewerSchema`].
    pub fn migrate(&mut self) -> crate::Result<()> {
        match &mut self.inner {
            ConnInner::Sqlite(conn) => migrations::migrate(conn, &self.name),
            ConnInner::Postgres { .. } => pg_schema::migrate(self),
        }
    }
}

impl Tx<'_> {
    /// Whether this is a Postgres transaction.
    pub fn is_postgres(&self) -> bool {
        matches!(self.inner, TxInner::Postgres { .. })
    }

    /// Commits.
    pub fn commit(self) -> DbResult<()> {
        let name = self.name;
        match self.inner {
            TxInner::Sqlite(tx) => tx.commit().map_err(|e| DbError::new(name, "committing", e)),
            TxInner::Postgres { tx, .. } => {
                tx.commit().map_err(|e| DbError::new(name, "committing", e))
            }
        }
    }
}
