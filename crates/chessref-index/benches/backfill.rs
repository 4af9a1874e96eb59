//! Indexing on a long local chain: real games replayed onto anvil through the referee,
//! then back-filled by the indexer into a fresh SQLite file (moves and games per second,
//! with the default `eth_getLogs` range and a small one), the file's size per thousand
//! games, and the live lag from a move's block to its row in the index. Prints a table
//! beside the bars of issue 11 (back-fill at least 5,000 moves/s; live lag under 1 s).
//! Real games come from `../shared/data/pgn/lichess_2025-05_sample.pgn` (the
//! repository's sibling); without it, the four short games of the tests, repeated.
//!
//! ```sh
//! cargo bench -p chessref-index --bench backfill [-- GAMES]     # default 120
//! ```

#[path = "../tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use alloy_primitives::{Address, U256};
use chessref_core::{Move, RawMove};
use chessref_evm::{Chain, GameSetup, Position, RpcChain, anvil::Anvil};
use chessref_index::{Indexer, Options, Store};

fn file_size(path: &std::path::Path) -> u64 {
    ["", "-wal"]
        .iter()
        .filter_map(|suffix| std::fs::metadata(format!("{}{suffix}", path.display())).ok())
        .map(|m| m.len())
        .sum()
}

/// Back-fills `referee` from block 0 to the head into a fresh file; returns the seconds
/// and the file.
fn backfill(
    anvil: &Anvil,
    referee: Address,
    name: &str,
    batch_blocks: u64,
) -> (f64, std::path::PathBuf) {
    let db = common::temp_db(name);
    let seconds = backfill_into(
        anvil,
        referee,
        Store::open(&db).expect("open the index"),
        batch_blocks,
    );
    (seconds, db)
}

/// Back-fills `referee` from block 0 to the head into `store`; returns the seconds.
fn backfill_into(anvil: &Anvil, referee: Address, store: Store, batch_blocks: u64) -> f64 {
    let chain = RpcChain::connect_read_only(anvil.url()).expect("connect");
    let options = Options {
        confirmations: 0,
        batch_blocks,
        poll: Duration::from_millis(1),
    };
    let mut indexer = Indexer::new(chain, store, referee, 0, options).expect("indexer");
    let started = Instant::now();
    loop {
        let step = indexer.step().expect("step");
        if step.caught_up {
            break;
        }
    }
    started.elapsed().as_secs_f64()
}

fn main() {
    let count: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(120);
    let anvil = Anvil::spawn().expect("anvil (scripts/bootstrap.sh installs it)");
    let mut replayer = common::deploy(&anvil);
    let (source, games) = match common::lichess_sample() {
        Some(path) => (
            "lichess_2025-05_sample.pgn",
            common::games(
                &std::fs::read_to_string(path).expect("read the sample"),
                count,
            ),
        ),
        None => {
            let text = common::SHORT_GAMES.repeat(count.div_ceil(4));
            (
                "the tests' four short games, repeated",
                common::games(&text, count),
            )
        }
    };
    let replaying = Instant::now();
    let played = common::play(&mut replayer, &games);
    let moves: usize = played.iter().map(|g| g.moves.len()).sum();
    let referee = common::referee(&mut replayer);
    let head = replayer.referee().chain().head().expect("head");
    eprintln!(
        "replayed {} games ({moves} moves, {head} blocks) onto anvil in {:.1} s",
        played.len(),
        replaying.elapsed().as_secs_f64()
    );

    println!(
        "Indexing {} games of {source} ({moves} moves, {head} blocks) on anvil\n",
        played.len()
    );
    println!("| | measured | bar |");
    println!("|---|---:|---:|");
    for (batch, name) in [(Options::default().batch_blocks, "default"), (100, "small")] {
        let (seconds, db) = backfill(&anvil, referee, name, batch);
        let conn = rusqlite::Connection::open(&db).expect("reopen");
        let indexed_moves = common::count(&conn, "moves");
        assert_eq!(indexed_moves as usize, moves, "every move indexed");
        assert_eq!(common::count(&conn, "divergences"), 0);
        println!(
            "| back-fill, `--batch-blocks {batch}` | {:.0} moves/s, {:.0} games/s | 5,000 moves/s |",
            moves as f64 / seconds,
            played.len() as f64 / seconds
        );
        if batch == Options::default().batch_blocks {
            println!(
                "| database size | {:.1} MB per 1,000 games ({:.2} KB per move) | |",
                file_size(&db) as f64 * 1000.0 / played.len() as f64 / 1e6,
                file_size(&db) as f64 / moves as f64 / 1e3
            );
        }
    }

    // The same back-fill into a throwaway Postgres on loopback (crates/chessref-pgtest;
    // durability off there, as in the tests: an upper bound for a real server's).
    let pg = chessref_pgtest::TempPostgres::start().expect("a throwaway Postgres");
    let target: chessref_index::db::DbTarget = pg.url().parse().expect("its URL");
    let mut store = Store::open_target(&target).expect("open the Postgres index");
    let seconds = backfill_into(&anvil, referee, store, Options::default().batch_blocks);
    store = Store::open_target(&target).expect("reopen");
    let indexed_moves: i64 = {
        use chessref_index::db::Sql;
        store
            .db()
            .query_one("SELECT count(*) FROM moves", &[], "counting", |r| r.get(0))
            .expect("count")
    };
    assert_eq!(
        indexed_moves as usize, moves,
        "every move indexed on Postgres"
    );
    println!(
        "| back-fill into Postgres (loopback, fsync off), default ranges | {:.0} moves/s, {:.0} games/s | |",
        moves as f64 / seconds,
        played.len() as f64 / seconds
    );
    drop((store, pg));

    // Live: the indexer follows in a thread; each move's block is awaited in the file.
    let db = common::temp_db("live");
    let stop = Arc::new(AtomicBool::new(false));
    let follower = {
        let (url, db, stop) = (anvil.url().to_string(), db.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let chain = RpcChain::connect_read_only(&url).expect("connect");
            let store = Store::open(&db).expect("open");
            let options = Options {
                confirmations: 0,
                ..Options::default()
            };
            let mut indexer = Indexer::new(chain, store, referee, 0, options).expect("indexer");
            indexer
                .run(|| stop.load(Ordering::Relaxed), |_| Ok(()))
                .expect("follow");
        })
    };
    let referee_client = replayer.referee();
    let (white, black) = {
        let accounts = referee_client.chain().accounts();
        (accounts[0], accounts[1])
    };
    let setup = GameSetup::eth(black, U256::ZERO);
    let created = referee_client.create_game(white, &setup).expect("create");
    let joined = referee_client
        .join_game(black, created.id, U256::ZERO)
        .expect("join");
    let mut position = Position {
        state: created.state,
        history: created.history,
        clock: joined.clock,
    };
    let conn = loop {
        if let Ok(conn) =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            && conn
                .query_row("SELECT count(*) FROM cursor", [], |_| Ok(()))
                .is_ok()
        {
            break conn;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut lags = Vec::new();
    let opening = [
        "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3", "d7d6",
    ];
    for (ply, uci) in opening.iter().enumerate() {
        let mover = if ply % 2 == 0 { white } else { black };
        let mv = Move::from_uci(uci).expect("uci");
        let moved = referee_client
            .play_move(mover, created.id, &position, RawMove::from(mv).packed())
            .expect("move");
        let sent = Instant::now();
        position = moved.position;
        let id = created.id.to_string();
        loop {
            let indexed: i64 = conn
                .query_row(
                    "SELECT count(*) FROM moves WHERE game_id = ?1",
                    [&id],
                    |r| r.get(0),
                )
                .unwrap_or(0);
            if indexed as usize > ply {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        lags.push(sent.elapsed().as_secs_f64() * 1000.0);
    }
    stop.store(true, Ordering::Relaxed);
    follower.join().expect("the follower thread");
    lags.sort_by(f64::total_cmp);
    println!(
        "| live, a move's block to its row (0 confirmations, {} moves) | median {:.0} ms, max {:.0} ms | 1 s |",
        lags.len(),
        lags[lags.len() / 2],
        lags[lags.len() - 1]
    );
}
