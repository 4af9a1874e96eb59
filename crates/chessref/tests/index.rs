//! `chessref index` as a process against anvil: killed (SIGKILL) in the middle of a
//! back-fill and restarted, it ends with every game exactly once; pointed at a contract
//! that lies, it prints the DIVERGENCE and exits 1 with `--fail-on-divergence`; at a
//! node that never answers, it names it within `--rpc-timeout`, and retries one that
//! stopped answering; started twice on one file, the second is refused with the first
//! one's pid; at a node whose block hashes never settle, it says why it retries and then
//! names the node (exit 2); an `eth_getLogs` answer over `--max-log-bytes` for one block
//! is named; its database deleted under it, it stops naming the file. Into a throwaway
//! Postgres, `chessref serve --index URL` over it answers as over the SQLite file of the
//! same chain. Two on one Postgres, the second waits as a standby and takes over at
//! the cursor when the first is killed.

#[path = "../../chessref-index/tests/common/mod.rs"]
mod common;
#[path = "../../chessref-index/tests/common/compare.rs"]
mod compare;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use alloy_primitives::Address;
use chessref_evm::{RpcChain, anvil::Anvil, lying_node::LyingNode, stalled_node::StalledNode};
use chessref_index::Store;
use chessref_index::db::{Conn, Database, DbTarget, Sql};
use common::{SHORT_GAMES, count, deploy, games, indexed, lie, play, referee, temp_db};
use rusqlite::{Connection, OpenFlags};
use serde_json::{Value, json};

fn index_command(
    anvil: &Anvil,
    referee: Address,
    db: impl AsRef<std::ffi::OsStr>,
    extra: &[&str],
) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chessref"));
    command
        .args(["index", "--rpc", anvil.url(), "--referee"])
        .arg(referee.to_string())
        .arg("--db")
        .arg(db)
        .args(extra);
    command
}

fn run_index(
    anvil: &Anvil,
    referee: Address,
    db: impl AsRef<std::ffi::OsStr>,
    extra: &[&str],
) -> Output {
    index_command(anvil, referee, db, extra).output().unwrap()
}

/// The cursor's last indexed block, read as the server would (read-only), if any yet.
fn cursor(db: &Path) -> Option<i64> {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
    conn.query_row("SELECT block_number FROM cursor", [], |r| r.get(0))
        .ok()
}

#[test]
fn test_killed_mid_backfill_and_restarted_ends_with_every_game_once() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    // Sixteen real games, about 170 blocks.
    let pgn = SHORT_GAMES.repeat(4);
    let played = play(&mut replayer, &games(&pgn, 16));
    let address = referee(&mut replayer);
    let head = RpcChain::connect_read_only(anvil.url())
        .unwrap()
        .head()
        .unwrap() as i64;
    let db = temp_db("killed");
    // One block per step: slow enough to be killed in the middle, twice.
    let slow = ["--once", "--batch-blocks", "1", "--confirmations", "3"];
    let mut kills = Vec::new();
    for stop_after in [head / 3, 2 * head / 3] {
        let mut child = index_command(&anvil, address, &db, &slow)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while cursor(&db).is_none_or(|block| block < stop_after) {
            assert!(started.elapsed() < Duration::from_secs(60), "no progress");
            assert!(
                child.try_wait().unwrap().is_none(),
                "exited before the kill"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        kills.push(cursor(&db).unwrap());
    }
    assert!(
        kills[0] < kills[1] && kills[1] < head,
        "killed at {kills:?} of {head}"
    );
    let output = run_index(&anvil, address, &db, &["--once", "--confirmations", "3"]);
    assert!(output.status.success(), "{output:?}");
    let conn = Connection::open(&db).unwrap();
    assert_eq!(indexed(&conn), played);
    let plies: usize = played.iter().map(|p| p.moves.len()).sum();
    assert_eq!(count(&conn, "games") as usize, played.len());
    assert_eq!(count(&conn, "moves") as usize, plies);
    let on_chain = RpcChain::connect_read_only(anvil.url())
        .unwrap()
        .logs(address, 0, head as u64, None)
        .unwrap()
        .len();
    assert_eq!(count(&conn, "logs") as usize, on_chain);
    // The summary line counts the same.
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["games"], played.len());
    assert_eq!(summary["moves"], plies);
}

#[test]
fn test_fail_on_divergence_prints_the_evidence_and_exits_1() {
    let anvil = Anvil::spawn().unwrap();
    let address = lie(&anvil);
    let db = temp_db("cli-divergence");
    let output = run_index(
        &anvil,
        address,
        &db,
        &["--confirmations", "0", "--fail-on-divergence", "--once"],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("DIVERGENCE"))
        .unwrap_or_else(|| panic!("no DIVERGENCE line: {stderr}"));
    assert!(line.contains("game 7 MovePlayed"), "{line}");
    assert!(line.contains("0x"), "the raw event: {line}");
    // Without the flag it keeps indexing: --once reaches the head and exits 0.
    let db = temp_db("cli-divergence-kept");
    let output = run_index(&anvil, address, &db, &["--confirmations", "0", "--once"]);
    assert!(output.status.success(), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("DIVERGENCE"));
}

#[test]
fn test_bad_arguments_are_named() {
    let anvil = Anvil::spawn().unwrap();
    let db = temp_db("cli-bad");
    let output = run_index(&anvil, Address::ZERO, &db, &["--batch-blocks", "0"]);
    assert_eq!(output.status.code(), Some(2));
    let output = Command::new(env!("CARGO_BIN_EXE_chessref"))
        .args(["index", "--rpc", anvil.url(), "--referee", "0x12", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("'0x12' for '--referee"));
    // No --referee and no deployments file: named.
    let output = Command::new(env!("CARGO_BIN_EXE_chessref"))
        .args([
            "index",
            "--rpc",
            anvil.url(),
            "--deployments",
            "/nonexistent/deployments.json",
            "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent/deployments.json"));
    let output = Command::new(env!("CARGO_BIN_EXE_chessref"))
        .args(["index", "--rpc", "http://127.0.0.1:1", "--referee"])
        .arg(Address::ZERO.to_string())
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("127.0.0.1:1"));
}

/// `chessref index` at a node that accepts and never answers: connecting is named
/// within `--rpc-timeout`, exit 2.
#[test]
fn test_a_silent_node_is_named_within_the_timeout() {
    let node = StalledNode::silent().unwrap();
    let url = node.url();
    let db = temp_db("cli-silent");
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_chessref"))
        .args(["index", "--rpc", &url, "--referee"])
        .arg(Address::ZERO.to_string())
        .arg("--db")
        .arg(&db)
        .args(["--once", "--rpc-timeout", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    let waited = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        waited >= Duration::from_secs(2) && waited < Duration::from_secs(7),
        "{waited:?}"
    );
    assert_eq!(
        stderr.trim(),
        format!("chessref: error: the node at {url} did not answer eth_chainId within 2 s")
    );
}

/// A node that answers the chain id, then nothing: the running index says so on stderr,
/// naming the node, the pause before the next try (doubling) and how far behind it is,
/// and goes on trying.
#[test]
fn test_a_node_that_stops_answering_is_retried_and_reported() {
    let node = StalledNode::answering_chain_id(31337).unwrap();
    let url = node.url();
    let db = temp_db("cli-stalled");
    let mut child = Command::new(env!("CARGO_BIN_EXE_chessref"))
        .args(["index", "--rpc", &url, "--referee"])
        .arg(Address::ZERO.to_string())
        .arg("--db")
        .arg(&db)
        .args(["--once", "--rpc-timeout", "0.5"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (lines, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr).lines() {
            if lines.send(line.unwrap_or_default()).is_err() {
                break;
            }
        }
    });
    let mut retries = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while retries.len() < 2 {
        let left = deadline.saturating_duration_since(Instant::now());
        match received.recv_timeout(left) {
            Ok(line) if line.contains("retrying") => retries.push(line),
            Ok(_) => {}
            Err(_) => break,
        }
    }
    let still_running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        still_running,
        "a timeout alone never stops the index: {retries:?}"
    );
    assert_eq!(retries.len(), 2, "{retries:?}");
    let prefix =
        format!("chessref index: the node at {url} did not answer eth_blockNumber within 0.5 s; ");
    assert!(
        retries[0].starts_with(&format!("{prefix}retrying in 1 s (index ")),
        "{retries:?}"
    );
    assert!(
        retries[1].starts_with(&format!("{prefix}retrying in 2 s (index ")),
        "{retries:?}"
    );
    assert!(retries[1].ends_with(" s behind)"), "{retries:?}");
}

#[test]
fn test_deployments_file_gives_the_referee_and_its_block() {
    let anvil = Anvil::spawn().unwrap();
    // Some blocks before the deployment, which the index must not read.
    let node = RpcChain::connect(anvil.url()).unwrap();
    for _ in 0..5 {
        node.raw_request("evm_mine", serde_json::json!([])).unwrap();
    }
    let file = temp_db("deployments").with_extension("json");
    let _ = std::fs::remove_file(&file);
    let deployed = Command::new(env!("CARGO_BIN_EXE_chessref"))
        .args(["deploy", "--rpc", anvil.url(), "--deployments"])
        .arg(&file)
        .env_remove("CHESSREF_PRIVATE_KEY")
        .env_remove("CHESSREF_PRIVATE_KEYS")
        .env(
            "CHESSREF_PRIVATE_KEY",
            "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
        )
        .output()
        .unwrap();
    assert!(deployed.status.success(), "{deployed:?}");
    let entry = chessref_evm::deployments::Deployments::load(&file)
        .unwrap()
        .for_chain(31337)
        .unwrap()
        .clone();
    let (address, block) = (entry.referee().unwrap(), entry.referee_block().unwrap());
    let mut replayer = common::replayer_at(&anvil, address);
    let played = play(&mut replayer, &games(SHORT_GAMES, 2));
    let db = temp_db("from-deployments");
    let output = Command::new(env!("CARGO_BIN_EXE_chessref"))
        .args(["index", "--rpc", anvil.url(), "--once", "--deployments"])
        .arg(&file)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let conn = Connection::open(&db).unwrap();
    assert_eq!(indexed(&conn), played);
    let (referee, from_block): (String, i64) = conn
        .query_row("SELECT referee, from_block FROM source", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(referee, address.to_string());
    assert_eq!(Some(from_block as u64), block);
    assert!(from_block > 5);
}

#[test]
fn test_two_indexers_started_at_once_on_one_file_one_is_refused_naming_the_holder() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    let played = play(&mut replayer, &games(SHORT_GAMES, 2));
    let address = referee(&mut replayer);
    let db = temp_db("two-indexers");
    // Both follow the chain until killed; started at once on a fresh file.
    let follow = ["--confirmations", "0", "--poll-ms", "20"];
    let mut children: Vec<_> = (0..2)
        .map(|_| {
            index_command(&anvil, address, &db, &follow)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let started = Instant::now();
    let refused = loop {
        if let Some(i) = (0..2).find(|&i| children[i].try_wait().unwrap().is_some()) {
            break i;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "both indexers kept running on one file"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut holder = children.remove(1 - refused);
    let output = children.remove(0).wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let expected = format!(
        "chessref: error: index database {} is held by another chessref index (pid {}, since ",
        db.display(),
        holder.id()
    );
    assert!(stderr.starts_with(&expected), "{stderr}");
    assert!(
        stderr.trim_end().ends_with("one indexer per file"),
        "{stderr}"
    );
    // The holder goes on indexing: it reaches the head.
    let head = RpcChain::connect_read_only(anvil.url())
        .unwrap()
        .head()
        .unwrap() as i64;
    while cursor(&db).is_none_or(|block| block < head) {
        assert!(started.elapsed() < Duration::from_secs(60), "no progress");
        assert!(holder.try_wait().unwrap().is_none(), "the holder stopped");
        std::thread::sleep(Duration::from_millis(10));
    }
    // Another one started later is refused too, and changes nothing.
    let later = run_index(&anvil, address, &db, &["--once", "--confirmations", "0"]);
    assert_eq!(later.status.code(), Some(2), "{later:?}");
    assert!(String::from_utf8_lossy(&later.stderr).starts_with(&expected));
    // Killed (SIGKILL), the holder leaves no lock behind: the next one resumes.
    holder.kill().unwrap();
    holder.wait().unwrap();
    let output = run_index(&anvil, address, &db, &["--once", "--confirmations", "0"]);
    assert!(output.status.success(), "{output:?}");
    let conn = Connection::open(&db).unwrap();
    assert_eq!(indexed(&conn), played);
}

/// Runs `command` to its end (at most 60 s); its output.
fn finish(mut command: Command) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    child.wait_with_output().unwrap()
}

/// Finding 7: a node whose block hashes never settle kept `chessref index` retrying for
/// ever with nothing on stderr. Now each retry says why on stderr, and after
/// `CONTRADICTIONS_MAX` steps in a row the node is named and the index exits 2.
#[test]
fn test_a_node_whose_block_hashes_never_settle_is_named_and_exits_2() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    play(&mut replayer, &games(SHORT_GAMES, 1));
    let address = referee(&mut replayer);
    let calls = std::sync::atomic::AtomicU64::new(0);
    let node = LyingNode::start(anvil.url(), move |method, _, mut answer| {
        if method == "eth_getBlockByNumber" && answer["result"].is_object() {
            let n = calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            answer["result"]["hash"] = serde_json::json!(format!("0x{:064x}", 0xdead_0000 + n));
        }
        answer
    })
    .unwrap();
    let url = node.url();
    let db = temp_db("cli-unsettled");
    let mut command = Command::new(env!("CARGO_BIN_EXE_chessref"));
    command
        .args(["index", "--rpc", &url, "--referee"])
        .arg(address.to_string())
        .arg("--db")
        .arg(&db)
        .args(["--confirmations", "4", "--poll-ms", "10"]);
    let output = finish(command);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let retries: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("answered inconsistently ("))
        .collect();
    assert_eq!(retries.len(), 4, "{stderr}");
    for (i, line) in retries.iter().enumerate() {
        let prefix = format!(
            "chessref index: the node at {url} answered inconsistently ({} of 5 in a row): \
             the node answered block ",
            i + 1
        );
        assert!(line.starts_with(&prefix), "{line}");
        assert!(line.contains(" then 0x"), "{line}");
        assert!(line.ends_with("; nothing stored, retrying"), "{line}");
    }
    let last = stderr.lines().last().unwrap();
    assert!(
        last.starts_with(&format!(
            "chessref: error: the node at {url} answered inconsistently on 5 steps in a row, \
             lastly: the node answered block "
        )),
        "{stderr}"
    );
    assert!(
        last.ends_with("; stopped (nothing of those steps was stored)"),
        "{last}"
    );
    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "logs"), 0);
}

/// `--max-log-bytes`: a node answering one block's logs with more (here every answer is
/// padded with junk past the bound) has its ranges halved down to that block, then is
/// named with the block and the bound; exit 2, nothing stored.
#[test]
fn test_max_log_bytes_bounds_the_answers_and_names_a_block_past_it() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    play(&mut replayer, &games(SHORT_GAMES, 1));
    let address = referee(&mut replayer);
    let node = LyingNode::start(anvil.url(), move |method, _, mut answer| {
        if method == "eth_getLogs" {
            let padding = serde_json::json!({
                "address": address.to_string(),
                "topics": [],
                "data": format!("0x{}", "00".repeat(70_000)),
                "blockNumber": "0x0",
                "blockHash": format!("0x{}", "cd".repeat(32)),
                "transactionHash": format!("0x{}", "ef".repeat(32)),
                "transactionIndex": "0x0",
                "logIndex": "0x1000",
                "removed": false,
            });
            answer["result"].as_array_mut().unwrap().push(padding);
        }
        answer
    })
    .unwrap();
    let url = node.url();
    let db = temp_db("cli-max-log-bytes");
    let mut command = Command::new(env!("CARGO_BIN_EXE_chessref"));
    command
        .args(["index", "--rpc", &url, "--referee"])
        .arg(address.to_string())
        .arg("--db")
        .arg(&db)
        .args(["--once", "--max-log-bytes", "100000", "--poll-ms", "10"]);
    let output = finish(command);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "chessref index: eth_getLogs range refused (the node at {url} answered eth_getLogs \
             with more than 100000 bytes); now "
        )),
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().last().unwrap(),
        format!(
            "chessref: error: the node at {url} answers eth_getLogs of block 0 alone with more \
             than 100000 bytes: one block cannot be split; if the node is right, raise \
             --max-log-bytes"
        )
    );
    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "logs"), 0);
    // A bound of 0 bytes is refused by name.
    let db = temp_db("cli-max-log-bytes-default");
    let mut command = Command::new(env!("CARGO_BIN_EXE_chessref"));
    command
        .args(["index", "--rpc", &url, "--referee"])
        .arg(address.to_string())
        .arg("--db")
        .arg(&db)
        .args(["--once", "--max-log-bytes", "0"]);
    let output = finish(command);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("--max-log-bytes"));
}

/// Finding 10: the database file deleted under a running `chessref index` was written to
/// in its deleted file, silently. Now the index stops at its next step, naming the file;
/// exit 2.
#[test]
fn test_the_database_deleted_under_a_running_index_stops_it_naming_the_file() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    play(&mut replayer, &games(SHORT_GAMES, 1));
    let address = referee(&mut replayer);
    let head = RpcChain::connect_read_only(anvil.url())
        .unwrap()
        .head()
        .unwrap() as i64;
    let db = temp_db("cli-deleted");
    let mut child = index_command(&anvil, address, &db, &["--poll-ms", "20"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while cursor(&db).is_none_or(|block| block < head) {
        assert!(started.elapsed() < Duration::from_secs(30), "no progress");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::fs::remove_file(&db).unwrap();
    while child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr.lines().last().unwrap(),
        format!(
            "chessref: error: index database {} was deleted while chessref index had it open \
             (its writes would go to a file nobody reads): stopped; start chessref index again \
             to rebuild it",
            db.display()
        )
    );
}

/// `chessref serve --addr 127.0.0.1:0 --index INDEX`, killed when dropped; its URL and
/// what it said on stderr at start.
struct Served {
    child: std::process::Child,
    addr: String,
}

impl Served {
    fn start(index: &str) -> Served {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_chessref"))
            .args(["serve", "--addr", "127.0.0.1:0", "--index", index])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .rsplit("http://")
            .next()
            .expect("chessref serve: listening on URL")
            .to_owned();
        Served { child, addr }
    }

    /// `GET path` as HTTP/1.0 (no chunks: the body ends with the connection, an event
    /// stream's too): the status and the body.
    fn get(&self, path: &str) -> (u16, String) {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        write!(stream, "GET {path} HTTP/1.0\r\nHost: {}\r\n\r\n", self.addr).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, body.to_owned())
    }

    /// `GET path`'s JSON, which must be a 200.
    fn json(&self, path: &str) -> Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// A settled game's whole event stream from its start: each event's name and data,
    /// without its sequence number (Postgres numbers the feed on its own).
    fn events(&self, id: &str) -> Vec<(String, Value)> {
        let (status, body) = self.get(&format!("/v1/games/{id}/events?after=0"));
        assert_eq!(status, 200, "{body}");
        let mut events = Vec::new();
        let mut name = String::new();
        for line in body.lines() {
            if let Some(event) = line.strip_prefix("event: ") {
                name = event.to_owned();
            } else if let Some(data) = line.strip_prefix("data: ") {
                let mut data: Value = serde_json::from_str(data).unwrap();
                assert!(data["seq"].as_i64().is_some_and(|s| s > 0), "{data}");
                data.as_object_mut().unwrap().remove("seq");
                events.push((name.clone(), data));
            }
        }
        events
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn test_index_into_postgres_and_serve_it_as_the_sqlite_file_of_the_same_chain() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    let played = play(&mut replayer, &games(SHORT_GAMES, 4));
    let address = referee(&mut replayer);
    // Two more blocks: with one confirmation every game is final, so rated.
    let node = RpcChain::connect(anvil.url()).unwrap();
    for _ in 0..2 {
        node.raw_request("evm_mine", json!([])).unwrap();
    }
    let pg = chessref_pgtest::TempPostgres::start().unwrap();
    let lite = temp_db("serve-pg");
    let lite = lite.to_str().unwrap();
    // A password in the URL (the throwaway server trusts loopback): never printed.
    let url = pg.url().replacen('@', ":hunter2@", 1);
    for db in [lite, url.as_str()] {
        let output = run_index(&anvil, address, db, &["--once", "--confirmations", "1"]);
        assert!(output.status.success(), "{db}: {output:?}");
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(said.contains("chessref index: referee"), "{said}");
        assert!(!said.contains("hunter2"), "{said}");
        let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(summary["games"], played.len(), "{db}: {summary}");
        assert!(
            summary["moves"].as_u64().is_some_and(|m| m > 0),
            "{summary}"
        );
    }
    let (a, b) = (Served::start(lite), Served::start(&url));
    let lobby = |served: &Served| {
        let mut page = served.json("/v1/games?limit=500");
        // Seconds since each indexer's last poll: they did not run together.
        page.as_object_mut().unwrap().remove("headAge");
        page
    };
    let page = lobby(&b);
    assert_eq!(lobby(&a), page, "the lobby (SQLite, then Postgres)");
    assert_eq!(page["total"], played.len(), "{page}");
    let mut players = Vec::new();
    for game in page["games"].as_array().unwrap() {
        let id = game["id"].as_str().unwrap();
        let one = b.json(&format!("/v1/games/{id}"));
        assert_eq!(one["pending"], false, "{one}");
        assert_eq!(a.json(&format!("/v1/games/{id}")), one, "game {id}");
        assert_eq!(
            a.get(&format!("/v1/games/{id}.pgn")),
            b.get(&format!("/v1/games/{id}.pgn"))
        );
        let events = b.events(id);
        assert_eq!(a.events(id), events, "game {id}'s events");
        let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names.first(), Some(&"created"), "{names:?}");
        // Back-filled already final: no `final` change; the stream ends (the connection
        // closed) at the settled game's end.
        assert_eq!(names.last(), Some(&"ended"), "{names:?}");
        assert!(names.contains(&"move"), "{names:?}");
        for side in ["white", "black"] {
            players.push(game[side].as_str().unwrap().to_owned());
        }
        // The relay keeps its messages in SQLite: on Postgres it says so.
        let (status, body) = b.get(&format!("/v1/games/{id}/transcript"));
        assert_eq!(status, 409, "{body}");
        assert!(body.contains("Postgres"), "{body}");
    }
    for player in &players {
        let uri = format!("/v1/players/{player}");
        let view = b.json(&uri);
        assert!(view["games"].as_u64().is_some_and(|g| g > 0), "{view}");
        assert_eq!(a.json(&uri), view, "{uri}");
    }
    let board = b.json("/v1/players?order=rating");
    assert_eq!(a.json("/v1/players?order=rating"), board);
    assert!(board["total"].as_u64().is_some_and(|t| t > 1), "{board}");
}

/// A `chessref index` process, killed when dropped, whose stderr lines arrive as they
/// are written, each with when it was read.
struct Indexing {
    child: std::process::Child,
    lines: Receiver<(Instant, String)>,
    said: Vec<String>,
}

impl Indexing {
    /// Spawns `command`, its stdout dropped, its stderr read line by line.
    fn start(mut command: Command) -> Indexing {
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                if send.send((Instant::now(), line)).is_err() {
                    return;
                }
            }
        });
        Indexing {
            child,
            lines,
            said: Vec::new(),
        }
    }

    /// Waits (at most 60 s) for a line containing `text`: it and when it was read.
    fn expect(&mut self, text: &str) -> (Instant, String) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((at, line)) => {
                    self.said.push(line.clone());
                    if line.contains(text) {
                        return (at, line);
                    }
                }
                Err(e) => panic!(
                    "no {text:?} from chessref index ({e}); it said {:?}",
                    self.said
                ),
            }
        }
    }

    /// Every line said so far.
    fn said(&mut self) -> &[String] {
        while let Ok((_, line)) = self.lines.try_recv() {
            self.said.push(line);
        }
        &self.said
    }
}

impl Drop for Indexing {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Postgres index's cursor row (last indexed block, head), if it has one yet.
fn pg_cursor(conn: &mut Conn) -> Option<(i64, i64)> {
    conn.query_one(
        "SELECT block_number, head FROM cursor",
        &[],
        "reading the cursor",
        |r| Ok((r.get::<i64>(0)?, r.get::<i64>(1)?)),
    )
    .ok()
}

/// Who holds the indexer's advisory lock (its `application_name`), if anyone.
fn pg_lock_holder(conn: &mut Conn) -> Option<String> {
    conn.query_opt(
        "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid \
         WHERE l.locktype = 'advisory' AND l.objid = 1 AND l.objsubid = 2 AND l.granted",
        &[],
        "naming the lock's holder",
        |r| r.get::<String>(0),
    )
    .unwrap()
}

/// A game that stays running: created, joined, three moves, no ending.
const RUNNING_GAME: &str = r#"[Event "still running"]
[Result "*"]

1. e4 e5 2. Nf3 *
"#;

/// Issue 30: two `chessref index` on one Postgres; the second waits as a standby without
/// writing, and when the first is killed (SIGKILL) while games go on on the chain, it
/// takes over at the stored cursor. The Postgres index then holds every game once, and
/// equals, table by table and reader by reader, a SQLite index of the same chain made in
/// one uninterrupted `--once`.
#[test]
fn test_the_indexers_holder_killed_the_standby_takes_over_at_the_cursor() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    let mut played = play(&mut replayer, &games(SHORT_GAMES, 4));
    let address = referee(&mut replayer);
    let node = RpcChain::connect_read_only(anvil.url()).unwrap();
    let pg = chessref_pgtest::TempPostgres::start().unwrap();
    let url = pg.url();
    let target: DbTarget = url.parse().unwrap();
    let mut conn = Database::open_read_only(&target, 1).connect().unwrap();
    // No confirmations: indexed live or back-filled, a game is final at once, so both
    // indexes say the same; one block per step, so the holder is killed mid-way.
    let follow = [
        "--confirmations",
        "0",
        "--batch-blocks",
        "1",
        "--poll-ms",
        "100",
    ];
    let mut first = Indexing::start(index_command(&anvil, address, &url, &follow));
    first.expect("resuming at block");
    let mut second = Indexing::start(index_command(&anvil, address, &url, &follow));
    let (_, waiting) = second.expect("waiting to take over");
    let holder = format!(
        "is held by another chessref index (chessref index pid {}, since ",
        first.child.id()
    );
    assert!(waiting.contains(&holder), "{waiting}");
    // With --once it does not wait: refused, naming the holder.
    let once = run_index(&anvil, address, &url, &["--once"]);
    let said = String::from_utf8_lossy(&once.stderr);
    assert_eq!(once.status.code(), Some(2), "{said}");
    assert!(
        said.contains(&holder) && !said.contains("waiting"),
        "{said}"
    );

    // More games come while the first one indexes.
    let start_head = node.head().unwrap() as i64;
    let more = [games(&SHORT_GAMES.repeat(2), 8), games(RUNNING_GAME, 1)].concat();
    // One at a time, a pause between them, as players come: the chain goes on past the kill.
    let player = std::thread::spawn(move || {
        more.iter()
            .flat_map(|game| {
                std::thread::sleep(Duration::from_millis(150));
                play(&mut replayer, std::slice::from_ref(game))
            })
            .collect::<Vec<_>>()
    });
    let started = Instant::now();
    let mut seen = 0;
    while seen < start_head + 15 {
        assert!(started.elapsed() < Duration::from_secs(60), "no progress");
        assert!(
            first.child.try_wait().unwrap().is_none(),
            "the holder stopped"
        );
        seen = pg_cursor(&mut conn).map_or(0, |(block, _)| block);
        std::thread::sleep(Duration::from_millis(5));
    }
    // The standby has not written: the lock is the first one's, and it opened nothing.
    let first_name = format!("chessref index pid {}, since ", first.child.id());
    let held = pg_lock_holder(&mut conn).unwrap();
    assert!(held.starts_with(&first_name), "{held}");
    assert!(
        second.child.try_wait().unwrap().is_none(),
        "the standby exited"
    );
    assert_eq!(
        second.said(),
        std::slice::from_ref(&waiting),
        "the standby did more than wait"
    );

    first.child.kill().unwrap();
    let killed = Instant::now();
    first.child.wait().unwrap();
    let at_kill = pg_cursor(&mut conn).unwrap();
    assert!(!player.is_finished(), "the chain stopped before the kill");
    // The first write after the kill is the standby's.
    let first_write = loop {
        assert!(
            killed.elapsed() < Duration::from_secs(30),
            "nobody took over"
        );
        if pg_cursor(&mut conn).is_some_and(|row| row != at_kill) {
            break killed.elapsed();
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let (resumed, line) = second.expect("resuming at block");
    let next: i64 = line.rsplit(' ').next().unwrap().parse().unwrap();
    // At the cursor: past everything the first one was seen to store, and not before
    // what it stored last.
    assert!(
        next > seen,
        "{line}: the first had stored up to block {seen}"
    );
    assert_eq!(
        next,
        at_kill.0 + 1,
        "{line}: the first stored up to {at_kill:?}"
    );
    let held = pg_lock_holder(&mut conn).unwrap();
    assert!(
        held.starts_with(&format!("chessref index pid {}, since ", second.child.id())),
        "{held}"
    );
    eprintln!(
        "takeover: lock and store {:?} after the kill, first write {first_write:?}",
        resumed.duration_since(killed)
    );
    assert!(first_write < Duration::from_secs(5), "{first_write:?}");

    played.extend(player.join().unwrap());
    let head = node.head().unwrap() as i64;
    let caught_up = Instant::now();
    while pg_cursor(&mut conn) != Some((head, head)) {
        assert!(
            caught_up.elapsed() < Duration::from_secs(60),
            "the standby never caught up"
        );
        assert!(
            second.child.try_wait().unwrap().is_none(),
            "the standby stopped"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let waits = second
        .said()
        .iter()
        .filter(|l| l.contains("waiting to take over"));
    assert_eq!(waits.count(), 1, "{:?}", second.said());
    assert!(
        !first.said().iter().any(|l| l.contains("waiting")),
        "{:?}",
        first.said()
    );
    drop(second);

    let lite = temp_db("standby");
    // In the same one-block steps: the change feed keeps each step's net changes (a draw
    // offered and accepted within one step leaves none), so it follows the step size.
    let output = run_index(
        &anvil,
        address,
        &lite,
        &[&["--once"], &follow[..4]].concat(),
    );
    assert!(output.status.success(), "{output:?}");
    assert_eq!(indexed(&Connection::open(&lite).unwrap()), played);
    assert!(played.iter().any(|game| game.ending.is_none()));
    let lite = DbTarget::Sqlite(lite);
    compare::assert_same(
        &mut Store::open_target(&lite).unwrap(),
        &mut Store::open_target(&target).unwrap(),
    );
    compare::assert_reads_same(&lite, &target);
}
