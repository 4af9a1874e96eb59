//! What the indexer's tests share: games played for real on anvil through the referee
//! (chessref-evm's Replayer), and the comparison of the index with them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use alloy_primitives::Address;
use chessref_core::{PgnGame, PgnReader};
use chessref_evm::{Referee, Replayer, RpcChain, anvil::Anvil};
use rusqlite::Connection;

/// Four short games with four endings: checkmate each way, resignation, a draw by agreement.
pub const SHORT_GAMES: &str = r#"[Event "fool's mate"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1

[Event "scholar's mate"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0

[Event "resignation"]
[Result "0-1"]

1. e4 c5 2. Nf3 d6 0-1

[Event "agreed draw"]
[Result "1/2-1/2"]

1. d4 d5 2. c4 e6 1/2-1/2
"#;

/// The real-game sample of `../shared/data` (the repository's sibling), if present.
pub fn lichess_sample() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/pgn/lichess_2025-05_sample.pgn");
    path.is_file().then_some(path)
}

/// The games of `pgn`, at most `limit`.
pub fn games(pgn: &str, limit: usize) -> Vec<PgnGame> {
    PgnReader::new(pgn.as_bytes())
        .filter_map(Result::ok)
        .take(limit)
        .collect()
}

/// One game as the chain has it: its moves in UCI and its ending's names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// Moves, UCI.
    pub moves: Vec<String>,
    /// `(result, reason)` names, when ended.
    pub ending: Option<(String, String)>,
}

/// A referee freshly deployed on `anvil`, played on by its first two accounts.
pub fn deploy(anvil: &Anvil) -> Replayer<RpcChain> {
    let chain = RpcChain::connect(anvil.url()).expect("connect to anvil");
    let referee = Referee::deploy(chain).expect("deploy the referee");
    Replayer::with_referee(referee, "anvil".into()).expect("replayer")
}

/// A client of the referee already deployed at `address` on `anvil`.
pub fn replayer_at(anvil: &Anvil, address: Address) -> Replayer<RpcChain> {
    let chain = RpcChain::connect(anvil.url()).expect("connect to anvil");
    Replayer::with_referee(Referee::at(chain, address), "anvil".into()).expect("replayer")
}

/// Plays `games` on the referee for real; returns what each game on chain is.
pub fn play(replayer: &mut Replayer<RpcChain>, games: &[PgnGame]) -> Vec<Played> {
    let mut played = Vec::new();
    for game in games {
        let prefix = game.replay_prefix().expect("a replayable game");
        let report = replayer
            .replay_known(game, &prefix)
            .expect("replay on anvil");
        assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
        played.push(Played {
            moves: prefix.game.moves()[..report.plies]
                .iter()
                .map(|m| m.to_uci())
                .collect(),
            ending: report
                .ending
                .map(|e| (e.result.name().to_owned(), e.reason.name().to_owned())),
        });
    }
    played
}

/// The referee's address.
pub fn referee(replayer: &mut Replayer<RpcChain>) -> Address {
    replayer.referee().address()
}

/// Every game of the index, in creation order, as [`Played`].
pub fn indexed(conn: &Connection) -> Vec<Played> {
    let mut games = conn
        .prepare("SELECT id, result, reason FROM games ORDER BY created_block, created_log")
        .unwrap();
    let rows: Vec<(String, Option<String>, Option<String>)> = games
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    rows.into_iter()
        .map(|(id, result, reason)| {
            let moves = conn
                .prepare("SELECT uci FROM moves WHERE game_id = ?1 ORDER BY seq")
                .unwrap()
                .query_map([&id], |r| r.get(0))
                .unwrap()
                .collect::<Result<Vec<String>, _>>()
                .unwrap();
            Played {
                moves,
                ending: result.zip(reason),
            }
        })
        .collect()
}

/// A fresh database path in the temp dir (removed with its WAL files first).
pub fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chessref-index-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.sqlite"));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

/// `SELECT count(*) FROM table [WHERE ...]`.
pub fn count(conn: &Connection, sql_from: &str) -> i64 {
    conn.query_row(&format!("SELECT count(*) FROM {sql_from}"), [], |r| {
        r.get(0)
    })
    .unwrap()
}
