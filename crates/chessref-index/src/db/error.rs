//! A failure of either backend, naming the database (never with its password) and what
//! was being done.

/// A database operation failed.
#[derive(Debug, thiserror::Error)]
#[error("database {db}: {doing}: {detail}")]
pub struct DbError {
    /// The database: a SQLite path or a Postgres URL without its password.
    pub db: String,
    /// What was being done.
    pub doing: &'static str,
    /// The driver's message, with its causes (the Postgres driver's own `Display` is only
    /// "db error": the server's message is in its source).
    pub detail: String,
    /// The driver's error.
    #[source]
    pub source: Box<DbErrorSource>,
}

/// The driver error behind a [`DbError`].
#[derive(Debug, thiserror::Error)]
pub enum DbErrorSource {
    /// rusqlite.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// The Postgres client.
    #[error(transparent)]
    Postgres(#[from] postgres::Error),
    /// The Postgres connection pool (no connection within its timeout).
    #[error(transparent)]
    Pool(#[from] r2d2::Error),
    /// A value the store cannot hold or read (a row of an unexpected shape).
    #[error("{0}")]
    Value(String),
}

impl DbErrorSource {
    /// The Postgres server's SQLSTATE, when the server refused something.
    pub fn sqlstate(&self) -> Option<&postgres::error::SqlState> {
        match self {
            DbErrorSource::Postgres(e) => e.code(),
            _ => None,
        }
    }
}

impl DbError {
    /// `source` as the error of `db` while `doing`.
    pub fn new(db: &str, doing: &'static str, source: impl Into<DbErrorSource>) -> DbError {
        let source = source.into();
        DbError {
            db: db.to_owned(),
            doing,
            detail: describe(&source),
            source: Box::new(source),
        }
    }
}

impl DbError {
    /// Whether a constraint refused the statement (a UNIQUE key, a CHECK, a foreign key).
    pub fn is_constraint_violation(&self) -> bool {
        match &*self.source {
            DbErrorSource::Sqlite(rusqlite::Error::SqliteFailure(f, _)) => {
                f.code == rusqlite::ErrorCode::ConstraintViolation
            }
            // SQLSTATE class 23: integrity constraint violation.
            DbErrorSource::Postgres(e) => e.code().is_some_and(|c| c.code().starts_with("23")),
            _ => false,
        }
    }

    /// Whether a primary key or UNIQUE constraint refused the statement (a row whose key
    /// is taken), as opposed to a CHECK, a foreign key or a trigger.
    pub fn is_unique_violation(&self) -> bool {
        match &*self.source {
            DbErrorSource::Sqlite(rusqlite::Error::SqliteFailure(f, _)) => matches!(
                f.extended_code,
                rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
                    | rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
            ),
            DbErrorSource::Postgres(e) => {
                e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION)
            }
            _ => false,
        }
    }
}

/// `Result` of the database layer.
pub type DbResult<T> = std::result::Result<T, DbError>;

/// An error and its causes, `: `-separated, each once (wrappers often repeat their
/// source's text), with the Postgres server's detail and hint when it gave them.
pub(crate) fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(cause) = next {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        next = cause.source();
    }
    if let Some(db) = find_db_error(error) {
        if let Some(detail) = db.detail() {
            text.push_str(&format!(" (detail: {detail})"));
        }
        if let Some(hint) = db.hint() {
            text.push_str(&format!(" (hint: {hint})"));
        }
    }
    text
}

fn find_db_error<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> Option<&'a postgres::error::DbError> {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = next {
        if let Some(db) = e.downcast_ref::<postgres::error::DbError>() {
            return Some(db);
        }
        next = e.source();
    }
    None
}
