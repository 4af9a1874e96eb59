//! An online backup of a SQLite index (`chessref index backup`, docs/OPERATIONS.md):
//! a consistent copy of the whole database, taken while the indexer, the relay and the
//! watchtower go on writing it. Restoring is pointing `--db` at the copy.
//!
//! The file is never copied by hand: a WAL database is its file *and* its `-wal`, and a
//! copy of the two taken while a writer commits is torn. SQLite's online backup API
//! copies the pages through a read transaction instead. The copy is taken in one step
//! (`sqlite3_backup_step(-1)`): one read transaction, so one snapshot, which the
//! writers' commits neither block (WAL) nor restart (a backup taken in several steps
//! starts over whenever another connection writes the source between two of them, and
//! may never end beside a busy indexer).
//!
//! Postgres is backed up with its own tools, `pg_dump -Fc` and `pg_restore`
//! (docs/OPERATIONS.md gives the commands; a test runs them).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

use crate::db::DbTarget;
use crate::error::{DbContext, IndexError, Result};
use crate::read::{self, Health};

/// How long the backup waits for a source that stays busy (a WAL being recovered).
const BUSY_WAIT: Duration = Duration::from_secs(5);

/// A backup made: where, what it holds, and what it took.
#[derive(Debug)]
pub struct BackupReport {
    /// The copy.
    pub to: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// The copy's source and cursor: its `indexed_block` is where an indexer started on
    /// the copy resumes (the block after it).
    pub health: Health,
    /// How long the copy and its check took.
    pub elapsed: Duration,
}

/// Copies the SQLite index at `db` to the new file `to`, consistently, while other
/// processes may be writing `db`; then checks the copy (`PRAGMA quick_check`, and that
/// this build reads its schema). The copy is written beside `to` under a temporary name
/// and renamed to `to` only once checked, so `to` is a whole backup or absent. `to` must
/// not exist: a backup never overwrites a file.
pub fn backup_sqlite(db: &Path, to: &Path) -> Result<BackupReport> {
    let started = Instant::now();
    let name = db.display().to_string();
    if !db.is_file() {
        return Err(IndexError::NoIndexFile { path: name });
    }
    let refused = |why: String| IndexError::Backup {
        to: to.display().to_string(),
        why,
    };
    if to.exists() {
        return Err(refused(
            "the file exists (a backup never overwrites one: remove it or name another)".into(),
        ));
    }
    let partial = partial_path(to);
    let result = copy_and_check(db, &name, &partial, &refused);
    let health = match result {
        Ok(health) => health,
        Err(e) => {
            remove_sqlite_files(&partial);
            return Err(e);
        }
    };
    // Not `rename`: it replaces a `to` made meanwhile; `hard_link` refuses one.
    std::fs::hard_link(&partial, to)
        .map_err(|e| refused(format!("naming the copy {}: {e}", partial.display())))?;
    remove_sqlite_files(&partial);
    let bytes = std::fs::metadata(to)
        .map_err(|e| refused(format!("reading its size: {e}")))?
        .len();
    Ok(BackupReport {
        to: to.to_path_buf(),
        bytes,
        health,
        elapsed: started.elapsed(),
    })
}

/// Copies `db` into `partial` in one step, then checks the copy.
fn copy_and_check(
    db: &Path,
    name: &str,
    partial: &Path,
    refused: &dyn Fn(String) -> IndexError,
) -> Result<Health> {
    // Read-only: the backup never creates, migrates or checkpoints the live index.
    let source = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .db(name, "opening for a backup")?;
    let shown = partial.display().to_string();
    remove_sqlite_files(partial);
    {
        let mut copy = Connection::open(partial).db(&shown, "creating the backup")?;
        let backup = Backup::new(&source, &mut copy).db(&shown, "starting the backup")?;
        let deadline = Instant::now() + BUSY_WAIT;
        loop {
            match backup.step(-1).db(&shown, "copying the pages")? {
                StepResult::Done => break,
                // A step of -1 pages copies all of them or nothing.
                StepResult::More | StepResult::Busy | StepResult::Locked
                    if Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(20));
                }
                other => {
                    return Err(refused(format!(
                        "the index {name} stayed busy for {} s ({other:?})",
                        BUSY_WAIT.as_secs()
                    )));
                }
            }
        }
    }
    let check = Connection::open_with_flags(partial, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .db(&shown, "opening the backup to check it")?;
    let verdict: String = check
        .query_row("PRAGMA quick_check", [], |row| row.get(0))
        .db(&shown, "checking the backup")?;
    if verdict != "ok" {
        return Err(refused(format!(
            "the copy fails SQLite's quick_check: {verdict}"
        )));
    }
    // Closing the last connection folds its WAL into the file: the copy is one file.
    check
        .close()
        .map_err(|(_, e)| e)
        .db(&shown, "closing the backup")?;
    let mut reader = read::open(&DbTarget::Sqlite(partial.to_path_buf()))
        .map_err(|e| refused(format!("the copy cannot be read as an index: {e}")))?;
    reader
        .health()
        .map_err(|e| refused(format!("reading the copy's cursor: {e}")))
}

/// `to`'s temporary name while it is written: beside it (the rename stays on one file
/// system), marked with this process's id.
fn partial_path(to: &Path) -> PathBuf {
    let mut name = to.as_os_str().to_owned();
    name.push(format!(".partial-{}", std::process::id()));
    PathBuf::from(name)
}

/// Removes the SQLite file `path` and its `-wal` and `-shm`, where present.
fn remove_sqlite_files(path: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A WAL database with one table, kept open for writing (its WAL holds the commits).
    fn live(path: &Path) -> Connection {
        let conn = Connection::open(path).unwrap();
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .unwrap();
        conn.execute_batch("PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (x INTEGER);")
            .unwrap();
        conn
    }

    #[test]
    fn test_an_existing_file_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.sqlite");
        let _conn = live(&db);
        let to = dir.path().join("copy.sqlite");
        std::fs::write(&to, "an older backup").unwrap();
        let err = backup_sqlite(&db, &to).unwrap_err().to_string();
        assert!(
            err.contains("copy.sqlite") && err.contains("exists"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&to).unwrap(), "an older backup");
    }

    #[test]
    fn test_a_missing_index_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("absent.sqlite");
        let err = backup_sqlite(&db, &dir.path().join("copy.sqlite")).unwrap_err();
        assert!(matches!(err, IndexError::NoIndexFile { .. }), "{err}");
        assert!(!db.exists(), "the backup created the source");
    }

    #[test]
    fn test_a_database_that_is_no_index_is_refused_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("other.sqlite");
        let conn = live(&db);
        conn.execute("INSERT INTO t VALUES (1)", []).unwrap();
        let to = dir.path().join("copy.sqlite");
        let err = backup_sqlite(&db, &to).unwrap_err().to_string();
        assert!(err.contains("cannot be read as an index"), "{err}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("copy"))
            .collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }
}
