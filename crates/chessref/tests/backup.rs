//! Backup and restore of a live index, on both backends, as docs/OPERATIONS.md gives
//! them: `chessref index backup` for a SQLite file, `pg_dump -Fc` and `pg_restore` for
//! Postgres. The backup is taken while `chessref index` follows a chain that is being
//! played on; the copy, restored into a fresh file or database, serves every game it
//! holds as the source serves it, keeps the relay's messages stored before it (and none
//! stored after), and an indexer started on it resumes at its cursor and catches up to
//! the source: every game once, the same games, event feeds, ratings and leaderboard.
//! What the backup command refuses is named.

#[path = "../../chessref-index/tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use alloy_primitives::{Address, U256};
use chessref_evm::{RpcChain, anvil::Anvil};
use chessref_index::RelayStore;
use chessref_index::db::DbTarget;
use chessref_index::read::{self, Change, GameView, Lobby, Reader};
use chessref_pgtest::TempPostgres;
use common::{Played, SHORT_GAMES, deploy, games, play, referee};
use serde_json::Value;

/// How long an indexer may take to reach a block before the test names it.
const CATCH_UP: Duration = Duration::from_secs(60);

/// One backend's backup and restore, as an operator runs them.
trait Backend {
    /// The live index's `--db`.
    fn source(&self) -> String;
    /// Starts the backup of the live index (a process: it runs beside the indexer).
    fn start_backup(&self) -> Child;
    /// Restores the finished backup (its process's output) into a fresh file or
    /// database; its `--db`.
    fn restore(&self, backup: &Output) -> String;
}

/// A SQLite index: `chessref index backup`, restored by copying the backup's one file.
struct Sqlite {
    dir: tempfile::TempDir,
}

impl Sqlite {
    fn backup_file(&self) -> PathBuf {
        self.dir.path().join("backup.sqlite")
    }
}

impl Backend for Sqlite {
    fn source(&self) -> String {
        self.dir.path().join("index.sqlite").display().to_string()
    }

    fn start_backup(&self) -> Child {
        Command::new(env!("CARGO_BIN_EXE_chessref"))
            .args(["index", "backup", "--db", &self.source(), "--to"])
            .arg(self.backup_file())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    fn restore(&self, backup: &Output) -> String {
        let summary: Value = serde_json::from_slice(&backup.stdout).unwrap();
        let file = self.backup_file();
        assert_eq!(summary["to"], file.display().to_string(), "{summary}");
        assert_eq!(
            summary["bytes"].as_u64(),
            Some(std::fs::metadata(&file).unwrap().len())
        );
        // The backup is one file (no WAL beside it): a plain copy of it restores.
        for sidecar in ["-wal", "-shm"] {
            let path = format!("{}{sidecar}", file.display());
            assert!(!Path::new(&path).exists(), "{path} left beside the backup");
        }
        let restored = self.dir.path().join("restored.sqlite");
        std::fs::copy(&file, &restored).unwrap();
        let restored = restored.display().to_string();
        assert_eq!(
            summary["indexedBlock"].as_i64(),
            Some(reader(&restored).indexed_block().unwrap()),
            "{summary}"
        );
        restored
    }
}

/// A Postgres index: `pg_dump -Fc`, restored with `pg_restore` into a database made
/// with `createdb`.
struct Postgres {
    pg: TempPostgres,
    dir: tempfile::TempDir,
}

impl Postgres {
    fn dump_file(&self) -> PathBuf {
        self.dir.path().join("index.dump")
    }
}

impl Backend for Postgres {
    fn source(&self) -> String {
        self.pg.url()
    }

    fn start_backup(&self) -> Child {
        Command::new(self.pg.program("pg_dump"))
            .args(["--format=custom", "--dbname", &self.pg.url(), "--file"])
            .arg(self.dump_file())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    fn restore(&self, _backup: &Output) -> String {
        let url = self.pg.create_database("restored").unwrap();
        let output = Command::new(self.pg.program("pg_restore"))
            .args(["--exit-on-error", "--single-transaction", "--no-owner"])
            .args(["--dbname", &url])
            .arg(self.dump_file())
            .output()
            .unwrap();
        assert!(output.status.success(), "pg_restore: {output:?}");
        url
    }
}

/// `chessref index` following the chain into `db` until dropped (killed); what it says
/// goes to a file, shown if it stops.
struct Follower {
    child: Child,
    log: PathBuf,
}

impl Follower {
    fn start(anvil: &Anvil, referee: Address, db: &str, log: PathBuf) -> Follower {
        let child = index_command(anvil, referee, db, &["--poll-ms", "20"])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        Follower { child, log }
    }

    /// Waits until the index at `db` holds the chain up to `block`.
    fn wait_for(&mut self, db: &str, block: i64) {
        let started = Instant::now();
        loop {
            let at = read::open(&target(db)).and_then(|mut r| r.indexed_block());
            if at.as_ref().is_ok_and(|at| *at >= block) {
                return;
            }
            let said = || std::fs::read_to_string(&self.log).unwrap_or_default();
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("chessref index on {db} exited ({status}): {}", said());
            }
            assert!(
                started.elapsed() < CATCH_UP,
                "chessref index on {db} is at {at:?}, not block {block}: {}",
                said()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `chessref index --rpc ANVIL --referee ADDR --db DB --confirmations 0 EXTRA...`: every
/// indexed block final at once, so the games are rated as they end.
fn index_command(anvil: &Anvil, referee: Address, db: &str, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chessref"));
    command
        .args(["index", "--rpc", anvil.url(), "--referee"])
        .arg(referee.to_string())
        .args(["--db", db, "--confirmations", "0"])
        .args(extra);
    command
}

fn target(db: &str) -> DbTarget {
    db.parse().unwrap()
}

fn reader(db: &str) -> Reader {
    read::open(&target(db)).unwrap()
}

fn head(anvil: &Anvil) -> i64 {
    RpcChain::connect_read_only(anvil.url())
        .unwrap()
        .head()
        .unwrap() as i64
}

/// Every game of the index at `db`, oldest first.
fn all_games(db: &str) -> Vec<GameView> {
    let mut reader = reader(db);
    let lobby = Lobby {
        state: None,
        player: None,
        limit: 500,
        offset: 0,
    };
    let page = reader.lobby(&lobby).unwrap();
    assert!(page.total < 500, "{} games: more than one page", page.total);
    page.games
        .iter()
        .rev()
        .map(|g| {
            let id: U256 = g.game.id.parse().unwrap();
            reader.game(id).unwrap().unwrap()
        })
        .collect()
}

/// A game of the index as the chain has it.
fn as_played(game: &GameView) -> Played {
    Played {
        moves: game.moves.iter().map(|m| m.uci.clone()).collect(),
        ending: game.summary.result.clone().zip(game.summary.reason.clone()),
    }
}

/// A game's event feed without its sequence numbers (each database numbers its own).
fn feed(reader: &mut Reader, id: U256) -> Vec<Change> {
    let mut changes = reader.changes(id, 0).unwrap();
    for change in &mut changes {
        change.seq = 0;
    }
    changes
}

/// The relay's messages of game `id` in the index at `db`: number and body.
fn relayed(db: &str, id: U256) -> Vec<(u64, String)> {
    let mut relay = RelayStore::open_target(&target(db)).unwrap();
    relay
        .messages(id, 0)
        .unwrap()
        .into_iter()
        .map(|m| (m.seq, m.body))
        .collect()
}

fn backup_and_restore(backend: &dyn Backend, logs: &Path) {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    let pgn = SHORT_GAMES.repeat(3);
    let all = games(&pgn, 12);
    let (before, during, after) = (&all[..4], &all[4..8], &all[8..]);
    let mut played = play(&mut replayer, before);
    let address = referee(&mut replayer);
    let source = backend.source();
    let mut follower = Follower::start(&anvil, address, &source, logs.join("source.log"));
    follower.wait_for(&source, head(&anvil));

    // A relay message stored before the backup, one after: only the first is in it.
    let relayed_game: U256 = all_games(&source)[0].summary.id.parse().unwrap();
    let message = |n: u64| format!(r#"{{"note":"relay message {n} of the backup test"}}"#);
    let mut relay = RelayStore::open_target(&target(&source)).unwrap();
    relay
        .append(relayed_game, 1, "move", 1, 1_767_225_600, &message(1))
        .unwrap();

    // The backup runs while games are played and the indexer stores them.
    played.extend(play(&mut replayer, &during[..1]));
    follower.wait_for(&source, head(&anvil));
    let backed_from = head(&anvil);
    let backup = backend.start_backup();
    played.extend(play(&mut replayer, &during[1..]));
    let backup = backup.wait_with_output().unwrap();
    assert!(backup.status.success(), "the backup: {backup:?}");
    let backed_to = head(&anvil);
    relay
        .append(relayed_game, 2, "move", 2, 1_767_225_601, &message(2))
        .unwrap();
    drop(relay);
    // Games after the backup: the restored index must catch up on them.
    played.extend(play(&mut replayer, after));
    let head = head(&anvil);
    follower.wait_for(&source, head);

    let restored = backend.restore(&backup);
    let cursor = reader(&restored).indexed_block().unwrap();
    assert!(
        (backed_from..=backed_to).contains(&cursor),
        "the backup holds blocks up to {cursor}: taken between {backed_from} and {backed_to}"
    );
    assert!(cursor < head, "nothing left to catch up on");
    // The copy at its cursor: a game whose events all lie at or under it is served as
    // the source serves it; one it holds the start of, a prefix of it; none later.
    let copy = all_games(&restored);
    let mut source_reader = reader(&source);
    let mut copy_reader = reader(&restored);
    let mut whole = Vec::new();
    for game in all_games(&source) {
        let id: U256 = game.summary.id.parse().unwrap();
        let held = copy.iter().find(|g| g.summary.id == game.summary.id);
        if game.summary.updated_block as i64 <= cursor {
            assert_eq!(
                held,
                Some(&game),
                "game {id} at the backup's cursor {cursor}"
            );
            assert_eq!(
                feed(&mut copy_reader, id),
                feed(&mut source_reader, id),
                "game {id}'s events"
            );
            whole.push(id);
        } else if game.summary.created_block as i64 <= cursor {
            let held = as_played(held.expect("a game begun under the cursor"));
            assert!(
                game.moves.len() >= held.moves.len()
                    && as_played(&game).moves[..held.moves.len()] == held.moves[..],
                "game {id}: the copy's moves are not the start of the source's"
            );
        } else {
            assert!(held.is_none(), "game {id} begun after the backup's cursor");
        }
    }
    assert!(
        whole.len() >= 5,
        "{} games whole in the backup",
        whole.len()
    );
    assert_eq!(
        relayed(&restored, relayed_game),
        vec![(1, message(1))],
        "the relay's messages in the backup"
    );
    assert_eq!(relayed(&source, relayed_game).len(), 2);

    // An indexer on the restored copy resumes at its cursor and catches up.
    let output = index_command(&anvil, address, &restored, &["--once"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{said}");
    let resumed = format!("resuming at block {}", cursor + 1);
    assert!(said.contains(&resumed), "not {resumed:?}: {said}");
    let games = all_games(&restored);
    assert_eq!(
        games.iter().map(as_played).collect::<Vec<_>>(),
        played,
        "every game once, as played"
    );
    assert_eq!(games, all_games(&source));
    // A feed holds what each of its indexer's steps saw change, so the steps' cut of the
    // chain shows in it (a draw offered and accepted within one step is never offered);
    // the games whole in the backup keep the source's feed, every game its moves once.
    let mut copy_reader = reader(&restored);
    let mut players = Vec::new();
    for game in &games {
        let id: U256 = game.summary.id.parse().unwrap();
        let changes = feed(&mut copy_reader, id);
        if whole.contains(&id) {
            assert_eq!(changes, feed(&mut source_reader, id), "game {id}'s events");
        }
        let moves: Vec<(u32, u64)> = changes
            .iter()
            .filter(|c| c.kind == "move")
            .map(|c| (c.ply, c.block))
            .collect();
        let played: Vec<(u32, u64)> = game.moves.iter().map(|m| (m.ply, m.block)).collect();
        assert_eq!(moves, played, "game {id}'s move events");
        players.extend(
            game.summary
                .white
                .iter()
                .chain(&game.summary.black)
                .cloned(),
        );
    }
    players.sort();
    players.dedup();
    assert_eq!(players.len(), 2, "{players:?}");
    for player in &players {
        let address: Address = player.parse().unwrap();
        let view = copy_reader.player(address).unwrap();
        assert!(view.games > 0, "{view:?}");
        assert_eq!(view, source_reader.player(address).unwrap(), "{player}");
    }
    let board = copy_reader.leaderboard(10, 0).unwrap();
    assert_eq!(board.total, 2, "{board:?}");
    assert_eq!(board, source_reader.leaderboard(10, 0).unwrap());
    assert_eq!(
        relayed(&restored, relayed_game),
        vec![(1, message(1))],
        "the indexer leaves the relay's messages alone"
    );
}

#[test]
fn test_sqlite_backup_of_a_live_index_restores_and_catches_up() {
    let dir = tempfile::tempdir().unwrap();
    let backend = Sqlite {
        dir: tempfile::tempdir().unwrap(),
    };
    backup_and_restore(&backend, dir.path());
}

#[test]
fn test_postgres_dump_of_a_live_index_restores_and_catches_up() {
    let dir = tempfile::tempdir().unwrap();
    let backend = Postgres {
        pg: TempPostgres::start().unwrap(),
        dir: tempfile::tempdir().unwrap(),
    };
    backup_and_restore(&backend, dir.path());
}

/// What `chessref index backup` refuses, exit 2, naming why: a Postgres URL (pg_dump's
/// work), a missing index, and an existing `--to` (left as it was).
#[test]
fn test_backup_refusals_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let backup = |db: &str, to: &Path| {
        Command::new(env!("CARGO_BIN_EXE_chessref"))
            .args(["index", "backup", "--db", db, "--to"])
            .arg(to)
            .output()
            .unwrap()
    };
    let to = dir.path().join("copy.sqlite");
    let said = |output: &Output| {
        assert_eq!(output.status.code(), Some(2), "{output:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let output = backup("postgres://chessref:hunter2@127.0.0.1:1/chessref", &to);
    let text = said(&output);
    assert!(
        text.contains("pg_dump") && !text.contains("hunter2"),
        "{text}"
    );
    let missing = dir.path().join("absent.sqlite");
    let text = said(&backup(missing.to_str().unwrap(), &to));
    assert!(text.contains("absent.sqlite"), "{text}");
    assert!(!missing.exists() && !to.exists());
    std::fs::write(&to, "an older backup").unwrap();
    let text = said(&backup(missing.to_str().unwrap(), &to));
    assert!(text.contains("absent.sqlite"), "{text}");
    let db = dir.path().join("index.sqlite");
    std::fs::write(&db, "").unwrap();
    let text = said(&backup(db.to_str().unwrap(), &to));
    assert!(
        text.contains("copy.sqlite") && text.contains("exists"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(&to).unwrap(), "an older backup");
}
