//! One writer per role on Postgres (a session advisory lock): a second one is refused
//! with the holder named, waits while it lives, and takes over within a bounded time
//! when the holder's process is killed or its connection ended.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chessref_index::IndexError;
use chessref_index::db::{DbTarget, PgTarget, PgWriterLock, Role};
use chessref_pgtest::TempPostgres;
use postgres::{Client, NoTls};

/// Set in the child process: the database URL whose indexer lock it holds.
const HOLD: &str = "CHESSREF_PG_LOCK_TEST_HOLD";

/// How quickly a waiter must take over from a dead holder (it polls every 50 ms).
const TAKEOVER: Duration = Duration::from_secs(5);

fn target(pg: &TempPostgres) -> PgTarget {
    match pg.url().parse::<DbTarget>().unwrap() {
        DbTarget::Postgres(t) => t,
        other => panic!("not a Postgres target: {other:?}"),
    }
}

fn held_by(result: chessref_index::Result<PgWriterLock>) -> String {
    match result {
        Err(IndexError::HeldPg { holder, role, .. }) => format!("{role}: {holder}"),
        other => panic!("expected HeldPg, got {other:?}"),
    }
}

#[test]
fn test_one_writer_per_role_and_the_refusal_names_the_holder() {
    let pg = TempPostgres::start().unwrap();
    let t = target(&pg);
    let mut first = PgWriterLock::try_acquire(&t, Role::Indexer, "chessref index pid 111").unwrap();
    let refused = PgWriterLock::try_acquire(&t, Role::Indexer, "chessref index pid 222");
    let text = held_by(refused);
    assert!(
        text.starts_with("chessref index: chessref index pid 111 from 127.0.0.1, server pid "),
        "{text}"
    );
    let err = PgWriterLock::try_acquire(&t, Role::Indexer, "second").unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "database {} is held by another chessref index (chessref index pid 111",
            t.shown()
        )),
        "{err}"
    );
    // The watchtower's lock is another one.
    let watch = PgWriterLock::try_acquire(&t, Role::Watchtower, "chessref watch pid 333").unwrap();
    assert!(held_by(PgWriterLock::try_acquire(&t, Role::Watchtower, "x")).contains("pid 333"));
    first.check().unwrap();
    // Waiting with a limit gives up naming the holder.
    let start = Instant::now();
    let waited = PgWriterLock::acquire_waiting(
        &t,
        Role::Indexer,
        "patient",
        Duration::from_millis(50),
        Some(Duration::from_millis(300)),
    );
    assert!(held_by(waited).contains("pid 111"));
    assert!(start.elapsed() >= Duration::from_millis(300));
    // Dropping releases it at once.
    drop(first);
    let second = PgWriterLock::try_acquire(&t, Role::Indexer, "chessref index pid 222").unwrap();
    drop((second, watch));
}

#[test]
fn test_an_ended_connection_loses_the_lock_and_the_waiter_takes_over() {
    let pg = TempPostgres::start().unwrap();
    let t = target(&pg);
    let mut holder = PgWriterLock::try_acquire(&t, Role::Watchtower, "doomed watch").unwrap();
    let waiter = {
        let t = t.clone();
        std::thread::spawn(move || {
            let lock = PgWriterLock::acquire_waiting(
                &t,
                Role::Watchtower,
                "next watch",
                Duration::from_millis(50),
                Some(Duration::from_secs(30)),
            );
            (lock, Instant::now())
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    assert!(!waiter.is_finished(), "the waiter took a held lock");
    // An operator (or a network cut) ends the holder's session.
    let mut admin = Client::connect(&pg.url(), NoTls).unwrap();
    let ended = Instant::now();
    let n = admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
            &[&"doomed watch"],
        )
        .unwrap();
    assert_eq!(n, 1);
    let (lock, at) = waiter.join().unwrap();
    let mut lock = lock.unwrap();
    let took = at.duration_since(ended);
    assert!(took < TAKEOVER, "takeover took {took:?}");
    lock.check().unwrap();
    // The old holder finds out before its next write.
    match holder.check() {
        Err(IndexError::LockLost { role, .. }) => assert_eq!(role, "chessref watch"),
        other => panic!("the ended holder still thinks it holds the lock: {other:?}"),
    }
}

/// Not a test of its own: the child process of the test below (this test binary run
/// again with [`HOLD`] set). It takes the indexer lock, says so on stdout and waits to be
/// killed (a minute at most, should its parent be gone).
#[test]
fn child_holds_the_pg_lock_until_killed() {
    let Some(url) = std::env::var_os(HOLD) else {
        return;
    };
    let DbTarget::Postgres(t) = url.to_str().unwrap().parse::<DbTarget>().unwrap() else {
        panic!("not a Postgres URL");
    };
    let holder = format!("chessref index pid {}", std::process::id());
    let _lock = PgWriterLock::try_acquire(&t, Role::Indexer, &holder).unwrap();
    println!("holding {}", std::process::id());
    std::io::stdout().flush().unwrap();
    std::thread::sleep(Duration::from_secs(60));
}

/// The child process, killed when dropped (a failing test leaves no holder behind).
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn test_a_killed_holder_process_is_taken_over() {
    let pg = TempPostgres::start().unwrap();
    let t = target(&pg);
    let mut child = KillOnDrop(
        Command::new(std::env::current_exe().unwrap())
            .args([
                "child_holds_the_pg_lock_until_killed",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(HOLD, pg.url())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );
    let pid = child.0.id();
    let mut lines = BufReader::new(child.0.stdout.take().unwrap()).lines();
    loop {
        let line = lines
            .next()
            .expect("the child exited before holding the lock")
            .unwrap();
        // libtest may have written "test NAME ... " on the same line first.
        if line.ends_with(&format!("holding {pid}")) {
            break;
        }
    }
    // Refused, naming the child.
    let text = held_by(PgWriterLock::try_acquire(&t, Role::Indexer, "me"));
    assert!(
        text.contains(&format!("chessref index pid {pid}")),
        "{text}"
    );

    let waiter = {
        let t = t.clone();
        std::thread::spawn(move || {
            let lock = PgWriterLock::acquire_waiting(
                &t,
                Role::Indexer,
                "successor",
                Duration::from_millis(50),
                Some(Duration::from_secs(30)),
            );
            (lock, Instant::now())
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    assert!(!waiter.is_finished(), "the waiter took a held lock");
    let killed = Instant::now();
    child.0.kill().unwrap(); // SIGKILL: no goodbye to the server
    child.0.wait().unwrap();
    let (lock, at) = waiter.join().unwrap();
    let mut lock = lock.unwrap();
    let took = at.duration_since(killed);
    assert!(took < TAKEOVER, "takeover took {took:?}");
    lock.check().unwrap();
    eprintln!("takeover after SIGKILL of the holder: {took:?}");
}
