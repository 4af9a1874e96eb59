//! One indexer per file, across processes: a store held by another process is refused
//! with the holder's pid, and a holder killed with SIGKILL leaves no stale lock behind
//! (the lock is the operating system's, released with the process).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chessref_index::lock::lock_path;
use chessref_index::{IndexError, RelayStore, Store};

/// Set in the child process: the index file it holds.
const HOLD: &str = "CHESSREF_INDEX_TEST_HOLD";

/// A fresh database path in the temp dir (removed with its WAL and lock files first).
fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chessref-index-lock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.sqlite"));
    for suffix in ["", "-wal", "-shm", ".lock"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

/// Not a test of its own: the child process of the test below (this test binary run
/// again with [`HOLD`] set). It opens the store, says so on stdout and waits to be
/// killed (a minute at most, should its parent be gone).
#[test]
fn child_holds_the_index_until_killed() {
    let Some(path) = std::env::var_os(HOLD) else {
        return;
    };
    let _store = Store::open(Path::new(&path)).unwrap();
    println!("holding {}", std::process::id());
    std::io::stdout().flush().unwrap();
    std::thread::sleep(Duration::from_secs(60));
}

#[test]
fn test_a_killed_holder_releases_the_file() {
    let path = temp_db("killed-holder");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "child_holds_the_index_until_killed",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HOLD, &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let started = Instant::now();
    loop {
        let line = lines
            .next()
            .expect("the child ended before holding the index")
            .unwrap();
        // After the harness's `test NAME ... ` on the same line.
        if let Some((_, held_by)) = line.split_once("holding ") {
            assert_eq!(held_by, pid.to_string());
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "child too slow"
        );
    }

    // Held: the second indexer is refused, naming the file and the holder.
    let err = Store::open(&path).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, IndexError::Held { .. }), "{message}");
    assert!(
        message.starts_with(&format!(
            "index database {} is held by another chessref index (pid {pid}, since ",
            path.display()
        )),
        "{message}"
    );
    // The relay and the watchtower are no indexers: they open the file beside it.
    RelayStore::open(&path).unwrap();

    // SIGKILL: no destructor runs, the lock file stays with the dead holder's name...
    child.kill().unwrap();
    child.wait().unwrap();
    let left = std::fs::read_to_string(lock_path(&path)).unwrap();
    assert!(left.starts_with(&format!("pid {pid}, since ")), "{left}");
    // ... and is no obstacle: the operating system released the lock with the process.
    let store = Store::open(&path).unwrap();
    let now = std::fs::read_to_string(lock_path(&path)).unwrap();
    assert!(
        now.starts_with(&format!("pid {}, since ", std::process::id())),
        "{now}"
    );
    // Dropped, the store clears its name and releases the lock.
    drop(store);
    assert_eq!(std::fs::read_to_string(lock_path(&path)).unwrap(), "");
    drop(Store::open(&path).unwrap());
}
