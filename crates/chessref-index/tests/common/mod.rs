//! What the indexer's tests share: games played for real on anvil through the referee
//! (chessref-evm's Replayer), and the comparison of the index with them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use alloy_primitives::{Address, Bytes, U256, aliases::U24};
use alloy_sol_types::{SolCall, sol};
use chessref_core::{Move, PgnGame, PgnReader, RawMove, State};
use chessref_evm::{Chain, Referee, Replayer, RpcChain, TxRequest, anvil::Anvil};
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

/// A fresh database path in the temp dir (removed with its WAL and lock files first).
pub fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chessref-index-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.sqlite"));
    for suffix in ["", "-wal", "-shm", ".lock"] {
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

sol! {
    function create(uint256 gameId, address opponent, bytes state, bytes32 history, bytes32 terms) external;
    function join(uint256 gameId, address white, address black, uint256 clock) external;
    function move(uint256 gameId, uint24 mv, uint32 ply, uint8 status, bytes32 history, uint256 clock, bytes state) external;
}

/// The creation code of contracts/test/mocks/LyingReferee.sol, compiled by the pinned forge.
fn lying_referee_code() -> Bytes {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = temp_db("lying-out").with_extension("d");
    // The one resolver of Foundry tools (the native binary, whatever the platform).
    let status = std::process::Command::new(root.join("scripts/foundry"))
        .current_dir(&root)
        .args(["forge", "build", "--out"])
        .arg(out.join("out"))
        .arg("--cache-path")
        .arg(out.join("cache"))
        .arg("contracts/test/mocks/LyingReferee.sol")
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("scripts/foundry forge build: {e}"));
    assert!(status.success(), "forge build LyingReferee failed");
    let artifact: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.join("out/LyingReferee.sol/LyingReferee.json")).unwrap(),
    )
    .unwrap();
    artifact["bytecode"]["object"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// Deploys the lying referee on `anvil` and plays through it game 7 whose second move
/// (black's e7e4, a pawn jumping three squares) the rules refuse; returns its address.
pub fn lie(anvil: &Anvil) -> Address {
    let mut chain = RpcChain::connect(anvil.url()).unwrap();
    let (white, black) = (chain.accounts()[1], chain.accounts()[2]);
    let (address, _) = chain
        .deploy(chain.accounts()[0], lying_referee_code())
        .unwrap();
    let mut send = |from: Address, data: Vec<u8>| {
        let receipt = chain.send(TxRequest::call(from, address, data)).unwrap();
        assert!(receipt.success);
    };
    let start = State::initial();
    let history = chessref_core::chain::of_start(&start);
    let id = U256::from(7);
    send(
        white,
        createCall {
            gameId: id,
            opponent: black,
            state: Bytes::copy_from_slice(start.as_bytes()),
            history,
            // The true terms hash of these terms: only the move lies.
            terms: chessref_client::terms::Terms {
                creator: white,
                opponent: black,
                creatorWhite: true,
                token: Address::ZERO,
                stake: U256::ZERO,
                initialTime: U256::from(600),
                increment: U256::ZERO,
                firstMoveWindow: U256::ZERO,
                start: chessref_client::terms::start_inner(start.as_bytes(), history),
            }
            .hash(),
        }
        .abi_encode(),
    );
    // Clock word: ply in bits 136..167; the rest is irrelevant to the rules.
    let clock = |ply: u64| U256::from(ply) << 136;
    send(
        black,
        joinCall {
            gameId: id,
            white,
            black,
            clock: clock(0),
        }
        .abi_encode(),
    );
    let mut state = start;
    let mut history = history;
    for (ply, uci) in [(1u32, "e2e4"), (2, "e7e4")] {
        let mv = RawMove::from(Move::from_uci(uci).unwrap());
        // The lie: the state does not change for the illegal move.
        if let Ok((_, next)) = state.check_and_play(mv) {
            history = chessref_core::chain::after(history, &next);
            state = next;
        }
        send(
            if ply % 2 == 1 { white } else { black },
            moveCall {
                gameId: id,
                mv: U24::from(mv.packed()),
                ply,
                status: 0,
                history,
                clock: clock(ply.into()),
                state: Bytes::copy_from_slice(state.as_bytes()),
            }
            .abi_encode(),
        );
    }
    address
}
