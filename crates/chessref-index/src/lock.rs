//! One indexer per index file: an OS advisory lock on the sidecar file `PATH.lock`,
//! taken by [`crate::Store::open`] before it touches the database and held for the
//! store's lifetime. The operating system releases it when the holder exits, however it
//! exits (a SIGKILL included), so a lock file left behind is never stale. The relay and
//! the watchtower write only their own tables and do not take it.
//!
//! The holder writes `pid N, since TIME` into the file once it holds the lock, so a
//! second indexer can say who holds it.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{IndexError, Result};
use crate::store::unix_now;
use chessref_evm::moment::rfc3339;

/// The writer lock of one index file, released when dropped.
#[derive(Debug)]
pub(crate) struct WriterLock {
    file: File,
}

/// The lock file of the database at `db`: `db` with `.lock` appended.
pub fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

impl WriterLock {
    /// Takes the writer lock of the database at `db` (named `name` in errors), without
    /// waiting: [`IndexError::Held`] names the holder when another indexer has it.
    pub(crate) fn acquire(db: &Path, name: &str) -> Result<WriterLock> {
        let path = lock_path(db);
        let io = |doing: &'static str| {
            let lock = path.display().to_string();
            move |source| IndexError::LockFile {
                path: name.to_owned(),
                lock,
                doing,
                source,
            }
        };
        // Never truncate on open: the file may hold the current holder's name.
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io("opening"))?;
        // A held lock whose file is empty is being taken (its holder writes its name just
        // after locking) or let go (the holder empties it, then closes it; a process forked
        // meanwhile elsewhere in this one holds the open file until it execs): asked again
        // for a moment before it counts as held.
        let mut asked = 0;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    let named = holder(&mut file);
                    asked += 1;
                    if named.is_some() || asked == EMPTY_LOCK_ASKS {
                        return Err(IndexError::Held {
                            path: name.to_owned(),
                            lock: path.display().to_string(),
                            holder: named.unwrap_or_else(|| {
                                "holder unknown: its lock file is empty".to_owned()
                            }),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(25));
                }
                Err(TryLockError::Error(source)) => return Err(io("locking")(source)),
            }
        }
        let me = format!(
            "pid {}, since {}\n",
            std::process::id(),
            rfc3339(unix_now())
        );
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(me.as_bytes()))
            .and_then(|()| file.flush())
            .map_err(io("writing"))?;
        Ok(WriterLock { file })
    }
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        // Still holding the lock: clear the holder's name, then closing the file
        // releases the lock. (The file itself stays: removing it could let two
        // processes lock two different files of the same name.)
        let _ = self.file.set_len(0);
    }
}

/// How many times a held lock whose file is empty is asked for, 25 ms apart, before it
/// counts as held by an unknown holder.
const EMPTY_LOCK_ASKS: u32 = 40;

/// What the lock file of a held lock says about its holder, if anything.
fn holder(file: &mut File) -> Option<String> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0))
        .and_then(|_| file.read_to_string(&mut text))
        .ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_lock_path_appends() {
        assert_eq!(
            lock_path(Path::new("/x/index.sqlite")),
            Path::new("/x/index.sqlite.lock")
        );
    }

    #[test]
    fn test_a_lock_let_go_while_asked_is_taken_and_a_named_holder_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.sqlite");
        let held = WriterLock::acquire(&db, "index").unwrap();
        match WriterLock::acquire(&db, "index") {
            Err(IndexError::Held { holder, .. }) => {
                assert!(
                    holder.starts_with(&format!("pid {}", std::process::id())),
                    "{holder}"
                );
            }
            other => panic!("a second writer: {other:?}"),
        }
        // An emptied lock file still locked (a holder letting go): asked again, then taken.
        held.file.set_len(0).unwrap();
        let letting_go = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(held);
        });
        WriterLock::acquire(&db, "index").unwrap();
        letting_go.join().unwrap();
    }
}
