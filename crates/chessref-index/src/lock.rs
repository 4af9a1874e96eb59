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
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(IndexError::Held {
                    path: name.to_owned(),
                    lock: path.display().to_string(),
                    holder: holder(&mut file),
                });
            }
            Err(TryLockError::Error(source)) => return Err(io("locking")(source)),
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

/// What the lock file of a held lock says about its holder. The holder writes it just
/// after locking, so an empty file is read again for a moment.
fn holder(file: &mut File) -> String {
    for _ in 0..40 {
        let mut text = String::new();
        if file
            .seek(SeekFrom::Start(0))
            .and_then(|_| file.read_to_string(&mut text))
            .is_ok()
        {
            let text = text.trim();
            if !text.is_empty() {
                return text.to_owned();
            }
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    "holder unknown: its lock file is empty".to_owned()
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
}
