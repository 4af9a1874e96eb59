//! `chessref index` as a process against anvil: killed (SIGKILL) in the middle of a
//! back-fill and restarted, it ends with every game exactly once; pointed at a contract
//! that lies, it prints the DIVERGENCE and exits 1 with `--fail-on-divergence`; at a
//! node that never answers, it names it within `--rpc-timeout`, and retries one that
//! stopped answering; started twice on one file, the second is refused with the first
//! one's pid.

#[path = "../../chessref-index/tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use alloy_primitives::Address;
use chessref_evm::{RpcChain, anvil::Anvil, stalled_node::StalledNode};
use common::{SHORT_GAMES, count, deploy, games, indexed, lie, play, referee, temp_db};
use rusqlite::{Connection, OpenFlags};

fn index_command(anvil: &Anvil, referee: Address, db: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chessref"));
    command
        .args(["index", "--rpc", anvil.url(), "--referee"])
        .arg(referee.to_string())
        .arg("--db")
        .arg(db)
        .args(extra);
    command
}

fn run_index(anvil: &Anvil, referee: Address, db: &Path, extra: &[&str]) -> Output {
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
