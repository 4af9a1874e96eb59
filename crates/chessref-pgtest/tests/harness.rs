//! The harness itself: servers that answer, side by side, and leave nothing behind
//! (no directory, no process, no listener), also when the test owning one panics.

use std::net::{Ipv4Addr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use chessref_pgtest::TempPostgres;
use postgres::{Client, NoTls};

fn query_one_i64(url: &str, sql: &str) -> i64 {
    let mut client = Client::connect(url, NoTls).unwrap();
    client.query_one(sql, &[]).unwrap().get(0)
}

/// Whether process `pid` exists (signal 0 through `kill`).
fn alive(pid: u32) -> bool {
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success()
}

/// Waits (a few seconds at most) until the server `pid` on `port` is gone and `dir` too.
fn assert_gone(pid: u32, port: u16, dir: &Path) {
    let start = Instant::now();
    while alive(pid) && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!alive(pid), "postmaster {pid} still runs after drop");
    assert!(!dir.exists(), "{} still exists after drop", dir.display());
    assert!(
        TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err(),
        "something still listens on port {port} after drop"
    );
}

#[test]
fn test_two_servers_at_once_are_separate_and_removed_on_drop() {
    let a = TempPostgres::start().unwrap();
    let b = TempPostgres::start().unwrap();
    assert_ne!(a.port(), b.port());
    assert_ne!(a.dir(), b.dir());
    // Each is its own cluster: a table made in one is absent from the other.
    let mut ca = Client::connect(&a.url(), NoTls).unwrap();
    ca.batch_execute("CREATE TABLE only_in_a (x BIGINT); INSERT INTO only_in_a VALUES (7)")
        .unwrap();
    assert_eq!(query_one_i64(&a.url(), "SELECT x FROM only_in_a"), 7);
    let mut cb = Client::connect(&b.url(), NoTls).unwrap();
    assert!(cb.query("SELECT x FROM only_in_a", &[]).is_err());
    // Another database on the same server.
    let other = a.create_database("second").unwrap();
    assert!(other.ends_with("/second"));
    assert_eq!(query_one_i64(&other, "SELECT (40 + 2)::BIGINT"), 42);
    drop((ca, cb));

    let (pid_a, port_a, dir_a) = (a.server_pid().unwrap(), a.port(), a.dir().to_owned());
    let (pid_b, port_b, dir_b) = (b.server_pid().unwrap(), b.port(), b.dir().to_owned());
    assert!(alive(pid_a) && alive(pid_b));
    drop(a);
    assert_gone(pid_a, port_a, &dir_a);
    // The other one is untouched.
    assert_eq!(query_one_i64(&b.url(), "SELECT 1::BIGINT"), 1);
    drop(b);
    assert_gone(pid_b, port_b, &dir_b);
}

#[test]
fn test_a_panicking_test_still_removes_its_server() {
    let (tx, rx) = std::sync::mpsc::channel();
    let owner = std::thread::spawn(move || {
        let pg = TempPostgres::start().unwrap();
        tx.send((pg.server_pid().unwrap(), pg.port(), pg.dir().to_owned()))
            .unwrap();
        panic!("the test owning the server fails");
    });
    assert!(owner.join().is_err(), "the owner thread was meant to panic");
    let (pid, port, dir) = rx.recv().unwrap();
    assert_gone(pid, port, &dir);
}

#[test]
fn test_connections_are_refused_to_a_wrong_database() {
    let pg = TempPostgres::start().unwrap();
    let Err(err) = Client::connect(&pg.url_of("absent"), NoTls) else {
        panic!("connected to a database that does not exist");
    };
    // The driver's Display is only "db error": the server's message is in the source.
    let message = err.as_db_error().map(|e| e.message().to_owned());
    assert_eq!(
        message.as_deref(),
        Some("database \"absent\" does not exist"),
        "unexpected error: {err:?}"
    );
}
